"""The performance guide's tables (TI guide layout): one row per LMBench/STREAM-named figure,
one column per run, ``avg (min X, max Y)`` when a cell pools several CPUs or runs.

A cell's values are the medians of the serial results (parallel ones when a run has no
serial result for that figure); the average, minimum and maximum come from ``stats``.
"""
from __future__ import annotations

import re

from ..data import ReportData
from ..document import Section, Table, spread_cell
from ..lmbench_names import LMBENCH_ALIASES, STREAM_KERNELS, guide_name

TABLES = (("LMBench", "LMBench Benchmarks"), ("Stream", "Stream Benchmarks"),
          ("platperf", "platperf Benchmarks"))

TEXT = """\
Names follow LMBench and the TI performance guide. lat_mem_rd-strideS-szN: a pointer chase
with stride S bytes over N, where N is LMBench's size in MB (2^20 bytes) times 1000, so sz31k
is 32 KiB and sz1000k is 1 MiB; sizes up to a cache level's size give that level's latency,
sizes of at least twice the last-level cache give the latency of external memory.
bw_mem-K-N: LMBench bw_mem kernel K over N (16mb = 16 MiB).
lat_syscall, lat_sig, lat_pipe, ..., bw_unix: the probe's os-* kernels, defined as LMBench
defines them (docs/probe.md), each pinned with both ends of a conversation on one CPU;
lat_ops: cpu-ops. The summary names (pipe_latency (microsec), ...) repeat the same
measurements under the names TI's table also prints them.

MB/s is 10^6 bytes per second, as STREAM and LMBench's bw_mem both count it (bw_mem's MB is
1000*1000 bytes; only lat_mem_rd's sizes are in 2^20-byte MB). LMBench bw_mem counts the
bytes a copy moves once, STREAM counts them read and written, so STREAM copy reads about
twice bw_mem bcopy.
Stream rows use the largest array size measured."""


def _natural(name: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _stream_sizes(data: ReportData) -> dict[str, int]:
    """STREAM names carry no size: keep the largest array measured for each kernel."""
    sizes: dict[str, int] = {}
    for col in data.columns:
        for r in col.results:
            k = r.params.get("kernel")
            if r.benchmark == "mem-bandwidth" and k in STREAM_KERNELS:
                sizes[k] = max(sizes.get(k, 0), r.params.get("size") or 0)
    return sizes


def build(data: ReportData) -> Section | None:
    stream_size = _stream_sizes(data)
    cells: dict[tuple[str, str], list[dict]] = {}     # (table, name) -> per column mode->values
    for i, col in enumerate(data.columns):
        for r in col.results:
            k = r.params.get("kernel")
            if k in STREAM_KERNELS and r.benchmark == "mem-bandwidth" and r.params.get("size") != stream_size[k]:
                continue
            named = guide_name(r.benchmark, r.params, r.metric, r.unit)
            if named is None or r.summary.get("median") is None:
                continue
            per_col = cells.setdefault(named, [{} for _ in data.columns])
            per_col[i].setdefault(r.mode, []).append(r.summary["median"])
    if not cells:
        return None
    for alias, row in LMBENCH_ALIASES.items():   # the same cells again, not second runs
        if ("LMBench", row) in cells:
            cells[("LMBench", alias)] = cells[("LMBench", row)]
    tables = []
    for key, title in TABLES:
        names = sorted((n for t, n in cells if t == key), key=_natural)
        rows = [[name] + [spread_cell(by_mode.get("serial") or by_mode.get("parallel") or [])
                          for by_mode in cells[(key, name)]] for name in names]
        if rows:
            tables.append(Table(title=title, headers=["Benchmarks"] + [f"{c.name}: perf" for c in data.columns],
                                rows=rows, layout="guide"))
    return Section(title="System Benchmarks", text=TEXT, tables=tables)
