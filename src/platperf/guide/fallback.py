"""Keys and cells for what no guide table family knows.

* A cell of a table no family claims (a guide's Audio, GFXBench or power tables) is keyed
  by the table itself: benchmark = the table title, params ``{"row": row as printed}``,
  metric = the column header as printed (``perf``, ``Throughput (bits/sec)``), the unit
  from the row's or the column's parentheses (netperf's field name after it is not one:
  ``CPU Load % (LOCAL_CPU_UTIL)`` is in %, ``UDP Datagram Size(bytes) (LOCAL_SEND_SIZE)`` in
  bytes), or a trailing ``%``. Lower is better for time, %, power and energy units and for
  latency, time, load and loss columns, higher otherwise.
* A row named with parameter columns (:mod:`platperf.guide.parameters`: TI's 2026 crypto
  table's ``Size (bytes)``) has them as parameters of its key beside ``row`` (``{"row":
  "aes-128-cbc", "size": 16}``), printed after the row's name (``aes-128-cbc, 16``).
* A measured key that no guide table prints (random-pattern latency, peak bandwidth,
  cycles) goes to ``platperf Benchmarks (lower is better)`` or ``(higher is better)`` as
  ``benchmark[canonical params] metric (unit)``, which reads back to the same key.
"""
from __future__ import annotations

import re

from ..records import canonical_params
from .keys import Cell, Key

PLATPERF_TITLES = {"lower": "platperf Benchmarks (lower is better)",
                   "higher": "platperf Benchmarks (higher is better)"}
_DIRECTION = {title: direction for direction, title in PLATPERF_TITLES.items()}
# a unit in parentheses is one short word: `(MB/s)`, `(microsec)`, not `(20 boot cycles)`
_UNIT = re.compile(r"^(.*?)\s*\(([^()\s]{0,20})\)\s*$")
# netperf's name of the field a column holds, printed after its unit: (LOCAL_CPU_UTIL), (FORWARDING)
_FIELD = re.compile(r"^(.*?)\s*\((?:[A-Z][A-Z0-9]*_[A-Z0-9_]*|[A-Z]{8,})\)\s*$")
_PERCENT = re.compile(r"^(.*?)\s*%$")
_PLATPERF_ROW = re.compile(r"^([^\s\[\]]+)(?:\[([^\[\]]*)\])? (\S+) \(([^()]*)\)$")
_INT = re.compile(r"^-?\d{1,18}$")
_FLOAT = re.compile(r"^-?\d{1,18}\.\d{1,18}$")
_LOWER_UNITS = {"ns", "us", "µs", "ms", "s", "sec", "secs", "seconds", "microsec", "microseconds",
                "nanosec", "nanoseconds", "usec", "usecs", "msec", "msecs", "nsec", "nsecs", "%", "mw",
                "w", "mj", "j"}


def split_unit(text: str) -> tuple[str, str]:
    """``"lat_pipe (us)"`` -> (``lat_pipe``, ``us``); ``"Packet Loss %"`` -> (``Packet Loss``,
    ``%``); no unit -> (text, "")."""
    field = _FIELD.match(text)
    name = field.group(1) if field and field.group(1) else text
    unit = _UNIT.match(name)
    if unit:
        return unit.group(1).strip(), unit.group(2).strip()
    percent = _PERCENT.match(name.strip())
    if percent and percent.group(1):
        return percent.group(1).strip(), "%"
    return text.strip(), ""


def lower_is_better(unit: str, what: str) -> bool:
    if "/" in unit:  # a rate: MB/s, Mbits/sec, DMIPS/MHz
        return False
    words = set(re.split(r"[\s/()%]+", unit.lower())) | ({"%"} if "%" in unit else set())
    return (bool(words & _LOWER_UNITS) or "%" in what
            or bool(re.search(r"\b(latency|time|load|loss)\b", what.lower())))


def to_key(title: str, row: str, column: str, params: tuple = ()) -> Key:
    """``params``: ((name, value), ...) of the row's parameter columns, whose values ``row``
    ends with (``"aes-128-cbc, 16"``)."""
    if title in _DIRECTION and not params:
        key = _platperf_key(row, _DIRECTION[title])
        if key is not None:
            return key
    lead = row.rsplit(", ", len(params))[0] if params else row
    unit = split_unit(lead)[1] or split_unit(column)[1]
    direction = "lower" if lower_is_better(unit, f"{lead} {column}") else "higher"
    return Key(title, tuple(sorted((("row", lead), *params))), column, unit, direction)


def row_params(key: Key) -> tuple:
    """The parameters of a table's key besides its row (its parameter columns)."""
    return tuple((name, value) for name, value in key.params if name != "row")


def to_cell(key: Key) -> Cell:
    row, rest = dict(key.params).get("row"), row_params(key)
    if isinstance(row, str) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for _, v in rest):
        return Cell(key.benchmark, ", ".join([row, *(str(value) for _, value in rest)]), key.metric)
    params = canonical_params(dict(key.params))
    where = f"[{params}]" if params else ""
    return Cell(PLATPERF_TITLES[key.direction], f"{key.benchmark}{where} {key.metric} ({key.unit})", "perf")


def sections(title: str) -> tuple[str, ...] | None:
    return ("System Benchmarks", "platperf") if title in _DIRECTION else None


def row_header(title: str) -> str | None:
    return "Benchmarks" if title in _DIRECTION else None


def sorted_rows(title: str) -> bool:
    return title in _DIRECTION


def _platperf_key(row: str, direction: str) -> Key | None:
    m = _PLATPERF_ROW.match(row)
    if not m:
        return None
    params = {}
    for item in filter(None, (m.group(2) or "").split(",")):
        name, sep, value = item.partition("=")
        if not sep:
            return None
        params[name] = int(value) if _INT.match(value) else float(value) if _FLOAT.match(value) else value
    return Key(m.group(1), tuple(sorted(params.items())), m.group(3), m.group(4), direction)
