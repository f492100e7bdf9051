"""The report: a :class:`~platperf.report.document.Document` built from stored runs by the
section builders of :mod:`platperf.report.sections`, written by one renderer per format.

``render(doc, "rst-grid")`` picks the renderer by name, as hyperfine's ``export`` does; a new
format is one module and one line in :data:`RENDERERS`.
"""
from __future__ import annotations

import importlib

from .document import Document, Plot, Section, Table  # noqa: F401

# format name -> (module, file written by --format all)
RENDERERS = {
    "rst-grid": ("rst_grid", "grid.rst"),
    "rst-csv": ("rst_csv", "guide.rst"),
    "md": ("markdown", "guide.md"),
    "html": ("html", "index.html"),
    "json": ("json_export", "results.json"),
    "csv": ("csv_export", "results.csv"),
    "table": ("terminal", "report.txt"),
}
FORMATS = tuple(RENDERERS)


def renderer(fmt: str):
    """The module rendering ``fmt``; ValueError naming the valid formats otherwise."""
    if fmt not in RENDERERS:
        raise ValueError(f"unknown report format '{fmt}'; choose one of {', '.join(FORMATS)}")
    return importlib.import_module(f"{__name__}.{RENDERERS[fmt][0]}")


def render(doc: Document, fmt: str) -> str:
    return renderer(fmt).render(doc)
