"""Tables in TF-A's layout (``tf-a-psci-performance-juno-v2.10.rst``): one grid table per
(benchmark, params, mode), ``Cluster | Core | <metric>...``, one row per (cluster, core),
titled as TF-A titles them, figures with two decimals. A machine whose cluster numbers restart
in each package (several sockets) has a ``Package`` column first; a one-package board none.

``compare`` fills the cells with ``NEW (+x.xx%)`` across two releases; the report's
``tfa_tables`` section with one release's figures. Both build their tables here.
"""
from __future__ import annotations

import functools
from typing import Callable, Iterable

from ..records import ResultKey, key_order
from .document import Table

# Benchmarks whose figures are per-core firmware latencies, reported as TF-A reports them:
# TFTF's runtime instrumentation (and the published pages, ingest tfa-rst) and what the
# psci suite measures from Linux.
BENCHMARKS = ("tftf-rt-instr", "cpu-hotplug", "cpu-hotplug-phases", "cpu-idle")

# Column order of the psci suite's tables (the probe writes the offline phases before the
# online ones, so first appearance would put cpu_start last).
METRIC_ORDER = ("offline", "online", "total", "cpu_stop", "cpu_start", "ap_states", "bp_states",
                "untraced", "wakeup_lateness", "exit_latency", "target_residency")

# What the psci suite's tables are titled, after TF-A's "CPU_OFF latencies (µs) on all
# non-lead CPUs": (benchmark, the params value that names the table or "") -> title.
_PSCI_TITLES = {
    "cpu-hotplug": "CPU hotplug latencies (µs) from Linux, offline and online",
    "cpu-hotplug-phases": "CPU {} latency (µs) from Linux split into the kernel's cpuhp phases",
    "cpu-idle": "Idle state {} wake-up latency (µs) from Linux, other states disabled",
}


def number(value: float | None) -> str:
    """Two decimals as the TF-A tables print them; small values keep 3 significant digits."""
    if value is None:
        return ""
    if value != 0 and abs(value) < 0.1:
        return f"{value:.3g}"
    return f"{value:.2f}"


def place(value) -> str:
    """A package, cluster or core number; ``-`` when the figure has none."""
    return "-" if value is None else str(value)


def metric_title(metric: str) -> str:
    return metric.replace("_", " ").replace("-", " ").title()


def params_text(params_key: str) -> str:
    return f" [{params_key}]" if params_key else ""


def table_title(benchmark: str, params_key: str, mode: str, unit: str, label: str) -> str:
    """The TF-A style title: what, unit, mode and the release it shows; the TF-A
    document's own titles for the TFTF runtime-instrumentation tests."""
    from ..ingest import tftf_rt_instr
    value = params_key.split("=", 1)[1] if "=" in params_key and "," not in params_key else ""
    if benchmark == tftf_rt_instr.BENCHMARK and value in tftf_rt_instr.TITLES:
        return f"{tftf_rt_instr.TITLES[value]} ({label})"
    if benchmark in _PSCI_TITLES and (value or not params_key):
        return f"{_PSCI_TITLES[benchmark].format(value)} in {mode} ({label})"
    return f"{benchmark}{params_text(params_key)} ({unit}) in {mode} ({label})"


@functools.lru_cache(maxsize=1024)
def table_rank(benchmark: str, params_key: str) -> int:
    """TFTF tables in the TF-A document's order; everything else after them, by key."""
    from ..ingest import tftf_rt_instr
    tests = list(tftf_rt_instr.TITLES)
    test = params_key.removeprefix("test=")
    if benchmark == tftf_rt_instr.BENCHMARK and test in tests:
        return tests.index(test)
    return len(tests)


def grid_tables(figures: Iterable[tuple[tuple, str, object]], label: str, cell: Callable[[object], str],
                metric_order: list[str] = (),
                caption: Callable[[list], str] = lambda values: "") -> list[Table]:
    """One TF-A table per (benchmark, params, mode) of ``figures``: (key, unit, value) with key
    (benchmark, params, mode, package, cluster, core, metric) as :attr:`platperf.records.Result.key`.
    ``cell(value)`` writes a cell; ``caption(values)`` a table's caption from its values.
    Tables come in the TF-A document's order, rows by (cluster, core), columns in
    ``metric_order`` then by name."""
    groups: dict[tuple, list] = {}
    ordered = sorted(figures, key=lambda f: key_order(f[0]))
    for fig in sorted(ordered, key=lambda f: table_rank(f[0][0], f[0][1])):   # stable
        groups.setdefault(fig[0][:3], []).append(fig)
    order = {m: i for i, m in enumerate(metric_order)}
    tables = []
    for (benchmark, params_key, mode), figs in groups.items():
        keys = [ResultKey._make(f[0]) for f in figs]
        metrics = sorted({k.metric for k in keys}, key=lambda m: (order.get(m, len(order)), m))
        packages = any(k.package is not None for k in keys)
        places: dict[tuple, dict] = {}
        for key, (_, _unit, value) in zip(keys, figs):
            places.setdefault(key[3:6] if packages else key[4:6], {})[key.metric] = value
        units = sorted({f[1] for f in figs})
        rows = [[place(p) for p in where] + [cell(by[m]) if m in by else "" for m in metrics]
                for where, by in places.items()]
        tables.append(Table(
            table_title(benchmark, params_key, mode, "/".join(units), label),
            ["Package"] * packages + ["Cluster", "Core"] + [metric_title(m) for m in metrics], rows,
            layout="grid", caption=caption([f[2] for f in figs])))
    return tables
