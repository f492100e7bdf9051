"""RST grid tables in the TF-A layout (``tf-a-psci-performance-juno-v2.10.rst``).

Every row, the header included, is ruled with ``-``; cells are centred (``str.center``) in a
column one space wider than its widest cell on each side, so any cell text fits, e.g.
``242.66 (+132.03%)``.  Compare, history and interference call :func:`render_table` for
their own tables.
"""
from __future__ import annotations

from . import rst
from .document import Document, Table


def grid(headers: list, rows: list[list], spans: list = (), markup: bool = False) -> str:
    """The bare grid table (no directive), columns sized to their content; ``spans`` are
    rows across the whole table over the header (TF-A's caption rows); ``markup``: the
    header's ``literal`` spans kept (TF-A's ````PSCI_ENTRY`` (us)``)."""
    lines = [[rst.marked(c, markup) for c in headers]] + [[rst.escape(c) for c in row] for row in rows]
    ncols = max(len(r) for r in lines)
    lines = [r + [""] * (ncols - len(r)) for r in lines]
    widths = [max(rst.column_width(r[i]) for r in lines) + 2 for i in range(ncols)]
    across = [rst.escape(text) for text in spans]
    short = max([rst.column_width(t) + 2 - (sum(widths) + ncols - 1) for t in across] + [0])
    widths[-1] += short                  # a caption wider than the table widens its last column
    rule = "+" + "+".join("-" * w for w in widths) + "+"
    out = [rule]
    for text in across:
        out.append("|" + rst.center(text, sum(widths) + ncols - 1) + "|")
        out.append("+" + "-" * (sum(widths) + ncols - 1) + "+")
    for r in lines:
        out.append("|" + "|".join(rst.center(cell, w) for cell, w in zip(r, widths)) + "|")
        out.append(rule)
    return "\n".join(out) + "\n"


def render_table(table: Table, indent: int = 4) -> str:
    """``.. table:: title`` with the grid indented under it, as in the TF-A document."""
    pad = " " * indent
    body = "\n".join(pad + line for line in grid(table.headers, table.rows, table.spans, table.markup).splitlines())
    out = f".. table:: {rst.marked(table.title, table.markup)}\n\n{body}\n" if table.title else body + "\n"
    if table.caption:
        out += "\n" + rst.escape(table.caption) + "\n"
    return out


def render(doc: Document) -> str:
    return rst.render(doc, render_table)
