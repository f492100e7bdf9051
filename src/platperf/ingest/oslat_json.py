"""oslat --json output (rt-tests): OS latency seen by a busy-polling thread per CPU.

Figures are in us. The TSC frequency oslat measured (``freq``, MHz) and the run
``duration`` (s) go to extra. oslat's last histogram bucket holds every latency from its
edge up, so its upper edge is the thread's max.
"""
from __future__ import annotations

from ..records import Result
from . import rt_tests_json

BENCHMARK = "oslat"


def _read(text: str, name: str):
    doc = rt_tests_json.load(text, name, "oslat")
    mode = "parallel" if len(doc["thread"]) > 1 else "serial"
    for where, _tid, cpu, thread in rt_tests_json.threads(text, name, doc, "oslat"):
        yield where, cpu, mode, thread


def parse(text: str, name: str) -> list[Result]:
    out = []
    for where, cpu, mode, thread in _read(text, name):
        extra = {}
        for field, key in (("freq", "freq_mhz"), ("duration", "duration_s")):
            if isinstance(thread.get(field), (int, float)) and not isinstance(thread.get(field), bool):
                extra[key] = thread[field]
        out += rt_tests_json.results(where, BENCHMARK, cpu, mode, thread, 1, extra)
    return out


def histograms(text: str, name: str) -> list[dict]:
    out = []
    for where, cpu, mode, thread in _read(text, name):
        rec = rt_tests_json.histogram(where, BENCHMARK, cpu, mode, thread, 1, open_last=True)
        if rec:
            out.append(rec)
    return out
