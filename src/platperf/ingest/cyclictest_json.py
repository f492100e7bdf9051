"""cyclictest --json output (rt-tests): wake-up latency per measuring thread.

Figures are in us; with ``--nsecs`` cyclictest reports ns and says so in
``resolution_in_ns``, and they are converted to us. ``cycles`` goes to extra and is the
histogram's count (latencies beyond the last bucket, ``-h N``, count as ``overflow``).
"""
from __future__ import annotations

from ..records import Result
from . import rt_tests_json

BENCHMARK = "cyclictest"


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
        rec = rt_tests_json.histogram(where, BENCHMARK, cpu, mode, thread, per_us, count=cycles)
        if rec:
            out.append(rec)
    return out
