"""``cyclictest`` (rt-tests): wake-up latency measured on the board, stored as the
``cyclictest --json`` importer stores it (``platperf.ingest.cyclictest_json``): min, avg and
max per measuring thread and CPU, with its histogram.

The JSON report goes to a ``mktemp`` file on the board (cyclictest's text histogram shares
stdout), printed and removed in the same command.
"""
from __future__ import annotations

from ..ingest import IngestError, cyclictest_json
from . import ToolFailed, run

TOOL = "cyclictest"
PARAMS = {"threads": "smp", "priority": 80, "interval_us": 1000, "seconds": 10,
          "histogram_us": 1000, "binary": None}
# The report of `"$0" "$@" --json=FILE`, with the file removed whatever happens.
TO_FILE = ('f=$(mktemp) || exit 125; "$0" "$@" --json="$f" >/dev/null; s=$?; '
           '[ $s = 0 ] && cat "$f"; rm -f "$f"; exit $s')


def title(entry: dict) -> str:
    return f"cyclictest {entry['seconds']} s, interval {entry['interval_us']} us, prio {entry['priority']}"


def measure(target, entry: dict, path: str) -> list:
    argv = ["sh", "-c", TO_FILE, path, "-q", "-m", f"-p{entry['priority']}",
            f"-i{entry['interval_us']}", f"-D{entry['seconds']}", f"-h{entry['histogram_us']}"]
    argv += ["-S"] if entry["threads"] == "smp" else [f"-t{entry['threads']}"]
    text = run(target, argv, entry)
    try:
        return cyclictest_json.parse(text, "cyclictest") + cyclictest_json.histograms(text, "cyclictest")
    except IngestError as exc:
        raise ToolFailed(str(exc)) from None
