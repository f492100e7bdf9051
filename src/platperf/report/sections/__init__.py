"""Section builders: each module has ``build(data: ReportData) -> Section | None`` (or a list
of sections: the guide's) and is
listed in :data:`SECTIONS` in the order the report shows them. A new section (interference,
history) is one module and one line here."""
from __future__ import annotations

import importlib

from ..data import ReportData
from ..document import Document

SECTIONS = ("environment", "findings", "guide", "memory_latency", "bandwidth", "per_cpu",
            "histograms", "interference", "history")


def build_document(data: ReportData, title: str | None = None) -> Document:
    names = ", ".join(c.name for c in data.columns)
    doc = Document(title=title or f"platperf report: {names}", data=export_data(data))
    for name in SECTIONS:
        module = importlib.import_module(f"{__name__}.{name}")
        built = module.build(data)      # a Section, a list of them (the guide's), or None
        doc.sections.extend(built if isinstance(built, list) else [built] if built is not None else [])
        if hasattr(module, "export"):     # raw data a section adds to the JSON export
            doc.data.update(module.export(data))
    return doc


RUN_FIELDS = ("id", "label", "target", "suite", "status", "source", "started_at",
              "finished_at", "note", "error")


def export_data(data: ReportData) -> dict:
    """Every run and every result with its summary, for the JSON and CSV exports."""
    runs, results = [], []
    for col in data.columns:
        for r in col.runs:
            runs.append({**{k: r.get(k) for k in RUN_FIELDS}, "column": col.name,
                         "hostname": (r.get("fingerprint") or {}).get("hostname"),
                         "fingerprint": r.get("fingerprint"), "findings": r.get("findings"),
                         "meta": r.get("meta")})
        labels = {r["id"]: r.get("label") for r in col.runs}
        for res in col.results:
            results.append({"run_id": res.run_id, "label": labels.get(res.run_id),
                            "benchmark": res.benchmark, "params": res.params_key,
                            "params_json": res.params, "mode": res.mode, "cpu": res.cpu,
                            "cluster": res.cluster, "core": res.core, "metric": res.metric,
                            "unit": res.unit, "direction": res.direction, **res.summary})
    return {"runs": runs, "results": results}
