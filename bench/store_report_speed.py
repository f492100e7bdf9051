#!/usr/bin/env python3
"""Store and report speed (issue 3): not a test, a table of figures against their targets.

  1. a run of 1,000,000 samples goes through the same path as `platperf run` (JSON Lines ->
     read_stream -> Store.add_result, committed every 0.2 s), then
     `platperf report RUN --format all -o DIR` writes the full report, in two shapes: the
     full suite with ~740 samples per result (1,348 results):           target <= 10 s;
     and 100,000 results of 10 samples (the per-record cost):            target <= 30 s;
  2. `platperf report` over 20 runs (20 columns) --format all:         target <= 5 s.

The runs have the shape of the `full` suite on a 2-CPU machine (latency curves at 4 points
per octave, every bw_mem kernel at 5 sizes, STREAM, peak; serial and parallel) with
synthetic values. As a peer measured in the same run, the same rows are inserted with
plain sqlite3 executemany: the floor for storing them.

  python bench/store_report_speed.py [--samples 1000000] [--runs 20] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import math
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from platperf.runner.executor import execute_runs  # noqa: E402
from platperf.runner.sink import RunSink  # noqa: E402
from platperf.runner.suite import Step  # noqa: E402
from platperf.store import Store  # noqa: E402

CPUS = (0, 1)
MODES = ("serial", "parallel")
BW_KERNELS = ("rd", "wr", "rdwr", "cp", "frd", "fwr", "fcp", "bzero", "bcopy")
STREAM = ("copy", "scale", "add", "triad")
PEAK = ("peak-read", "peak-write", "peak-copy")


def latency_sizes():
    """1 KiB to 128 MiB, 4 points per octave, as the probe's size=auto."""
    return sorted({int(1024 * 2 ** (i / 4)) // 64 * 64 for i in range(4 * 17 + 1)})


def points():
    """(benchmark, params, metric, unit, direction, typical value) of one full-suite run."""
    out = []
    for pattern, stride in (("seq", 128), ("random", 64)):
        for size in latency_sizes():
            ns = 1.3 if size <= 32 << 10 else 4.0 if size <= 1 << 20 else 15.0 if size <= 32 << 20 else 90.0
            params = {"pattern": pattern, "size": size, "stride": stride}
            out.append(("mem-latency", params, "latency", "ns", "lower", ns))
            out.append(("mem-latency", params, "latency_cycles", "cycles", "lower", ns * 3.0))
    for kernel in BW_KERNELS:
        for size in (1, 2, 4, 8, 16):
            out.append(("mem-bandwidth", {"kernel": kernel, "size": size << 20}, "bandwidth", "MB/s", "higher", 9000.0))
    for kernel in STREAM:
        out.append(("mem-bandwidth", {"kernel": kernel, "size": 64 << 20}, "bandwidth", "MB/s", "higher", 12000.0))
    for kernel in PEAK:
        for size in (16 << 10, 512 << 10, 8 << 20, 256 << 20):
            out.append(("mem-bandwidth", {"kernel": kernel, "size": size}, "bandwidth", "MB/s", "higher", 30000.0))
    return out


class SyntheticProbe:
    """Stands in for a probe process: the JSON Lines of one full-suite invocation."""

    def __init__(self, samples_per_result: int, seed: int, many: int = 0):
        self.n = samples_per_result
        self.rng = random.Random(seed)
        self.many = many   # instead of the full suite: this many latency points, one CPU

    def __iter__(self):
        yield json.dumps({"type": "meta", "schema": 1, "probe_version": "bench", "build_id": "bench0001",
                          "arch": "x86_64", "compiler": "synthetic", "counter": {"name": "tsc", "freq_hz": 3e9},
                          "start_time": "2026-11-22T00:00:00Z"}) + "\n"
        count = 0
        for size in range(64, 64 * (self.many + 1), 64):
            yield json.dumps({"type": "result", "benchmark": "mem-latency", "cpu": 0, "mode": "serial",
                              "params": {"pattern": "random", "size": size, "stride": 64}, "metric": "latency",
                              "unit": "ns", "direction": "lower",
                              "samples": [round(1.3 + self.rng.random() / 10, 4) for _ in range(self.n)]}) + "\n"
            count += 1
        for mode in MODES if not self.many else ():
            for benchmark, params, metric, unit, direction, value in points():
                for cpu in CPUS:
                    samples = [round(value * (1 + abs(self.rng.gauss(0, 0.02))), 4) for _ in range(self.n)]
                    yield json.dumps({"type": "result", "benchmark": benchmark, "params": params, "cpu": cpu,
                                      "mode": mode, "metric": metric, "unit": unit, "direction": direction,
                                      "samples": samples}) + "\n"
                    count += 1
        yield json.dumps({"type": "end", "status": "complete", "results": count}) + "\n"

    def interrupt(self): pass
    def kill(self): pass
    def wait(self, timeout=None): return 0
    def stderr_tail(self): return ""


class SyntheticTarget:
    name = "bench"

    def __init__(self, samples_per_result, seed=1, many=0):
        self.samples_per_result, self.seed, self.many = samples_per_result, seed, many

    def run(self, argv):
        return SyntheticProbe(self.samples_per_result, self.seed, self.many)


def results_per_run() -> int:
    return len(points()) * len(CPUS) * len(MODES)


def store_run(store, samples_per_result, label, seed=1, many=0) -> tuple[int, float]:
    t0 = time.perf_counter()
    run_id = store.begin_run(label=label, suite="full", target="bench")
    step = Step(1, "full", "serial", [], "synthetic full suite")
    (out,) = execute_runs([RunSink(store, run_id, lambda cpu: (0, cpu), has_meta=False)],
                          SyntheticTarget(samples_per_result, seed, many), [step])
    assert out.status == "complete", out.error
    return run_id, time.perf_counter() - t0


def sqlite_floor(path: Path, samples_per_result: int) -> float:
    """Peer: the same number of rows and sample bytes with sqlite3 executemany, one transaction."""
    rng = random.Random(1)
    n = results_per_run()
    rows = [(i, "mem-latency", "size=1", "latency", array("d", (rng.random() for _ in range(samples_per_result))).tobytes())
            for i in range(n)]
    t0 = time.perf_counter()
    with sqlite3.connect(path) as c:
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("CREATE TABLE r (id INTEGER PRIMARY KEY, benchmark TEXT, params TEXT, metric TEXT, samples BLOB)")
        c.executemany("INSERT INTO r VALUES (?, ?, ?, ?, ?)", rows)
    return time.perf_counter() - t0


def report(db: Path, runs: list[str], out: Path) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "platperf", "report", *runs, "--format", "all",
                           "-o", str(out), "--db", str(db)], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
    took = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"platperf report failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
    return took


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=1_000_000, help="samples in the big run")
    ap.add_argument("--runs", type=int, default=20, help="runs in the multi-run report")
    ap.add_argument("--keep", type=Path, help="keep the databases and reports in this directory")
    args = ap.parse_args()

    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        measure(args, args.keep)
        print(f"(databases and reports in {args.keep})")
    else:
        with tempfile.TemporaryDirectory(prefix="platperf-bench-") as work:
            measure(args, Path(work))


def measure(args, work: Path):
    per_result = math.ceil(args.samples / results_per_run())
    total = per_result * results_per_run()

    big_db = work / "big.db"
    big_db.unlink(missing_ok=True)
    store = Store(str(big_db))
    run_id, t_store = store_run(store, per_result, "big")
    t_floor = sqlite_floor(work / "floor.db", per_result)
    t_report_big = report(big_db, [str(run_id)], work / "report-big")

    small_db = work / "small-results.db"
    small = Store(str(small_db))
    n_small = math.ceil(args.samples / 10)
    small_id, t_store_small = store_run(small, 10, "small", many=n_small)
    t_report_small = report(small_db, [str(small_id)], work / "report-small")

    many_db = work / "many.db"
    many_db.unlink(missing_ok=True)
    many = Store(str(many_db))
    ids = [str(store_run(many, 10, f"v2.{i}", seed=i)[0]) for i in range(args.runs)]
    t_report_many = report(many_db, ids, work / "report-many")

    rows = [
        (f"store {total:,} samples ({results_per_run():,} results x {per_result}) via the runner",
         t_store, None, f"{t_store / t_floor:.1f}x sqlite3 executemany ({t_floor:.2f} s)"),
        ("report of that run, --format all", t_report_big, None, ""),
        (f"store + report of the {total:,}-sample run", t_store + t_report_big, 10.0, ""),
        (f"store {n_small * 10:,} samples ({n_small:,} results x 10) via the runner", t_store_small, None, ""),
        ("report of that run, --format all", t_report_small, None, ""),
        (f"store + report of the {n_small:,}-result run", t_store_small + t_report_small, 30.0, ""),
        (f"report over {args.runs} runs ({args.runs} columns), --format all", t_report_many, 5.0, ""),
    ]
    print(f"{'figure':64} {'seconds':>8} {'target':>7} {'of target':>9}  peer")
    for name, took, target, peer in rows:
        of = f"{took / target:.2f}" if target else ""
        print(f"{name:64} {took:8.2f} {target or '':>7} {of:>9}  {peer}")


if __name__ == "__main__":
    main()
