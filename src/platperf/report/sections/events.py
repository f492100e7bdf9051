"""Events counted with the figures (issue 37, docs/events.md): a small panel per run column and
benchmark, a row per (params, mode, cluster, core), the kernel's figure first and then each
counter per operation beside it (``l2d_refill per access``), medians of the samples. Only
where a run counted events (``platperf run --events``); the counters are results like any
other, so the comparison and the per-CPU tables pair them as well."""
from __future__ import annotations

from collections import defaultdict

from ...events import is_counter, spoken
from ..data import ReportData, pooled_summaries
from ..document import Section, Table, cell_text

MAX_ROWS = 40       # a panel, not every key: the JSON and CSV exports have them all

TEXT = ("Events counted around each sample's timed region, per operation of the kernel (a load "
        "of a chase, a byte of a bandwidth kernel, a pass of the latency loop): medians of the "
        "samples, beside the kernel's own figure. A counter that ran for part of a sample (more "
        "events than the PMU has counters) is as counted, never scaled; the findings say so.")


def _number(value) -> str:
    # counts per operation run from 0.001 (an L1 refill in an L1-sized chase) to thousands
    return "" if value is None else f"{value:.3g}"


def _tables(col) -> list[Table]:
    counted = [r for r in col.results if is_counter(r.metric, r.unit)]
    if not counted:
        return []
    where = {tuple(r.key[:6]) + (r.cpu,) for r in counted}
    rows_of: dict[str, dict[tuple, dict]] = defaultdict(dict)
    names: dict[str, dict[str, str]] = defaultdict(dict)
    for r, summary in pooled_summaries(col.results):     # a label's runs: the median of their medians
        place = tuple(r.key[:6]) + (r.cpu,)
        if place not in where:
            continue
        row = rows_of[r.benchmark].setdefault(place, {})
        if is_counter(r.metric, r.unit):
            names[r.benchmark][r.metric] = spoken(r.metric)
            row[r.metric] = _number(summary["median"])
        elif "figure" not in row:      # the kernel's first figure (latency before latency_cycles)
            row["figure"] = f"{cell_text(summary['median'])} {r.unit}"
    tables = []
    for benchmark, rows in sorted(rows_of.items()):
        metrics = sorted(names[benchmark])
        body = []
        for place in list(rows)[:MAX_ROWS]:        # as measured: sizes up, serial before parallel
            _, params, mode, _, cluster, core, cpu = place
            row = rows[place]
            body.append([params, mode, "-" if cpu is None else str(cpu), row.get("figure", "")]
                        + [row.get(m, "") for m in metrics])
        more = len(rows) - len(body)
        tables.append(Table(f"{benchmark}: events per operation ({col.name})",
                            ["Params", "Mode", "CPU", "Figure"] + [names[benchmark][m] for m in metrics],
                            body,
                            caption=f"{more} more rows in the JSON and CSV exports" if more > 0 else ""))
    return tables


def build(data: ReportData) -> Section | None:
    tables = [t for col in data.columns for t in _tables(col)]
    if not tables:
        return None
    return Section(title="Events counted", text=TEXT, tables=tables)
