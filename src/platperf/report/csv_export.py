"""CSV export: one row per stored result with its summary (``Document.data["results"]``);
a document without results (a comparison, say) exports its tables one after another."""
from __future__ import annotations

import csv
import io

from .document import Document, Section, cell_text

RESULT_COLUMNS = ("run_id", "label", "benchmark", "params", "mode", "cpu", "package", "cluster", "core",
                  "metric", "unit", "direction", "n", "min", "median", "mean", "max", "stdev",
                  "median_ci_low", "median_ci_high", "unstable", "not_measured")


def render(doc: Document) -> str:
    buf = io.StringIO()
    # Every text quoted: QUOTE_MINIMAL leaves a lone \r unquoted with a \n line end, and a
    # label holding one would split its row when read back.
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    if "results" in doc.data:
        w.writerow(RESULT_COLUMNS)
        for r in doc.data["results"]:
            w.writerow(["" if r.get(c) is None else r.get(c) for c in RESULT_COLUMNS])
        return buf.getvalue()
    for table in _all_tables(doc.sections):
        w.writerow([table.title])
        w.writerow(table.headers)
        w.writerows([[cell_text(c, limit=None) for c in row] for row in table.rows])
        w.writerow([])
    return buf.getvalue()


def _all_tables(sections: list[Section]):
    for s in sections:
        yield from s.tables
        yield from _all_tables(s.subsections)
