"""Figures with their 95% intervals (``platperf report --ci``): every key of every column, its
figure, the interval, its width and whether it is unstable — the figures of the guide's
tables (whose cells pool CPUs and runs) one key at a time."""
from __future__ import annotations

from ...compare.keyed import TOLERANCE
from ...records import key_order, key_text
from ..data import ReportData
from ..document import Section, Table, cell_text
from ..intervals import interval_text


def build(data: ReportData) -> Section | None:
    if not data.ci or not data.intervals:
        return None
    tables = []
    units = {(col.name, r.key): r.unit for col in data.columns for r in col.results}
    for col in data.columns:
        keys = sorted((k for c, k in data.intervals if c == col.name), key=key_order)
        rows = []
        for key in keys:
            iv = data.intervals[(col.name, key)]
            rows.append([key_text(key), units.get((col.name, key), ""), cell_text(iv.figure),
                         interval_text(iv), f"{iv.width_pct:.1f}%", str(iv.runs)])
        if rows:
            tables.append(Table(f"Figures of {col.name} with their 95% intervals",
                                ["Key", "Unit", "Median", "95% CI", "Width", "Runs"], rows, layout="grid"))
    unstable = sum(iv.unstable for iv in data.intervals.values())
    return Section("Figures with their 95% intervals", tables=tables, text=(
        "Each figure is the median of its runs' medians (of the samples, for one run), with a "
        "95% bootstrap interval over the run medians (over the samples for one run: a lower "
        f"bound on the run-to-run spread). Figures whose interval is wider than {TOLERANCE:g}% "
        f"are marked unstable: {unstable} of {len(data.intervals)}."))
