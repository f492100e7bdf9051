"""Latency under interference (``platperf interference`` runs): the study's mitigation table
``Applied mitigation | Maximum latency | Minimum latency`` with p99, p99.99, the excursions
over the threshold and the interference factor (maximum with the aggressor pattern over the
maximum with none, same loop and mitigation), one table per loop variant and pattern; the
histograms on a log-count axis; the CDF of each loop variant's cells as 1 - CDF on a log
axis, so the tail stays visible; every cell's histogram, top excursions and raw samples in
the JSON export."""
from __future__ import annotations

from ...interference import BENCHMARK, LOOPS, PATTERNS
from ..data import ReportData
from ..document import Plot, Section, Table
from ..svg import histogram_plot, line_plot

MAX_HISTOGRAM_PLOTS = 24
HEADERS = ["Applied mitigation", "Maximum latency", "Minimum latency", "p99", "p99.99",
           "Excursions", "Interference factor"]


def latency_text(ns) -> str:
    """As the study writes them: 57ns, 10.780us, 1.204ms."""
    if ns is None:
        return ""
    if ns < 1000:
        return f"{ns:.0f}ns" if ns >= 100 else f"{ns:.1f}ns"
    if ns < 1e6:
        return f"{ns / 1e3:.3f}us"
    return f"{ns / 1e6:.3f}ms"


def _cells(data: ReportData) -> list[dict]:
    """Every stored latency-loop histogram of the report's runs, with its results."""
    if data.store is None:
        return []
    cells = []
    for col in data.columns:
        metrics: dict[tuple, dict] = {}
        steps: dict[tuple, dict] = {}
        for res in col.results:
            if res.benchmark == BENCHMARK:
                metrics.setdefault((res.run_id, res.params_key, res.cpu), {})[res.metric] = res.summary["median"]
                if "resolution_steps" in (res.extra or {}):
                    steps.setdefault((res.run_id, res.params_key, res.cpu), {})[res.metric] = \
                        res.extra["resolution_steps"]
        for run in col.runs:
            for h in data.store.histograms(run["id"]):
                if h["benchmark"] != BENCHMARK:
                    continue
                p = h["params_json"]
                cells.append({"column": col.name, "run_id": run["id"], "cpu": h["cpu"],
                              "loop": p.get("variant", "plain"), "pattern": p.get("pattern", "none"),
                              "mitigation": p.get("mitigation", "none"), "aggressors": p.get("aggressors", ""),
                              "threshold": p.get("threshold"), "params": p, "record": h["record"],
                              "metrics": metrics.get((run["id"], h["params"], h["cpu"]), {}),
                              "steps": steps.get((run["id"], h["params"], h["cpu"]), {})})
    return cells


def _order(values, known):
    return sorted(set(values), key=lambda v: (known.index(v) if v in known else len(known), v))


def _mitigation_text(cell) -> str:
    missing = [m["name"] for m in cell["record"].get("mitigations") or [] if not m.get("applied")]
    rt = cell["record"].get("rt") or {}
    if rt.get("requested") and not rt.get("applied") and "rt" not in missing:
        missing.append("rt")
    text = cell["mitigation"]
    return f"{text} (not applied: {', '.join(missing)})" if missing else text


def _figure(cell: dict, metric: str, value) -> str:
    """A pass time, and how many counter steps it is when the probe said it is within a few
    (docs/results-format.md resolution_steps): a figure that short is quantised."""
    steps = cell.get("steps", {}).get(metric)
    return latency_text(value) + (f" ({steps:g} counter steps)" if steps is not None and value is not None else "")


def _table(group: list[dict], idle: dict, loop: str, pattern: str, column: str) -> Table:
    rows = []
    for c in group:
        m, rec = c["metrics"], c["record"]
        worst = m.get("latency_max", rec.get("max"))
        base = idle.get((c["column"], c["cpu"], c["loop"], c["mitigation"]))
        factor = worst / base if pattern != "none" and base and worst is not None else None
        rows.append([_mitigation_text(c), _figure(c, "latency_max", worst),
                     _figure(c, "latency_min", m.get("latency_min", rec.get("min"))),
                     _figure(c, "p99", m.get("p99")), _figure(c, "p99_99", m.get("p99_99")),
                     int(m["excursions"]) if "excursions" in m else rec.get("over_threshold"),
                     f"{factor:.2f}x" if factor is not None else ""])
    c0 = group[0]
    threshold = c0.get("threshold")
    caption = (f"latency_loop{'' if loop == 'plain' else '_' + loop} on CPU {c0['cpu']}, "
               + (f"{pattern} on CPUs {c0['aggressors']}" if pattern != "none" and c0["aggressors"]
                  else "no aggressor")
               + f"; excursions: passes over {latency_text(threshold)}; "
                 "interference factor: maximum / maximum with no pattern"
               + ("; (N counter steps): a pass within 4 steps of the counter's resolution, quantised by it"
                  if any(c.get("steps") for c in group) else ""))
    return Table(title=f"{loop}, {pattern} ({column})", headers=HEADERS, rows=rows, layout="grid",
                 caption=caption)


def _cdf_points(buckets) -> list[tuple[float, float]]:
    total = sum(b[2] for b in buckets)
    points, seen = [], 0
    for lo, hi, count in sorted(buckets):
        seen += count
        if seen < total:
            points.append((hi, (total - seen) / total))
    return points


def build(data: ReportData) -> Section | None:
    cells = _cells(data)
    if not cells:
        return None
    idle = {(c["column"], c["cpu"], c["loop"], c["mitigation"]): c["metrics"].get("latency_max", c["record"].get("max"))
            for c in cells if c["pattern"] == "none"}
    section = Section(title="Latency under interference",
                      text="Each pass of a tiny loop on the victim CPU reads the counter; the tables give "
                           "the longest and shortest pass while the other CPUs run each aggressor pattern, "
                           "for every mitigation applied. A mitigation that could not be applied is "
                           "marked so.")
    for column in _order([c["column"] for c in cells], []):
        for loop in _order([c["loop"] for c in cells if c["column"] == column], LOOPS):
            for pattern in _order([c["pattern"] for c in cells if c["column"] == column], PATTERNS):
                group = [c for c in cells if (c["column"], c["loop"], c["pattern"]) == (column, loop, pattern)]
                if group:
                    section.tables.append(_table(group, idle, loop, pattern, column))
    for column in _order([c["column"] for c in cells], []):
        for loop in _order([c["loop"] for c in cells if c["column"] == column], LOOPS):
            series = [(f"{c['pattern']}, {c['mitigation']}", _cdf_points(c["record"].get("buckets") or []))
                      for c in cells if (c["column"], c["loop"]) == (column, loop)]
            series = [(name, pts) for name, pts in series if pts]
            if series:
                title = f"1 - CDF, {loop} ({column})"
                section.plots.append(Plot(title=title, svg=line_plot(
                    title, series, x_label="pass time (ns)", y_label="fraction of passes longer (log)",
                    log_x=True, log_y=True, x_format=latency_text),
                    caption="the fraction of passes longer than x: the tail the maximum comes from"))
    for c in cells[:MAX_HISTOGRAM_PLOTS]:
        buckets = [tuple(b[:3]) for b in c["record"].get("buckets") or []]
        if not buckets:
            continue
        title = f"{c['loop']}, {c['pattern']}, {c['mitigation']} (CPU {c['cpu']}, {c['column']})"
        section.plots.append(Plot(title=title, svg=histogram_plot(title, buckets, x_label="pass time (ns)",
                                                                  log_x=True),
                                  caption=f"{c['record'].get('count')} passes, min "
                                          f"{latency_text(c['record'].get('min'))}, max "
                                          f"{latency_text(c['record'].get('max'))}"))
    return section


def export(data: ReportData) -> dict:
    """The raw data of every cell for the JSON export: histogram, top excursions with their
    times, raw samples when kept, what each mitigation did."""
    return {"interference": [{k: c[k] for k in ("column", "run_id", "cpu", "loop", "pattern", "mitigation",
                                                "aggressors", "params", "metrics")}
                             | {"histogram": c["record"]} for c in _cells(data)]} if _cells(data) else {}
