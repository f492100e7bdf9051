"""What a report holds, independent of its format.

Builders (``platperf.report.sections``, compare, history, interference) make a
:class:`Document`; one renderer module per format (``rst_grid``, ``rst_csv``, ``markdown``,
``html``, ``json_export``, ``csv_export``) turns it into text. A new section is a builder;
a new format is a renderer; neither touches the other.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class Table:
    title: str
    headers: list[str]
    rows: list[list]                  # cells: str, int, float or None (rendered empty)
    # "grid": per-CPU tables in the TF-A layout (Cluster | Core | metric...);
    # "guide": the TI guide's csv-table layout (metric | one column per run).
    layout: str = "grid"
    caption: str = ""
    widths: list[int] | None = None
    # For a terminal (report/terminal.py) narrower than the table: the first ``fold`` columns
    # may become a heading line over the rows sharing them, and the ``optional`` columns may
    # be left out, in that order.
    fold: int = 0
    optional: tuple[str, ...] = ()
    # The title holds ``literal`` spans (TF-A's ``CPU_SUSPEND``): inline code in each format
    # (see :func:`spans`). Off by default: a label or a hostname is text, backticks and all.
    markup: bool = False
    # Rows spanning the whole table over its header, as TF-A prints a caption row
    # (``test_rt_instr_cpu_off_serial (latest)``).
    spans: list[str] = field(default_factory=list)
    # A cell's picture, (row, column) -> an inline <svg>: HTML draws it in the cell over the
    # cell's text, less the Unicode sparkline (report/sparkline.blocks) the text starts with;
    # the other formats print the text alone.
    graphics: dict[tuple[int, int], str] = field(default_factory=dict)
    # A cell that links to another page of a site, (row, column) -> a relative URL: HTML makes
    # the cell's text a link; the other formats print the text alone.
    links: dict[tuple[int, int], str] = field(default_factory=dict)


@dataclass
class Plot:
    title: str
    svg: str                          # a self-contained <svg> element
    caption: str = ""
    # the numbers the plot draws: HTML puts them one click under it (<details>); the text
    # formats, which print no plot, leave them to the section's own tables
    data: "Table | None" = None


@dataclass
class Section:
    title: str
    text: str = ""                    # plain text paragraphs, escaped by each renderer
    tables: list[Table] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)
    items: list[tuple[str, str]] = field(default_factory=list)   # definition list (name, value)
    subsections: list["Section"] = field(default_factory=list)
    markup: bool = False              # title and text hold ``literal`` spans (see spans())


@dataclass
class Document:
    title: str
    sections: list[Section] = field(default_factory=list)
    data: dict = field(default_factory=dict)   # machine-readable content for json/csv export


_LITERAL = re.compile(r"``(.+?)``")


def spans(text: str, markup: bool = True) -> list[tuple[bool, str]]:
    """``text`` as (is inline code, part) pairs: the ``literal`` spans of a marked-up title
    (TF-A's ``CPU_SUSPEND``) and the plain text between them; one plain part without markup."""
    if not markup:
        return [(False, text)]
    out, at = [], 0
    for m in _LITERAL.finditer(text):
        if m.start() > at:
            out.append((False, text[at:m.start()]))
        out.append((True, m.group(1)))
        at = m.end()
    if at < len(text):
        out.append((False, text[at:]))
    return out


def plain(text: str, markup: bool = True) -> str:
    """``text`` without its ``literal`` marks: what a terminal shows."""
    return "".join(part for _, part in spans(text, markup))


def literal_safe(text: str) -> str:
    """A label or a name put into a marked-up title: no ``literal`` marks of its own."""
    return str(text).replace("``", "`")


# Longest text a cell, heading or title shows; longer is cut with an ellipsis. A 10,000-
# character label would otherwise pass docutils' line-length limit and stretch every grid
# column; the JSON and CSV exports keep the whole text.
CELL_LIMIT = 160


def cell_text(value, digits: int = 2, limit: int | None = CELL_LIMIT) -> str:
    """A cell as text: floats with ``digits`` decimals (as the guides print them), None empty,
    one line, at most ``limit`` characters (None: whole)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    text = " ".join(str(value).split())    # a table cell is one line in every format
    return shorten(text, limit)


def shorten(text: str, limit: int | None = CELL_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, the last one an ellipsis, when longer."""
    if limit is None or len(text) <= limit:
        return text
    return text[:limit - 1] + "…"


def shorten_middle(text: str, limit: int) -> str:
    """``text`` with its middle cut to an ellipsis when longer than ``limit``: the end of a
    name (a metric and unit, the pattern of a series) tells it from its neighbours."""
    if len(text) <= limit:
        return text
    keep = limit - 1
    return text[:keep - keep // 2] + "…" + text[len(text) - keep // 2:]


def spread_cell(values, digits: int = 2) -> str:
    """The TI guide's cell: the value alone, or ``avg (min X, max Y)`` when there are several
    (several CPUs, or several runs pooled under one label)."""
    from .. import stats
    values = [v for v in values if v is not None]
    if not values:
        return ""
    if len(values) == 1:
        return cell_text(float(values[0]), digits)
    s = stats.summary(values)
    return (f"{s['mean']:.{digits}f} (min {s['min']:.{digits}f}, "
            f"max {s['max']:.{digits}f})")
