"""cyclictest --json output (rt-tests 2.0 and later): wake-up latency per measuring thread.

Reads the file ``cyclictest --json=FILE`` writes at the end of a run (rt-tests'
src/cyclictest/cyclictest.c, write_stats): per thread ``min``, ``avg``, ``max``, ``cycles``,
``cpu``, ``node`` and, with ``-h N``, a ``histogram`` of ``{"<latency>": count}`` whose buckets
are one unit wide, keyed by their lower edge. Figures are in us; with ``--nsecs`` cyclictest
reports ns and says so in ``resolution_in_ns``, and they are converted to us. ``cycles`` goes
to extra and is the histogram's count (latencies beyond the last bucket, ``-h N``, count as
``overflow``).

Refused, in one line: another rt-tests tool's JSON (oslat's, ptsematest's, ... named by its
``cmdline`` or its fields), a run that exited with a non-zero ``return_code``, a thread
without a CPU or a figure, a bucket that is not ``"<latency>": <count>``.
"""
from __future__ import annotations

from ..records import Result
from . import rt_tests_json

BENCHMARK = "cyclictest"

EXAMPLE = """\
{
  "file_version": 1,
  "cmdline:": "cyclictest --json=cyc.json -D 1m -t 2 -a 0-1 -m -p 95 -q -h 400",
  "rt_test_version:": "2.80",
  "return_code": 0,
  "num_threads": 2,
  "resolution_in_ns": 0,
  "thread": {
    "0": {
      "histogram": {"3": 51234, "4": 8702, "11": 3},
      "cycles": 59939, "min": 3, "max": 11, "avg": 3.16, "cpu": 0, "node": 0
    },
    "1": {
      "histogram": {"3": 50321, "4": 9612},
      "cycles": 59933, "min": 3, "max": 4, "avg": 3.17, "cpu": 1, "node": 0
    }
  }
}
"""


def _read(text: str, name: str):
    doc = rt_tests_json.load(text, name, "cyclictest")
    per_us = 1000 if doc.get("resolution_in_ns") in (1, True) else 1
    mode = "parallel" if len(doc["thread"]) > 1 else "serial"
    for where, _tid, cpu, thread in rt_tests_json.threads(text, name, doc, "cyclictest"):
        cycles = thread.get("cycles")
        if not isinstance(cycles, int) or isinstance(cycles, bool) or cycles < 0:
            cycles = None
        yield where, cpu, mode, thread, per_us, cycles


def parse(text: str, name: str) -> list[Result]:
    out = []
    for where, cpu, mode, thread, per_us, cycles in _read(text, name):
        extra = {"cycles": cycles} if cycles is not None else {}
        out += rt_tests_json.results(where, BENCHMARK, cpu, mode, thread, per_us, extra)
    return out


def histograms(text: str, name: str) -> list[dict]:
    out = []
    for where, cpu, mode, thread, per_us, cycles in _read(text, name):
        buckets = rt_tests_json.buckets(where, thread)
        if buckets is None:
            continue
        # a bucket holds the latencies whose whole units are its number (hist_sample: sample / 1)
        rows = [[edge / per_us, (edge + 1) / per_us, n] for edge, n in buckets]
        out.append(rt_tests_json.histogram(BENCHMARK, cpu, mode, rows, thread["min"] / per_us,
                                           thread["max"] / per_us, count=cycles))
    return out
