"""The probe's own measuring: its counter (resolution, read cost, frequency source) from its
meta record, and a neighbour sharing the cores, seen in the L1 hit time of each CPU."""
from __future__ import annotations

from .finding import Finding, cpus_text

# Counter checks (probe meta): a tick longer than this cannot resolve an L1 hit; a read slower
# than this means the counter traps (a VM) or goes through the vDSO fallback.
COARSE_TICK_NS = 10.0
SLOW_READ_NS = 50.0


def meta_from(fp: dict) -> dict | None:
    """Rebuild the counter part of the probe meta from a stored fingerprint's 'probe' key."""
    probe = fp.get("probe") or {}
    return {"counter": probe.get("counter") or {}, "fallback": probe.get("fallback")} if probe else None


def _calibrated_fix(fp: dict | None) -> str:
    """What to do about a calibrated TSC frequency, from what the kernel itself knows."""
    if "tsc_known_freq" in ((fp or {}).get("cpu") or {}).get("flags", []):
        # The kernel took the exact figure from the hypervisor or firmware (cpuinfo says so)
        # but exports it to no program, and a CPU without CPUID leaf 0x15 has none to read.
        return ("nothing to change here: the kernel knows the exact frequency (cpuinfo flag "
                "tsc_known_freq) but gives it to no program, and this CPU has no CPUID leaf 0x15 "
                "the probe could read; check the calibrated figure against the kernel's "
                "(dmesg | grep -i 'tsc:') and compare runs of this machine with each other")
    return "on x86 a kernel with tsc_known_freq, or CPUID leaf 0x15, gives the exact frequency"


def check_counter(meta: dict | None, fp: dict | None = None) -> list[Finding]:
    if not meta:
        return [Finding("info", "counter-not-checked",
                        "counter not checked: no probe metadata (platperf run checks it)")]
    counter = meta.get("counter") or {}
    name, hz = counter.get("name") or "counter", counter.get("freq_hz")
    out = []
    if not hz:
        out.append(Finding(
            "bad", "counter-frequency-unknown", f"the {name} frequency is unknown",
            "ticks cannot be converted to time: every ns figure is wrong",
            "check that the kernel exposes CNTFRQ_EL0 / the TSC frequency; rebuild the probe if it lacks "
            "support for this CPU"))
        return out
    tick_ns = counter.get("resolution_ns") or 1e9 / hz
    if counter.get("freq_source") == "calibrated":
        out.append(Finding(
            "warn", "counter-frequency-calibrated",
            f"the {name} frequency ({hz / 1e6:.1f} MHz) was calibrated, not read from the CPU",
            "every ns figure carries the calibration error (about 1%)",
            _calibrated_fix(fp)))
    if tick_ns > COARSE_TICK_NS:
        out.append(Finding(
            "warn", "counter-low-resolution",
            f"the {name} runs at {hz / 1e6:g} MHz: one tick is {tick_ns:.1f} ns",
            f"single events shorter than {tick_ns:.0f} ns are invisible; latency histograms have "
            f"{tick_ns:.0f} ns steps (the probe lengthens samples so medians stay accurate)",
            "nothing to fix on the host: compare only runs with the same counter frequency"))
    overhead = counter.get("read_overhead_ns")
    if overhead is not None and overhead > SLOW_READ_NS:
        out.append(Finding(
            "warn", "counter-read-slow", f"reading the {name} takes {overhead:.0f} ns",
            "the latency loop's fastest pass is at least this long, hiding short excursions; in a VM the "
            "read may trap to the hypervisor",
            "on bare metal check the kernel lets user space read the counter (CNTKCTL_EL1.EL0VCTEN, "
            "no tsc=unstable)"))
    if meta.get("fallback"):
        out.append(Finding(
            "warn", "portable-fallback", "the probe uses its portable C loops, not the assembly ones",
            "the compiler decides what the loops do: results are not comparable with assembly runs",
            "build the probe for this architecture (make probe / make probe-cross)"))
    if not out:
        out.append(Finding("ok", "counter", f"{name} at {hz / 1e6:g} MHz, tick {tick_ns:.2f} ns"
                                            + (f", read {overhead:.1f} ns" if overhead is not None else "")))
    return out


# -- a neighbour nothing in this system sees ---------------------------------------------------
# An L1 hit takes the same few cycles every time on a core nobody else uses: the dependent
# loads of a 16 KiB ring, timed in CORE_SAMPLES samples of CORE_SAMPLE_S on each CPU, agree to
# about 1%. When the 90th percentile of a CPU's samples is more than CORE_WARN above its
# fastest sample, with the preempted and stolen-from samples left out (the probe counts
# those), something outside this system shares the core: an SMT sibling running another
# guest on the host, a busy sibling thread, a clock that changes under the load.
CORE_SAMPLES, CORE_SAMPLE_S = 25, 0.004
CORE_MAX_CPUS = 64
CORE_WARN = 0.05


def core_probe_args(cpus: list[int]) -> list[str]:
    """The probe command of :func:`check_core_sharing`: each CPU one after the other (about
    0.15 s each); at most CORE_MAX_CPUS of them, spread evenly over a larger machine."""
    step = -(-len(cpus) // CORE_MAX_CPUS) if cpus else 1
    chosen = ",".join(str(c) for c in cpus[::step])
    return ["run", "mem-latency", "--size", "16k", "--pattern", "random", "--mode", "serial",
            "--samples", str(CORE_SAMPLES), "--min-time", str(CORE_SAMPLE_S), "--cpus", chosen]


def _clean_samples(rec: dict) -> list[float]:
    dropped = set(rec.get("preempted") or []) | set((rec.get("steal") or {}).get("samples") or [])
    return sorted(v for i, v in enumerate(rec.get("samples") or []) if i not in dropped)


def check_core_sharing(records: list[dict], fp: dict) -> list[Finding]:
    """Findings from the probe records of :func:`core_probe_args` (mem-latency results in ns
    and in cycles, one of each per CPU)."""
    moved: list[tuple[float, int, float, float, float | None]] = []   # (share, cpu, fastest, p90, cycles)
    cycles = {r.get("cpu"): r for r in records if r.get("type") == "result" and r.get("unit") == "cycles"}
    disturbed = []     # (cpu, samples, kept): too few samples left to judge
    for rec in records:
        if rec.get("type") != "result" or rec.get("unit") != "ns":
            continue
        kept = _clean_samples(rec)
        if len(kept) < 5 or kept[0] <= 0:
            disturbed.append((rec.get("cpu"), len(rec.get("samples") or []), len(kept)))
            continue
        p90 = kept[min(len(kept) - 1, (9 * len(kept)) // 10)]
        cyc = _clean_samples(cycles[rec["cpu"]]) if rec.get("cpu") in cycles else []
        moved.append((p90 / kept[0] - 1.0, rec.get("cpu"), kept[0], p90, cyc[0] if cyc else None))
    if not moved and disturbed:
        cpus = cpus_text(sorted(c for c, _, _ in disturbed if c is not None))
        total, kept = sum(n for _, n, _ in disturbed), sum(k for _, _, k in disturbed)
        return [Finding(
            "info", "core-not-checked",
            f"the L1 hit time of {cpus} was measured but not judged: {total - kept} of its {total} "
            f"samples were preempted or had time stolen (at least 5 clean ones a CPU are needed)",
            "other work on these CPUs (the load and busy-process findings name it) takes them from "
            "the probe: it will take them from benchmark runs too",
            "run platperf doctor again when the machine is quieter")]
    if not moved:
        return [Finding("info", "core-not-checked", "the L1 hit time was not measured (no probe results)")]
    moved.sort(key=lambda m: m[0], reverse=True)
    share, cpu, fastest, p90, cyc = moved[0]
    span = f"{CORE_SAMPLES} samples of {CORE_SAMPLE_S * 1e3:g} ms"
    hit = f"{fastest:.2f} ns" + (f", {cyc:.1f} cycles" if cyc else "")
    if share <= CORE_WARN:
        return [Finding("ok", "core-steady",
                        f"L1 hit steady on {cpus_text(sorted(m[1] for m in moved))}: within {100 * share:.1f}% "
                        f"over {span} (CPU {cpu}: {hit})")]
    shared = sorted(m[1] for m in moved if m[0] > CORE_WARN)
    if (fp.get("virtualization") or {}).get("vm"):
        fix = ("ask the host for vCPUs on dedicated physical cores (no SMT sibling shared with another "
               "guest), or measure releases on bare metal")
    elif (fp.get("smt") or {}).get("siblings"):
        fix = ("keep the SMT siblings of the measured CPUs idle, or echo off | sudo tee "
               "/sys/devices/system/cpu/smt/control")
    else:
        fix = "look for what changes the core's clock or shares it (governor, thermal limit, a device's interrupts)"
    return [Finding(
        "warn", "core-shared",
        f"the L1 hit time of {cpus_text(shared)} moved up to {100 * share:.0f}% over {span} "
        f"(CPU {cpu}: {fastest:.2f}–{p90:.2f} ns, fastest to 90th percentile) with no preemption or "
        "steal counted: something outside this system shares the core",
        "latency figures move by as much from run to run, L2 and beyond most (the neighbour evicts the "
        "ring), bandwidth with them; steal accounting and the probe's retakes cannot see it: compare's "
        "spread and runs-needed columns carry its cost",
        fix)]
