"""Keys and cells for what no guide table family knows.

* A cell of a table no family claims (a guide's Audio, GFXBench or power tables) is keyed
  by the table itself: benchmark = the table title, params ``{"row": row as printed}``,
  metric = the column header as printed (``perf``, ``Throughput (bits/sec)``), the unit
  from the row's or the column's parentheses. Lower is better for time, %, power and
  energy units and for latency, time, load and loss columns, higher otherwise.
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
_PLATPERF_ROW = re.compile(r"^([^\s\[\]]+)(?:\[([^\[\]]*)\])? (\S+) \(([^()]*)\)$")
_INT = re.compile(r"^-?\d{1,18}$")
_FLOAT = re.compile(r"^-?\d{1,18}\.\d{1,18}$")
_LOWER_UNITS = {"ns", "us", "µs", "ms", "s", "sec", "secs", "seconds", "microsec", "microseconds",
                "nanosec", "nanoseconds", "usec", "msec", "%", "mw", "w", "mj", "j"}


def split_unit(text: str) -> tuple[str, str]:
    """``"lat_pipe (us)"`` -> (``lat_pipe``, ``us``); no unit -> (text, "")."""
    unit = _UNIT.match(text)
    return (unit.group(1).strip(), unit.group(2).strip()) if unit else (text.strip(), "")


def lower_is_better(unit: str, what: str) -> bool:
    if "/" in unit:  # a rate: MB/s, Mbits/sec, DMIPS/MHz
        return False
    words = set(re.split(r"[\s/()%]+", unit.lower())) | ({"%"} if "%" in unit else set())
    return (bool(words & _LOWER_UNITS) or "%" in what
            or bool(re.search(r"\b(latency|time|load|loss)\b", what.lower())))


def to_key(title: str, row: str, column: str) -> Key:
    if title in _DIRECTION:
        key = _platperf_key(row, _DIRECTION[title])
        if key is not None:
            return key
    unit = split_unit(row)[1] or split_unit(column)[1]
    direction = "lower" if lower_is_better(unit, f"{row} {column}") else "higher"
    return Key(title, (("row", row),), column, unit, direction)


def to_cell(key: Key) -> Cell:
    if len(key.params) == 1 and key.params[0][0] == "row":
        return Cell(key.benchmark, key.params[0][1], key.metric)
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
