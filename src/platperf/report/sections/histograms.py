"""Latency histograms the probe stored (duration-bounded loops): counts on a log axis, so
that the rare long excursions a mean hides stay in sight. The latency-loop histograms are
drawn by the interference section, with their mitigation and aggressor, and skipped here."""
from __future__ import annotations

from ..data import ReportData
from ..document import Plot, Section
from ..svg import histogram_plot
from ...interference import BENCHMARK as INTERFERENCE_BENCHMARK

MAX_PLOTS = 12


def build(data: ReportData) -> Section | None:
    if data.store is None:
        return None
    plots = []
    for col in data.columns:
        for run in col.runs:
            for h in data.store.histograms(run["id"]):
                if h["benchmark"] == INTERFERENCE_BENCHMARK:
                    continue
                rec = h.get("record") or {}
                buckets = [tuple(b[:3]) for b in rec.get("buckets") or [] if len(b) >= 3]
                if not buckets or len(plots) >= MAX_PLOTS:
                    continue
                title = (f"{h['benchmark']} {h['params']} cpu {h.get('cpu')} {h.get('mode')} "
                         f"({col.name}, run {run['id']})")
                plots.append(Plot(title=title, svg=histogram_plot(
                    title, buckets, x_label=f"latency ({h.get('unit', '')})", log_x=True),
                    caption=f"min {rec.get('min')}, max {rec.get('max')}, count {rec.get('count')}"))
    if not plots:
        return None
    return Section(title="Latency histograms", plots=plots)
