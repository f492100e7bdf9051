"""Memory bandwidth per kernel against buffer size: LMBench bw_mem kernels in one plot,
STREAM and peak kernels in another, for each run column."""
from __future__ import annotations

from collections import defaultdict

from ... import stats
from ...vocab.lmbench import LMBENCH_BW_KERNELS
from ...vocab.sizes import size_label
from ..data import ReportData, data_caches
from ...vocab.spoken import iec
from ..document import Plot, Section, Table, cell_text
from ..svg import line_plot

MAX_COLUMNS = 6     # plots for more runs than this belong in a comparison, not the guide


def _kernel_curves(results) -> dict[str, dict[int, float]]:
    modes = {r.mode for r in results if r.benchmark == "mem-bandwidth"}
    mode = "serial" if "serial" in modes else "parallel"
    raw = defaultdict(lambda: defaultdict(list))
    for r in results:
        if r.benchmark == "mem-bandwidth" and r.metric == "bandwidth" and r.mode == mode:
            raw[r.params.get("kernel", "?")][r.params.get("size")].append(r.summary["median"])
    curves = {k: {s: stats.median(v) for s, v in sizes.items() if s} for k, sizes in raw.items()}
    return {k: curve for k, curve in curves.items() if curve}   # a published STREAM row has no size


def numbers(curves: dict, kernels: list[str]) -> Table:
    """A plot's figures: a row a buffer size, a column a kernel, in MB/s as the tables."""
    sizes = sorted({size for k in kernels for size in curves[k]})
    return Table("Bandwidth (MB/s), median over CPUs", ["Size"] + kernels,
                 [[iec(size)] + [cell_text(curves[k].get(size)) for k in kernels] for size in sizes])


def build(data: ReportData) -> Section | None:
    plots = []
    for col in data.columns[:MAX_COLUMNS]:
        curves = _kernel_curves(col.results)
        marks = [(size, f"{name} {size_label(size)}") for name, size in data_caches(col.fingerprint)]
        groups = (("LMBench bw_mem", [k for k in LMBENCH_BW_KERNELS if k in curves]),
                  ("STREAM and peak", sorted(k for k in curves if k not in LMBENCH_BW_KERNELS)))
        for group, kernels in groups:
            if kernels:
                title = f"Bandwidth, {group} kernels ({col.name})"
                # GB/s, as people quote a memory system (10^9 B/s: MB/s / 1000)
                svg = line_plot(title, [(k, [(size, v / 1000.0) for size, v in sorted(curves[k].items())])
                                        for k in kernels],
                                x_label="buffer size (log scale)", y_label="GB/s (10^9 B/s)",
                                vlines=marks, sweep=True, x_format=iec)
                plots.append(Plot(title=title, svg=svg, data=numbers(curves, kernels)))
    if not plots:
        return None
    text = "Median over CPUs of each result's median; serial runs where present."
    if len(data.columns) > MAX_COLUMNS:
        text += f" Plots for the first {MAX_COLUMNS} columns; every figure is in the tables."
    return Section(title="Memory bandwidth", text=text, plots=plots)
