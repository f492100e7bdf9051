"""The report: a :class:`~platperf.report.document.Document` built from stored runs by the
section builders of :mod:`platperf.report.sections`, written by one renderer per format.

``render(doc, "rst-grid")`` picks the renderer by name, as hyperfine's ``export`` does; a new
format is one module and one line in :data:`RENDERERS`.
"""
from __future__ import annotations

import importlib
from typing import NamedTuple

from .document import Document, Plot, Section, Table  # noqa: F401


class Renderer(NamedTuple):
    module: str            # report/<module>.py, with render(doc)
    file: str              # the file it is written to with -o DIR
    in_all: int = 0        # its place among the files of --format all (0: not written by all)
    note: str = ""         # said after the format list of --format's help


# format name -> its renderer; the order of --format's help and of compare's formats
RENDERERS = {
    "rst-grid": Renderer("rst_grid", "grid.rst"),
    "rst-csv": Renderer("rst_csv", "guide.rst", in_all=2),
    "md": Renderer("markdown", "guide.md", in_all=3),
    "html": Renderer("html", "index.html", in_all=1),
    "json": Renderer("json_export", "results.json", in_all=4),
    "csv": Renderer("csv_export", "results.csv", in_all=5),
    "table": Renderer("terminal", "report.txt", note="fitted to the terminal"),
}
FORMATS = tuple(RENDERERS)
# what --format all writes, in this order
ALL_FORMATS = tuple(sorted((f for f, r in RENDERERS.items() if r.in_all), key=lambda f: RENDERERS[f].in_all))


def format_notes() -> str:
    """`` (table: fitted to the terminal)``: the notes of the formats that have one."""
    notes = [f"{f}: {r.note}" for f, r in RENDERERS.items() if r.note]
    return f" ({'; '.join(notes)})" if notes else ""


def renderer(fmt: str):
    """The module rendering ``fmt``; ValueError naming the valid formats otherwise."""
    if fmt not in RENDERERS:
        raise ValueError(f"unknown report format '{fmt}'; choose one of {', '.join(FORMATS)}")
    return importlib.import_module(f"{__name__}.{RENDERERS[fmt].module}")


def render(doc: Document, fmt: str) -> str:
    return renderer(fmt).render(doc)
