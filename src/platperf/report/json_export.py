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


def _dumps(value) -> str:
    return json.dumps(value, default=str, allow_nan=False, ensure_ascii=False)


def render(doc: Document) -> str:
    """One top-level key per line and one list item (a run, a result, a table) per line.

    ``json.dumps(indent=...)`` runs the pure-Python encoder: 3 s of a 100,000-result report.
    Without indent the C encoder writes each item, and a line per item keeps it diffable."""
    out = {"title": doc.title, **doc.data, "tables": list(_tables(doc.sections))}
    fields = []
    for key, value in out.items():
        if isinstance(value, list) and value:
            body = "[\n" + ",\n".join(_dumps(item) for item in value) + "\n]"
        else:
            body = _dumps(value)
        fields.append(f"{_dumps(key)}: {body}")
    return "{\n" + ",\n".join(fields) + "\n}\n"
