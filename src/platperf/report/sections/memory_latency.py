"""The memory latency curve: latency against working-set size, both on log axes, the cache
sizes marked, one line per pattern (and per run when several are shown; points where a
pattern was measured at sizes too sparse to join), and the table."""
from __future__ import annotations

from collections import defaultdict

from ... import stats
from ...stats import levels
from ...vocab.sizes import size_label
from ...vocab.spoken import iec
from ..data import ReportData, data_caches, machine_read
from ..document import Plot, Section, Table, cell_text
from ..intervals import with_interval
from ..svg import line_plot

MAX_SERIES = 10
# Where the board describes no caches: a rise of this much between two neighbouring sizes of
# the sweep marks the end of a level (an L1 hit to L2 is 3-4x, L2 to DRAM 5-20x; within a
# level neighbouring sizes differ by a few per cent).
STEP = 1.5


def latency_steps(series) -> list[tuple[int, int]]:
    """(last size before, first size after) each rise of latency by STEP or more, on the first
    line with a sweep of at least four sizes (the random chase, when measured: the one a cache
    level shows in)."""
    swept = [points for _, points in series if len(points) >= 4]
    if not swept:
        return []
    points = swept[0]
    return [(size, next_size) for (size, value), (next_size, after) in zip(points, points[1:])
            if value and after and after / value >= STEP]


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


def _levels(data: ReportData, behind: set) -> levels.TwoLevels | None:
    """The two levels the samples of a point flip between (of the first key behind it that
    has two: run to run or within a run), or None."""
    for col_name, key in sorted(behind, key=repr):
        pool = data.pools.get(col_name, {}).get(key)
        found = levels.two_levels(pool.samples) if pool is not None else None
        if found:
            return found
    return None


def _cell(data: ReportData, value, behind: set) -> str:
    """The point's figure; with --ci its interval, when one key is behind it (several CPUs
    pooled: the intervals table has each). A point whose samples flip between two levels
    shows both, fast / slow: a median would land on either."""
    levels = _levels(data, behind)
    if levels:
        return f"{cell_text(levels.low)} / {cell_text(levels.high)} (2 levels)"
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
    steps = [] if caches else latency_steps(series)
    marks = [(size, f"{name} {size_label(size)}") for name, size in caches] or \
        [(before, f"step {size_label(before)}-{size_label(after)}") for before, after in steps]
    # log latency: an L1 hit (1-2 ns) and DRAM (100 ns) on one linear axis leave L1 and L2 flat
    plot = line_plot("Memory latency vs size", series, x_label="working set (log scale)",
                     y_label="latency (ns, log scale)", log_y=True, sweep=True, vlines=marks, x_format=iec)
    keys = sorted(curves)
    sizes = sorted({s for points in curves.values() for s in points})

    def behind_point(k, s):
        return {(k[0], key) for key in behind.get((*k, s), ())}
    rows = [[size_label(s)] + [_cell(data, curves[k].get(s), behind_point(k, s)) for k in keys] for s in sizes]
    headers = ["Size"] + [f"{col} {line} (ns)" if several else f"{line} (ns)" for col, line in keys]
    # a grid, not a csv-table: guide.rst's csv-tables are the guide's figures, which
    # `platperf ingest rst-csv-table` reads back; this curve repeats them per size
    table = Table(title="Memory latency (ns), median over CPUs", headers=headers, rows=rows,
                  layout="grid")
    shown = "" if len(curves) <= MAX_SERIES else \
        f" The plot shows the first {MAX_SERIES} of {len(curves)} lines; the table has them all."
    flips = [(s, levels) for s in sizes for k in keys if (levels := _levels(data, behind_point(k, s)))]
    name = cell_text(data.columns[0].name)       # a label may be long: shortened as in the cells
    if caches:
        caption = f"Cache sizes from the fingerprint of {name}."
    elif steps:
        # an imported run's machine was never read: its file, not a device tree, said nothing
        why = "most Arm device trees give none" if any(machine_read(run) for run in data.columns[0].runs) \
            else "imported: its machine was never read"
        caption = (f"{name} describes no cache sizes ({why}); the marks are where latency rises "
                   f"{STEP:g}x or more from one measured size to the next: "
                   + ", ".join(f"between {size_label(a)} and {size_label(b)}" for a, b in steps) + ".")
    else:
        caption = f"{name} describes no cache sizes, and the curve has no step of {STEP:g}x."
    return Section(title="Memory latency", text="Lines are pattern/stride in bytes, joining only sizes "
                   "next to each other in the sweep; a pattern measured at sparser sizes is points. "
                   "Latency is on a log scale, so that each cache level shows. " + caption + shown
                   + _shared_cache_text(flips, caches),
                   plots=[Plot(title="Memory latency vs size", svg=plot)], tables=[table])


def _shared_cache_text(flips: list, caches: list) -> str:
    """What the points at two levels say: inside the last-level cache, that it is shared with
    other tenants (their sweeps evict the chase; the doctor's llc-shared finding measures it)."""
    if not flips:
        return ""
    text = " A cell \"fast / slow (2 levels)\" is a point whose samples flip between two levels."
    llc = caches[-1] if caches else None
    inside = [(s, lv) for s, lv in flips if llc and s < llc[1]]
    if inside:
        s, lv = inside[0]
        text += (f" At {size_label(s)}, inside the {size_label(llc[1])} {llc[0]}, the chase reads "
                 f"{cell_text(lv.low)} ns in {lv.n_low} samples and {cell_text(lv.high)} ns in {lv.n_high}: "
                 f"the last-level cache is shared with other tenants, whose sweeps evict it.")
    return text
