"""What cyclictest --json and oslat --json share (rt-tests' common JSON writer, rt-tests 2.0 on).

rt-tests' ``rt_write_json`` (src/lib/rt-utils.c) writes every tool's file the same way:
``{"file_version": 1, "cmdline:": "<argv>", "rt_test_version:": "2.80", "start_time", "end_time",
"return_code", "sysinfo": {...}, ...}`` (the colons inside two key names are rt-tests'
own) followed by the tool's own fields; cyclictest and oslat write ``"num_threads": N,
"thread": {"0": {...}, ...}`` with per-thread ``cpu``, ``min``, ``avg``, ``max`` and a
``histogram`` of ``{"<bucket>": count}``. A thread's figures become ``latency_min`` /
``latency_avg`` / ``latency_max`` results (us, lower is better) and its histogram a
``histogram`` record. Threads run at the same time, so with more than one thread the mode is
``parallel``. Without a topology the logical CPU is also the ``core`` of the key (cluster
unknown), so that the threads of one run never pool together.

Every rt-tests tool writes this shape, so a file is checked to be the tool's own before its
threads are read: by the program its ``cmdline`` names, or, for a file without one, by the
fields only that tool writes (cyclictest's ``node`` and top-level ``resolution_in_ns``, oslat's
``freq`` and ``duration``, the messaging tests' ``sender``/``receiver``, pi_stress's
``inversion``...). Another tool's file is refused in one line naming that tool.
"""
from __future__ import annotations

import json
import math
import re

from ..records import Result
from .errors import IngestError

# the rt-tests programs that write --json, and the platperf format that reads each
TOOLS = ("cyclictest", "oslat", "cyclicdeadline", "signaltest", "ptsematest", "pmqtest", "svsematest",
         "sigwaittest", "rt-migrate-test", "pi_stress", "ssdd", "hackbench", "hwlatdetect", "deadline_test")
IMPORTED_AS = {"cyclictest": "cyclictest-json", "oslat": "oslat-json"}
BUCKET = re.compile(r"\d{1,12}(?:\.\d{1,9})?")


def load(text: str, name: str, tool: str) -> dict:
    """The document of ``tool --json`` output, checked to be ``tool``'s and complete."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise IngestError(f"{name}:{exc.lineno}", f"not JSON ({exc.msg}); expected {tool} --json output") from None
    except RecursionError:
        raise IngestError(f"{name}:1", f"JSON nested too deeply; expected {tool} --json output") from None
    if isinstance(doc, dict):
        _check_tool(text, name, doc, tool)
    if not isinstance(doc, dict) or not isinstance(doc.get("thread"), dict) or not doc["thread"]:
        raise IngestError(f"{name}:1", f"expected {tool} --json output: an object with a non-empty "
                                       "\"thread\" object")
    code = doc.get("return_code", 0)
    if code != 0:
        raise IngestError(f"{name}:{_line_of(text, 'return_code')}",
                          f"{tool} exited with return_code {code!r:.20}; its figures are incomplete")
    return doc


def cmdline(doc: dict) -> str | None:
    """The command line the file says it ran (rt-tests spells the key ``cmdline:``)."""
    for key in ("cmdline:", "cmdline"):
        if isinstance(doc.get(key), str):
            return doc[key]
    return None


def tool_of(doc: dict) -> tuple[str, str] | None:
    """(the rt-tests program that wrote ``doc``, how that is known), None if nothing says."""
    line = cmdline(doc)
    program = line.split()[0].rsplit("/", 1)[-1] if line and line.split() else ""
    if program in TOOLS:
        shown = line if len(line) <= 60 else line[:57].rstrip() + "..."
        return program, f"its cmdline \"{shown}\""
    if "inversion" in doc:
        return "pi_stress", "its \"inversion\" count"
    threads = doc.get("thread")
    first = next(iter(threads.values()), None) if isinstance(threads, dict) else None
    if not isinstance(first, dict):
        return None
    for fields, tool in ((("sender", "receiver"), "ptsematest, pmqtest, svsematest or sigwaittest"),
                         (("freq", "duration"), "oslat"), (("prio", "total"), "rt-migrate-test")):
        if all(field in first for field in fields):
            return tool, f"its threads' \"{fields[0]}\" and \"{fields[1]}\" fields"
    if "node" in first:
        return "cyclictest", "its threads' \"node\" field"
    if "cycles" in first and "cpu" not in first and "resolution_in_ns" in doc:
        return "cyclicdeadline", "its threads' \"cycles\" without \"cpu\""
    if "cycles" in first and "histogram" not in first and "resolution_in_ns" not in doc:
        return "signaltest", "its threads' \"cycles\" without \"resolution_in_ns\""
    return None


def _check_tool(text: str, name: str, doc: dict, tool: str) -> None:
    found = tool_of(doc)
    if found is None or found[0] == tool:
        return
    other, how = found
    where = f"{name}:{_line_of(text, 'cmdline:') if 'cmdline' in how else 1}"
    if other in IMPORTED_AS:
        remedy = f"import it as {IMPORTED_AS[other]}"
    else:
        remedy = f"platperf reads {' and '.join(f'{t} ({f})' for t, f in IMPORTED_AS.items())} output only"
    raise IngestError(where, f"this is {other} --json output ({how}), not {tool}'s: {remedy}")


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


def results(name_where: str, benchmark: str, cpu: int, mode: str, thread: dict, per_us: dict | int,
            extra: dict) -> list[Result]:
    """``per_us``: how many of the file's units make one us (1000 for ns), one number or one
    per field (oslat's ns files print min and max in ns and avg in us)."""
    out = []
    for field in ("min", "avg", "max"):
        scale = per_us[field] if isinstance(per_us, dict) else per_us
        out.append(Result(
            benchmark=benchmark, params={}, metric=f"latency_{field}", unit="us", direction="lower",
            samples=[thread[field] / scale], cpu=cpu, mode=mode, core=cpu,
            extra={"source": name_where, **extra}))
    return out


def buckets(where: str, thread: dict) -> list[tuple[float, int]] | None:
    """The thread's histogram as (bucket as printed, count) pairs, empty buckets left out; None
    if it has none. What a bucket's number means is the tool's (cyclictest: its lower edge,
    oslat: its upper edge)."""
    found = thread.get("histogram")
    if found is None:
        return None
    if not isinstance(found, dict):
        raise IngestError(where, "expected \"histogram\" as an object of {\"<bucket>\": count}")
    out = []
    for edge, n in found.items():
        if not BUCKET.fullmatch(edge) or not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise IngestError(where, f"histogram bucket {edge!r:.20}: {n!r:.20}; expected "
                                     "\"<latency>\": <count>")
        if n:
            out.append((float(edge), n))
    return sorted(out)


def histogram(benchmark: str, cpu: int, mode: str, rows: list, low: float, high: float,
              count: int | None = None) -> dict:
    """A results-format ``histogram`` record of ``rows`` ([lower us, upper us, count], sorted);
    ``count`` beyond the buckets' sum is ``overflow`` (cyclictest -h N's latencies past N)."""
    in_buckets = sum(r[2] for r in rows)
    rec = {"type": "histogram", "benchmark": benchmark, "params": {}, "cpu": cpu, "mode": mode,
           "core": cpu, "unit": "us", "count": count if count is not None else in_buckets,
           "min": low, "max": high, "buckets": rows}
    if count is not None and count > in_buckets:
        rec["overflow"] = count - in_buckets
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
