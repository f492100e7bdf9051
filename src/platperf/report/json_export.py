"""JSON export: every run and every result with its summary (``Document.data``), plus the
document's tables as shown, so a script gets both the raw figures and the report."""
from __future__ import annotations

import json

from .document import Document, Section


def _tables(sections: list[Section], path=()):
    for s in sections:
        for t in s.tables:
            yield {"section": " / ".join(path + (s.title,)), "title": t.title,
                   "headers": t.headers, "rows": t.rows}
        yield from _tables(s.subsections, path + (s.title,))


def render(doc: Document) -> str:
    out = {"title": doc.title, **doc.data, "tables": list(_tables(doc.sections))}
    return json.dumps(out, indent=1, default=str, allow_nan=False) + "\n"
