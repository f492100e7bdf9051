"""oslat --json output (rt-tests 2.0 and later): OS latency seen by a busy-polling thread per CPU.

Reads the file ``oslat --json=FILE`` writes (rt-tests' src/oslat/oslat.c, write_summary_json):
per thread ``cpu``, ``freq`` (the counter's MHz), ``min``, ``avg``, ``max``, ``duration`` (s)
and a ``histogram`` of ``{"<latency>": count}``. Figures are in us; the frequency and the
duration go to extra. A bucket's number is its upper edge (``bucket_to_lat``: (j + 1) x the
bucket width, plus ``--bias``), the width 1 us unless the cmdline's ``-W/--bucket-width`` (ns)
says otherwise; the last bucket holds every latency from its edge up, so its upper edge is the
thread's max.

Since rt-tests 2.5 a bucket width that is not whole microseconds (``-W 250``) makes oslat
print the buckets with three decimals (``"1.250"``, in us) and ``min``/``max`` in ns (its
``unit_per_us``), while ``avg`` stays in us: such a file (buckets with decimals) has its min
and max converted from ns.

Refused, in one line: another rt-tests tool's JSON (cyclictest's, ptsematest's, ... named by
its ``cmdline`` or its fields), a run that exited with a non-zero ``return_code``, a thread
without a CPU or a figure, a bucket that is not ``"<latency>": <count>``.
"""
from __future__ import annotations

import re

from ..records import Result
from . import rt_tests_json

BENCHMARK = "oslat"
# -W 250, -W250, --bucket-width=250, --bucket-width 250 (ns)
WIDTH = re.compile(r"(?:^|\s)(?:-W\s*|--bucket-width[=\s]\s*)(\d+)(?=\s|$)")

EXAMPLE = """\
{
  "file_version": 1,
  "cmdline:": "oslat --json=oslat.json -D 60 -c 2-3 -f 1",
  "rt_test_version:": "2.80",
  "return_code": 0,
  "num_threads": 2,
  "thread": {
    "0": {
      "cpu": 2, "freq": 2394, "min": 1, "avg": 1.000, "max": 6, "duration": 60.003,
      "histogram": {"1": 60018345, "2": 211, "3": 5, "6": 1}
    },
    "1": {
      "cpu": 3, "freq": 2394, "min": 1, "avg": 1.000, "max": 4, "duration": 60.003,
      "histogram": {"1": 60017899, "2": 175, "4": 2}
    }
  }
}
"""


def _read(text: str, name: str):
    doc = rt_tests_json.load(text, name, "oslat")
    mode = "parallel" if len(doc["thread"]) > 1 else "serial"
    given = _width(rt_tests_json.cmdline(doc))
    for where, _tid, cpu, thread in rt_tests_json.threads(text, name, doc, "oslat"):
        buckets = rt_tests_json.buckets(where, thread)
        # three decimals in the buckets' names: oslat's unit_per_us is 1000, min and max are ns
        in_ns = any("." in edge for edge in thread.get("histogram") or ()) or \
            (given is not None and not given.is_integer())
        per_us = {"min": 1000 if in_ns else 1, "avg": 1, "max": 1000 if in_ns else 1}
        yield where, cpu, mode, thread, per_us, buckets, given or _spacing(buckets, in_ns)


def _width(line: str | None) -> float | None:
    """The bucket width in us the command line gives (``-W`` is in ns), None if it gives none."""
    found = WIDTH.search(line or "")
    return int(found.group(1)) / 1000 if found and int(found.group(1)) > 0 else None


def _spacing(buckets, in_ns: bool) -> float:
    """The bucket width of a file whose command line does not give it: 1 us (oslat's default),
    or for ns buckets the smallest step between two of them."""
    edges = [edge for edge, _ in buckets or ()]
    steps = [round(b - a, 3) for a, b in zip(edges, edges[1:]) if b > a]
    return min(steps) if in_ns and steps else 1.0


def parse(text: str, name: str) -> list[Result]:
    out = []
    for where, cpu, mode, thread, per_us, _buckets, _width in _read(text, name):
        extra = {}
        for field, key in (("freq", "freq_mhz"), ("duration", "duration_s")):
            if isinstance(thread.get(field), (int, float)) and not isinstance(thread.get(field), bool):
                extra[key] = thread[field]
        out += rt_tests_json.results(where, BENCHMARK, cpu, mode, thread, per_us, extra)
    return out


def histograms(text: str, name: str) -> list[dict]:
    out = []
    for _where, cpu, mode, thread, per_us, buckets, width in _read(text, name):
        if buckets is None:
            continue
        low, high = thread["min"] / per_us["min"], thread["max"] / per_us["max"]
        rows = [[max(edge - width, 0.0), edge, n] for edge, n in buckets]
        if rows:        # the last bucket is open: everything beyond its edge lands in it
            rows[-1][1] = max(rows[-1][1], high)
        out.append(rt_tests_json.histogram(BENCHMARK, cpu, mode, rows, low, high))
    return out
