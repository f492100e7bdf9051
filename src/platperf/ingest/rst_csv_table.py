"""Published RST ``.. csv-table::`` directives, like those of a vendor performance guide.

Every table of the file is read. A value column whose header reads ``platform: what``
(``am62xx_sk-fs: perf``, ``am62xx_sk-fs: CPU Load (%)``) belongs to that platform; the
CLI makes one run per platform (``Result.extra["column"]``); the first ``": "`` ends the
platform, so a run label may hold a colon (``ti:am62xx_sk-fs: perf``). Value columns without
a ``platform: `` prefix belong to the document itself (column ``""``); a table of such
columns in which no cell is a number (a report's Environment table) is text and is skipped.
Cells are read as docutils reads them: ``\\[`` is ``[`` (platperf's reports escape markup).

Each cell is keyed by :func:`platperf.guide.to_key` (title, row name, column header without
its platform): the key of the measurement that produces it (``lat_mem_rd-stride128-sz1000k
(ns)`` -> ``mem-latency`` seq, stride 128, 1 MiB; ``copy (MB/s)`` of the Stream table ->
``mem-bandwidth`` kernel ``copy``; ``lat_pipe (us)`` -> ``os-ipc`` kind ``pipe``), or, in a
table no guide family knows, a key named by the table's own title, row and column. A row
named by several columns (OpenSSL's Algorithm and Buffer Size) is their cells joined by ``, ``.
Every result is whole-board (no cpu, cluster or core), mode serial; TI's aliases of a row
(``pipe_latency (microsec)`` = ``lat_pipe (us)``) are read once.

Cells ``1249.56 (min 731.40, max 1767.72)`` keep the value as the sample and ``min`` /
``max`` in extra, with the headings over the table (``extra["section"]``) and the header
of its row-name column (``extra["row_header"]``); a row that names its sample count (``Linux
boot time from SD with default rootfs (20 boot cycles)``) keeps it as ``extra["n"]``, the
result's n, for the report to print again. Empty, ``-`` and ``n/a`` cells are skipped.
"""
from __future__ import annotations

import csv
import re
from typing import Iterable, Iterator

from .. import guide
from ..records import Result
from ._numbers import number
from .errors import IngestError

_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+csv-table::\s*(.*)$")
_OPTION = re.compile(r"^\s*:([a-z-]+):\s*(.*)$")
_CELL = re.compile(r"^\s*(\S+)\s*(?:\(\s*min\s+(\S+?)\s*,\s*max\s+(\S+?)\s*\))?\s*$")
# an RST section underline (or overline): one punctuation character repeated
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}\s*$")
_EMPTY = {"", "-", "n/a", "na", "none"}
_ESCAPE = re.compile(r"\\(.)", re.S)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)")
_CELL_SHAPE = "a number, optionally `(min X, max Y)`"


def parse(text: str, name: str) -> list[Result]:
    return list(read(text.splitlines(), name))


def read(lines: Iterable[str], name: str) -> Iterator[Result]:
    """The results of ``lines`` table by table, as the file is read (see ingest.read_lines)."""
    numbered = _Lookahead(enumerate(lines, 1))
    found = False
    tables = 0
    headings = _Headings()
    for number_, line in numbered:
        headings.see(line)
        directive = _DIRECTIVE.match(line)
        if not directive:
            continue
        tables += 1
        indent = len(directive.group(1))
        where = f"{name}:{number_}"
        more, options, rows = _block(numbered, indent)
        title = _words(unescape(" ".join([directive.group(2)] + more)))
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
        naming = [header[0].strip()] + [what for column, what in columns if has_platforms and not column]
        table = {"section": headings.path(), "row_header": naming}
        cells_read = []
        for row_line, row_text in rows:
            row_where = f"{name}:{row_line}"
            cells = _cells(row_text, delim, row_where)
            if len(cells) > len(header):
                raise IngestError(row_where, f"expected at most {len(header)} cells as in the header, "
                                             f"got {len(cells)}")
            cells += [""] * (len(header) - len(cells))  # published guides leave trailing cells out
            row_name = ", ".join([cells[0].strip()] + [cell.strip() for (column, _), cell
                                                        in zip(columns, cells[1:]) if has_platforms and not column])
            cells_read += [(row_name, column, what, cell, row_where) for (column, what), cell
                           in zip(columns, cells[1:])
                           if cell.strip().lower() not in _EMPTY and not (has_platforms and not column)]
        if not has_platforms and not any(_is_figure(cell) for _, _, _, cell, _ in cells_read):
            continue            # a table of text, not figures (a report's Environment table)
        seen: dict[tuple, str] = {}
        for row_name, column, what, cell, row_where in cells_read:
            res = _result(title, row_name, column, what, cell, row_where, table)
            # TI's aliases print a figure twice (pipe_latency = lat_pipe): read it once
            once = (column, res.benchmark, res.params_key, res.metric)
            if seen.get(once) == cell.strip():
                continue
            seen[once] = cell.strip()
            found = True
            yield res
    if not found:
        raise IngestError(f"{name}:1", "no figures: expected `.. csv-table::` directives with a `:header:` "
                                       "and rows of numbers" if tables == 0 else "csv-tables without figures")


def _is_figure(cell: str) -> bool:
    shape = _CELL.match(cell)
    return bool(shape and _NUMBER.fullmatch(shape.group(1)))


class _Headings:
    """The RST section titles over the current line: a title line, then an underline of one
    punctuation character at least as long (an overlined title is the document's own and is
    left out); levels in the order their characters first appear, as docutils assigns them."""

    def __init__(self):
        self._before = ["", ""]
        self._levels: list[str] = []
        self._path: list[str] = []

    def see(self, line: str):
        before, previous = self._before
        self._before = [previous, line]
        adorn = _ADORNMENT.match(line)
        text = previous.strip()
        if not adorn or not text or _ADORNMENT.match(previous) or len(line.strip()) < len(text):
            return
        if _ADORNMENT.match(before) and before.strip()[0] == adorn.group(1):
            return                                   # the overlined document title
        char = adorn.group(1)
        if char not in self._levels:
            self._levels.append(char)
        level = self._levels.index(char)
        self._path = self._path[:level] + [unescape(text)]

    def path(self) -> list[str]:
        return list(self._path)


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
    """The directive's title continued on the lines under it, its options and its content rows
    [(line number, text)]; the line that ends the block is left in ``numbered``.

    As docutils reads it: the title runs on until a blank line or an option, the options until
    a blank line, the content is indented deeper than the directive. A copy out of a browser
    or a mail loses the indentation: content flush with the directive runs to a blank line."""
    title, options, rows = [], {}, []
    state, flush = "title", None
    for number_, line in numbered:
        stripped = line.strip()
        deeper = len(line) - len(line.lstrip()) > indent
        if state != "content":
            option = _OPTION.match(line)
            if not stripped:
                state = "content"
                continue
            if option:
                options[option.group(1)] = option.group(2)
                # options indented under the directive: so is its content (not a copy)
                flush = False if deeper else flush
                state = "options"
                continue
            if state == "title":
                title.append(stripped)
                continue
            state = "content"           # a row right under the options
        if not stripped:
            if rows and flush:
                break
            continue
        if flush is None:
            flush = not deeper
        if not flush and not deeper:
            numbered.push_back((number_, line))
            break
        rows.append((number_, stripped))
    return title, options, rows


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
    return [_words(unescape(cell)) for cell in rows[0]]


def _words(text: str) -> str:
    """One space between words: a copy's tabs and runs of spaces read as one."""
    return " ".join(text.split())


def unescape(text: str) -> str:
    """A cell as docutils reads it: ``\\x`` is a literal ``x``, and an escaped space is nothing
    (platperf's reports escape ``[``, ``*``, ``|`` and a leading ``-`` this way)."""
    return _ESCAPE.sub(lambda m: "" if m.group(1).isspace() else m.group(1), text)


def _column(header: str) -> tuple[str, str]:
    """``"am62xx_sk-fs: CPU Load (%)"`` -> (``am62xx_sk-fs``, ``CPU Load (%)``); a platform
    name may hold a colon (``sdk-11.1:am62xx``): the first colon and space ends it."""
    platform, sep, what = header.partition(": ")
    if not sep or not platform.strip():
        return "", header.strip()
    return platform.strip(), what.strip()


def _result(title: str, row_name: str, column: str, what: str, cell: str, where: str,
            table: dict) -> Result:
    shape = _CELL.match(cell)
    if not shape:
        raise IngestError(where, f"cell {cell!r:.40} of column {column or what!r:.40}: expected {_CELL_SHAPE}")
    value = number(shape.group(1), where, f"{_CELL_SHAPE} in column {column or what!r:.40}", signed=True)
    extra = {"column": column, "source": where, **table}
    if shape.group(2) is not None:
        extra["min"] = number(shape.group(2), where, "a number after `min`", signed=True)
        extra["max"] = number(shape.group(3), where, "a number after `max`", signed=True)
    n = guide.count(title, row_name)
    if n is not None:
        extra["n"] = n
    key = guide.to_key(title, row_name, what)
    return Result(key.benchmark, dict(key.params), key.metric, key.unit, key.direction, [value], extra=extra)
