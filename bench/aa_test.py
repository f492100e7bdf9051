"""Can a CI gate trust `platperf compare`? A/A and A/B tests on this machine (issue 10).

Runs the same code many times and compares it with itself (A/A: every flagged key is a false
alarm), then against itself with a memory hog on another CPU (A/B: a real slowdown of the
DRAM-bound keys). The runs are interleaved, A, B, HOG, A, B, HOG, ..., so that the load of a
shared machine (other people's work, the hypervisor) touches every side alike:

  * A/A, single runs:   run A#i against run B#i, for each i (the mean share over the pairs);
  * A/A, N runs a side: label A (N runs) against label B (N runs);
  * A/B, N runs a side: label A against label HOG, the hog (the probe's own read-bandwidth
    kernel, 64 MiB) running on --hog-cpu while HOG is measured; the share of DRAM bandwidth
    keys (mem-bandwidth at sizes >= 16 MiB) called regressions.

It also gives the run-to-run spread, (max - min) / median of the run medians over the 2N runs
of A and B, of the L1 (16 KiB) and L2 (256 KiB) random-read latencies, and (when the probe
records it) how many samples were retaken or marked for steal time.

It drives the `platperf` command of --code (default: this checkout's src/), so the same script
measures another version: `--code /tmp/main/src --probe /tmp/main/build/native/platperf-probe`
gives the "before" column. A platperf whose `run` has no --repeat gets its runs one by one,
which is what it does anyway.

Targets: A/A flagged <= 5% and regressions <= 2% of keys (both ways); A/B >= 50% of DRAM keys.
Run: .venv/bin/python bench/aa_test.py [--runs 3] [--suite quick] [--cpu 0] [--hog-cpu 1]
     (about 10 minutes with the defaults on a 2-core VM; exit 1 when a target is missed)
"""
from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
TARGETS = {"aa_flagged": 5.0, "aa_regressions": 2.0, "ab_dram": 50.0}
DRAM_MIN_BYTES = 16 << 20
L1, L2 = 16 << 10, 256 << 10


def platperf(args, env, check=True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True,
                          text=True, env=env, check=False)
    if check and proc.returncode not in (0, 1):
        sys.exit(f"aa_test: platperf {' '.join(args)} failed ({proc.returncode}): "
                 f"{proc.stderr.strip()[-400:]}")
    return proc


def size_bytes(text: str) -> int:
    """A size as the canonical params write it (bytes: 16777216)."""
    return int(text) if text.isdigit() else 0


def params_of(key: str) -> dict:
    return dict(part.split("=", 1) for part in key.split(",") if "=" in part)


def shares(cmp: dict) -> tuple[float, float, float, int]:
    """(% of keys flagged as changed, % called regressions, % unconfirmed, keys) of a
    `compare --format json`. A change compare calls unconfirmed (one run on a side: shown,
    never a regression) is not flagged; a platperf without that notion has none."""
    rows = [r for r in cmp["rows"] if r["status"] == "both"]
    unconfirmed = sum(bool(r.get("unconfirmed")) for r in rows)
    flagged = sum(bool(r["shown"]) and not r.get("unconfirmed") for r in rows)
    regressions = sum(bool(r["regression"]) for r in rows)
    return (100.0 * flagged / len(rows), 100.0 * regressions / len(rows),
            100.0 * unconfirmed / len(rows), len(rows))


def dram_rows(cmp: dict) -> list[dict]:
    return [r for r in cmp["rows"] if r["status"] == "both" and r["benchmark"] == "mem-bandwidth"
            and size_bytes(params_of(r["params"]).get("size", "0")) >= DRAM_MIN_BYTES]


def compare(base: str, new: str, db: Path, env) -> dict:
    proc = platperf(["compare", base, new, "--db", str(db), "--format", "json", "--force"], env)
    return json.loads(proc.stdout)


def spread(db: Path, labels: tuple[str, ...], size: int) -> float | None:
    """(max - min) / median of the run medians of random-read latency at ``size``, in %."""
    con = sqlite3.connect(db)
    q = ("SELECT r.median FROM results r JOIN runs u ON u.id = r.run_id WHERE u.label IN "
         f"({','.join('?' * len(labels))}) AND r.benchmark = 'mem-latency' AND r.mode = 'serial' "
         "AND r.unit = 'ns' AND r.params LIKE ? AND r.params LIKE '%pattern=random%'")
    medians = [row[0] for row in con.execute(q, (*labels, f"%size={size},%"))]
    con.close()
    if len(medians) < 2:
        return None
    return 100.0 * (max(medians) - min(medians)) / statistics.median(medians)


def steal_counts(db: Path) -> tuple[int, int] | None:
    """(samples retaken for steal, samples kept with steal) over every result, if recorded."""
    con = sqlite3.connect(db)
    retaken = marked = 0
    seen = False
    for (extra,) in con.execute("SELECT extra FROM results WHERE extra IS NOT NULL"):
        steal = (json.loads(extra) or {}).get("steal")
        if isinstance(steal, dict):
            seen = True
            retaken += steal.get("retakes", 0)
            marked += len(steal.get("samples", []))
    con.close()
    return (retaken, marked) if seen else None


def start_hog(env, cpu: int) -> subprocess.Popen:
    probe = env.get("PLATPERF_PROBE") or str(HERE / "build" / "probe" / "native" / "platperf-probe")
    return subprocess.Popen([probe, "run", "mem-bandwidth", "--kernel", "rd", "--size", "64m",
                             "--cpus", str(cpu), "--samples", "100000", "--min-time", "0.5"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="runs a side (default 3)")
    ap.add_argument("--suite", default="quick")
    ap.add_argument("--cpu", default="0", help="the measured CPU(s)")
    ap.add_argument("--hog-cpu", type=int, default=1)
    ap.add_argument("--code", default=str(HERE / "src"), help="src/ of the platperf to measure")
    ap.add_argument("--probe", help="the probe binary (default: the one --code finds)")
    ap.add_argument("--db", help="keep the runs in this SQLite file (default: a temporary one)")
    opts = ap.parse_args()

    env = {**os.environ, "PYTHONPATH": opts.code}
    built = HERE / "build" / "probe" / "native" / "platperf-probe"
    # the build tree's probe, not the one `pip install` copied into the package earlier
    probe = opts.probe or (str(built) if opts.code == str(HERE / "src") and built.exists() else None)
    if probe:
        env["PLATPERF_PROBE"] = probe
    tmp = tempfile.TemporaryDirectory(prefix="aa_test.")
    db = Path(opts.db or Path(tmp.name) / "aa.db")
    repeat = ["--repeat", "1"] if "--repeat" in platperf(["run", "--help"], env).stdout else []
    run_ids: dict[str, list[int]] = {"A": [], "B": [], "HOG": []}
    total = 3 * opts.runs
    for i in range(opts.runs):
        for label in ("A", "B", "HOG"):
            print(f"[{len(sum(run_ids.values(), [])) + 1}/{total}] run {label}#{i + 1}",
                  file=sys.stderr, flush=True)
            hog = start_hog(env, opts.hog_cpu) if label == "HOG" else None
            try:
                proc = platperf(["run", "--suite", opts.suite, "--cpus", opts.cpu, "--mode", "serial",
                                 "--label", label, "--db", str(db), "--quiet", "--json", *repeat], env)
            finally:
                if hog is not None:
                    hog.kill()
                    hog.wait()
            out = json.loads(proc.stdout)
            run_ids[label] += [r["run_id"] for r in out] if isinstance(out, list) else [out["run_id"]]

    singles = [shares(compare(str(a), str(b), db, env)) for a, b in zip(run_ids["A"], run_ids["B"])]
    aa1 = tuple(statistics.mean(s[i] for s in singles) for i in range(3)) + (singles[0][3],)
    aan = shares(compare("A", "B", db, env))
    hog = compare("A", "HOG", db, env)
    rows = dram_rows(hog)
    caught, dram = sum(bool(r["regression"]) for r in rows), len(rows)
    ab = 100.0 * caught / dram if dram else 0.0
    slower = [-r["delta_pct"] for r in rows if r.get("delta_pct") is not None]
    mdes = [r["mde_pct"] for r in rows if r.get("mde_pct") is not None]

    print(f"\n{opts.suite} suite on CPU {opts.cpu}, serial; runs interleaved A, B, HOG x {opts.runs}; "
          f"code {opts.code}")
    print(f"{'measure':44} {'value':>8} {'target':>8}  ok")
    lines = [(f"A/A single runs: flagged (% of {aa1[3]} keys)", aa1[0], TARGETS["aa_flagged"], "<="),
             ("A/A single runs: regressions (% of keys)", aa1[1], TARGETS["aa_regressions"], "<="),
             (f"A/A {opts.runs} runs a side: flagged (% of {aan[3]} keys)", aan[0], TARGETS["aa_flagged"], "<="),
             (f"A/A {opts.runs} runs a side: regressions (% of keys)", aan[1], TARGETS["aa_regressions"], "<="),
             (f"A/B hog: DRAM keys called regressions ({caught}/{dram})", ab, TARGETS["ab_dram"], ">=")]
    missed = 0
    for name, value, target, how in lines:
        ok = value <= target if how == "<=" else value >= target
        missed += not ok
        print(f"{name:44} {value:7.1f}% {how}{target:5.1f}%  {'yes' if ok else 'NO'}")
    print(f"A/A single runs: shown as unconfirmed: {aa1[2]:.1f}% of keys; {opts.runs} a side: {aan[2]:.1f}%")
    if slower:
        print(f"A/B hog: DRAM keys {statistics.median(slower):.1f}% slower (median)"
              + (f"; smallest change {opts.runs} runs detect there: {statistics.median(mdes):.1f}% (median)"
                 if mdes else ""))
    for name, size in (("L1", L1), ("L2", L2)):
        s = spread(db, ("A", "B"), size)
        print(f"{name} ({size >> 10} KiB) latency, spread of {2 * opts.runs} run medians: "
              + ("n/a" if s is None else f"{s:.2f}%"))
    steal = steal_counts(db)
    print("steal: not recorded by this probe" if steal is None else
          f"steal: {steal[0]} samples retaken, {steal[1]} kept and marked")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
