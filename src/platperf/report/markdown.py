"""Markdown (GitHub flavour): pipe tables, headings, lists."""
from __future__ import annotations

import re

from .document import CELL_LIMIT, Document, Section, Table, cell_text, spans

# Pipes end a cell; the rest start emphasis, code, links or inline HTML.
_SPECIAL = re.compile(r"([\\`*_\[\]|#])")


def escape(value, limit: int | None = CELL_LIMIT) -> str:
    """Text that stays text: markup escaped, one line, shortened to ``limit`` characters."""
    text = _SPECIAL.sub(r"\\\1", cell_text(value, limit=limit))
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def marked(text: str, markup: bool, limit: int | None = CELL_LIMIT) -> str:
    """``text`` escaped, its ``literal`` spans as Markdown code when ``markup``."""
    if not markup:
        return escape(text, limit)
    return "".join(f"`{part}`" if code else _SPECIAL.sub(r"\\\1", part).replace("&", "&amp;")
                   .replace("<", "&lt;").replace(">", "&gt;")
                   for code, part in spans(cell_text(text, limit=limit)))


def render_table(table: Table) -> str:
    out = []
    if table.title:
        out.append(f"**{marked(table.title, table.markup)}**\n")
    for text in table.spans:             # a row across the table: Markdown has none
        out.append(f"*{escape(text)}*\n")
    headers = [marked(h, table.markup) for h in table.headers]
    rows = [[escape(c) for c in row] + [""] * (len(headers) - len(row)) for row in table.rows]
    widths = [max([len(h), 3] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    out.append("| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |")
    out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        out.append("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
    if table.caption:
        out.append(f"\n{escape(table.caption, limit=None)}")     # a caption is a paragraph, not a cell
    return "\n".join(out) + "\n"


def render(doc: Document) -> str:
    parts = [f"# {escape(doc.title)}\n"]
    for section in doc.sections:
        _section(section, 2, parts)
    return "\n".join(parts).rstrip("\n") + "\n"


def _section(section: Section, level: int, parts: list[str]):
    parts.append(f"{'#' * min(level, 6)} {marked(section.title, section.markup)}\n")
    for block in re.split(r"\n\s*\n", section.text or ""):
        if block.strip():
            parts.append(" ".join(marked(line, section.markup, limit=None) for line in block.splitlines()) + "\n")
    if section.items:
        parts.append("\n".join(f"- **{escape(n)}**: {escape(v)}" for n, v in section.items) + "\n")
    for t in section.tables:
        parts.append(render_table(t))
    for plot in section.plots:
        parts.append(f"*Plot: {escape(plot.title)} (see the HTML report).*\n")
    for sub in section.subsections:
        _section(sub, level + 1, parts)
