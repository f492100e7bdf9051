"""reStructuredText shared by the two RST renderers: escaping, headings, the section walk.

``rst_grid`` and ``rst_csv`` differ only in how a table is written; both hand this module
the function that writes one.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Callable

from .document import CELL_LIMIT, Document, Section, Table, cell_text, shorten, spans

# Characters that start inline markup or references (``*x*`` emphasis, ``|x|`` a
# substitution, ``[1]_`` a footnote); a backslash makes each one literal. An underscore is
# markup only at a word's edge (``v2.12_`` is a link, ``x__`` an anonymous one), so
# ``lat_mem_rd`` stays as written.
_MARKUP = re.compile(r"([\\`*|\[\]]|_(?=[\W_]|$)|(?<=[\W_])_|^_)")
# A cell or line that would start a bullet or enumerated list ("- x", "#. x", "1. x").
_LIST_START = re.compile(r"^([-*+•]|#\.|\(?[0-9A-Za-z]{1,3}[.)])(\s|$)")
HEADING_CHARS = "-^~\"'"


# docutils refuses lines over 10,000 characters (line_length_limit); a paragraph stays well under.
PARAGRAPH_LIMIT = 4000


def escape(value, limit: int | None = CELL_LIMIT) -> str:
    """Text safe inside any RST construct: markup characters escaped, one line, shortened
    to ``limit`` characters before escaping."""
    text = _MARKUP.sub(r"\\\1", cell_text(value, limit=limit))
    # A cell is parsed as a body of its own: ".. raw::", ":field:", ">>>", "+--", "===" at its
    # start would be a directive, field list, doctest, table or transition. A backslash before
    # the first character keeps any of them text and renders as nothing.
    if _LIST_START.match(text) or text and not text[0].isalnum() and text[0] != "\\":
        text = "\\" + text
    if text.endswith("::"):   # a paragraph ending in "::" announces a literal block
        text = text[:-1] + "\\:"
    return text


def marked(text: str, markup: bool, limit: int | None = CELL_LIMIT) -> str:
    """``text`` escaped as :func:`escape` does, its ``literal`` spans kept as RST inline
    literals when ``markup``."""
    if not markup:
        return escape(text, limit)
    parts = spans(cell_text(text, limit=limit))
    out = "".join(f"``{part}``" if code else _MARKUP.sub(r"\\\1", part) for code, part in parts)
    if parts and not parts[0][0] and (_LIST_START.match(out) or out and not out[0].isalnum()):
        out = "\\" + out
    return out[:-1] + "\\:" if out.endswith("::") else out


def column_width(text: str) -> int:
    """Columns ``text`` takes as docutils lays out tables and titles: East Asian wide and
    full-width characters take two, combining marks none (they sit on the previous one)."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def center(text: str, width: int) -> str:
    """``str.center`` by column width rather than by code points."""
    pad = max(width - column_width(text), 0)
    left = pad // 2 + (pad & width & 1)      # where str.center puts the odd space
    return " " * left + text + " " * (pad - left)


def heading(title: str, level: int, markup: bool = False) -> str:
    """Level 0 is the document title (over- and underlined with ``=``)."""
    text = marked(title, markup)
    size = max(len(text), column_width(text))
    if level == 0:
        bar = "=" * size
        return f"{bar}\n{text}\n{bar}\n"
    char = HEADING_CHARS[min(level - 1, len(HEADING_CHARS) - 1)]
    return f"{text}\n{char * size}\n"


def render(doc: Document, table: Callable[[Table], str]) -> str:
    parts = [heading(doc.title, 0)]
    for section in doc.sections:
        _section(section, 1, table, parts)
    return "\n".join(parts).rstrip("\n") + "\n"


def _section(section: Section, level: int, table, parts: list[str]):
    parts.append(heading(section.title, level, section.markup))
    for paragraph in _paragraphs(section.text, section.markup):
        parts.append(paragraph + "\n")
    if section.items:
        parts.append("\n".join(f"- {escape(name)}: {escape(value)}"
                               for name, value in section.items) + "\n")
    for t in section.tables:
        parts.append(table(t))
    for plot in section.plots:
        # RST cannot hold an inline SVG; the HTML report carries the plots.
        parts.append(f"Plot: {escape(plot.title)} (see the HTML report).\n")
    for sub in section.subsections:
        _section(sub, level + 1, table, parts)


def _paragraphs(text: str, markup: bool = False) -> list[str]:
    return [shorten(" ".join(marked(line, markup, limit=None) for line in block.splitlines()), PARAGRAPH_LIMIT)
            for block in re.split(r"\n\s*\n", text or "") if block.strip()]
