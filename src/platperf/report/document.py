"""What a report holds, independent of its format.

Builders (``platperf.report.sections``, compare, history, interference) make a
:class:`Document`; one renderer module per format (``rst_grid``, ``rst_csv``, ``markdown``,
``html``, ``json_export``, ``csv_export``) turns it into text. A new section is a builder;
a new format is a renderer; neither touches the other.
"""
from __future__ import annotations

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


@dataclass
class Plot:
    title: str
    svg: str                          # a self-contained <svg> element
    caption: str = ""


@dataclass
class Section:
    title: str
    text: str = ""                    # plain text paragraphs, escaped by each renderer
    tables: list[Table] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)
    items: list[tuple[str, str]] = field(default_factory=list)   # definition list (name, value)
    subsections: list["Section"] = field(default_factory=list)


@dataclass
class Document:
    title: str
    sections: list[Section] = field(default_factory=list)
    data: dict = field(default_factory=dict)   # machine-readable content for json/csv export
