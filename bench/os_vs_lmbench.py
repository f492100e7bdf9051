"""platperf's OS kernels against LMBench 3: every OS row of TI's table, same CPU, one run.

LMBench is built from its source in /tmp (never part of platperf): give its checkout with
--lmbench-src (default /tmp/lmbench3; e.g. `git clone https://github.com/intel/lmbench
/tmp/lmbench3`). Its programs are compiled directly with gcc, the SunRPC parts stubbed out
(lat_rpc is not measured), and linked with -lm as its Makefile links them (hello too).

Per round, per LMBench program call, the two tools run back to back on the same CPU
(`taskset -c CPU` for LMBench, `--cpus CPU` for the probe), which one goes first
alternating from round to round; the figure per row and tool is the median over the rounds,
with the spread (max / min over the rounds) printed beside it. LMBench runs with its fixed
repetition options (-N ROUNDS_REPS, -W 1 where the program has them) and ENOUGH=5000 in its
environment, the timing interval its own `config-run` would otherwise spend ~34 s per call
finding (lib_timing.c compute_enough); the probe runs --samples 7 --min-time 0.005, the same
5 ms intervals. Three extra rows are not TI's: lat_proc-exec/shell with the probe exec'ing
LMBench's own hello (--program), and a third, independent timing of the lat_syscall rows:
a C loop built here in /tmp (clock_gettime around 5 ms of calls, median of 7), the referee
when the two tools disagree.

Prints per row: LMBench, platperf, platperf / LMBench, the referee where there is one, and
whether the row is within +-10 % or why not. A reason is only what this run measured: rounds
that stalled (at least 5x the row's fastest), whether the rounds' spread covers the ratio,
and what the run measured beside the row: LMBench's lat_pagefault again on a file written in
64 KiB chunks as the probe writes its own (LMBench's is written in one write), a fork C loop
built dynamic with libm (as LMBench) and static (as the probe), the exec of LMBench's own
hello, lat_ctx's hop before each tool subtracted its overhead (and the ratio with LMBench's
overhead taken from platperf's hop: when the hops agree within 10 %, the difference is the
overheads). Then the lat_ctx overheads each tool subtracted, and both wall times. Takes ~15 min at 3 rounds on a
2-CPU VM. Run under the heavy-work lock:
  flock /tmp/heavy.lock .venv/bin/python bench/os_vs_lmbench.py [--cpu N] [--rounds 3] [--rows REGEX]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from platperf.probe_path import ProbeNotFound, find_probe  # noqa: E402
from platperf.vocab.lmbench import LAT_CTX_PROCS, LAT_CTX_SIZES_K, LMBENCH_OS_ROWS  # noqa: E402

PROGRAMS = ("lat_syscall lat_sig lat_pipe lat_unix lat_tcp lat_connect lat_select lat_sem lat_ctx lat_proc "
            "lat_pagefault lat_mmap lat_fs bw_file_rd bw_mmap_rd bw_pipe bw_unix hello").split()
LIBS = "lib_tcp.c lib_udp.c lib_unix.c lib_timing.c lib_mem.c lib_stats.c lib_debug.c getopt.c lib_sched.c".split()
PMAP_STUB = """int pmap_set(unsigned long a, unsigned long b, int c, unsigned short d) { return 1; }
int pmap_unset(unsigned long a, unsigned long b) { return 1; }
unsigned short pmap_getport(void *a, unsigned long b, unsigned long c, unsigned int d) { return 0; }
"""
ENOUGH_US = 5000          # LMBench's timing interval (us), as the probe's --min-time 0.005
CHUNK = 64 << 10          # the probe writes its scratch files in 64 KiB writes (scratch.c)
CHUNKED = "LMBench on a file written in 64 KiB chunks, as the probe's"
REPS = 7                  # LMBench -N, the probe --samples

# The referee: the lat_syscall calls in a plain loop, timed with clock_gettime (our own code).
REFEREE_C = Path(__file__).resolve().with_name("os_vs_lmbench_referee.c")


def build_lmbench(src: Path, out: Path) -> Path:
    stub = out / "stub"
    (stub / "rpc").mkdir(parents=True, exist_ok=True)
    for h in ("rpc.h", "types.h"):
        (stub / "rpc" / h).write_text("")
    (stub / "pmap_stub.c").write_text(PMAP_STUB)
    bin_dir = out / "bin"
    bin_dir.mkdir(exist_ok=True)
    for prog in PROGRAMS:
        target = bin_dir / prog
        if target.exists():
            continue
        subprocess.run(["gcc", "-O2", "-w", "-fcommon", f"-I{stub}", "-D_GNU_SOURCE", "-o", str(target),
                        f"{prog}.c", *LIBS, str(stub / "pmap_stub.c"), "-lm"], cwd=src / "src", check=True)
    for name, flags in (("syscall-referee", []), ("syscall-referee-static", ["-static"])):
        subprocess.run(["gcc", "-O2", *flags, "-o", str(out / name), str(REFEREE_C), "-lm"],
                       check=True)
    return bin_dir


def last_number(text: str) -> float | None:
    m = re.findall(r"([0-9.]+) (?:microseconds|MB/sec)", text)
    if m:
        return float(m[-1])
    lines = [ln for ln in text.splitlines() if ln.strip()]
    nums = re.findall(r"[0-9]+(?:\.[0-9]+)?", lines[-1]) if lines else []
    return float(nums[-1]) if nums else None


@dataclass
class Group:
    """One LMBench program call and the probe run that measures the same rows."""
    rows: list[str]
    lm_prog: str
    lm_args: list[str]
    kernel: str
    probe_args: list[str]
    lm_opts: list[str] = field(default_factory=lambda: ["-N", str(REPS), "-W", "1"])
    server: bool = False                 # lat_tcp / lat_connect: start `-s`, stop `-S localhost`
    referee: str | None = None           # lat_syscall op for the C loop
    # more LMBench calls in the same round, each (what it measures, its arguments): their
    # figures are the row's measured reason (lat_pagefault on a file written as the probe's)
    lm_also: list[tuple[str, list[str]]] = field(default_factory=list)
    # the C loop's op, built dynamic (with libm, as LMBench) and static (as the probe): the
    # measured reason of a row whose figure depends on the program (lat_proc-fork)
    program_referee: str | None = None


@dataclass
class Tally:
    lm: dict[str, list[float]] = field(default_factory=dict)
    pp: dict[str, list[float]] = field(default_factory=dict)
    ref: dict[str, list[float]] = field(default_factory=dict)
    # row -> what was measured beside it (lm_also, program_referee) -> figures over the rounds
    side: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    lm_ovr: dict[str, list[float]] = field(default_factory=dict)
    pp_ovr: dict[str, list[float]] = field(default_factory=dict)
    lm_wall: float = 0.0
    pp_wall: float = 0.0


def groups(files: dict[str, Path], fs_dir: Path) -> list[Group]:
    f4k, f1m, f8m = str(files["4k"]), str(files["1m"]), str(files["8m"])
    f8m_chunks = str(files["8m-chunks"])
    g = [Group([f"lat_syscall-{op}"], "lat_syscall", [op, f4k], "os-syscall", ["--op", op], referee=op)
         for op in ("null", "read", "write", "stat", "fstat", "open")]
    g += [Group(["lat_sig-install"], "lat_sig", ["install"], "os-signal", ["--op", "install"]),
          Group(["lat_sig-catch"], "lat_sig", ["catch"], "os-signal", ["--op", "catch"]),
          Group(["lat_sig-prot"], "lat_sig", ["prot", f1m], "os-signal", ["--op", "prot"])]
    g += [Group([row], row, [], "os-ipc", ["--kind", kind])
          for row, kind in (("lat_pipe", "pipe"), ("lat_unix", "unix"), ("lat_sem", "sem"))]
    g += [Group(["lat_tcp"], "lat_tcp", ["localhost"], "os-ipc", ["--kind", "tcp"], server=True),
          Group(["lat_connect"], "lat_connect", ["localhost"], "os-ipc", ["--kind", "connect"],
                lm_opts=["-N", str(REPS)], server=True),
          Group(["lat_select"], "lat_select", ["-n", "200", "tcp"], "os-ipc", ["--kind", "select-tcp"])]
    procs = ",".join(map(str, LAT_CTX_PROCS))
    g += [Group([f"lat_ctx-{p}-{s}k" for p in LAT_CTX_PROCS], "lat_ctx", ["-s", str(s), *map(str, LAT_CTX_PROCS)],
                "os-ctx", ["--procs", procs, "--size", f"{s}k"]) for s in LAT_CTX_SIZES_K]
    g += [Group([f"lat_proc-{op}"], "lat_proc", [lm_op], "os-proc", ["--op", op],
                program_referee="fork" if op == "fork" else None)
          for op, lm_op in (("fork", "fork"), ("exec", "exec"), ("shell", "shell"), ("proccall", "procedure"))]
    # not TI's: the probe exec'ing LMBench's own program, to separate the program from the method
    g += [Group([f"lat_proc-{op}@hello"], "lat_proc", [op], "os-proc", ["--op", op, "--program", "/tmp/hello"])
          for op in ("exec", "shell")]
    g += [Group(["lat_pagefault"], "lat_pagefault", [f8m], "os-pagefault", ["--size", "8m"],
                lm_also=[(CHUNKED, [f8m_chunks])]),
          Group(["lat_mmap-1m"], "lat_mmap", ["1m", f1m], "os-mmap", []),
          Group([f"lat_fs-{s}k" for s in (0, 1, 4, 10)], "lat_fs", [str(fs_dir)], "os-fs", [])]
    g += [Group([row], prog, ["1m", mode, f1m], "os-file-read", ["--method", method, "--scope", scope])
          for row, prog, mode, method, scope in (
              ("bw_file_rd-io-1mb", "bw_file_rd", "io_only", "read", "io"),
              ("bw_file_rd-o2c-1mb", "bw_file_rd", "open2close", "read", "o2c"),
              ("bw_mmap_rd-mo-1mb", "bw_mmap_rd", "mmap_only", "mmap", "io"),
              ("bw_mmap_rd-o2c-1mb", "bw_mmap_rd", "open2close", "mmap", "o2c"))]
    g += [Group([row], row, [], "os-ipc-bw", ["--kind", kind]) for row, kind in (("bw_pipe", "pipe"),
                                                                               ("bw_unix", "unix"))]
    return g


class Runner:
    def __init__(self, bin_dir: Path, probe: Path, cpu: int, work: Path, log: str | None):
        self.bin, self.probe, self.cpu, self.work, self.log_file = bin_dir, probe, cpu, work, log
        self.env = {**os.environ, "ENOUGH": str(ENOUGH_US)}
        self.keys = {(b, json.dumps(p, sort_keys=True), m): name for name, b, p, m, _ in LMBENCH_OS_ROWS}

    def log(self, argv, text: str) -> None:
        if self.log_file:
            with open(self.log_file, "a") as f:
                f.write(f"$ {' '.join(map(str, argv))}\n{text}\n")

    def lmbench(self, grp: Group, t: Tally) -> None:
        argv = ["taskset", "-c", str(self.cpu), str(self.bin / grp.lm_prog), *grp.lm_opts, *grp.lm_args]
        server = None
        t0 = time.monotonic()
        try:
            if grp.server:
                # the server forks itself into the background: its own session, so it can be ended by id
                server = subprocess.Popen(["taskset", "-c", str(self.cpu), str(self.bin / grp.lm_prog), "-s"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.work,
                                          env=self.env, start_new_session=True)
                server.wait(timeout=30)
                time.sleep(0.2)
            proc = subprocess.run(argv, capture_output=True, text=True, cwd=self.work, env=self.env, timeout=900)
        finally:
            if server is not None:
                subprocess.run([str(self.bin / grp.lm_prog), "-S", "localhost"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=30, cwd=self.work, env=self.env)
                try:
                    os.killpg(server.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        t.lm_wall += time.monotonic() - t0
        text = proc.stdout + proc.stderr
        self.log(argv, text)
        if grp.lm_prog == "lat_ctx":
            m = re.search(r"size=(\d+)k ovr=([0-9.]+)", text)
            if m:
                t.lm_ovr.setdefault(f"{m.group(1)}k", []).append(float(m.group(2)))
            for row in grp.rows:
                p = row.split("-")[1]
                m = re.search(rf"^{p} ([0-9.]+)$", text, re.MULTILINE)
                if m:     # LMBench prints nothing for a point that came out negative
                    t.lm.setdefault(row, []).append(float(m.group(1)))
        elif grp.lm_prog == "lat_fs":
            for row in grp.rows:
                m = re.search(rf"^{row.split('-')[1]}\s+\d+\s+([0-9.]+)", text, re.MULTILINE)
                if m:
                    t.lm.setdefault(row, []).append(float(m.group(1)))
        else:
            v = last_number(text)
            if v is not None:
                t.lm.setdefault(grp.rows[0], []).append(v)
        for label, args in grp.lm_also:
            also = ["taskset", "-c", str(self.cpu), str(self.bin / grp.lm_prog), *grp.lm_opts, *args]
            proc = subprocess.run(also, capture_output=True, text=True, cwd=self.work, env=self.env, timeout=900)
            self.log(also, proc.stdout + proc.stderr)
            v = last_number(proc.stdout + proc.stderr)
            if v is not None:
                t.side.setdefault(grp.rows[0], {}).setdefault(label, []).append(v)

    def platperf(self, grp: Group, t: Tally) -> None:
        argv = [str(self.probe), "run", grp.kernel, *grp.probe_args, "--cpus", str(self.cpu), "--samples", str(REPS),
                "--min-time", str(ENOUGH_US / 1e6), "--dir", str(self.work)]
        t0 = time.monotonic()
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=900)
        t.pp_wall += time.monotonic() - t0
        if proc.returncode != 0:
            print(f"platperf failed ({proc.returncode}): {' '.join(argv)}: {proc.stderr.strip()}", file=sys.stderr)
        out = proc.stdout
        for line in out.splitlines():
            rec = json.loads(line)
            if rec["type"] == "warning" and rec.get("code") == "os-unsupported":
                self.log(argv, rec["message"])
            if rec["type"] != "result":
                continue
            params = dict(rec["params"])
            program = params.pop("program", None)
            name = self.keys.get((rec["benchmark"], json.dumps(params, sort_keys=True), rec["metric"]))
            if name and program:
                name += "@hello"
            if name in grp.rows:
                t.pp.setdefault(name, []).append(rec["summary"]["median"])
                if rec["benchmark"] == "os-ctx":
                    t.pp_ovr.setdefault(f"{rec['params']['size'] // 1024}k-{rec['params']['procs']}",
                                        []).append(rec["overhead_subtracted"])

    def c_loop(self, program: str, op: str, f4k: Path) -> float | None:
        argv = ["taskset", "-c", str(self.cpu), str(self.bin.parent / program), op, str(f4k)]
        out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        self.log(argv, out.stdout + out.stderr)
        return float(out.stdout) if out.returncode == 0 else None

    def referee(self, grp: Group, t: Tally, f4k: Path) -> None:
        if grp.referee and (v := self.c_loop("syscall-referee", grp.referee, f4k)) is not None:
            t.ref.setdefault(grp.rows[0], []).append(v)
        for label, program in ((f"C loop {grp.program_referee}, dynamic with libm", "syscall-referee"),
                               (f"C loop {grp.program_referee}, static", "syscall-referee-static")):
            if grp.program_referee and (v := self.c_loop(program, grp.program_referee, f4k)) is not None:
                t.side.setdefault(grp.rows[0], {}).setdefault(label, []).append(v)


# A round at least this many times the fastest of its row is a stall (lat_connect: 7.4 ms
# rounds among 80 us ones), not the spread of the measurement.
STALL_FACTOR = 5.0


def spread(values: list[float]) -> float:
    return max(values) / min(values) if values and min(values) > 0 else float("inf")


def stalled(values: list[float]) -> list[float]:
    return [v for v in values if v >= STALL_FACTOR * min(values)] if values and min(values) > 0 else []


def measured_beside(row: str, t: Tally) -> list[str]:
    """What this run measured beside the row, as its reason: the other LMBench calls and C
    loops of its group (lat_pagefault's file, lat_proc-fork's program), the exec of LMBench's
    own program, and lat_ctx's timings before the overhead subtraction."""
    out = [f"{label}: {statistics.median(v):.4g}" for label, v in t.side.get(row, {}).items()]
    if row == "lat_pagefault" and t.side.get(row, {}).get(CHUNKED) and t.pp.get(row):
        out[-1] += f" (platperf / that {statistics.median(t.pp[row]) / statistics.median(t.side[row][CHUNKED]):.2f})"
    hello = f"{row}@hello"
    if t.lm.get(hello) and t.pp.get(hello):
        out.append(f"with LMBench's hello exec'd: ratio {statistics.median(t.pp[hello]) / statistics.median(t.lm[hello]):.2f}")
    return out + ctx_reason(row, t)


def ctx_reason(row: str, t: Tally) -> list[str]:
    """A lat_ctx row's figure is a hop less an overhead (a pipe round trip and the sum over the
    working set, in one process, cache-warm): both as each tool measured them in this run, and
    which of the two the difference is in (10 %: the rows' own tolerance)."""
    m = re.match(r"lat_ctx-(\d+)-(\d+k)$", row)
    if not (m and t.lm_ovr.get(m.group(2)) and t.pp_ovr.get(f"{m.group(2)}-{m.group(1)}")):
        return []
    lo, po = statistics.median(t.lm_ovr[m.group(2)]), statistics.median(t.pp_ovr[f"{m.group(2)}-{m.group(1)}"])
    lm, pp = statistics.median(t.lm[row]), statistics.median(t.pp[row])
    lm_hop, pp_hop = lm + lo, pp + po
    out = [f"hop before the overhead subtraction: LMBench {lm_hop:.3g}, platperf {pp_hop:.3g} us "
           f"({pp_hop / lm_hop:.2f}); overheads {lo:.3g} and {po:.3g} us ({po / lo:.2f})"]
    out.append(f"platperf's hop less LMBench's overhead: ratio {(pp_hop - lo) / lm:.2f}" if pp_hop > lo else
               "LMBench's overhead is longer than platperf's whole hop")
    hops_agree, ovr_agree = abs(pp_hop / lm_hop - 1) <= 0.10, abs(po / lo - 1) <= 0.10
    covered = max(spread(t.lm[row]), spread(t.pp[row]), spread(t.lm_ovr[m.group(2)]),
                  spread(t.pp_ovr[f"{m.group(2)}-{m.group(1)}"])) >= max(pp_hop / lm_hop, lm_hop / pp_hop)
    if covered and not hops_agree:
        out.append("the rounds' spread of the figures or the overheads covers the hops' ratio: "
                   "no part of the difference is measured")
    elif hops_agree:
        out.append("the hops agree: the difference is the overhead each subtracted" if not ovr_agree else
                   f"hops and overheads each agree within 10 %: the figure is a small difference of two "
                   f"timings ({lm:.3g} of {lm_hop:.3g} us)")
    else:
        out.append("the hops differ, the overheads do not: the difference is the ring itself" if ovr_agree else
                   f"hop and overhead both differ ({pp_hop / lm_hop:.2f}, {po / lo:.2f})")
    return out


def why(row: str, t: Tally, ratio: float) -> str:
    """The reason printed beside a ratio outside +-10 %, from this run only: its stalled rounds,
    what it measured beside the row, and whether the rounds' spread covers the ratio."""
    a, b = t.lm[row], t.pp[row]
    parts = []
    for tool, values in (("LMBench", a), ("platperf", b)):
        if st := stalled(values):
            parts.append(f"{tool}: {len(st)} of {len(values)} rounds stalled ({', '.join(f'{v:.4g}' for v in st)}"
                         f" against {min(values):.4g})")
    clean_a, clean_b = [v for v in a if v not in stalled(a)], [v for v in b if v not in stalled(b)]
    if parts and clean_a and clean_b:
        parts.append(f"ratio of the other rounds {statistics.median(clean_b) / statistics.median(clean_a):.2f}")
    parts += measured_beside(row, t)
    sa, sb, off = spread(clean_a or a), spread(clean_b or b), max(ratio, 1 / ratio)
    parts.append(f"{'within' if max(sa, sb) >= off else 'beyond'} the rounds' spread "
                 f"(LMBench {sa:.2f}x, platperf {sb:.2f}x)")
    return "; ".join(parts)


def fmt(values: list[float] | None) -> str:
    if not values:
        return f"{'-':>10} {'':>5}"
    return f"{statistics.median(values):10.4g} {max(values) / min(values) if min(values) > 0 else 0:5.2f}"


def report(rows: list[str], t: Tally, rounds: int) -> int:
    units = {name: unit for name, _, _, _, unit in LMBENCH_OS_ROWS}
    print(f"\nmedian over {rounds} rounds (spread = max/min over the rounds); ratio = platperf / LMBench")
    print(f"{'row':28} {'LMBench':>10} {'spread':>5} {'platperf':>10} {'spread':>5} {'ratio':>6} "
          f"{'C loop':>8}  within 10% / why")
    within = 0
    for r in rows:
        a, b = t.lm.get(r), t.pp.get(r)
        unit = units.get(r.split("@")[0], "")
        ref = f"{statistics.median(t.ref[r]):8.4g}" if r in t.ref else f"{'':>8}"
        if not a or not b:
            print(f"{r + ' (' + unit + ')':28} {fmt(a)} {fmt(b)} {'':>6} {ref}  "
                  f"{'LMBench printed nothing (negative)' if not a else 'platperf: no result'}")
            continue
        ratio = statistics.median(b) / statistics.median(a)
        ok = abs(ratio - 1) <= 0.10
        within += ok and "@" not in r
        why_text = "yes" if ok else "no: " + why(r, t, ratio)
        print(f"{r + ' (' + unit + ')':28} {fmt(a)} {fmt(b)} {ratio:6.2f} {ref}  {why_text}")
    print(f"rows within 10 %: {within} of {len([r for r in rows if '@' not in r])}")
    if t.lm_ovr or t.pp_ovr:
        print("\nlat_ctx overhead subtracted per hop (us): LMBench once per size for the largest ring; "
              "platperf per point")
        for s in LAT_CTX_SIZES_K:
            pp = "  ".join(f"P={p}: {statistics.median(t.pp_ovr[f'{s}k-{p}']):.3g}"
                           for p in LAT_CTX_PROCS if f"{s}k-{p}" in t.pp_ovr)
            lm = t.lm_ovr.get(f"{s}k")
            print(f"  {s:>3}k  LMBench {statistics.median(lm) if lm else float('nan'):7.3g}   platperf {pp}")
    print(f"\nwall time: LMBench {t.lm_wall:.1f} s (ENOUGH={ENOUGH_US}, -N {REPS}), platperf {t.pp_wall:.1f} s, "
          f"platperf / LMBench = {t.pp_wall / t.lm_wall if t.lm_wall else 0:.3f}")
    return 0


def write_file(path: Path, data: bytes, chunk: int) -> None:
    """``data`` in writes of ``chunk`` bytes: LMBench's files in one write, the probe's in 64 KiB
    ones, and the file's page-cache layout follows (lat_pagefault's row)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view[:chunk]):]
    finally:
        os.close(fd)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", type=int, default=os.cpu_count() - 1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--lmbench-src", type=Path, default=Path("/tmp/lmbench3"))
    ap.add_argument("--rows", default="", help="only rows matching this regular expression")
    ap.add_argument("--log", help="append every command's raw output here")
    opts = ap.parse_args()
    if not (opts.lmbench_src / "src" / "lat_syscall.c").exists():
        print(f"no LMBench 3 source in {opts.lmbench_src}: clone it there first, e.g. "
              f"git clone https://github.com/intel/lmbench {opts.lmbench_src}", file=sys.stderr)
        return 2
    try:
        probe = find_probe()
    except ProbeNotFound as exc:
        print(exc, file=sys.stderr)
        return 2
    bin_dir = build_lmbench(opts.lmbench_src, Path("/tmp/lmbench3-build"))
    t = Tally()
    with tempfile.TemporaryDirectory(prefix="os-vs-lmbench-") as tmp:
        work = Path(tmp)
        files = {"4k": work / "file-4k", "1m": work / "file-1m", "8m": work / "file-8m",
                 "8m-chunks": work / "file-8m-chunks"}
        for name, size in (("4k", 4096), ("1m", 1 << 20), ("8m", 8 << 20), ("8m-chunks", 8 << 20)):
            write_file(files[name], os.urandom(size), CHUNK if name.endswith("chunks") else size)
        fs_dir = work / "fs"
        fs_dir.mkdir()
        todo = [g for g in groups(files, fs_dir) if any(re.search(opts.rows, r) for r in g.rows)]
        rows = [r for g in todo for r in g.rows]
        runner = Runner(bin_dir, probe, opts.cpu, work, opts.log)
        hello = Path("/tmp/hello")          # lat_proc's program, where LMBench expects it
        hello.write_bytes((bin_dir / "hello").read_bytes())
        hello.chmod(0o755)
        try:
            for rnd in range(opts.rounds):
                print(f"round {rnd + 1}/{opts.rounds} on CPU {opts.cpu} ...", file=sys.stderr, flush=True)
                for i, grp in enumerate(todo):
                    sides = [runner.lmbench, runner.platperf]
                    if (rnd + i) % 2:
                        sides.reverse()
                    for side in sides:
                        side(grp, t)
                    runner.referee(grp, t, files["4k"])
        finally:
            hello.unlink(missing_ok=True)
    return report(rows, t, opts.rounds)


if __name__ == "__main__":
    sys.exit(main())
