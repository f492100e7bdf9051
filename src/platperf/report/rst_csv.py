"""The TI performance guide's RST (``am62x-linux-performance-guide.rst``): ``csv-table``
directives for the guide tables (one column per run, ``avg (min X, max Y)`` cells) and the
TF-A grid tables for the per-CPU ones — the file written as ``guide.rst``."""
from __future__ import annotations

import csv
import io

from . import rst, rst_grid
from .document import Document, Table


def _csv_line(cells) -> str:
    buf = io.StringIO()
    # docutils reads the body with the csv module, then parses each cell as inline RST.
    csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="").writerow(
        [rst.escape(c) for c in cells])
    return buf.getvalue()


def render_table(table: Table) -> str:
    if table.layout != "guide":
        return rst_grid.render_table(table)
    out = [f".. csv-table:: {rst.escape(table.title)}",
           f"    :header: {_csv_line(table.headers)}", ""]
    out += ["    " + _csv_line(row) for row in table.rows]
    if table.caption:
        out += ["", rst.escape(table.caption)]
    return "\n".join(out) + "\n"


def render(doc: Document) -> str:
    return rst.render(doc, render_table)
