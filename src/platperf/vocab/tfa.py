"""TF-A's words: the benchmarks reported as TF-A reports them and the titles of their tables
(``tf-a-psci-performance-juno-v2.10.rst``): ``Cluster | Core | <metric>...``, one table per
(benchmark, params, mode)."""
from __future__ import annotations

import functools
import re

# TFTF's runtime-instrumentation tests (ingest tftf-rt-instr, and the published pages,
# ingest tfa-rst) are stored under this benchmark, params {"test": ...}.
TFTF_BENCHMARK = "tftf-rt-instr"

# The tests TFTF runs (tftf/tests/runtime_instrumentation/) and the title the TF-A
# performance documents give their tables, in the documents' order, with their markup (a
# ``literal`` is inline code in every report format: platperf.report.document.spans). The
# page calls the PSCI_VERSION test CPU_VERSION.
TFTF_TITLES = {
    "test_rt_instr_susp_deep_parallel": "``CPU_SUSPEND`` latencies (µs) to deepest power level in parallel",
    "test_rt_instr_susp_deep_serial": "``CPU_SUSPEND`` latencies (µs) to deepest power level in serial",
    "test_rt_instr_cpu_susp_parallel": "``CPU_SUSPEND`` latencies (µs) to power level 0 in parallel",
    "test_rt_instr_cpu_susp_serial": "``CPU_SUSPEND`` latencies (µs) to power level 0 in serial",
    "test_rt_instr_cpu_off_serial": "``CPU_OFF`` latencies (µs) on all non-lead CPUs",
    "test_rt_instr_psci_version_parallel": "``CPU_VERSION`` latency (µs) in parallel on all cores",
}

# The page's headings: each groups the tests under it, every release of each (the page
# prints a test's releases one after the other), and may say what the tests do.
TFTF_HEADINGS = {
    "``CPU_SUSPEND`` to deepest power level": (
        ("test_rt_instr_susp_deep_parallel", "test_rt_instr_susp_deep_serial"), ""),
    "``CPU_SUSPEND`` to power level 0": (
        ("test_rt_instr_cpu_susp_parallel", "test_rt_instr_cpu_susp_serial"), ""),
    "``CPU_OFF`` on all non-lead CPUs": (
        ("test_rt_instr_cpu_off_serial",),
        "``CPU_OFF`` on all non-lead CPUs in sequence then, ``CPU_SUSPEND`` on the lead core to the "
        "deepest power level."),
    "``CPU_VERSION`` in parallel": (("test_rt_instr_psci_version_parallel",), ""),
}

# Benchmarks whose figures are per-core firmware latencies, reported as TF-A reports them:
# TFTF's runtime instrumentation and what the psci suite measures from Linux.
BENCHMARKS = (TFTF_BENCHMARK, "cpu-hotplug", "cpu-hotplug-phases", "cpu-idle")

# Column order of the psci suite's tables (the probe writes the offline phases before the
# online ones, so first appearance would put cpu_start last).
METRIC_ORDER = ("offline", "online", "total", "cpu_stop", "cpu_start", "ap_states", "bp_states",
                "untraced", "wakeup_lateness", "exit_latency", "target_residency")

# What the psci suite's tables are titled, after TF-A's "CPU_OFF latencies (µs) on all
# non-lead CPUs": benchmark -> title, ``{}`` the params value that names the table.
PSCI_TITLES = {
    "cpu-hotplug": "CPU hotplug latencies (µs) from Linux, offline and online",
    "cpu-hotplug-phases": "CPU {} latency (µs) from Linux split into the kernel's cpuhp phases",
    "cpu-idle": "Idle state {} wake-up latency (µs) from Linux, other states disabled",
}


def metric_of(header: str) -> tuple[str, str]:
    """(metric, unit) of a historic per-CPU table's header cell: ````PSCI_ENTRY`` (us)`` ->
    ("psci_entry", "us"), ``TOTAL TIME (ns)`` -> ("total_time", "ns"); µs however a copy
    left its µ."""
    match = re.match(r"^(.*?)\s*\(\s*([^()]*?)\s*\)\s*$", header)
    what, unit = (match.group(1), match.group(2)) if match else (header, "us")
    unit = unit if unit in ("ns", "ms") else "us"
    return re.sub(r"\W+", "_", what.replace("``", "")).strip("_").lower(), unit


def metric_title(metric: str) -> str:
    """A column header: ``cache_flush`` -> ``Cache Flush``."""
    return metric.replace("_", " ").replace("-", " ").title()


def table_title(benchmark: str, params_key: str, mode: str, unit: str, label: str) -> str:
    """The TF-A style title: what, unit, mode and the release it shows; the TF-A
    document's own titles for the TFTF runtime-instrumentation tests."""
    value = params_key.split("=", 1)[1] if "=" in params_key and "," not in params_key else ""
    if benchmark == TFTF_BENCHMARK and value in TFTF_TITLES:
        return f"{TFTF_TITLES[value]} ({label})"
    if benchmark in PSCI_TITLES and (value or not params_key):
        return f"{PSCI_TITLES[benchmark].format(value)} in {mode} ({label})"
    params = f" [{params_key}]" if params_key else ""
    return f"{benchmark}{params} ({unit}) in {mode} ({label})"


@functools.lru_cache(maxsize=1024)
def table_rank(benchmark: str, params_key: str) -> int:
    """TFTF tables in the TF-A document's order; everything else after them."""
    test = params_key.removeprefix("test=")
    tests = list(TFTF_TITLES)
    if benchmark == TFTF_BENCHMARK and test in tests:
        return tests.index(test)
    return len(tests)
