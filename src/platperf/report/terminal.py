"""Plain text for a terminal: every line fits the width (``COLUMNS``, else the terminal's,
80 when piped), and a table row stays one line.

A table too wide for the width is made narrower in three steps, never by wrapping a cell
onto several lines (a column of stacked fragments cannot be read or grepped):

1. **fold**: its first :attr:`Table.fold` columns (a key's benchmark, parameters, ...)
   leave the table and become a heading line above each run of rows sharing them;
2. **drop**: the columns named in :attr:`Table.optional`, in that order, until it fits; a
   line under the table names those left out;
3. **cut**: as a last resort the widest cells are shortened with an ellipsis.

The document title is the first line (compare puts its verdict there); section titles are
plain lines, paragraphs are wrapped at word boundaries. A word longer than the width is
broken after a ``/`` when it has one (a file's path: every character kept, in order), else it
stays whole (a key's parameters on a very narrow terminal).
"""
from __future__ import annotations

import re
import shutil
import textwrap

from .document import Document, Section, Table, cell_text, plain, shorten_middle

GAP = "  "      # between columns
# Right-aligned: figures, changes, counts (12.34, -3.5%, 2/2, [1.2, 3.4], 1e-05).
_NUMERIC = re.compile(r"^[-+]?(\d[\d.,e+-]*%?|\[.*\]|\d+/\d+|>= ?\d+)$")


def width() -> int:
    """``COLUMNS`` when set, else the terminal's width, 80 when there is no terminal."""
    return max(20, shutil.get_terminal_size((80, 24)).columns)


def wrap(text: str, cols: int, indent: str = "") -> list[str]:
    """``text`` as lines of at most ``cols`` (a word longer stays whole), ``indent`` before the
    first and ``indent`` plus two spaces before the rest."""
    return _wrap(text, cols, indent)


class _PathWrapper(textwrap.TextWrapper):
    """Breaks a word too long for a line after its last ``/`` that fits, else keeps it whole."""

    def _handle_long_word(self, reversed_chunks, cur_line, cur_len, width):
        word = reversed_chunks[-1]
        cut = word.rfind("/", 0, max(1, width - cur_len)) + 1
        if cut > 1 and not (cur_line and cut < len(word) // 4):
            cur_line.append(word[:cut])
            reversed_chunks[-1] = word[cut:]
        elif not cur_line:
            cur_line.append(reversed_chunks.pop())


def _wrap(text: str, cols: int, indent: str = "") -> list[str]:
    out = []
    wrapper = _PathWrapper(cols, initial_indent=indent, subsequent_indent=indent + "  ",
                           break_on_hyphens=False, break_long_words=True)
    for block in re.split(r"\n\s*\n", text):
        if block.strip():
            out += wrapper.wrap(" ".join(block.split())) or [""]
    return out


def _right(column: list[str]) -> bool:
    filled = [c for c in column if c]
    return bool(filled) and all(_NUMERIC.match(c) for c in filled)


def _lines(headers: list[str], rows: list[list[str]], indent: str) -> list[str]:
    cols = list(zip(headers, *rows)) if rows else [(h,) for h in headers]
    widths = [max(len(c) for c in col) for col in cols]
    right = [_right(list(col[1:])) for col in cols]

    def line(cells):
        text = GAP.join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right))
        return (indent + text).rstrip()
    return [line(headers)] + [line(r) for r in rows]


def _total(headers: list[str], rows: list[list[str]]) -> int:
    cols = list(zip(headers, *rows)) if rows else [(h,) for h in headers]
    return sum(max(len(c) for c in col) for col in cols) + len(GAP) * (len(cols) - 1)


def _cut(headers: list[str], rows: list[list[str]], room: int) -> list[list[str]]:
    """Shorten the widest column's cells (their middle: the ends tell rows apart), one
    character at a time, until the table fits."""
    while _total(headers, rows) > room:
        cols = list(zip(headers, *rows))
        widths = [max(len(c) for c in col) for col in cols]
        widest = max(range(len(widths)), key=lambda i: widths[i])
        limit = widths[widest] - 1
        if limit < 4:
            break
        headers = [shorten_middle(h, limit) if i == widest else h for i, h in enumerate(headers)]
        rows = [[shorten_middle(c, limit) if i == widest else c for i, c in enumerate(r)] for r in rows]
    return [headers] + rows


def render_table(table: Table, cols: int | None = None) -> list[str]:
    """The table's lines, none longer than ``cols``."""
    cols = cols or width()
    headers = [cell_text(h, limit=None) for h in table.headers]
    rows = [[cell_text(c, limit=None) for c in r] + [""] * (len(headers) - len(r)) for r in table.rows]
    out = _wrap(plain(table.title, table.markup), cols) if table.title else []
    for text in table.spans:
        out += _wrap(text, cols)
    fold = 0
    if _total(headers, rows) > cols and 0 < table.fold < len(headers):
        fold = table.fold
    indent = "  " if fold else ""
    keep = list(range(fold, len(headers)))
    dropped = []
    for name in table.optional:
        if _total([headers[i] for i in keep], [[r[i] for i in keep] for r in rows]) <= cols - len(indent):
            break
        if name in headers and headers.index(name) in keep and len(keep) > 1:
            keep.remove(headers.index(name))
            dropped.append(name)
    shown = _cut([headers[i] for i in keep], [[r[i] for i in keep] for r in rows], cols - len(indent))
    body = _lines(shown[0], shown[1:], indent)
    out.append(body[0])
    last = None
    for row, line in zip(rows, body[1:]):
        group = tuple(c for c in row[:fold] if c)
        if fold and group != last:
            out += _wrap(" ".join(group), cols)
            last = group
        out.append(line)
    if dropped:
        out += _wrap(f"(left out to fit {cols} columns: {', '.join(dropped)})", cols)
    if table.caption:
        out += _wrap(table.caption, cols)
    return out


def _section(section: Section, cols: int, out: list[str]):
    out.append("")
    if section.title:
        out.append(plain(section.title, section.markup))
    if section.text:
        out += _wrap(plain(section.text, section.markup), cols)
    for name, value in section.items:
        out += _wrap(f"{name}: {value}", cols)
    for table in section.tables:
        if out and out[-1]:
            out.append("")
        out += render_table(table, cols)
    for plot in section.plots:
        out += _wrap(f"(plot: {plot.title}; see the HTML report)", cols)
    for sub in section.subsections:
        _section(sub, cols, out)


def render(doc: Document, cols: int | None = None) -> str:
    cols = cols or width()
    out = _wrap(doc.title, cols) if doc.title else []
    for section in doc.sections:
        _section(section, cols, out)
    return "\n".join(out).strip("\n") + "\n"
