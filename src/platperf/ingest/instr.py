"""Points timestamped in a user's own program with ``probe/include/platperf_instr.h``.

The header writes the probe's JSON Lines (docs/results-format.md): a ``meta`` with the
counter and its frequency, one ``point`` per timestamp (name, counter ticks, CPU, thread),
``end``. An interval is the difference of two points of one thread, END - START, as TF-A
derives its published figures from PMF timestamps (Powerdown = ENTER_HW_LOW_PWR -
ENTER_PSCI). A small TOML names them (docs/instr.md)::

    unit = "us"
    [intervals]
    powerdown = "ENTER_HW_LOW_PWR - ENTER_PSCI"

Each END is paired with the latest START before it on the same thread that no earlier END
took; the sample goes to the CPU the START ran on. Result key: benchmark ``instr``,
params ``{"test": <interval>}``, metric ``latency`` — per (cluster, core) once the CLI has
placed the CPUs, so ``compare`` draws TF-A's ``Cluster | Core`` tables. Without a TOML
every two consecutive points of a thread make an interval named ``FROM..TO``.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from .. import toml as tomllib
from ..records import MODES, RecordError, Result, read_stream
from .errors import IngestError

# What this format reads, shaped like the real thing (`platperf ingest FORMAT --help` prints it).
EXAMPLE = """\
{"type":"meta","schema":1,"source":"platperf_instr.h","instr_version":1,"arch":"aarch64","program":"my_driver","host":"juno","counter":{"name":"cntvct_el0","freq_hz":50000000,"freq_source":"cntfrq"}}
{"type":"point","name":"ENTER_PSCI","ticks":112214436719683375,"cpu":0,"thread":18287}
{"type":"point","name":"ENTER_CFLUSH","ticks":112214436719694062,"cpu":0,"thread":18287}
"""

BENCHMARK = "instr"
UNITS = {"ns": 1e9, "us": 1e6}
_DIFFERENCE = re.compile(r"^\s*(\S+)\s+-\s+(\S+)\s*$")
_EXPECTED_TOML = 'expected [intervals] entries such as powerdown = "ENTER_HW_LOW_PWR - ENTER_PSCI"'


@dataclass(frozen=True)
class Interval:
    name: str
    end: str
    start: str


@dataclass(frozen=True)
class Intervals:
    intervals: tuple[Interval, ...]
    unit: str = "us"
    mode: str = "serial"


def parse_intervals(text: str, name: str) -> Intervals:
    """The intervals of a TOML text; IngestError naming ``name`` for anything else."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise IngestError(f"{name}:{getattr(exc, 'lineno', 1) or 1}", f"not valid TOML ({exc}); "
                                                                      f"{_EXPECTED_TOML}") from None
    unknown = sorted(set(data) - {"unit", "mode", "intervals"})
    if unknown:
        raise IngestError(f"{name}:1", f"unknown key {unknown[0]!r} (valid: unit, mode, intervals)")
    unit = data.get("unit", "us")
    if unit not in UNITS:
        raise IngestError(f"{name}:1", f"unit {unit!r} is not valid (valid: {', '.join(UNITS)})")
    mode = data.get("mode", "serial")
    if mode not in MODES:
        raise IngestError(f"{name}:1", f"mode {mode!r} is not valid (valid: {', '.join(MODES)})")
    table = data.get("intervals")
    if not isinstance(table, dict) or not table:
        raise IngestError(f"{name}:1", f"no [intervals] table; {_EXPECTED_TOML}")
    out = []
    for interval, expr in table.items():
        m = _DIFFERENCE.match(expr) if isinstance(expr, str) else None
        if m is None:
            raise IngestError(f"{name}:1", f"interval {interval!r} = {expr!r:.60} is not END - START "
                                           f"(points apart with spaces around the minus); {_EXPECTED_TOML}")
        out.append(Interval(interval, m.group(1), m.group(2)))
    return Intervals(tuple(out), unit, mode)


def load_intervals(path: Path) -> Intervals:
    try:
        return parse_intervals(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise IngestError(f"{path}:1", f"cannot read the intervals file ({exc})") from None


def file_host(path: Path) -> str | None:
    """The host the first ``meta`` of ``path`` says the points were taken on, if any."""
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.strip():
                    rec = json.loads(line)
                    return rec.get("host") if isinstance(rec, dict) and isinstance(rec.get("host"), str) else None
    except (OSError, ValueError):
        return None
    return None


def parse(text: str, name: str, intervals: Intervals | None = None) -> list[Result]:
    return list(read(text.splitlines(), name, intervals))


def read(lines: Iterable[str], name: str, intervals: Intervals | None = None) -> Iterator[Result]:
    """The intervals of ``lines`` one at a time, as the file is read."""
    unit = intervals.unit if intervals else "us"
    mode = intervals.mode if intervals else "serial"
    per_second = UNITS[unit]
    freq = None
    pending: dict[tuple, tuple] = {}   # (thread, interval) -> (ticks, cpu) of its START
    last: dict[int, tuple] = {}        # thread -> (name, ticks, cpu) of its last point
    points = found = 0
    at = [0]                           # the line read_stream read last: the record's own

    def counted():
        for number, line in enumerate(lines, 1):
            at[0] = number
            yield line

    try:
        for rec in read_stream(counted(), name):
            where = f"{name}:{at[0]}"
            kind = rec["type"]
            if kind == "meta":
                freq = _frequency(rec, where)
                pending.clear()
                last.clear()
                continue
            if kind != "point":
                continue
            points += 1
            point, ticks, cpu, thread = rec["name"], rec["ticks"], rec["cpu"], rec["thread"]
            if ticks < 0 or cpu < 0:
                raise IngestError(where, f"point {point!r:.40} has negative ticks or cpu")
            if intervals is None:
                before = last.get(thread)
                last[thread] = (point, ticks, cpu)
                if before is None:
                    continue
                todo = [(f"{before[0]}..{point}", before[1], before[2])]
            else:
                todo = []
                for iv in intervals.intervals:
                    if point == iv.end and (thread, iv.name) in pending:
                        start_ticks, start_cpu = pending.pop((thread, iv.name))
                        todo.append((iv.name, start_ticks, start_cpu))
                for iv in intervals.intervals:
                    if point == iv.start:
                        pending[(thread, iv.name)] = (ticks, cpu)
            for test, start_ticks, start_cpu in todo:
                if ticks < start_ticks:
                    raise IngestError(where, f"interval {test!r:.40}: thread {thread}'s counter went "
                                                   f"backwards ({start_ticks} then {ticks})")
                try:
                    value = (ticks - start_ticks) / freq * per_second
                except OverflowError:
                    value = math.inf
                if not math.isfinite(value):
                    raise IngestError(where, f"interval {test!r:.40} is not a finite number")
                found += 1
                yield Result(benchmark=BENCHMARK, params={"test": test}, metric="latency", unit=unit,
                             direction="lower", samples=[value], cpu=start_cpu, mode=mode,
                             extra={"source": where})
    except IngestError:
        raise
    except RecordError as exc:
        raise IngestError(exc.where, f"{exc.message}; expected platperf_instr.h output "
                                     "(meta, point, end records)") from None
    if not points:
        raise IngestError(f"{name}:1", "no point records; expected platperf_instr.h output "
                                       "(pp_instr_write() writes meta, point and end records)")
    if not found:
        wanted = ", ".join(f"{iv.name} = {iv.end} - {iv.start}" for iv in intervals.intervals) \
            if intervals else "two points on one thread"
        raise IngestError(f"{name}:1", f"{points} points but no interval ({wanted}): check the point "
                                       "names against the TOML")


def _frequency(meta: dict, where: str) -> float:
    counter = meta.get("counter")
    freq = counter.get("freq_hz") if isinstance(counter, dict) else None
    if isinstance(freq, bool) or not isinstance(freq, (int, float)) or not math.isfinite(freq) or freq <= 0:
        raise IngestError(where, "meta has no counter.freq_hz above 0; expected platperf_instr.h "
                                       "output (pp_instr_write() writes it)")
    return float(freq)
