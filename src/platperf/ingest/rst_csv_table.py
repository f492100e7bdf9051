"""Published RST ``.. csv-table::`` directives, like those of a vendor performance guide (TI's
processor-sdk-doc Linux performance guides of every device, 2022 to 2026).

Every table of the file is read whole or refused. A value column whose header reads
``platform: what`` (``am62xx_sk-fs: perf``, ``am62xx_sk-fs: CPU Load (%)``) belongs to that
platform; the CLI makes one run per platform (``Result.extra["column"]``); the first ``": "``
ends the platform, so a run label may hold a colon (``ti:am62xx_sk-fs: perf``). Value columns
without a ``platform: `` prefix belong to the document itself (column ``""``: TI's power and
crypto-comparison tables); a table of such columns in which no cell is a number (a report's
Environment table) is text and is skipped. Cells are read as docutils reads them: ``\\[`` is
``[`` (platperf's reports escape markup).

Each cell is keyed by :func:`platperf.guide.to_key` (title, row name, column header without
its platform): the key of the measurement that produces it (``lat_mem_rd-stride128-sz1000k
(ns)`` -> ``mem-latency`` seq, stride 128, 1 MiB; ``copy (MB/s)`` of the Stream table ->
``mem-bandwidth`` kernel ``copy``; ``lat_pipe (us)`` -> ``os-ipc`` kind ``pipe``; the units in
any case, as TI prints them since 2025: ``(mb/s)``), or, in a table no guide family knows, a
key named by the table's own title, row and column. A row named by several columns (OpenSSL's
Algorithm and Buffer Size) is their cells joined by ``, ``. A parameter column
(:mod:`platperf.guide.parameters`: a buffer, message or datagram size in bytes) is never a
figure: in the page's own tables (TI's 2026 ``Crypto Accelerator Performance``: ``"Algorithm",
"Size (bytes)", ...``) its cell is a parameter of the row's keys (``size=16``), so six buffer
sizes are six keys; a board's parameter column (``UDP Datagram Size(bytes) (LOCAL_SEND_SIZE)``)
is kept as the page prints it. Every result is whole-board (no cpu, cluster or core), mode
serial; TI's aliases of a row (``pipe_latency (microsec)`` = ``lat_pipe (us)``) are read once.

A table without a title is named by the ``Table: **Deep sleep**`` caption right above it (TI's
power tables of 2024), else by the section heading it sits under.

Cells (:mod:`platperf.ingest._guide_cell`): ``1249.56 (min 731.40, max 1767.72)`` keeps the
value as the sample and ``min`` / ``max`` in extra, with the headings over the table
(``extra["section"]``) and the header of its row-name columns (``extra["row_header"]``); a
cell that prints its unit (``38%``, ``16 bytes``) is read when that unit is the one its column
(or row) names; a row that names its sample count (``Linux boot time from SD with default
rootfs (20 boot cycles)``) keeps it as ``extra["n"]``. Empty cells are skipped; ``-``, ``n/a``,
a note of several words (``Full normal boot time (~seconds)``) and a column of words beside a
board's figures (a sensor's name) are kept as the page prints them (:class:`Words`).

Refused, with the line: a table without a ``:header:`` (or ``:header-rows: 1``); a row longer
than its header; one word or a misread number where a figure belongs (``fast``, ``12.5.1``,
``1249.56 (min``); a cell in another unit than its column's (``16 KB`` under ``Size
(bytes)``); a second figure of a key the file already gave (two tables of one title, or two
untitled tables under one heading: they would pool into one result); a TF-A per-core table
(read with ``tfa-rst``); rows from a ``:url:``.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Iterator

from .. import guide
from ..records import Result
from . import _grid, _guide_cell
from ._csv_directive import DIRECTIVE as _DIRECTIVE, OPTION as _OPTION, Lookahead as _Lookahead, \
    read as _directive, short, unescape, words as _words
from .errors import IngestError, Skipped, Words

_GRID_DIRECTIVE = re.compile(r"^\s*\.\.\s+table::\s*(.*)$")
_GRID_TITLE = re.compile(r"^\s*Table:\s+(.*\S)\s*$")     # pandoc's caption under a grid table
_EMPHASIS = re.compile(r"^\*{1,2}(.*?)\*{1,2}$")           # **Deep sleep**
# The grid table a guide describes its boards in: TI's "Evaluation Modules", Name | Description.
BOARDS_HEADER = ["Name", "Description"]
# an RST section underline (or overline): one punctuation character repeated
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}\s*$")

# A short csv-table as TI's guides print it (``platperf ingest rst-csv-table --help``).
EXAMPLE = """\
CRYPTO
======

.. csv-table:: OpenSSL Performance
    :header: "Algorithm","Buffer Size (in bytes)","am62xx_sk-fs: throughput (KBytes/Sec)"

    "aes-128-cbc","1024","21814.61 (min 21500.20, max 22010.00)"

.. csv-table:: Crypto Accelerator Performance
   :header: "Algorithm", "Size (bytes)", "Accelerator (MB/s)", "ARM CE (MB/s)"

   "aes-128-ecb", "16 bytes", "0.38", "104.39"

.. csv-table:: CPU Usage %
   :header: "Algorithm", "Accelerator (%)", "ARM CE (%)"

   "aes-128-cbc", "38%", "99%"
"""


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
    seen: dict = {}         # (column, key) -> where it was read: one figure a key
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
        title = table.title or headings.untitled(table.where)
        for item in _table(title, table.header, table.rows, table.where,
                           {"section": headings.path(), "table": number_}, seen):
            found = found or isinstance(item, Result)
            yield item
    if not found:
        raise IngestError(f"{name}:1", "no figures: expected `.. csv-table::` directives with a `:header:` "
                                       "and rows of numbers" if tables == 0 else "csv-tables without figures")


def _table(title: str, header: list[str], rows: list, where: str, place: dict,
           seen: dict) -> Iterator[Result | Words | Skipped]:
    """The results and words of one csv-table (``place``: its section and line; ``seen``: the
    file's keys so far, by column, with where each was read)."""
    columns = [_column(h) for h in header[1:]]
    # with platform columns, the other columns say what a row is (OpenSSL's buffer size); in
    # the page's own tables, a parameter column does (the crypto table's size in bytes)
    has_platforms = any(column for column, _ in columns)
    naming = [(has_platforms or guide.parameter(what) is not None) and not column for column, what in columns]
    row_header = [header[0].strip()] + [what for (_, what), names in zip(columns, naming) if names]
    table = {**place, "row_header": row_header}
    # each board's columns in the page's order, those it left empty too (TI's UDP tables)
    boards: dict[str, list] = {}
    for (column, what), names in zip(columns, naming):
        if not names:
            boards.setdefault(column, []).append(what)
    cells_read, widths = [], {}
    for row_where, cells in rows:
        cells = list(cells)
        if len(cells) > len(header):
            raise IngestError(row_where, f"expected at most {len(header)} cells as in the header, "
                                         f"got {len(cells)}")
        widths[row_where] = len(cells)
        cells += [""] * (len(header) - len(cells))  # published guides leave trailing cells out
        row = _row(cells, columns, naming, row_where, keyed_params=not has_platforms)
        cells_read += [(row, column, what, cell, row_where) for (column, what), cell, names
                       in zip(columns, cells[1:], naming) if cell.strip() and not names]
    if not has_platforms and not any(_guide_cell.is_figure(cell) for _, _, _, cell, _ in cells_read):
        # a table of text, not figures (a report's Environment table)
        yield Skipped(where, f"csv-table {title!r:.60} holds no figures")
        return
    words = _word_columns(cells_read)
    for row, column, what, cell, row_where in cells_read:
        parameter = guide.parameter(what)
        if _guide_cell.is_words(cell) or parameter is not None or (column, what) in words:
            # "n/a", words, and a board's parameter (its datagram size): printed again, no figure
            if parameter is not None and not _guide_cell.is_words(cell):
                _guide_cell.read(cell, row_where, column or what, (parameter.unit,))
            yield Words(row_where, column, title, row.printed, what, cell.strip(),
                        tuple(table["section"]), tuple(row_header))
            continue
        shape = {**table, "headers": boards[column]}
        if widths[row_where] < len(header):     # a row printed short, as the page has it
            shape["width"] = widths[row_where]
        res = _result(title, row, column, what, cell, row_where, shape)
        if _once(seen, column, res, cell, row_where, title):
            yield res


def _word_columns(cells_read: list) -> set:
    """The columns of words beside a board's figures (am57x's ``Sensor`` beside its ``Fps``):
    no cell of theirs starts like a number, and a column of the same board holds figures."""
    text: dict[tuple, bool] = {}
    for _, column, what, cell, _ in cells_read:
        if not _guide_cell.is_empty(cell):
            text[(column, what)] = text.get((column, what), True) and _guide_cell.is_text(cell)
    figures = {column for (column, _), words in text.items() if not words}
    return {(column, what) for (column, what), words in text.items() if words and column in figures}


class _Row:
    """A row's name: as printed, as keyed (a parameter's unit left out: ``16 bytes`` is 16),
    and the row's parameters ((name, value), ...)."""

    def __init__(self, printed: str, keyed: str, params: tuple):
        self.printed, self.keyed, self.params = printed, keyed, params


def _row(cells: list[str], columns: list, naming: list, where: str, keyed_params: bool) -> _Row:
    """The row's name; ``keyed_params``: its parameter columns are parameters of its keys too
    (the page's own tables; a board's table keys its naming columns as the row, OpenSSL's)."""
    printed, keyed, params = [cells[0].strip()], [cells[0].strip()], []
    for (column, what), cell, names in zip(columns, cells[1:], naming):
        if not names:
            continue
        printed.append(cell.strip())
        parameter = guide.parameter(what)
        if parameter is None:
            keyed.append(cell.strip())
            continue
        figure = _guide_cell.read(cell, where, what, (parameter.unit,))
        if figure.min is not None:
            raise IngestError(where, f"cell {cell!r:.40} of column {what!r:.40}: expected one number, "
                                     f"the row's {parameter.name}")
        value = int(figure.value) if figure.value.is_integer() else figure.value
        keyed.append(str(value))
        params.append((parameter.name, value))
    return _Row(", ".join(printed), ", ".join(keyed), tuple(params) if keyed_params else ())


def _once(seen: dict, column: str, res: Result, cell: str, where: str, title: str) -> bool:
    """True the first time the file gives ``res``'s key in ``column``; False when it prints the
    same figure again (TI's alias of a row, pipe_latency = lat_pipe; a page repeated); a second,
    different figure of one key would pool with the first (two tables of one title, two
    untitled tables under one heading): refused."""
    first = seen.setdefault((column, res.key), (cell.strip(), where))
    if first[1] == where:
        return True
    if first[0] == cell.strip():
        return False
    raise IngestError(where, f"{title!r:.50}: {res.benchmark} {res.params_key} {res.metric} again, "
                             f"first read at {first[1]} ({first[0]!r:.20}, here {cell.strip()!r:.20}); "
                             "two figures of one key would pool: give the tables their own titles")


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


class _Headings:
    """The RST section titles over the current line: a title line, then an underline of one
    punctuation character at least as long (an overlined title is the document's own and is
    left out); levels in the order their characters first appear, as docutils assigns them."""

    def __init__(self):
        self._before = ["", ""]
        self._levels: list[str] = []
        self._path: list[str] = []
        self._text = ["", ""]       # the last line with text before the current one, and the current

    def see(self, line: str):
        before, previous = self._before
        self._before = [previous, line]
        self._text = [self._text[1], line] if self._text[1].strip() else [self._text[0], line]
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

    def untitled(self, where: str) -> str:
        """The name of a csv-table without a title: the ``Table: **Deep sleep**`` caption
        right above it (TI's power tables of 2024), else the heading it sits under (two tables
        so named under one heading are refused when their keys meet)."""
        caption = _GRID_TITLE.match(self._text[0])
        if caption:
            return _EMPHASIS.sub(r"\1", unescape(_words(caption.group(1)))).strip()
        if not self._path:
            raise IngestError(where, "a csv-table without a title, under no section heading: expected "
                                     "`.. csv-table:: <title>` (its title names its figures)")
        return self._path[-1]


def _column(header: str) -> tuple[str, str]:
    """``"am62xx_sk-fs: CPU Load (%)"`` -> (``am62xx_sk-fs``, ``CPU Load (%)``); a platform
    name may hold a colon (``sdk-11.1:am62xx``): the first colon and space ends it."""
    platform, sep, what = header.partition(": ")
    if not sep or not platform.strip():
        return "", header.strip()
    return platform.strip(), what.strip()


def _result(title: str, row: _Row, column: str, what: str, cell: str, where: str,
            table: dict) -> Result:
    key = guide.to_key(title, row.keyed, what, row.params)
    units = (guide.fallback.split_unit(what)[1], guide.fallback.split_unit(row.keyed)[1], key.unit)
    figure = _guide_cell.read(cell, where, column or what, units)
    extra = {"column": column, "source": where, **table}
    if figure.min is not None:
        extra["min"], extra["max"] = figure.min, figure.max
    n = guide.count(title, row.keyed)
    if n is not None:
        extra["n"] = n
    # a row the page names otherwise than platperf prints the key (the command that ran)
    if row.printed not in _printed_rows(key, n):
        extra["row"] = row.printed
    return Result(key.benchmark, dict(key.params), key.metric, key.unit, key.direction, [figure.value],
                  extra=extra)


@lru_cache(maxsize=4096)
def _printed_rows(key: guide.Key, n) -> frozenset:
    """The rows platperf prints a key's figure in (a guide repeats its tables' keys)."""
    return frozenset({guide.to_cell(key, n).row} | {c.row for c in guide.also(key)})
