#!/usr/bin/env python3
"""A lab's year in one database (issue 36): what the daily commands cost at that scale.

A lab measures its boards every night with the `full` suite and tags releases. This builds
such a database with platperf's own schema and its own ``Store`` (begin_run, add_results),
then times the commands a lab runs every day, each in a process of its own (wall time and
its peak RSS, from wait4), on SQLite and on the PostgreSQL server the tests start
(tests/pg_server.py ``running_pg()``), and prints the table of the issue with its targets
and the bytes a result costs on disk.

The year, at ``--scale 1`` (the default is a tenth, 0.1):

* 50 boards (5 at a tenth), alternately 3 and 2 CPUs; each night every board runs the full
  suite once: every latency size of mem-latency (seq stride 128 and random, ns and cycles),
  the bw_mem kernels, STREAM and peak, serial and parallel on every CPU, and 88 OS rows a CPU
  (os-syscall ... os-ctx), 2,286 results a run on 3 CPUs and 1,523 on 2;
* samples log-normal around each key's level (sigma 1-2%, a run's own factor of 0.5%), 10 a
  memory result and 5-7 an OS one, with the per-result fields the probe writes (ticks,
  iterations, cost, preemption, steal, context switches, pages, the core clock);
* three step changes a board (a family of keys, 5-15% up or down, from one night on);
* releases v1 ... v40, 20 runs each (2 at a tenth), on the boards in turn;
* 365 nights: 50 x 365 + 40 x 20 = 19,050 runs and about 35 million results (3.6 M).

Then, on each database: `runs`; `show` of a mistyped label; `show LABEL` (a 3-CPU night);
`history` of one board's year (`--target BOARD`, or where this platperf has no --target, the
board's 365 labels with --labels, as the issue measured it); the same with --benchmark
mem-bandwidth; `history` of everything; `compare` of two nights and of two releases;
`report` of one run (md); a `run` of a small suite into the big database (the fake probe of
tests/fake_probe.py). A command that outlives --timeout is killed and said so.

  flock /tmp/heavy.lock .venv/bin/python bench/lab_year.py [--scale 0.1] [--db sqlite,postgresql]
        [--keep DIR] [--timeout 600] [--json FILE]

The same file runs in a checkout of an older platperf (its src/ first on the path): its own
schema and commands are measured, which is how the "before" table is made.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

from platperf.records import Result  # noqa: E402
from platperf.store import Store  # noqa: E402

YEAR_START = dt.datetime(2025, 1, 1, 2, 0, tzinfo=dt.timezone.utc)
NIGHTS = 365
RELEASES = 40
BW_KERNELS = ("rd", "wr", "rdwr", "cp", "frd", "fwr", "fcp", "bzero", "bcopy")
STREAM = ("copy", "scale", "add", "triad")
PEAK = ("peak-read", "peak-write", "peak-copy")
MODES = ("serial", "parallel")
SHORT_LINE = 400      # bytes: the most a "short" error line may hold (five nearest labels fit)
TINY_SUITE = 'name = "tiny"\n[[bench]]\nkernel = "mem-latency"\npattern = "random"\nsize = ["4k", "64k"]\nsamples = 3\nmode = "both"\n'
# The families a step change moves: (name, test on (benchmark, params)).
FAMILIES = (
    ("random latency beyond 1 MiB", lambda b, p: b == "mem-latency" and p["pattern"] == "random"
     and p["size"] > 1 << 20),
    ("bw_mem kernels", lambda b, p: b == "mem-bandwidth" and p["kernel"] in BW_KERNELS),
    ("context switches", lambda b, p: b == "os-ctx"),
    ("system calls", lambda b, p: b == "os-syscall"),
    ("STREAM and peak", lambda b, p: b == "mem-bandwidth" and p["kernel"] not in BW_KERNELS),
)


# -- the rows of one run -------------------------------------------------------------------

def latency_sizes():
    """1 KiB to 128 MiB, 4 points per octave, as the probe's size=auto."""
    return sorted({int(1024 * 2 ** (i / 4)) // 64 * 64 for i in range(4 * 17 + 1)})


def os_rows():
    """(benchmark, params, metric, unit, direction, level, samples): the 88 OS rows of a CPU."""
    rows = [("os-syscall", {"op": op}, "latency", "us", "lower", v, 7)
            for op, v in (("null", 0.16), ("read", 0.21), ("write", 0.19), ("stat", 0.7), ("fstat", 0.3),
                          ("open", 1.6))]
    rows += [("os-signal", {"op": op}, "latency", "us", "lower", v, 7)
             for op, v in (("install", 0.2), ("catch", 1.1), ("prot", 0.9))]
    rows += [("os-ipc", {"kind": k}, "latency", "us", "lower", v, 7)
             for k, v in (("pipe", 5.0), ("unix", 7.0), ("tcp", 14.0), ("connect", 25.0),
                          ("select-tcp", 3.0), ("sem", 2.0))]
    rows += [("os-ipc-bw", {"kind": k}, "bandwidth", "MB/s", "higher", v, 7)
             for k, v in (("pipe", 3000.0), ("unix", 5000.0))]
    rows += [("os-proc", {"op": op}, "latency", "us", "lower", v, 5)
             for op, v in (("fork", 90.0), ("exec", 300.0), ("shell", 900.0), ("proccall", 2.0))]
    rows += [("os-pagefault", {"size": 8 << 20}, "latency", "us", "lower", 0.1, 7),
             ("os-mmap", {"size": 1 << 20}, "latency", "us", "lower", 20.0, 7),
             ("os-mmap", {"size": 8 << 20}, "latency", "us", "lower", 150.0, 7)]
    rows += [("os-file-read", {"method": m, "scope": s}, "bandwidth", "MB/s", "higher", v, 7)
             for m, s, v in (("read", "io", 4000.0), ("read", "o2c", 3000.0), ("mmap", "io", 6000.0),
                             ("mmap", "o2c", 2500.0))]
    rows += [("os-fs", {"size": s}, metric, "files/s", "higher", v, 5)
             for s in (0, 1024, 4096, 10240) for metric, v in (("create", 90000.0), ("delete", 200000.0))]
    rows += [("os-ctx", {"procs": p, "size": s << 10}, "latency", "us", "lower", 2.0 + p * 0.1 + s * 0.05, 5)
             for p in (2, 4, 8, 16) for s in (0, 4, 8, 16, 32, 48, 64, 96, 128, 160, 192, 224, 256)]
    return rows


def memory_rows():
    rows = []
    for pattern, stride in (("seq", 128), ("random", 64)):
        for size in latency_sizes():
            ns = 1.3 if size <= 32 << 10 else 4.0 if size <= 1 << 20 else 15.0 if size <= 32 << 20 else 90.0
            ns *= 1.0 if pattern == "random" else 0.6
            params = {"pattern": pattern, "size": size, "stride": stride}
            rows.append(("mem-latency", params, "latency", "ns", "lower", ns, 10))
            rows.append(("mem-latency", params, "latency_cycles", "cycles", "lower", ns * 1.4, 10))
    for kernel in BW_KERNELS:
        for size in (1, 2, 4, 8, 16):
            rows.append(("mem-bandwidth", {"kernel": kernel, "size": size << 20}, "bandwidth", "MB/s", "higher",
                         9000.0 / (1 + size / 32), 10))
    for kernel in STREAM:
        rows.append(("mem-bandwidth", {"kernel": kernel, "size": 64 << 20}, "bandwidth", "MB/s", "higher", 12000.0, 10))
    for kernel in PEAK:
        for size in (16 << 10, 512 << 10, 8 << 20, 256 << 20):
            rows.append(("mem-bandwidth", {"kernel": kernel, "size": size}, "bandwidth", "MB/s", "higher",
                         30000.0 if size < 1 << 20 else 11000.0, 10))
    return rows


class Board:
    """One board: its CPUs, its keys with their levels and noise, and its three steps."""

    def __init__(self, index: int, rng: random.Random):
        self.name = f"board-{index:02d}"
        self.cpus = 3 if index % 2 == 0 else 2
        self.speed = rng.uniform(0.8, 1.25)
        self.keys = []       # (benchmark, params, metric, unit, direction, cpu, mode, level, sigma, n)
        for mode in MODES:
            for cpu in range(self.cpus):
                for b, p, m, u, d, v, n in memory_rows():
                    self.keys.append((b, p, m, u, d, cpu, mode, v * self.speed, rng.uniform(0.01, 0.02), n))
        for cpu in range(self.cpus):
            for i, (b, p, m, u, d, v, n) in enumerate(os_rows()):
                if self.cpus == 2 and cpu == 1 and i == 0:
                    continue       # one OS row not measured there: 1,523 results a run
                self.keys.append((b, p, m, u, d, cpu, "serial", v * self.speed, rng.uniform(0.01, 0.02), n))
        days = sorted(rng.sample(range(30, NIGHTS - 30), 3))
        self.steps = [(day, rng.randrange(len(FAMILIES)), rng.choice((-1, 1)) * rng.uniform(0.05, 0.15))
                      for day in days]

    def factor(self, day: int, benchmark: str, params: dict) -> float:
        f = 1.0
        for start, family, change in self.steps:
            if day >= start and FAMILIES[family][1](benchmark, params):
                f *= 1 + change
        return f

    def results(self, day: int, rng: random.Random) -> list[Result]:
        run_factor = math.exp(rng.gauss(0, 0.005))
        out = []
        for b, p, m, u, d, cpu, mode, level, sigma, n in self.keys:
            mu = level * run_factor * self.factor(day, b, p)
            samples = [round(mu * math.exp(rng.gauss(0, sigma)), 6) for _ in range(n)]
            out.append(Result(b, p, m, u, d, samples, cpu=cpu, mode=mode, cluster=0, core=cpu,
                              extra=probe_fields(b, m, samples, rng)))
        return out


def probe_fields(benchmark: str, metric: str, samples: list[float], rng: random.Random) -> dict:
    """What the probe writes beside a result's samples (docs/results-format.md), in its shape."""
    target = rng.randrange(1_000_000, 3_000_000)     # a 5-15 ms sample at a 200 MHz counter
    ticks = [int(target * (1 + rng.gauss(0, 0.02))) for _ in samples]
    extra = {"iterations": rng.randrange(20_000, 200_000_000), "ticks": ticks,
             "cost": {"target_ticks": target, "sample_estimate_ticks": int(target * 1.05),
                      "calibration_ticks": rng.randrange(1_000_000, 2_500_000),
                      "warmup_ticks": int(target * 1.08), "sample_ticks": sum(ticks), "retakes": 0},
             "preempted": [], "steal": {"ticks": 0, "retakes": 0, "samples": []},
             "context_switches": {"voluntary": 0, "involuntary": rng.choice((0, 0, 0, 1))}}
    if benchmark.startswith("mem-"):
        extra["pages"] = {"asked": "auto", "backing": "huge", "bytes": rng.randrange(4096, 1 << 28),
                          "huge_bytes": 2097152}
    if metric == "latency_cycles":
        extra["core_clock"] = {"hz": rng.randrange(1_200_000_000, 1_400_000_000),
                               "cycles_per_tick": round(rng.uniform(1.2, 1.5), 9),
                               "error_pct": round(rng.uniform(0.1, 0.7), 10)}
    return extra


def fingerprint(board: Board) -> dict:
    """A board's fingerprint as platperf.fingerprint.collect gives it (AM62x's tree), its name."""
    from platperf.fingerprint import collect
    fp = collect(str(ROOT / "tests" / "fixtures" / "sysfs" / "am62x"))
    fp["hostname"] = board.name
    return fp


META = {"type": "meta", "schema": 1, "probe_version": "0.1.0", "build_id": "617e27975bb68456",
        "arch": "aarch64", "compiler": "gcc 12.2.0", "cflags": "-O2 -std=c11 -static -pthread",
        "counter": {"name": "cntvct_el0", "freq_hz": 200000000, "freq_source": "cntfrq_el0",
                    "resolution_ns": 5.0, "read_overhead_ns": 8.2}, "cpus_online": [0, 1, 2],
        "page_size": 4096, "features": ["asimd", "crc32"], "peak_isa": "neon", "fallback": False}


def findings(board: Board, day: int) -> list[dict]:
    """The doctor's findings and the probe's warnings a run keeps (about 8 KB)."""
    out = [{"level": "warn", "code": "governor-not-performance", "source": "doctor",
            "message": f"cpufreq governor is schedutil on CPUs 0-{board.cpus - 1}",
            "effect": "frequency ramps during a sample; results vary with load",
            "fix": "echo performance > /sys/devices/system/cpu/cpufreq/policy0/scaling_governor"}]
    for i in range(24):
        out.append({"level": "info", "code": "sample-preempted", "source": "probe", "cpu": i % board.cpus,
                    "message": f"{1 + (day + i) % 3} of 10 samples are kept although preempted "
                               f"(step {i}: mem-latency size {1 << (10 + i % 17)})",
                    "effect": "a preempted sample is slower than the key's others",
                    "fix": "isolate the CPU (isolcpus=) or run with fewer background services"})
    return out


# -- building the database -----------------------------------------------------------------

def build(db: str, scale: float, say, nights: int = NIGHTS) -> dict:
    """The year into ``db``; returns what it holds (runs, results, labels used below)."""
    boards_n = max(1, round(50 * scale))
    per_release = max(1, round(20 * scale))
    rng = random.Random(36)
    boards = [Board(i, rng) for i in range(boards_n)]
    prints = {b.name: fingerprint(b) for b in boards}
    releases = {round((k + 1) * nights / (RELEASES + 1)): k + 1 for k in range(RELEASES)}
    store = Store(db)
    runs = results = 0
    t0 = time.perf_counter()
    for day in range(nights):
        date = (YEAR_START + dt.timedelta(days=day)).date().isoformat()
        plan = [(b, f"{b.name}-nightly-{date}", i * 7) for i, b in enumerate(boards)]
        if day in releases:
            k = releases[day]
            plan += [(boards[j % boards_n], f"v{k}", 300 + j * 11) for j in range(per_release)]
        for board, label, minute in plan:
            rows = board.results(day, rng)
            started = YEAR_START + dt.timedelta(days=day, minutes=minute)
            with store.transaction() as c:
                run_id = store.begin_run(label=label, target=board.name, suite="full", source="probe",
                                         fingerprint=prints[board.name], findings=findings(board, day),
                                         meta={**META, "start_time": _iso(started)}, conn=c)
                store.add_results(run_id, rows, conn=c)
                store.update_run(run_id, conn=c, status="complete", started_at=_iso(started),
                                 finished_at=_iso(started + dt.timedelta(minutes=40)))
            runs += 1
            results += len(rows)
        if day % 30 == 29:
            say(f"  day {day + 1}: {runs:,} runs, {results:,} results, {time.perf_counter() - t0:.0f} s")
    store.engine.dispose()
    three = boards[1] if boards_n > 1 and boards[1].cpus == 3 else boards[0]
    labels = [f"{boards[0].name}-nightly-{(YEAR_START + dt.timedelta(days=d)).date().isoformat()}"
              for d in range(nights)]
    return {"scale": scale, "boards": [b.name for b in boards], "runs": runs, "results": results,
            "build_s": round(time.perf_counter() - t0, 1), "board": boards[0].name,
            "board_labels": labels,
            "night": labels[nights // 2], "night_before": labels[nights // 2 - 1],
            "mistyped": labels[0][:-5] + "06-31", "three_cpu_board": three.name,
            "releases": (f"v{RELEASES - 1}", f"v{RELEASES}")}


def _iso(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


# -- bytes on disk -------------------------------------------------------------------------

def sqlite_bytes(path: Path) -> dict:
    with sqlite3.connect(path) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        tables = {}
        try:
            for name, size in c.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
                tables[name] = size
        except sqlite3.Error:
            pass
    return {"total": path.stat().st_size, "tables": tables}


def pg_bytes(url: str) -> dict:
    import psycopg
    with psycopg.connect(url.replace("postgresql+psycopg", "postgresql")) as c:
        rows = c.execute("SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
                         "JOIN pg_namespace n ON n.oid = c.relnamespace "
                         "WHERE n.nspname = 'public' AND c.relkind = 'r'").fetchall()
        total = c.execute("SELECT pg_database_size(current_database())").fetchone()[0]
    return {"total": total, "tables": dict(rows)}


# -- the commands --------------------------------------------------------------------------

def platperf_env(work: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PLATPERF_", "FAKE_PROBE"))}
    wrapper = work / "platperf-probe"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {ROOT / 'tests' / 'fake_probe.py'} \"$@\"\n")
    wrapper.chmod(0o755)
    env.update(PYTHONPATH=str(ROOT / "src"), PLATPERF_PROBE=str(wrapper), FAKE_PROBE_BEHAVIOUR="complete",
               COLUMNS="200", XDG_STATE_HOME=str(work / "state"))
    return env


def timed(argv: list[str], env: dict, cwd: Path, timeout: float) -> dict:
    """One command in a process of its own: wall seconds, peak RSS (MB), exit code, output size
    and the first line of its error; killed (with its group) past ``timeout``."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "platperf", *argv], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    import selectors
    sizes = {proc.stdout: 0, proc.stderr: 0}
    tail = bytearray()            # the end of stderr: its last line is the error
    sel = selectors.DefaultSelector()
    for stream in sizes:
        sel.register(stream, selectors.EVENT_READ)
    killed = False
    while sizes and sel.get_map():
        left = timeout - (time.perf_counter() - t0)
        if left <= 0:
            os.killpg(proc.pid, signal.SIGKILL)
            killed = True
            break
        for key, _ in sel.select(min(left, 1.0)):
            chunk = key.fileobj.read1(1 << 16)
            if not chunk:
                sel.unregister(key.fileobj)
                continue
            sizes[key.fileobj] += len(chunk)
            if key.fileobj is proc.stderr:
                tail = (tail + chunk)[-(1 << 20):]
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    lines = tail.decode(errors="replace").strip().splitlines()
    return {"wall": round(wall, 2), "rss_mb": round(usage.ru_maxrss / 1024), "code": code, "killed": killed,
            "stdout_bytes": sizes[proc.stdout], "error": lines[-1][:300] if lines else "",
            "error_bytes": len(lines[-1]) if lines else 0}


def commands(info: dict, has_target: bool) -> list[tuple[str, list[str], float | None, str]]:
    """(row, argv, target seconds, what the target stands for)."""
    board = info["board"]
    boards = len(info["boards"])
    one_board = (["history", "--target", board] if has_target
                 else ["history", "--labels", ",".join(info["board_labels"])])
    return [
        ("`platperf runs`", ["runs"], 2.0, ""),
        ("`platperf show` of a mistyped label", ["show", info["mistyped"]], 2.0, "exit 2, one short line"),
        ("`platperf show LABEL`", ["show", info["night"]], 2.0, ""),
        ("`history` of one board's year", one_board, 5.0, ""),
        ("the same with `--benchmark mem-bandwidth`", [*one_board, "--benchmark", "mem-bandwidth"], 5.0, ""),
        ("`history` (every run)", ["history"], 5.0 * boards, "5 s a board: in proportion to the series"),
        ("`compare` two nights", ["compare", info["night_before"], info["night"]], 10.0, ""),
        ("`compare` two releases", ["compare", *info["releases"]], 10.0, ""),
        ("`report` one run (md)", ["report", info["night"], "--format", "md"], 10.0, ""),
        ("a `run` into the big database", ["run", "--suite", "tiny.toml", "--label", "bench-run"], 10.0, ""),
    ]


def measure(db: str, info: dict, work: Path, timeout: float, say) -> list[dict]:
    env = platperf_env(work)
    (work / "tiny.toml").write_text(TINY_SUITE)
    help_text = subprocess.run([sys.executable, "-m", "platperf", "history", "--help"], env=env,
                               capture_output=True, text=True).stdout
    has_target = "--target" in help_text
    rows = []
    for name, argv, target, note in commands(info, has_target):
        got = timed([*argv, "--db", db], env, work, timeout)
        got.update(row=name, target=target, note=note, argv=" ".join(argv)[:120])
        say(f"  {name}: {got['wall']} s, {got['rss_mb']} MB, exit {got['code']}"
            + (" (killed)" if got["killed"] else "") + (f": {got['error'][:160]}" if got["code"] else ""))
        rows.append(got)
    return rows


def cell(got: dict | None) -> str:
    if got is None:
        return "—"
    if got["killed"]:
        return f"**killed at {got['wall']:.0f} s, {got['rss_mb']} MB**"
    text = f"{got['wall']:.1f} / {got['rss_mb']}"
    if got["code"] not in (0, 2) or (got["code"] == 2 and "mistyped" not in got["row"]):
        text += f" (exit {got['code']})"
    if "mistyped" in got["row"]:
        text += f", a {got['error_bytes']:,}-byte line"
    long_line = "mistyped" in got["row"] and got["error_bytes"] > SHORT_LINE
    if got["target"] is not None and got["wall"] > got["target"] or long_line:
        text = f"**{text}**"
    return text


def print_table(results: dict, info: dict):
    kinds = list(results)
    print(f"\n{info['runs']:,} runs, {info['results']:,} results, {len(info['boards'])} boards "
          f"(scale {info['scale']:g}); wall s / peak MB; over the target in bold\n")
    print("| command | " + " | ".join(kinds) + " | target |")
    print("|---|" + "---|" * len(kinds) + "---|")
    names = [r["row"] for r in next(iter(results.values()))["commands"]]
    for i, name in enumerate(names):
        first = results[kinds[0]]["commands"][i]
        target = f"≤ {first['target']:g} s" + (f" ({first['note']})" if first["note"] else "")
        print(f"| {name} | " + " | ".join(cell(results[k]["commands"][i]) for k in kinds) + f" | {target} |")
    print("| bytes per result on disk | " + " | ".join(
        f"{results[k]['bytes']['total'] / info['results']:.0f}" for k in kinds) + " | |")
    for k in kinds:
        tables = results[k]["bytes"].get("tables") or {}
        if tables:
            parts = ", ".join(f"{n} {v / info['results']:.0f}" for n, v in
                              sorted(tables.items(), key=lambda kv: -kv[1]) if v / info["results"] >= 1)
            print(f"\n{k}: bytes per result by table and index: {parts}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=0.1, help="1: 50 boards, 19,050 runs; 0.1: 5 boards")
    ap.add_argument("--db", default="sqlite,postgresql", help="sqlite, postgresql or both")
    ap.add_argument("--keep", type=Path, help="build the SQLite database there and keep it; "
                                              "an existing one of the same scale is used again")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds a command may take")
    ap.add_argument("--json", type=Path, help="also write every figure there")
    ap.add_argument("--nights", type=int, default=NIGHTS, help="fewer nights: a quick try of this script")
    ap.add_argument("--table", type=Path, nargs="+", metavar="JSON",
                    help="print the table of earlier --json files side by side (before, after) and stop")
    args = ap.parse_args()
    if args.table:
        saved = [json.loads(p.read_text()) for p in args.table]
        print_table({f"{kind} ({p.stem})": got for p, doc in zip(args.table, saved)
                     for kind, got in doc["results"].items()}, saved[0]["info"])
        return

    def say(text):
        print(text, file=sys.stderr, flush=True)

    work = Path(tempfile.mkdtemp(prefix="platperf-lab-"))
    results: dict = {}
    info = None
    for kind in args.db.split(","):
        if kind == "sqlite":
            where = args.keep or work
            where.mkdir(parents=True, exist_ok=True)
            path = where / f"lab-{args.scale:g}-{args.nights}.db"
            info_file = path.with_suffix(".json")
            if path.exists() and info_file.exists():
                info = json.loads(info_file.read_text())
                say(f"sqlite: using {path} ({info['runs']:,} runs)")
            else:
                path.unlink(missing_ok=True)
                say(f"sqlite: building {path}")
                info = build(str(path), args.scale, say, args.nights)
                info_file.write_text(json.dumps(info))
            results["SQLite"] = {"bytes": sqlite_bytes(path), "build_s": info["build_s"],
                                 "commands": measure(str(path), info, work, args.timeout, say)}
        elif kind == "postgresql":
            import conftest  # noqa: F401  (pg_server imports it first)
            from pg_server import running_pg
            with running_pg(missing=sys.exit, fail=sys.exit) as pg:
                with pg.admin() as c:
                    c.execute('CREATE DATABASE "lab"')
                url = pg.url("lab")
                say(f"postgresql: building {url}")
                built = build(url, args.scale, say, args.nights)
                info = info or built
                results["PostgreSQL"] = {"bytes": pg_bytes(url), "build_s": built["build_s"],
                                         "commands": measure(url, info, work, args.timeout, say)}
        else:
            sys.exit(f"--db: unknown database kind {kind!r} (sqlite, postgresql)")
    print_table(results, info)
    if args.json:
        args.json.write_text(json.dumps({"info": {k: v for k, v in info.items() if k != "board_labels"},
                                         "results": results}, indent=1))


if __name__ == "__main__":
    main()
