"""Per-CPU tables in the TF-A layout: ``Cluster | Core | figure...``, one table per run column,
benchmark and mode, serial and parallel apart.

Columns are chosen per benchmark so that a table stays readable: memory latency at the
largest size that fits each cache level and at the largest size (memory), bandwidth per
kernel at the largest buffer; anything else up to ``MAX_FIGURES`` figures.
"""
from __future__ import annotations

from collections import defaultdict

from ...events import is_counter
from ...records import key_order
from ...vocab.sizes import size_label
from ...vocab import OWN_SECTION   # the tfa_tables and interference sections have them
from ..data import ReportData, RunColumn, data_caches
from ..document import Section, Table, spread_cell

MAX_FIGURES = 6
BANDWIDTH_KERNELS = ("rd", "wr", "bcopy", "copy", "triad", "peak-read", "peak-copy")


def _latency_figures(results, caches):
    """(header, filter) for the seq chase (else the first pattern) at cache-level sizes."""
    lat = [r for r in results if r.metric == "latency"]
    patterns = sorted({r.params.get("pattern") for r in lat}, key=lambda p: (p != "seq", str(p)))
    if not patterns:
        return []
    lat = [r for r in lat if r.params.get("pattern") == patterns[0]]
    sizes = sorted({r.params.get("size") for r in lat if r.params.get("size")})
    picks = []
    for name, cache in caches:
        fit = [s for s in sizes if s <= cache]
        if fit and fit[-1] not in [p for p, _ in picks]:
            picks.append((fit[-1], name))
    if sizes and sizes[-1] not in [p for p, _ in picks]:
        picks.append((sizes[-1], "memory" if caches else "largest"))
    if not caches:   # no geometry known: the smallest, the largest and a few between
        step = max(1, len(sizes) // (MAX_FIGURES - 1))
        picks = [(s, "") for s in sizes[::step]][:MAX_FIGURES - 1] + [(sizes[-1], "")]
        picks = list(dict.fromkeys(picks))
    unit = lat[0].unit
    return [(f"{label + ' ' if label else ''}{size_label(s)} ({unit})",
             lambda r, s=s, p=patterns[0]: r.metric == "latency" and r.params.get("pattern") == p
             and r.params.get("size") == s) for s, label in picks]


def _bandwidth_figures(results, caches):
    bw = [r for r in results if r.metric == "bandwidth"]
    if not bw:
        return []
    largest = max(r.params.get("size") or 0 for r in bw)
    kernels = {r.params.get("kernel") for r in bw if r.params.get("size") == largest}
    chosen = [k for k in BANDWIDTH_KERNELS if k in kernels] or sorted(kernels, key=str)
    return [(f"{k} {size_label(largest)} ({bw[0].unit})",
             lambda r, k=k: r.metric == "bandwidth" and r.params.get("kernel") == k
             and r.params.get("size") == largest) for k in chosen[:MAX_FIGURES]]


def _other_figures(results, caches):
    # the events counted with the figures have their own panel (sections/events.py)
    keys = sorted({(r.params_key, r.metric, r.unit) for r in results if not is_counter(r.metric, r.unit)})
    return [(f"{p + ' ' if p else ''}{m} ({u})",
             lambda r, p=p, m=m: r.params_key == p and r.metric == m) for p, m, u in keys[:MAX_FIGURES]]


FIGURES = {"mem-latency": _latency_figures, "mem-bandwidth": _bandwidth_figures}


def _place(r) -> tuple:
    """Where a result ran; the CPU number as the core when the topology gave none."""
    return r.package, r.cluster, r.core if r.core is not None else r.cpu


def _tables(col: RunColumn) -> list[Table]:
    by_bench = defaultdict(list)
    for r in col.results:
        if (r.cpu is not None or r.core is not None) and r.benchmark not in OWN_SECTION:
            by_bench[r.benchmark].append(r)
    caches = data_caches(col.fingerprint)
    tables = []
    for bench in sorted(by_bench):
        figures = FIGURES.get(bench, _other_figures)(by_bench[bench], caches)
        for mode in ("serial", "parallel"):
            results = [r for r in by_bench[bench] if r.mode == mode]
            if not results or not figures:
                continue
            # (package, cluster, core): the package only where cluster numbers restart in each one
            places = sorted({_place(r) for r in results}, key=key_order)
            packages = any(p[0] is not None for p in places)
            rows = []
            for where in places:
                mine = [r for r in results if _place(r) == where]
                rows.append(list(where[0 if packages else 1:])
                            + [spread_cell([r.summary["median"] for r in mine if keep(r)]) for _, keep in figures])
            if any(any(row[2 + packages:]) for row in rows):
                tables.append(Table(title=f"{bench} per core in {mode} ({col.name})",
                                    headers=["Package"] * packages + ["Cluster", "Core"] + [h for h, _ in figures],
                                    rows=rows))
    return tables


def build(data: ReportData) -> Section | None:
    tables = [t for col in data.columns for t in _tables(col)]
    if not tables:
        return None
    return Section(title="Per-core results", tables=tables,
                   text="Median of each result's samples; several values in a cell (pooled runs) "
                        "show as avg (min X, max Y). Core is the CPU number when the topology gave "
                        "no core index.")
