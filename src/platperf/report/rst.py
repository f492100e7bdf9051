"""reStructuredText shared by the two RST renderers: escaping, headings, the section walk.

``rst_grid`` and ``rst_csv`` differ only in how a table is written; both hand this module
the function that writes one.
"""
from __future__ import annotations

import re
from typing import Callable

from .document import Document, Section, Table, cell_text

# Characters that start inline markup or references (``*x*`` emphasis, ``|x|`` a
# substitution, ``[1]_`` a footnote); a backslash makes each one literal. An underscore is
# markup only at a word's edge (``v2.12_`` is a link), so ``lat_mem_rd`` stays as written.
_MARKUP = re.compile(r"([\\`*|\[\]]|_(?=\W|$)|(?<=\W)_|^_)")
# A cell or line that would start a bullet or enumerated list ("- x", "#. x", "1. x").
_LIST_START = re.compile(r"^([-*+•]|#\.|\(?[0-9A-Za-z]{1,3}[.)])(\s|$)")
HEADING_CHARS = "-^~\"'"


def escape(value) -> str:
    """Text safe inside any RST construct: markup characters escaped, one line."""
    text = _MARKUP.sub(r"\\\1", cell_text(value))
    if _LIST_START.match(text):
        text = "\\" + text
    return text


def heading(title: str, level: int) -> str:
    """Level 0 is the document title (over- and underlined with ``=``)."""
    text = escape(title)
    if level == 0:
        bar = "=" * len(text)
        return f"{bar}\n{text}\n{bar}\n"
    char = HEADING_CHARS[min(level - 1, len(HEADING_CHARS) - 1)]
    return f"{text}\n{char * len(text)}\n"


def render(doc: Document, table: Callable[[Table], str]) -> str:
    parts = [heading(doc.title, 0)]
    for section in doc.sections:
        _section(section, 1, table, parts)
    return "\n".join(parts).rstrip("\n") + "\n"


def _section(section: Section, level: int, table, parts: list[str]):
    parts.append(heading(section.title, level))
    for paragraph in _paragraphs(section.text):
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


def _paragraphs(text: str) -> list[str]:
    return [" ".join(escape(line) for line in block.splitlines())
            for block in re.split(r"\n\s*\n", text or "") if block.strip()]
