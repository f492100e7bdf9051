"""The `quick` suite over SSH to 127.0.0.1 against the same suite run locally, in one run.

Starts its own sshd (tests/sshd_server.py), then runs `platperf run --suite quick` alternately
on `local` and `ssh://board` (the same machine through sshd), ROUNDS times each, and prints:
  * the wall time of each run and the ratio of the medians, ssh / local (target <= 1.15: the
    transport, upload and board snapshot cost little next to the measuring), with each round's
    own ratio (its two runs side by side) for the spread a busy machine gives it;
  * per result key (benchmark, params, cpu, mode, metric) whether the SSH runs' medians
    overlap the local runs' (min..max of each side's run medians): SSH must not change what is
    measured. Runs are the unit (samples of one run share its conditions). For two sides drawn
    from one distribution the ranges of n runs each fail to overlap with probability
    2·n!·n!/(2n)! (0.10 for n = 3), so about that share of keys is expected to say NO by chance.
Run: .venv/bin/python bench/ssh_vs_local.py [--rounds N] [--suite quick]   (exit 1: target missed)
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests"))

from sshd_server import Sshd, missing_parts  # noqa: E402

RATIO_TARGET = 1.15


def platperf(*args, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True, text=True,
                          env=env, check=False)


def one_run(target: str, suite: str, db: Path, env) -> tuple[float, int]:
    # The board's probe in a directory of the bench's own: tests that remove theirs from the
    # default one (/tmp/platperf-UID) at close cannot take it away mid-run.
    remote = ["--remote-dir", str(db.parent / "remote")] if target.startswith("ssh://") else []
    start = time.monotonic()
    proc = platperf("run", "--suite", suite, "--target", target, "--db", str(db), "--label", target,
                    "--json", "--quiet", *remote, env=env)
    wall = time.monotonic() - start
    if proc.returncode != 0:
        raise SystemExit(f"platperf run --target {target} failed: {proc.stderr.strip()}")
    return wall, json.loads(proc.stdout)["run_id"]


def medians(run_id: int, db: Path, env) -> dict[tuple, float]:
    shown = json.loads(platperf("show", str(run_id), "--db", str(db), "--json", env=env).stdout)
    return {(r["benchmark"], json.dumps(r["params"], sort_keys=True), r["cpu"], r["mode"], r["metric"]):
            r["median"] for r in shown["results"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="runs on each side (default 3)")
    ap.add_argument("--suite", default="quick")
    args = ap.parse_args()
    why = missing_parts()
    if why:
        print(why, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pp-bench-ssh-") as tmp:
        sshd = Sshd(Path(tmp) / "sshd").start()
        env = dict(os.environ, PLATPERF_SSH_CONFIG=str(sshd.client_config))
        db = Path(tmp) / "bench.db"
        walls = {"local": [], "ssh://board": []}
        runs = {"local": [], "ssh://board": []}
        try:
            for i in range(args.rounds):
                # Alternating, and each side first in turn: drift in the machine hits both alike.
                order = ("local", "ssh://board") if i % 2 == 0 else ("ssh://board", "local")
                for target in order:
                    wall, run_id = one_run(target, args.suite, db, env)
                    walls[target].append(wall)
                    runs[target].append(run_id)
                    print(f"round {i + 1}  {target:12s} {wall:7.2f} s  (run {run_id})", flush=True)
            local = [medians(r, db, env) for r in runs["local"]]
            remote = [medians(r, db, env) for r in runs["ssh://board"]]
        finally:
            sshd.stop()

    ratio = statistics.median(walls["ssh://board"]) / statistics.median(walls["local"])
    # Each round's own ratio: a neighbour's load that comes and goes moves both runs of a round
    # alike, so their spread says how far the machine's noise carries the ratio of medians.
    rounds = sorted(s / loc for s, loc in zip(walls["ssh://board"], walls["local"]))
    print(f"\nwall time, median of {args.rounds}: local {statistics.median(walls['local']):.2f} s "
          f"(min {min(walls['local']):.2f}, max {max(walls['local']):.2f}), "
          f"ssh {statistics.median(walls['ssh://board']):.2f} s "
          f"(min {min(walls['ssh://board']):.2f}, max {max(walls['ssh://board']):.2f})")
    print(f"ratio ssh/local of the medians {ratio:.3f} (target <= {RATIO_TARGET}); per round "
          f"{', '.join(f'{r:.3f}' for r in rounds)} (median {statistics.median(rounds):.3f})")

    print(f"\n{'key':70s} {'local min..max':>25s} {'ssh min..max':>25s}  overlap")
    inside = 0
    keys = sorted(set.intersection(*(set(m) for m in local + remote)), key=str)
    for key in keys:
        lo, hi = min(m[key] for m in local), max(m[key] for m in local)
        rlo, rhi = min(m[key] for m in remote), max(m[key] for m in remote)
        ok = rlo <= hi and lo <= rhi
        inside += ok
        bench, params, cpu, mode, metric = key
        params = ",".join(f"{k}={v}" for k, v in json.loads(params).items())
        name = f"{bench} {metric} {mode} cpu{cpu} {params}"
        print(f"{name[:70]:70s} {lo:11.4g}..{hi:<11.4g} {rlo:11.4g}..{rhi:<11.4g}  {'yes' if ok else 'NO'}")
    n = min(len(local), len(remote))
    chance = 2 * math.factorial(n) ** 2 / math.factorial(2 * n)
    print(f"\n{inside} of {len(keys)} keys: the SSH runs overlap the local runs "
          f"(one distribution would give about {(1 - chance) * len(keys):.0f} of {len(keys)})")
    return 0 if ratio <= RATIO_TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
