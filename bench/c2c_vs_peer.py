#!/usr/bin/env python3
"""platperf-probe's c2c-latency against core-to-core-latency (Rust, nviennot), pair by pair,
in one run on this machine.

The peer is installed into /tmp with cargo from the Rust package registry (version pinned
below; never part of the repository) when it is not there yet. Both measure the same thing:
one cache line handed between two pinned threads with a spinning compare-and-swap (the
peer's benchmark 1, "CAS latency on a single shared cache line"), one-way latency = round
trip / 2, samples of 100 round trips (the probe's minimum; the peer's first argument).

For each unordered pair of --cpus (default: every online CPU), ROUNDS rounds alternate the
two programs; each round gives the peer's figure (the mean of its 100 samples) and the
probe's (the median of its 100 samples, and the minimum). A pair's cell is the best round
of each (a busy machine only ever adds time). The table prints both, their ratio and
whether it is within the issue's +-10%.

Usage: python3 bench/c2c_vs_peer.py [--cpus 0-3] [--rounds 5]
Exit 0 when every pair is within +-10%, 1 otherwise, 2 when the peer cannot be built.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
from platperf.runner.suite import parse_cpulist  # noqa: E402

PROBE = Path(os.environ.get("PLATPERF_PROBE", ROOT / "build" / "probe" / "native" / "platperf-probe"))
PEER_ROOT = Path("/tmp/platperf-c2c-peer")
PEER = PEER_ROOT / "bin" / "core-to-core-latency"
PEER_VERSION = "1.2.0"
ROUND_TRIPS, SAMPLES = 100, 100
TOLERANCE = 0.10


def build_peer() -> Path:
    if PEER.exists():
        return PEER
    cargo = shutil.which("cargo")
    if not cargo:
        sys.exit("c2c_vs_peer: cargo is not installed (the peer is a Rust program): install rustup/cargo")
    print(f"building core-to-core-latency {PEER_VERSION} into {PEER_ROOT} ...", file=sys.stderr)
    subprocess.run([cargo, "install", "--quiet", "--version", PEER_VERSION, "--root", str(PEER_ROOT),
                    "core-to-core-latency"], check=True)
    return PEER


def peer_one_way(a: int, b: int) -> float:
    """The peer's mean one-way ns for (a, b): its CSV matrix, row of b, column of a."""
    out = subprocess.run([str(PEER), str(ROUND_TRIPS), str(SAMPLES), "--cores", f"{a},{b}", "--csv"],
                         check=True, capture_output=True, text=True).stdout
    rows = [line.split(",") for line in out.splitlines() if line.strip()]
    return float(rows[1][0])


def probe_one_way(a: int, b: int) -> tuple[float, float]:
    """The probe's (median, min) one-way ns for (a, b)."""
    out = subprocess.run([str(PROBE), "run", "c2c-latency", "--cpus", f"{a},{b}", "--samples", str(SAMPLES),
                          "--min-time", "0", "--warmup", "1"], check=True, capture_output=True, text=True).stdout
    rec = next(json.loads(line) for line in out.splitlines() if '"type":"result"' in line)
    return rec["summary"]["median"], rec["summary"]["min"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpus", help="CPUs whose pairs are measured, e.g. 0-3 (default: every online CPU)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds per pair (default 5)")
    args = ap.parse_args()
    if not PROBE.exists():
        print(f"c2c_vs_peer: {PROBE} is not built (make probe)", file=sys.stderr)
        return 2
    build_peer()
    cpus = parse_cpulist(args.cpus) if args.cpus else sorted(os.sched_getaffinity(0))
    pairs = [(a, b) for a in cpus for b in cpus if a < b]
    if not pairs:
        print("c2c_vs_peer: needs at least two CPUs (--cpus 0,1)", file=sys.stderr)
        return 2
    print(f"c2c one-way latency (ns), best of {args.rounds} alternating rounds, samples of {ROUND_TRIPS} "
          f"round trips x {SAMPLES}")
    print(f"{'pair':>9} {'platperf median':>16} {'platperf min':>13} {'peer mean':>10} {'ratio':>7}  within 10%")
    worst = 0.0
    for a, b in pairs:
        peer, med, low = [], [], []
        for _ in range(args.rounds):
            peer.append(peer_one_way(a, b))
            m, lo = probe_one_way(a, b)
            med.append(m)
            low.append(lo)
        ratio = min(med) / min(peer)
        worst = max(worst, abs(ratio - 1))
        print(f"{f'{a}-{b}':>9} {min(med):16.2f} {min(low):13.2f} {min(peer):10.2f} {ratio:7.3f}  "
              f"{'yes' if abs(ratio - 1) <= TOLERANCE else 'NO'}")
    print(f"largest difference: {worst * 100:.1f}% (target: within {TOLERANCE * 100:.0f}%)")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
