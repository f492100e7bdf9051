"""Keys as people say them: ``random 16 MiB``, not ``pattern=random,size=16777216,stride=64``.

What a summary, a history's small multiples and a site's pages print where a reader looks
first; the tables below them keep the canonical keys (``records.key_text``) that compare,
the JSON and ``platperf ingest`` pair by. Sizes in IEC units (KiB, MiB: the caches and
buffers are powers of two), a parameter that is its benchmark's default left out (a random
chase's 64-byte stride), TF-A's tests by the PSCI call they time.
"""
from __future__ import annotations

# TFTF's runtime-instrumentation tests as TF-A's pages name them (vocab/tfa.TFTF_TITLES),
# short: the PSCI call, its depth, and serial or parallel.
TFTF_SPOKEN = {
    "test_rt_instr_susp_deep_parallel": "CPU_SUSPEND deepest, parallel",
    "test_rt_instr_susp_deep_serial": "CPU_SUSPEND deepest, serial",
    "test_rt_instr_cpu_susp_parallel": "CPU_SUSPEND level 0, parallel",
    "test_rt_instr_cpu_susp_serial": "CPU_SUSPEND level 0, serial",
    "test_rt_instr_cpu_off_serial": "CPU_OFF, serial",
    "test_rt_instr_psci_version_parallel": "PSCI_VERSION, parallel",
}
# STREAM's kernels go by the benchmark's name; LMBench's bw_mem ones by their own
STREAM = ("copy", "scale", "add", "triad")
# parameters at their usual value say nothing (mem-latency's random chase over 64-byte lines)
DEFAULTS = {("mem-latency", "stride"): 64}
UNITS = {"us": "µs", "MB/s": "MB/s"}


def iec(nbytes) -> str:
    """``16777216`` -> ``16 MiB``; ``1536`` -> ``1.5 KiB``; ``512`` -> ``512 B``."""
    try:
        n = float(nbytes)
    except (TypeError, ValueError):
        return str(nbytes)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            v = n / scale
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.3g} {unit}"
    return f"{n:.0f} B"


def _value(name: str, value) -> str:
    if name == "size" or name.endswith("_size"):
        return iec(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:g} {name}"
    return str(value)


def params_text(benchmark: str, params) -> str:
    """A benchmark's parameters as people say them: ``random 16 MiB``, ``seq 4 MiB, stride
    128 B``, ``STREAM triad 64 MiB``, ``peak-read 16 KiB``, ``CPU_SUSPEND deepest, parallel``,
    ``null``; ``params`` a dict or the canonical ``k=v,...`` text."""
    if isinstance(params, str):
        params = dict(p.split("=", 1) for p in params.split(",") if "=" in p)
        params = {k: int(v) if v.isdigit() else v for k, v in params.items()}
    params = dict(params or {})
    if benchmark == "tftf-rt-instr" and params.get("test") in TFTF_SPOKEN:
        row = params.get("row")
        return TFTF_SPOKEN[params["test"]] + (f", row {row}" if row is not None else "")
    for (bench, name), usual in DEFAULTS.items():
        if bench == benchmark and params.get(name) == usual:
            params.pop(name)
    words = []
    for name in ("pattern", "kernel", "test", "op", "kind"):
        if name in params:
            value = str(params.pop(name))
            words.append(f"STREAM {value}" if name == "kernel" and value in STREAM else value)
    if "size" in params:
        words.append(iec(params.pop("size")))
    head = " ".join(words)
    rest = [f"stride {iec(v)}" if k == "stride" else _value(k, v) for k, v in params.items()]
    return ", ".join(p for p in [head, *rest] if p)


def benchmark_text(benchmark: str) -> str:
    """``os-syscall`` -> ``syscall``; ``mem-latency`` -> ``memory latency``."""
    names = {"mem-latency": "memory latency", "mem-bandwidth": "memory bandwidth",
             "c2c-latency": "core-to-core latency", "tftf-rt-instr": "TF-A PSCI"}
    return names.get(benchmark, benchmark.removeprefix("os-").replace("-", " "))


def metric_text(metric: str) -> str:
    """``cache_flush`` -> ``cache flush``; ``latency_cycles`` -> ``cycles``."""
    return {"latency_cycles": "cycles"}.get(metric, metric.replace("_", " "))


def unit_text(unit: str) -> str:
    return UNITS.get(unit, unit)


def place_text(package, cluster, core, cpu=None) -> str:
    """``cluster 0 core 1`` (``package 1 ...`` where clusters restart per package; ``CPU 3``
    without a cluster); "" for a board-level figure."""
    parts = [f"package {package}"] * (package is not None) + [f"cluster {cluster}"] * (cluster is not None) \
        + [f"core {core}"] * (core is not None)
    if not parts and cpu is not None:
        parts = [f"CPU {cpu}"]
    return " ".join(parts)


def what_text(key: tuple, mode: bool = True) -> str:
    """What a key (records.ResultKey order) measured, without where and which metric:
    ``memory latency random 16 MiB, serial``, ``TF-A PSCI CPU_SUSPEND deepest, parallel``."""
    benchmark, params, run_mode = key[:3]
    what = " ".join(p for p in (benchmark_text(benchmark), params_text(benchmark, params)) if p)
    if mode and run_mode and run_mode not in what:
        what += f", {run_mode}"
    return what


def key_spoken(key: tuple, unit: str | None = None, mode: bool = True) -> str:
    """A whole key (records.ResultKey order) as people say it: ``TF-A PSCI CPU_SUSPEND
    deepest, parallel: cluster 0 core 0 cache flush (µs)``, ``memory latency random 16 MiB,
    serial: cluster 0 core 1``."""
    benchmark, params, run_mode, package, cluster, core, metric = key
    what = what_text(key, mode)
    where = place_text(package, cluster, core)
    tail = " ".join(p for p in (where, metric_text(metric)) if p)
    return f"{what}: {tail}" + (f" ({unit_text(unit)})" if unit else "")
