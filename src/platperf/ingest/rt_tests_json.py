"""What cyclictest --json and oslat --json share (rt-tests' common JSON writer).

Both write ``{"file_version": 1, "num_threads": N, "thread": {"0": {...}, ...}}`` with
per-thread ``cpu``, ``min``, ``avg``, ``max`` (us) and a ``histogram`` of
``{"<us>": count}``. A thread's figures become ``latency_min`` / ``latency_avg`` /
``latency_max`` results (us, lower is better) and its histogram a ``histogram`` record.
Threads run at the same time, so with more than one thread the mode is ``parallel``.
Without a topology the logical CPU is also the ``core`` of the key (cluster unknown),
so that the threads of one run never pool together.
"""
from __future__ import annotations

import json
import math
import re

from ..records import Result
from .errors import IngestError


def load(text: str, name: str, tool: str) -> dict:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise IngestError(f"{name}:{exc.lineno}", f"not JSON ({exc.msg}); expected {tool} --json output") from None
    except RecursionError:
        raise IngestError(f"{name}:1", f"JSON nested too deeply; expected {tool} --json output") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("thread"), dict) or not doc["thread"]:
        raise IngestError(f"{name}:1", f"expected {tool} --json output: an object with a non-empty "
                                       "\"thread\" object")
    code = doc.get("return_code", 0)
    if code != 0:
        raise IngestError(f"{name}:{_line_of(text, 'return_code')}",
                          f"{tool} exited with return_code {code!r:.20}; its figures are incomplete")
    return doc


def threads(text: str, name: str, doc: dict, tool: str):
    """Yield (where, thread id, cpu, thread dict) for every thread, checked."""
    for tid, thread in doc["thread"].items():
        where = f"{name}:{_line_of(text, tid, after='thread')}"
        if not isinstance(thread, dict):
            raise IngestError(where, f"thread {tid!r:.20}: expected an object with cpu, min, avg, max")
        cpu = thread.get("cpu")
        if not isinstance(cpu, int) or isinstance(cpu, bool) or not 0 <= cpu < 65536:
            raise IngestError(where, f"thread {tid!r:.20}: expected \"cpu\" as a CPU number, got {cpu!r:.20}")
        figures = {field: _figure(thread, field, where, tid) for field in ("min", "avg", "max")}
        yield where, tid, cpu, {**thread, **figures}


def results(name_where: str, benchmark: str, cpu: int, mode: str, thread: dict, per_us: int,
            extra: dict) -> list[Result]:
    """``per_us``: how many of the file's units make one us (1000 for ns)."""
    out = []
    for field in ("min", "avg", "max"):
        out.append(Result(
            benchmark=benchmark, params={}, metric=f"latency_{field}", unit="us", direction="lower",
            samples=[thread[field] / per_us], cpu=cpu, mode=mode, core=cpu,
            extra={"source": name_where, **extra}))
    return out


def histogram(where: str, benchmark: str, cpu: int, mode: str, thread: dict, per_us: int,
              count: int | None = None, open_last: bool = False) -> dict | None:
    """The thread's histogram as a results-format record; buckets are 1 us wide.

    ``open_last``: the last bucket holds everything from its edge up (oslat), so its
    upper edge is the thread's max.
    """
    buckets = thread.get("histogram")
    if buckets is None:
        return None
    if not isinstance(buckets, dict):
        raise IngestError(where, "expected \"histogram\" as an object of {\"<us>\": count}")
    rows = []
    for edge, n in buckets.items():
        if not re.fullmatch(r"\d{1,12}", edge) or not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise IngestError(where, f"histogram bucket {edge!r:.20}: {n!r:.20}; expected "
                                     "\"<whole us>\": <count>")
        if n:
            rows.append([int(edge) / per_us, (int(edge) + 1) / per_us, n])
    rows.sort()
    if open_last and rows and buckets and rows[-1][0] == max(int(e) for e in buckets) / per_us:
        rows[-1][1] = max(rows[-1][1], thread["max"] / per_us)
    in_buckets = sum(r[2] for r in rows)
    rec = {"type": "histogram", "benchmark": benchmark, "params": {}, "cpu": cpu, "mode": mode,
           "core": cpu, "unit": "us", "count": count if count is not None else in_buckets,
           "min": thread["min"] / per_us, "max": thread["max"] / per_us, "buckets": rows}
    if count is not None and count > in_buckets:
        rec["overflow"] = count - in_buckets  # beyond the last bucket (cyclictest -h N)
    return rec


def _figure(thread: dict, field: str, where: str, tid: str) -> float:
    value = thread.get(field)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            value = float(value)
        except OverflowError:  # an integer beyond any float
            value = math.inf
        if math.isfinite(value):
            return value
    raise IngestError(where, f"thread {tid!r:.20}: expected \"{field}\" as a number of us, "
                             f"got {thread.get(field)!r:.20}")


def _line_of(text: str, key: str, after: str | None = None) -> int:
    """The line where ``"key":`` first appears (after ``"after":``), for file:line messages."""
    start = 0
    if after is not None:
        found = text.find(f'"{after}"')
        start = found if found >= 0 else 0
    found = text.find(f'"{key}"', start)
    return text.count("\n", 0, found) + 1 if found >= 0 else 1
