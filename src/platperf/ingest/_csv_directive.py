"""RST ``.. csv-table::`` directives as docutils reads them: the title, the options, the header
and the rows, inline or from the ``:file:`` beside the page.

Read by the TI-style guides (``rst_csv_table``) and by TF-A's pages since 2026 (``tfa_rst``),
whose tables keep their rows in ``data/<platform>/<current|previous>/<test>.csv`` beside the
page: a ``:file:`` is read relative to the page's folder, as docutils reads it relative to the
document, each row named ``file.csv:line``. A ``:url:`` is refused (platperf reads no network).
"""
from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import IngestError

DIRECTIVE = re.compile(r"^(\s*)\.\.\s+csv-table::\s*(.*)$")
OPTION = re.compile(r"^\s*:([a-z-]+):\s*(.*)$")
_ESCAPE = re.compile(r"\\(.)", re.S)
# a file a directive names is read whole: a page's data file is a few KB
_FILE_LIMIT = 16 << 20


@dataclass
class CsvTable:
    """One directive: ``rows`` are (``file:line`` of the row, its cells)."""

    where: str
    title: str
    options: dict
    header: list[str]
    rows: list[tuple[str, list[str]]] = field(default_factory=list)
    file: str = ""          # the :file: its rows came from, as the directive writes it


class Lookahead:
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


def read(numbered: Lookahead, directive: re.Match, number_: int, name: str,
         header_needed: str = "the column headers") -> CsvTable:
    """The directive matched by ``directive`` on line ``number_`` of ``name``, with its block
    read from ``numbered`` (the line that ends it is left there). ``header_needed`` says in
    the error of a table without a header what the header is for."""
    where = f"{name}:{number_}"
    more, options, lines = block(numbered, len(directive.group(1)))
    title = words(unescape(" ".join([directive.group(2)] + more)))
    delim = delimiter(options.get("delim", ","), where)
    if "url" in options:
        raise IngestError(where, f"csv-table {short(title)} reads its rows from a URL "
                                 f"({options['url']}); save that file beside the page and name it with :file:")
    if "file" in options:
        rows = _file_rows(options["file"], options.get("encoding", "utf-8"), delim, title, where, name)
    else:
        rows = [(f"{name}:{n}", cells(text, delim, f"{name}:{n}")) for n, text in lines]
    header, rows = _header(options, rows, delim, where, header_needed)
    return CsvTable(where, title, options, header, rows, options.get("file", ""))


def _header(options: dict, rows: list, delim: str, where: str, needed: str) -> tuple[list[str], list]:
    if "header" in options:
        return cells(options["header"], delim, where), rows
    if options.get("header-rows", "0").strip() == "1" and rows:
        return rows[0][1], rows[1:]
    raise IngestError(where, f"expected a `:header:` option (or `:header-rows: 1`): {needed}")


def _file_rows(file: str, encoding: str, delim: str, title: str, where: str, name: str) -> list:
    """The rows of a directive's ``:file:``, relative to the page ``name``."""
    path = Path(name).parent / file.strip()
    try:
        with path.open(encoding=encoding.strip() or "utf-8", errors="replace", newline="") as f:
            text = f.read(_FILE_LIMIT + 1)
    except LookupError:
        raise IngestError(where, f"csv-table {short(title)}: unknown :encoding: {encoding!r:.30}") from None
    except OSError as exc:
        raise IngestError(where, f"csv-table {short(title)} reads its rows from {file.strip()}, "
                                 f"which cannot be read beside the page ({path}: {exc.strerror}); "
                                 "keep the page's data files where the page names them") from None
    if len(text) > _FILE_LIMIT:
        raise IngestError(where, f"{path}: over {_FILE_LIMIT >> 20} MB, not a page's table")
    rows = []
    reader = csv.reader(text.splitlines(), delimiter=delim, skipinitialspace=True, strict=True)
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                rows.append((f"{path}:{reader.line_num}", [words(unescape(c)) for c in row]))
    except csv.Error as exc:
        raise IngestError(f"{path}:{reader.line_num}", f"not a CSV row ({exc})") from None
    return rows


def block(numbered: Lookahead, indent: int):
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
            option = OPTION.match(line)
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


def delimiter(value: str, where: str) -> str:
    value = value.strip()
    named = {"tab": "\t", "space": " ", "": ","}
    if value in named:
        return named[value]
    if len(value) != 1:
        raise IngestError(where, f"expected `:delim:` to be one character, tab or space, got {value!r:.20}")
    return value


def cells(text: str, delim: str, where: str) -> list[str]:
    try:
        rows = list(csv.reader([text], delimiter=delim, skipinitialspace=True, strict=True))
    except csv.Error as exc:
        raise IngestError(where, f"not a CSV row ({exc})") from None
    if len(rows) != 1:
        raise IngestError(where, "expected one CSV row on the line")
    return [words(unescape(cell)) for cell in rows[0]]


def words(text: str) -> str:
    """One space between words: a copy's tabs and runs of spaces read as one."""
    return " ".join(text.split())


def unescape(text: str) -> str:
    """A cell as docutils reads it: ``\\x`` is a literal ``x``, and an escaped space is nothing
    (platperf's reports escape ``[``, ``*``, ``|`` and a leading ``-`` this way)."""
    return _ESCAPE.sub(lambda m: "" if m.group(1).isspace() else m.group(1), text)


def short(title: str, width: int = 72) -> str:
    """A title quoted in an error, as a reader sees it (no ````literal```` markup): whole, or
    cut at a word with an ellipsis (never mid-word)."""
    title = title.replace("``", "")
    if len(title) <= width:
        return f"`{title}`"
    cut = title[:width].rsplit(" ", 1)[0]
    return f"`{cut} …`"
