"""What counting events costs the figures: each kernel run with and without ``--events``, in
alternating rounds of one script run on one CPU (issue 37).

The probe reads its perf_event_open groups just outside each timed attempt, so the timed code is
the same with and without events; what counting can still move is what the reads and the
kernel's counter switching leave in the caches and the TLB between attempts. Each round runs
every row twice, once plain and once counting, the order alternating from one round to the next;
a row's figure is the median of its rounds' medians, and its ratio counting / plain. A ratio
inside the rounds' own spread (max/min of the plain rounds) is no measured cost.

The events asked are the list given (default cycles,instructions,l1d,page_faults); what this
machine counts of them is printed from the probe's meta record (a VM without a virtual PMU counts
the software events only, and says so). The first line names the CPU.
Run: .venv/bin/python bench/events_overhead.py [--cpu N] [--rounds R] [--events LIST]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from bench_cpu import cpu_line  # noqa: E402
from platperf.probe_path import ProbeNotFound, find_probe  # noqa: E402

# (row name, probe arguments, metric): an L1-resident and a DRAM chase, peak read in L1 and from
# DRAM, STREAM triad from DRAM, first-touch of fresh pages (each sample faults them in)
ROWS = (
    ("mem-latency random 16 KiB (ns)", ["mem-latency", "--size", "16k"], "latency"),
    ("mem-latency random 64 MiB (ns)", ["mem-latency", "--size", "64m"], "latency"),
    ("peak-read 16 KiB (MB/s)", ["mem-bandwidth", "--kernel", "peak-read", "--size", "16k"], "bandwidth"),
    ("peak-read 256 MiB (MB/s)", ["mem-bandwidth", "--kernel", "peak-read", "--size", "256m"], "bandwidth"),
    ("triad 256 MiB (MB/s)", ["mem-bandwidth", "--kernel", "triad", "--size", "256m"], "bandwidth"),
    ("first-touch 4 MiB (ns a page)", ["first-touch", "--size", "4m"], "latency"),
)


def run(probe: Path, cpu: int, args: list[str], events: str | None) -> list[dict]:
    cmd = [str(probe), "run", *args, "--cpus", str(cpu), "--samples", "7"]
    if events:
        cmd += ["--events", events]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def figure(records: list[dict], metric: str | None) -> float:
    results = [r for r in records if r["type"] == "result" and (metric is None or r["metric"] == metric)]
    return results[0]["summary"]["median"]


def counted(records: list[dict]) -> str:
    meta = records[0].get("events") or {}
    names = [c["name"] for c in meta.get("counters", []) if c.get("status") == "counted"]
    left = [f"{c['name']} ({c.get('status')})" for c in meta.get("counters", []) if c.get("status") != "counted"]
    return f"counted: {', '.join(names) or 'none'}; not counted: {', '.join(left) or 'none'}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", type=int, default=os.cpu_count() - 1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--events", default="cycles,instructions,l1d,page_faults")
    args = ap.parse_args()
    try:
        probe = find_probe()
    except ProbeNotFound as e:
        print(e, file=sys.stderr)
        return 2
    print(cpu_line(args.cpu))
    plain: dict[str, list[float]] = {name: [] for name, _, _ in ROWS}
    with_events: dict[str, list[float]] = {name: [] for name, _, _ in ROWS}
    said = ""
    for i in range(args.rounds):
        print(f"round {i + 1}/{args.rounds} ...", file=sys.stderr)
        for name, argv, metric in ROWS:
            order = (None, args.events) if i % 2 == 0 else (args.events, None)
            for events in order:
                records = run(probe, args.cpu, argv, events)
                (with_events if events else plain)[name].append(figure(records, metric))
                if events and not said:
                    said = counted(records)
    print(f"{probe}, CPU {args.cpu}, {args.rounds} rounds alternating; --events {args.events}")
    print(said)
    print(f"{'row':34} {'plain':>11} {'counting':>11} {'ratio':>7} {'rounds spread':>14}  cost")
    for name, _, _ in ROWS:
        a, b = statistics.median(plain[name]), statistics.median(with_events[name])
        spread = max(plain[name]) / min(plain[name])
        ratio = b / a
        said_cost = "none measured" if 1 / spread <= ratio <= spread else f"{(ratio - 1) * 100:+.1f}%"
        print(f"{name:34} {a:11.4g} {b:11.4g} {ratio:7.3f} {spread:13.3f}x  {said_cost}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
