"""The memory latency curve: latency against working-set size on a log axis, the cache
sizes marked, one line per pattern (and per run when several are shown), and the table."""
from __future__ import annotations

from collections import defaultdict

from ... import stats
from ...vocab.sizes import size_label
from ..data import ReportData, data_caches
from ..document import Plot, Section, Table, cell_text
from ..intervals import with_interval
from ..svg import line_plot

MAX_SERIES = 10


def _curves(data: ReportData, metric: str, keys: dict | None = None):
    """{(column name, pattern/stride): {size: median over CPUs and pooled runs}}; ``keys``
    gets the result keys behind each point, by (column name, pattern/stride, size)."""
    raw = defaultdict(lambda: defaultdict(list))
    for col in data.columns:
        modes = {r.mode for r in col.results if r.benchmark == "mem-latency"}
        mode = "serial" if "serial" in modes else "parallel"
        for r in col.results:
            if r.benchmark == "mem-latency" and r.metric == metric and r.mode == mode:
                line = f"{r.params.get('pattern', '?')}/{r.params.get('stride', '?')}"
                raw[(col.name, line)][r.params.get("size")].append(r.summary["median"])
                if keys is not None:
                    keys.setdefault((col.name, line, r.params.get("size")), set()).add(r.key)
    return {k: {size: stats.median(v) for size, v in sizes.items() if size}
            for k, sizes in raw.items()}


def _cell(data: ReportData, value, behind: set) -> str:
    """The point's figure; with --ci its interval, when one key is behind it (several CPUs
    pooled: the intervals table has each)."""
    text = cell_text(value)
    if data.ci and len(behind) == 1:
        col_name, key = next(iter(behind))
        return with_interval(text, data.intervals.get((col_name, key)))
    return text


def build(data: ReportData) -> Section | None:
    behind: dict = {}
    curves = _curves(data, "latency", behind)
    if not curves:
        return None
    several = len(data.columns) > 1
    series = [(f"{col} {line}" if several else line, sorted(points.items()))
              for (col, line), points in sorted(curves.items())][:MAX_SERIES]
    caches = data_caches(data.columns[0].fingerprint)
    plot = line_plot("Memory latency vs size", series, x_label="working set (bytes, log scale)",
                     y_label="latency (ns)", vlines=[(size, f"{name} {size_label(size)}")
                                                     for name, size in caches])
    keys = sorted(curves)
    sizes = sorted({s for points in curves.values() for s in points})
    rows = [[size_label(s)] + [_cell(data, curves[k].get(s), {(k[0], key) for key in behind.get((*k, s), ())})
                              for k in keys] for s in sizes]
    headers = ["Size"] + [f"{col} {line} (ns)" if several else f"{line} (ns)" for col, line in keys]
    # a grid, not a csv-table: guide.rst's csv-tables are the guide's figures, which
    # `platperf ingest rst-csv-table` reads back; this curve repeats them per size
    table = Table(title="Memory latency (ns), median over CPUs", headers=headers, rows=rows,
                  layout="grid")
    shown = "" if len(curves) <= MAX_SERIES else \
        f" The plot shows the first {MAX_SERIES} of {len(curves)} lines; the table has them all."
    caption = ("Cache sizes from the fingerprint of " + data.columns[0].name) if caches else \
        "No cache sizes in the fingerprint."
    return Section(title="Memory latency", text="Lines are pattern/stride in bytes. " + caption + "." + shown,
                   plots=[Plot(title="Memory latency vs size", svg=plot)], tables=[table])
