"""What ``doctor`` found at run time, and what the results themselves show (code placement,
:mod:`platperf.placement`): each finding, what it does to results, how to fix it."""
from __future__ import annotations

from ... import code_placement
from ...findings import collapse
from ..data import ReportData
from ..document import Section, Table


def build(data: ReportData) -> Section:
    rows = []
    for col in data.columns:
        for run in col.runs:
            for f in collapse(run.get("findings") or []):   # a repeated probe warning: one row
                if isinstance(f, dict):
                    rows.append([col.name, run["id"], f.get("level", ""), f.get("code", ""),
                                 f.get("message", ""), f.get("effect", ""), f.get("fix", "")])
            for f in code_placement.findings([r for r in col.results if getattr(r, "run_id", None) == run["id"]]):
                rows.append([col.name, run["id"], f.level, f.code, f.message, f.effect, f.fix])
    if not rows:
        return Section(title="Findings", text="No findings were recorded with these runs.")
    table = Table(title="Findings", headers=["Column", "Run", "Level", "Code", "Finding",
                                             "Effect on results", "Fix"], rows=rows)
    return Section(title="Findings", tables=[table])
