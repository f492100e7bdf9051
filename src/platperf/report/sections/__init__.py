"""Section builders: each module has ``build(data: ReportData) -> Section | None`` (or a list
of sections: the guide's) and is
listed in :data:`SECTIONS` in the order the report shows them. A new section (interference,
history) is one module and one line here."""
from __future__ import annotations

import importlib

from ..data import ReportData
from ..document import Document

# what a reader came for first (the verdict of several labels, the figures people quote and
# the findings that bear on them), then every result, then what they were measured on
SECTIONS = ("verdict", "summary", "guide", "memory_latency", "bandwidth", "events", "tfa_tables", "per_cpu", "c2c",
            "histograms", "interference", "history", "compare", "intervals", "environment", "findings")


def build_document(data: ReportData, title: str | None = None, export: bool = True) -> Document:
    """The report of ``data``; ``export`` False leaves out what only the JSON and CSV exports
    read (every figure's bootstrap interval, from every sample: a site's HTML pages need none)."""
    names = ", ".join(c.name for c in data.columns)
    doc = Document(title=title or f"platperf report: {names}", data=export_data(data) if export else {})
    for name in SECTIONS:
        module = importlib.import_module(f"{__name__}.{name}")
        built = module.build(data)      # a Section, a list of them (the guide's), or None
        doc.sections.extend(built if isinstance(built, list) else [built] if built is not None else [])
        if export and hasattr(module, "export"):     # raw data a section adds to the JSON export
            doc.data.update(module.export(data))
    return doc


RUN_FIELDS = ("id", "label", "target", "suite", "status", "source", "started_at",
              "finished_at", "note", "error")


def export_data(data: ReportData) -> dict:
    """Every run and every result with its summary, for the JSON and CSV exports; each
    median with its 95% bootstrap interval, and ``unstable`` when that is wider than
    compare's default tolerance."""
    from ...compare import keyed as compare
    intervals = _intervals(data)
    runs, results = [], []
    for col in data.columns:
        for r in col.runs:
            runs.append({**{k: r.get(k) for k in RUN_FIELDS}, "column": col.name,
                         "hostname": (r.get("fingerprint") or {}).get("hostname"),
                         "fingerprint": r.get("fingerprint"), "findings": r.get("findings"),
                         "meta": r.get("meta")})
        labels = {r["id"]: r.get("label") for r in col.runs}
        for res in col.results:
            # an idle state never entered has no figures: its samples stay in the store
            why = res.not_measured
            summary = {k: None for k in res.summary} if why else res.summary
            results.append({"run_id": res.run_id, "label": labels.get(res.run_id),
                            "benchmark": res.benchmark, "params": res.params_key,
                            "params_json": res.params, "mode": res.mode, "cpu": res.cpu,
                            "package": res.package, "cluster": res.cluster, "core": res.core, "metric": res.metric,
                            "unit": res.unit, "direction": res.direction, **summary, "not_measured": why,
                            **_interval_fields(intervals.get((res.run_id, res.key)),
                                               res.summary.get("median"), compare.TOLERANCE)})
    return {"runs": runs, "results": results}


def _intervals(data: ReportData) -> dict:
    """(run id, key) -> 95% bootstrap interval of the median, from the stored samples."""
    from ... import stats
    from ...compare.pools import load_pools
    out = {}
    if data.store is None:
        return out
    for col in data.columns:
        for run in col.runs:
            found, _ = load_pools(data.store, [run["id"]])
            for key, pool in found.items():
                if pool.samples:    # none: not measured (records.not_measured)
                    out[(run["id"], key)] = stats.bootstrap_median_ci(pool.samples)
    return out


def _interval_fields(ci, median, tolerance: float) -> dict:
    from ...compare import keyed as compare
    if ci is None or median is None:
        return {"median_ci_low": None, "median_ci_high": None, "unstable": None}
    return {"median_ci_low": ci[0], "median_ci_high": ci[1],
            "unstable": bool(median) and compare.is_unstable(ci, median, tolerance)}
