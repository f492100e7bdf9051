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

import re
from functools import lru_cache
from typing import Iterable, Iterator

from .. import guide
from ..records import Result
from . import _grid
from ._csv_directive import DIRECTIVE as _DIRECTIVE, OPTION as _OPTION, Lookahead as _Lookahead, \
    read as _directive, short, unescape, words as _words
from ._numbers import number
from .errors import IngestError, Skipped, Words

_GRID_DIRECTIVE = re.compile(r"^\s*\.\.\s+table::\s*(.*)$")
_GRID_TITLE = re.compile(r"^\s*Table:\s+(.*\S)\s*$")     # pandoc's caption under a grid table
# The grid table a guide describes its boards in: TI's "Evaluation Modules", Name | Description.
BOARDS_HEADER = ["Name", "Description"]
_CELL = re.compile(r"^\s*(\S+)\s*(?:\(\s*min\s+(\S+?)\s*,\s*max\s+(\S+?)\s*\))?\s*$")
# an RST section underline (or overline): one punctuation character repeated
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}\s*$")
_EMPTY = {"", "-", "n/a", "na", "none"}
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)")
_CELL_SHAPE = "a number, optionally `(min X, max Y)`"


def parse(text: str, name: str) -> list[Result]:
    return [r for r in read(text.splitlines(), name) if isinstance(r, Result)]


def read(lines: Iterable[str], name: str) -> Iterator[Result | Words | Skipped]:
    """The results of ``lines`` table by table, as the file is read (see ingest.read_lines);
    the cells printed as words (``n/a``, the boards' descriptions) as :class:`Words`, the grid
    tables that are no board table as :class:`Skipped`."""
    numbered = _Lookahead(enumerate(lines, 1))
    found = False
    tables = 0
    headings = _Headings()
    for number_, line in numbered:
        headings.see(line)
        directive = _DIRECTIVE.match(line)
        if not directive:
            if _GRID_DIRECTIVE.match(line) or _grid.RULE.match(line.strip()):
                yield from _grid_table(numbered, number_, line, name, headings.path())
            continue
        tables += 1
        table = _directive(numbered, directive, number_, name, "the column headers name the platforms")
        if len(table.header) < 2:
            raise IngestError(table.where, "expected a header with a row-name column and at least one value column")
        if [h.lower() for h in table.header[:2]] == ["cluster", "core"]:
            raise IngestError(table.where, f"csv-table {short(table.title)} is a per-core table of TF-A's "
                                           "PSCI page; read TF-A's pages with `platperf ingest tfa-rst`")
        for item in _table(table.title, table.header, table.rows, table.where,
                           {"section": headings.path(), "table": number_}):
            found = found or isinstance(item, Result)
            yield item
    if not found:
        raise IngestError(f"{name}:1", "no figures: expected `.. csv-table::` directives with a `:header:` "
                                       "and rows of numbers" if tables == 0 else "csv-tables without figures")


def _table(title: str, header: list[str], rows: list, where: str,
           place: dict) -> Iterator[Result | Words | Skipped]:
    """The results and words of one csv-table (``place``: its section and line)."""
    columns = [_column(h) for h in header[1:]]
    # with platform columns, the other columns say what a row is (OpenSSL's buffer size)
    has_platforms = any(column for column, _ in columns)
    naming = [header[0].strip()] + [what for column, what in columns if has_platforms and not column]
    table = {**place, "row_header": naming}
    # each board's columns in the page's order, those it left empty too (TI's UDP tables)
    boards: dict[str, list] = {}
    for column, what in columns:
        boards.setdefault(column, []).append(what)
    cells_read, widths = [], {}
    for row_where, cells in rows:
        cells = list(cells)
        if len(cells) > len(header):
            raise IngestError(row_where, f"expected at most {len(header)} cells as in the header, "
                                         f"got {len(cells)}")
        widths[row_where] = len(cells)
        cells += [""] * (len(header) - len(cells))  # published guides leave trailing cells out
        row_name = ", ".join([cells[0].strip()] + [cell.strip() for (column, _), cell
                                                    in zip(columns, cells[1:]) if has_platforms and not column])
        cells_read += [(row_name, column, what, cell, row_where) for (column, what), cell
                       in zip(columns, cells[1:])
                       if cell.strip() and not (has_platforms and not column)]
    if not has_platforms and not any(_is_figure(cell) for _, _, _, cell, _ in cells_read):
        # a table of text, not figures (a report's Environment table)
        yield Skipped(where, f"csv-table {title!r:.60} holds no figures")
        return
    seen: dict[tuple, str] = {}
    for row_name, column, what, cell, row_where in cells_read:
        if cell.strip().lower() in _EMPTY:   # "n/a": kept as the page prints it
            yield Words(row_where, column, title, row_name, what, cell.strip(),
                        tuple(table["section"]), tuple(naming))
            continue
        shape = {**table, "headers": boards[column]}
        if widths[row_where] < len(header):     # a row printed short, as the page has it
            shape["width"] = widths[row_where]
        res = _result(title, row_name, column, what, cell, row_where, shape)
        # TI's aliases print a figure twice (pipe_latency = lat_pipe): read it once
        once = (column, res.benchmark, res.params_key, res.metric)
        if seen.get(once) == cell.strip():
            continue
        seen[once] = cell.strip()
        yield res


def _grid_table(numbered: "_Lookahead", number_: int, line: str, name: str, section: list):
    """A grid table of the page: the boards' table (``Name | Description``, titled by its
    directive or by the ``Table: <title>`` line under it) as :class:`Words` of the
    document's own run; any other as :class:`Skipped`."""
    directive = _GRID_DIRECTIVE.match(line)
    title, grid = "", []
    if directive:
        parts = [directive.group(1)]
        for n, text in numbered:
            if not text.strip() or _grid.is_grid_line(text) or _OPTION.match(text):
                numbered.push_back((n, text))
                break
            parts.append(text.strip())
        title = _words(unescape(" ".join(parts)))
        for n, text in numbered:
            if text.strip() and not _OPTION.match(text):
                numbered.push_back((n, text))
                break
    else:
        grid.append((number_, line.strip()))
    for n, text in numbered:
        if not _grid.is_grid_line(text):
            numbered.push_back((n, text))
            break
        grid.append((n, text.strip()))
    if not title:
        ahead = []
        for n, text in numbered:
            ahead.append((n, text))
            if text.strip() or len(ahead) > 2:
                break
        caption = _GRID_TITLE.match(ahead[-1][1]) if ahead else None
        if caption:
            title = _words(unescape(caption.group(1)))
        else:
            for item in reversed(ahead):
                numbered.push_back(item)
    where = f"{name}:{grid[0][0] if grid else number_}"
    rows = _grid.rows(grid, name, "expected a grid table of `+---+` rules and `| ... |` rows") if grid else []
    if not rows or rows[0][1] != BOARDS_HEADER:
        header = " | ".join(rows[0][1]) if rows else ""
        yield Skipped(where, f"a grid table {title or header!r:.60} (this format reads csv-tables, and the "
                             f"boards' table `{' | '.join(BOARDS_HEADER)}`)")
        return
    for row_line, cells in rows[1:]:
        if len(cells) != 2:
            raise IngestError(f"{name}:{row_line}", f"{len(cells)} cells in a row of the boards' table "
                                                    f"{title!r:.40}; expected `| name | description |`")
        yield Words(f"{name}:{row_line}", "", title, cells[0], BOARDS_HEADER[1], cells[1], tuple(section),
                    (BOARDS_HEADER[0],))


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
    # a row the page names otherwise than platperf prints the key (the command that ran)
    if row_name not in _printed_rows(key, n):
        extra["row"] = row_name
    return Result(key.benchmark, dict(key.params), key.metric, key.unit, key.direction, [value], extra=extra)


@lru_cache(maxsize=4096)
def _printed_rows(key: guide.Key, n) -> frozenset:
    """The rows platperf prints a key's figure in (a guide repeats its tables' keys)."""
    return frozenset({guide.to_cell(key, n).row} | {c.row for c in guide.also(key)})
