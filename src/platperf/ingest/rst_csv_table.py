"""Published RST ``.. csv-table::`` directives, like those of a vendor performance guide.

Every table of the file is read. A value column whose header reads ``platform: what``
(``am62xx_sk-fs: perf``, ``am62xx_sk-fs: CPU Load (%)``) belongs to that platform; the
CLI makes one run per platform (``Result.extra["column"]``). Value columns without a
``platform:`` prefix belong to the document itself (column ``""``).

Rows are keyed by their LMBench-compatible names, the names platperf's reports print:

* ``lat_mem_rd-stride128-sz1000k (ns)`` -> ``mem-latency`` pattern ``seq``, stride 128,
  size 1 MiB: the guides name a size by lat_mem_rd's MB figure (2^20 bytes) times 1000,
  so ``sz31k`` is 32 KiB and ``sz500k`` 512 KiB (see platperf.report.lmbench_names, which
  prints the same names); a size without ``k`` (``sz50``) is taken as bytes. Metric
  ``latency`` ns;
* ``bw_mem-bcopy-16mb (MB/s)`` -> ``mem-bandwidth`` kernel ``bcopy``, size 16 MiB (k/kb
  KiB, m/mb MiB, b bytes: bw_mem's size argument),
  metric ``bandwidth`` MB/s (lmbench3 prints bandwidth in 10^6 bytes/s: kept as is);
* any other row -> benchmark ``guide``, params ``{"table": <title>, "name": <row>}``
  (plus the cells of value columns without a platform, in a table that has platform
  columns: OpenSSL's ``Buffer Size``), metric ``value`` (or the column's ``what`` when it
  names one), unit from the parentheses. Lower is better for time, %, power and energy
  units, higher otherwise.

Cells ``1249.56 (min 731.40, max 1767.72)`` keep the value as the sample and ``min`` /
``max`` in extra; empty, ``-`` and ``n/a`` cells are skipped.
"""
from __future__ import annotations

import csv
import math
import re
from typing import Iterable, Iterator

from ..records import Result
from ._numbers import number
from .errors import IngestError

_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+csv-table::\s*(.*)$")
_OPTION = re.compile(r"^\s*:([a-z-]+):\s*(.*)$")
_CELL = re.compile(r"^\s*(\S+)\s*(?:\(\s*min\s+(\S+?)\s*,\s*max\s+(\S+?)\s*\))?\s*$")
# a unit in parentheses is one short word: `(MB/s)`, `(microsec)`, not `(20 boot cycles)`
_UNIT = re.compile(r"^(.*?)\s*\(([^()\s]{0,20})\)\s*$")
_AVG_MIN_MAX = re.compile(r":?\s*avg\s*\(\s*min\s*,\s*max\s*\)\s*$", re.IGNORECASE)
_LAT_MEM_RD = re.compile(r"^lat_mem_rd-stride(\d{1,9})-sz(\d{1,9}(?:\.\d{1,6})?)(k?)$")
_BW_MEM = re.compile(r"^bw_mem-(rd|wr|rdwr|cp|frd|fwr|fcp|bzero|bcopy)-(\d{1,12})(b|k|kb|m|mb)?$")
_SCALE = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024**2, "mb": 1024**2}
_EMPTY = {"", "-", "n/a", "na", "none"}
_LOWER_UNITS = {"ns", "us", "µs", "ms", "s", "sec", "secs", "seconds", "microsec", "microseconds",
                "nanosec", "nanoseconds", "usec", "msec", "%", "mw", "w", "mj", "j"}
_CELL_SHAPE = "a number, optionally `(min X, max Y)`"


def parse(text: str, name: str) -> list[Result]:
    return list(read(text.splitlines(), name))


def read(lines: Iterable[str], name: str) -> Iterator[Result]:
    """The results of ``lines`` table by table, as the file is read (see ingest.read_lines)."""
    numbered = _Lookahead(enumerate(lines, 1))
    found = False
    tables = 0
    for number_, line in numbered:
        directive = _DIRECTIVE.match(line)
        if not directive:
            continue
        tables += 1
        indent, title = len(directive.group(1)), directive.group(2).strip()
        where = f"{name}:{number_}"
        options, rows = _block(numbered, indent)
        if "file" in options or "url" in options:
            raise IngestError(where, f"csv-table {title!r:.60} reads its rows from another file; "
                                     "ingest a table with its rows inline")
        delim = _delimiter(options.get("delim", ","), where)
        header_rows = options.get("header-rows", "0")
        if "header" in options:
            header = _cells(options["header"], delim, where)
        elif header_rows.strip() == "1" and rows:
            header = _cells(rows[0][1], delim, f"{name}:{rows[0][0]}")
            rows = rows[1:]
        else:
            raise IngestError(where, "expected a `:header:` option (or `:header-rows: 1`): the column "
                                     "headers name the platforms")
        if len(header) < 2:
            raise IngestError(where, "expected a header with a row-name column and at least one value column")
        columns = [_column(h) for h in header[1:]]
        # with platform columns, the other columns say what a row is (OpenSSL's buffer size)
        has_platforms = any(column for column, _ in columns)
        for row_line, row_text in rows:
            row_where = f"{name}:{row_line}"
            cells = _cells(row_text, delim, row_where)
            if len(cells) > len(header):
                raise IngestError(row_where, f"expected at most {len(header)} cells as in the header, "
                                             f"got {len(cells)}")
            cells += [""] * (len(header) - len(cells))  # published guides leave trailing cells out
            row_name = cells[0].strip()
            row_keys = {what: cell.strip() for (column, what), cell in zip(columns, cells[1:])
                        if has_platforms and not column}
            for (column, what), cell in zip(columns, cells[1:]):
                if cell.strip().lower() in _EMPTY or has_platforms and not column:
                    continue
                found = True
                yield _result(title, row_name, row_keys, column, what, cell, row_where)
    if not found:
        raise IngestError(f"{name}:1", "no figures: expected `.. csv-table::` directives with a `:header:` "
                                       "and rows of numbers" if tables == 0 else "csv-tables without figures")


class _Lookahead:
    """An iterator that can take back the one item it just gave (the line ending a block)."""

    def __init__(self, items):
        self._items = iter(items)
        self._back = []

    def __iter__(self):
        return self

    def __next__(self):
        return self._back.pop() if self._back else next(self._items)

    def push_back(self, item):
        self._back.append(item)


def _block(numbered: _Lookahead, indent: int):
    """The directive's options and its content rows [(line number, text)]; the line that ends
    the block is left in ``numbered``."""
    options, rows = {}, []
    in_options = True
    for number_, line in numbered:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            numbered.push_back((number_, line))
            break
        if not line.strip():
            in_options = False if options or rows else in_options
            continue
        option = _OPTION.match(line) if in_options else None
        if option:
            options[option.group(1)] = option.group(2)
        else:
            in_options = False
            rows.append((number_, line.strip()))
    return options, rows


def _delimiter(value: str, where: str) -> str:
    value = value.strip()
    named = {"tab": "\t", "space": " ", "": ","}
    if value in named:
        return named[value]
    if len(value) != 1:
        raise IngestError(where, f"expected `:delim:` to be one character, tab or space, got {value!r:.20}")
    return value


def _cells(text: str, delim: str, where: str) -> list[str]:
    try:
        rows = list(csv.reader([text], delimiter=delim, skipinitialspace=True, strict=True))
    except csv.Error as exc:
        raise IngestError(where, f"not a CSV row ({exc})") from None
    if len(rows) != 1:
        raise IngestError(where, "expected one CSV row on the line")
    return rows[0]


def _column(header: str) -> tuple[str, str]:
    """``"am62xx_sk-fs: CPU Load (%)"`` -> (``am62xx_sk-fs``, ``CPU Load (%)``)."""
    platform, sep, what = header.partition(":")
    if not sep or not platform.strip():
        return "", header.strip()
    return platform.strip(), what.strip()


def _result(title: str, row_name: str, row_keys: dict, column: str, what: str, cell: str,
            where: str) -> Result:
    shape = _CELL.match(cell)
    if not shape:
        raise IngestError(where, f"cell {cell!r:.40} of column {column or what!r:.40}: expected {_CELL_SHAPE}")
    value = number(shape.group(1), where, f"{_CELL_SHAPE} in column {column or what!r:.40}", signed=True)
    extra = {"column": column, "source": where}
    if shape.group(2) is not None:
        extra["min"] = number(shape.group(2), where, "a number after `min`", signed=True)
        extra["max"] = number(shape.group(3), where, "a number after `max`", signed=True)
    key_name, unit = _split_unit(row_name)
    lat = _LAT_MEM_RD.match(key_name)
    if lat:
        size = _lat_mem_rd_size(lat.group(2), lat.group(3))
        return Result("mem-latency", {"pattern": "seq", "size": size, "stride": int(lat.group(1))},
                      "latency", unit or "ns", "lower", [value], extra=extra)
    bw = _BW_MEM.match(key_name)
    if bw:
        size = int(bw.group(2)) * _SCALE[bw.group(3) or ""]
        return Result("mem-bandwidth", {"kernel": bw.group(1), "size": size},
                      "bandwidth", unit or "MB/s", "higher", [value], extra=extra)
    metric, column_unit = _split_unit(_AVG_MIN_MAX.sub("", what))
    unit = unit or column_unit
    if metric.lower() in ("", "perf", "value"):
        metric = "value"
    return Result("guide", {**row_keys, "table": title, "name": row_name}, metric, unit,
                  "lower" if _lower_is_better(unit, what) else "higher", [value], extra=extra)


def _lat_mem_rd_size(figure: str, k: str) -> int:
    """``sz31k`` -> 32 KiB. The guides name lat_mem_rd sizes by its MB figure (2^20 bytes)
    times 1000, cut to an integer (0.03125 MB -> 31k, 1 MB -> 1000k) or, below 1k, with two
    decimals: the size is the roundest multiple of 512 bytes (lat_mem_rd's steps) that
    gives that name. Without ``k`` the figure is taken as bytes."""
    if not k:
        return int(float(figure))
    value = float(figure)
    slack = (0.005, 0.005) if "." in figure else (0.0, 0.999999)
    low = math.ceil((value - slack[0]) / 1000 * 1048576 / 512)
    high = math.floor((value + slack[1]) / 1000 * 1048576 / 512)
    if low > high or high <= 0:
        return round(value / 1000 * 1048576)
    return 512 * max(range(max(low, 1), high + 1), key=lambda m: (m & -m, -m))


def _split_unit(text: str) -> tuple[str, str]:
    unit = _UNIT.match(text)
    return (unit.group(1).strip(), unit.group(2).strip()) if unit else (text.strip(), "")


def _lower_is_better(unit: str, what: str) -> bool:
    if "/" in unit:  # a rate: MB/s, Mbits/sec, DMIPS/MHz
        return False
    words = set(re.split(r"[\s/()%]+", unit.lower())) | ({"%"} if "%" in unit else set())
    return (bool(words & _LOWER_UNITS) or "%" in what
            or bool(re.search(r"\b(latency|time|load|loss)\b", what.lower())))
