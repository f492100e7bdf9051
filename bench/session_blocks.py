"""Is a block of runs inside one `platperf run` like a session of its own? (issue 24)

The gate counts the drift between sessions (platperf run invocations) and takes its new side
as one session, whose own offset no number of runs narrows. If that offset is time -- the
host's other tenants moving from one minute to the next -- consecutive blocks of runs inside
one invocation differ as much as separate invocations do, and a gate could measure its new
side in blocks; if it belongs to the invocation, blocks differ only by their run noise.

One script run, on --cpu:
  * label "sessions": --sessions invocations of --runs runs each (the baseline's way);
  * label "blocks": one invocation of sessions x runs runs, cut into consecutive blocks of
    --runs runs;
and for each, per class of key (held in the cache a VM shares / gated, platperf.compare.shared_cache)
the median over keys of the sd of the logs of the session (block) means and of the runs
within one. Expected under pure run noise: means differ by about within / sqrt(runs).
Run: .venv/bin/python bench/session_blocks.py [--sessions 12] [--runs 8] [--suite quick] [--cpu 0]
     (sessions x runs x 2 suite runs: about 12 minutes for quick with the defaults)
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gate import HERE, platperf, session_drift  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=12)
    ap.add_argument("--runs", type=int, default=8, help="runs a session (a block)")
    ap.add_argument("--suite", default="quick")
    ap.add_argument("--cpu", type=int, default=0)
    opts = ap.parse_args()
    if opts.sessions < 2 or opts.runs < 2 or opts.sessions * opts.runs > 100:
        sys.exit("session_blocks: 2 sessions of 2 runs at least, and sessions x runs at most 100 "
                 "(platperf run --repeat)")
    from platperf.probe_path import find_probe
    env = {**os.environ, "PLATPERF_PROBE": os.environ.get("PLATPERF_PROBE") or str(find_probe()),
           "PYTHONPATH": str(HERE / "src")}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "blocks.db"
        plan = [("sessions", opts.runs)] * opts.sessions + [("blocks", opts.sessions * opts.runs)]
        for label, repeat in plan:
            t0 = time.monotonic()
            done = platperf(["run", "--suite", opts.suite, "--cpus", str(opts.cpu), "--repeat", str(repeat),
                             "--label", label, "--db", str(db), "-q"], env)
            if done.returncode != 0:
                sys.exit(f"session_blocks: platperf run failed: {done.stderr.strip()[-400:]}")
            print(f"{label}: {repeat} runs in {time.monotonic() - t0:.0f} s", file=sys.stderr)
        print(f"{opts.suite} on CPU {opts.cpu}: sd of the logs (median over the keys of a class)")
        print(f"{opts.sessions} invocations of {opts.runs} runs (sessions):")
        print(session_drift(db, "sessions"))
        print(f"one invocation of {opts.sessions * opts.runs} runs, cut into blocks of {opts.runs}:")
        print(session_drift(db, "blocks", opts.runs).replace("sessions differ", "  blocks differ"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
