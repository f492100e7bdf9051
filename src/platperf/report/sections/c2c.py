"""Core-to-core latency (``c2c-latency`` results): the one-way latency of a cache line
between every pair of CPUs, as a heatmap with the cluster boundaries drawn (dashed where the
core type changes inside a cluster, as on Agilex 5's A55 + A76 cluster) and as tables of
the median and the minimum, CPUs in (cluster, core) order, one set per run column.

The probe measures each unordered pair once, cpu = the lower CPU and params.peer the other
(a round trip moves the line both ways), so the matrix is filled symmetrically.
"""
from __future__ import annotations

from ... import stats
from ..data import ReportData, RunColumn
from ..document import Plot, Section, Table, cell_text
from ..svg import heatmap

BENCHMARK = "c2c-latency"


def _placement(col: RunColumn, results) -> list[dict]:
    """{cpu, package, cluster, core, core_type} of every CPU in the results, in (package, cluster,
    core) order: from the fingerprint's topology, else from the results' own place. The package
    is None unless the machine's cluster numbers restart in each package (topology.py)."""
    topology = col.fingerprint.get("topology") or {}
    per_package = topology.get("per_package") is True
    topo = {c["cpu"]: c for c in topology.get("cpus") or []
            if isinstance(c, dict) and isinstance(c.get("cpu"), int)}
    own = {r.cpu: (r.package, r.cluster, r.core) for r in results}
    cpus = {r.cpu for r in results} | {r.params.get("peer") for r in results}
    placed = []
    for cpu in cpus - {None}:
        t = topo.get(cpu, {})
        package, cluster, core = own.get(cpu, (None, None, None))
        if t:
            package = t.get("package") if per_package else None
        placed.append({"cpu": cpu, "package": package, "cluster": t.get("cluster", cluster),
                       "core": t.get("core", core), "core_type": t.get("core_type")})
    return sorted(placed, key=lambda p: (p["package"] or 0, p["cluster"] is None, p["cluster"] or 0,
                                         p["core"] if p["core"] is not None else p["cpu"], p["cpu"]))


def matrix(col: RunColumn) -> tuple[list[dict], dict, dict] | None:
    """(CPUs in order, {(a, b): median ns}, {(a, b): min ns}) with both (a, b) and (b, a);
    a label's pooled runs give the median of their medians and the least of their minima."""
    results = [r for r in col.results if r.benchmark == BENCHMARK and r.metric == "latency"
               and r.cpu is not None and isinstance(r.params.get("peer"), int)]
    if not results:
        return None
    medians, minima = {}, {}
    for r in results:
        pair = (min(r.cpu, r.params["peer"]), max(r.cpu, r.params["peer"]))
        medians.setdefault(pair, []).append(r.summary["median"])
        minima.setdefault(pair, []).append(r.summary["min"])
    med, low = {}, {}
    for (a, b), values in medians.items():
        med[(a, b)] = med[(b, a)] = stats.median(values)
        low[(a, b)] = low[(b, a)] = min(minima[(a, b)])
    return _placement(col, results), med, low


def boundaries(cpus: list[dict]) -> tuple[list[int], list[int]]:
    """Indexes where a new cluster starts, and where the core type changes inside one."""
    major, minor = [], []
    for i in range(1, len(cpus)):
        if (cpus[i]["package"], cpus[i]["cluster"]) != (cpus[i - 1]["package"], cpus[i - 1]["cluster"]):
            major.append(i)
        elif cpus[i]["core_type"] != cpus[i - 1]["core_type"]:
            minor.append(i)
    return major, minor


def _groups(cpus: list[dict], major: list[int]) -> list[tuple[str, int, int]]:
    starts = [0] + major
    ends = major + [len(cpus)]
    out = []
    for first, end in zip(starts, ends):
        package, cluster = cpus[first]["package"], cpus[first]["cluster"]
        types = list(dict.fromkeys(c["core_type"] for c in cpus[first:end] if c["core_type"]))
        name = f"cluster {cluster}" if cluster is not None else "CPUs"
        name = name if package is None else f"package {package} {name}"
        out.append((f"{name} ({' + '.join(types)})" if types else name, first, end - 1))
    return out


def _table(title: str, cpus: list[dict], values: dict) -> Table:
    packages = any(c["package"] is not None for c in cpus)
    headers = ["Package"] * packages + ["Cluster", "CPU"] + [f"CPU {c['cpu']}" for c in cpus]
    rows = [[a["package"]] * packages + [a["cluster"], a["cpu"]]
            + [cell_text(values.get((a["cpu"], b["cpu"]))) for b in cpus] for a in cpus]
    return Table(title=title, headers=headers, rows=rows)


def _column(col: RunColumn):
    found = matrix(col)
    if found is None:
        return [], []
    cpus, med, low = found
    major, minor = boundaries(cpus)
    labels = [str(c["cpu"]) for c in cpus]
    grid = [[med.get((a["cpu"], b["cpu"])) for b in cpus] for a in cpus]
    title = f"Core-to-core latency, one-way median ({col.name})"
    svg = heatmap(title, labels, grid, unit="ns", boundaries=major, minor_boundaries=minor,
                  groups=_groups(cpus, major))
    return ([Plot(title=title, svg=svg)],
            [_table(f"Core-to-core latency, one-way median in ns ({col.name})", cpus, med),
             _table(f"Core-to-core latency, one-way minimum in ns ({col.name})", cpus, low)])


def build(data: ReportData) -> Section | None:
    plots, tables = [], []
    for col in data.columns:
        p, t = _column(col)
        plots += p
        tables += t
    if not tables:
        return None
    return Section(title="Core-to-core latency", plots=plots, tables=tables,
                   text="One cache line bounced between two CPUs with compare-and-swap; one-way latency "
                        "is half a round trip. Each pair is measured once, alone on the machine, so the "
                        "matrix is symmetric. Rows and columns are CPUs in (cluster, core) order: thick "
                        "lines separate clusters, dashed lines a change of core type inside a cluster.")
