"""TF-A's tables for one release: the firmware latencies per (cluster, core) in the layout of
TF-A's PSCI performance page, for each run column — what the ``psci`` suite measured from
Linux (hotplug, its cpuhp phases, idle-state wake-ups) and imported TFTF runs (``ingest
tftf-rt-instr``, ``ingest tfa-rst``). Deltas across releases are ``platperf compare``'s,
which builds the same tables (``platperf.report.tfa``)."""
from __future__ import annotations

from ... import stats
from ...vocab.figures import number
from ...vocab.tfa import BENCHMARKS, METRIC_ORDER
from ..data import ReportData
from ..document import Section
from ..intervals import with_interval
from ..tfa import grid_tables


def build(data: ReportData) -> Section | None:
    tables = []
    for col in data.columns:
        pooled: dict[tuple, tuple[str, list, set]] = {}
        metrics: dict[str, None] = {}
        for res in col.results:
            if res.benchmark in BENCHMARKS:
                metrics.setdefault(res.metric, None)
                unit, medians, unmeasured = pooled.setdefault(res.key, (res.unit, [], set()))
                if res.not_measured:     # an idle state never entered: no figure, the reason
                    unmeasured.add(res.not_measured)
                else:
                    medians.append(res.summary["median"])
        # several runs pooled under one label: the median of their medians
        figures = [(key, unit, (stats.median(medians), data.intervals.get((col.name, key)) if data.ci else None)
                    if medians else " / ".join(sorted(unmeasured)))
                   for key, (unit, medians, unmeasured) in pooled.items()]
        tables += grid_tables(figures, col.name, _cell, list(dict.fromkeys(METRIC_ORDER + tuple(metrics))))
    if not tables:
        return None
    unmeasured = any(c in ("rejected", "not entered") for t in tables for row in t.rows for c in row)
    return Section(title="Firmware latencies per core (TF-A layout)", tables=tables, text=(
        "One table per test as TF-A's PSCI performance page lays them out: medians of each "
        "core's samples (the median of the run medians when a label pools several runs). "
        "Hotplug and idle-state figures are measured from Linux on the issuing or sleeping CPU, "
        "so they hold the kernel's share as well as the firmware's; the cpuhp phase tables "
        "separate the steps that stop or start the CPU (cpu_stop, cpu_start: PSCI CPU_OFF / "
        "CPU_ON are inside) from the kernel's own. Compare two releases with platperf compare."
        + (" An idle state marked rejected (the firmware refused it: the state's rejected counter "
           "moved) or not entered (its usage did not move) while it was the only one enabled has "
           "no figure: its samples are another state's wake-up." if unmeasured else "")))


def _cell(figure) -> str:
    """A figure with its interval, or why there is none."""
    return figure if isinstance(figure, str) else with_interval(number(figure[0]), figure[1])
