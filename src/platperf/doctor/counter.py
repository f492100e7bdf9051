"""The probe's own measuring: its counter (step, read cost, frequency source) from its meta
record; a neighbour sharing the cores, seen in the L1 hit time of each CPU; other tenants sharing
the last-level cache, seen in a chase inside it flipping between its figure and DRAM's."""
from __future__ import annotations

from .finding import Finding, cpus_text

# Counter checks (probe meta): a step longer than this cannot resolve an L1 hit; a read slower
# than this means the counter traps (a VM) or goes through the vDSO fallback; a counter that
# advances this many ticks at a time or more is coarser than its frequency says.
COARSE_TICK_NS = 10.0
SLOW_READ_NS = 50.0
COARSE_STEP_TICKS = 2.0
# The probe marks figures within this many steps (counter.h COUNTER_NEAR_STEPS).
NEAR_STEPS = 4


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
    tick_ns = 1e9 / hz
    step = counter.get("step_ticks") or 1.0         # metas before the step was measured: one tick
    step_ns = counter.get("resolution_ns") or tick_ns * step
    if counter.get("freq_source") == "calibrated":
        out.append(Finding(
            "warn", "counter-frequency-calibrated",
            f"the {name} frequency ({hz / 1e6:.1f} MHz) was calibrated, not read from the CPU",
            "every ns figure carries the calibration error (about 1%)",
            _calibrated_fix(fp)))
    effect = (f"single events shorter than {step_ns:.0f} ns are invisible; the latency loop's minimum and any "
              f"figure within {NEAR_STEPS} steps ({NEAR_STEPS * step_ns:.0f} ns) are quantised and say so "
              f"(resolution_steps); samples last at least 1000 steps, so medians stay accurate")
    if step >= COARSE_STEP_TICKS:
        b2b = counter.get("back_to_back") or {}
        seen = (f"; back-to-back reads differ by {b2b['min_nonzero_ticks']:g} ticks at least, "
                f"{b2b['mode_nonzero_ticks']:g} most often" if b2b.get("mode_nonzero_ticks") else "")
        out.append(Finding(
            "warn", "counter-coarse-step",
            f"the {name} advances in steps of {step:.6g} ticks ({step_ns:.1f} ns), coarser than its "
            f"{hz / 1e6:g} MHz implies (one tick {tick_ns:.3g} ns){seen}",
            effect,
            "a hypervisor that scales or traps the counter makes it so: nothing to fix in the guest; compare "
            "only runs with the same counter step, and measure short events on bare metal"))
    elif step_ns > COARSE_TICK_NS:
        out.append(Finding(
            "warn", "counter-low-resolution",
            f"the {name} runs at {hz / 1e6:g} MHz: one step is {step_ns:.1f} ns",
            effect,
            "nothing to fix on the host: compare only runs with the same counter frequency"))
    overhead = counter.get("read_mean_ns", counter.get("read_overhead_ns"))
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
        out.append(Finding("ok", "counter", f"{name} at {hz / 1e6:g} MHz, step {step_ns:.2f} ns"
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


# -- a last-level cache shared with other tenants ------------------------------------------------
# On a machine of one's own a chase inside the last-level cache reads the cache's latency in
# every sample. Where the cache is shared with other tenants (a VM's L3 with other guests), their
# sweeps evict the chase: its samples flip between the cache's figure and DRAM's (12 and 100 ns
# for 8 MiB of a 32 MiB L3 on a KVM guest), and a median lands on either. LLC_SAMPLES samples of
# LLC_SAMPLE_S at a quarter of the cache; DRAM's figure at 4x (at most LLC_DRAM_MAX) says which
# level is which. levels.two_levels decides.
LLC_SAMPLES, LLC_SAMPLE_S = 15, 0.01
LLC_DRAM_MAX = 1 << 30


def last_level_cache(fp: dict) -> tuple[str, int] | None:
    """(name, bytes) of the largest data or unified cache of a fingerprint: ("L3", 33554432)."""
    from ..vocab.sizes import size_or_none
    found = [(size_or_none(c.get("size")) or 0, f"L{c.get('level', '?')}") for c in fp.get("caches") or []
             if isinstance(c, dict) and not str(c.get("type", "")).lower().startswith("instr")]
    size, name = max(found, default=(0, ""))
    return (name, size) if size else None


def llc_probe_args(fp: dict) -> list[str] | None:
    """The probe command of :func:`check_llc_sharing`, on the last CPU (about 0.3 s and what
    a chase of 4x the cache takes to set up); None without a cache size or a CPU."""
    llc = last_level_cache(fp)
    cpus = [c["cpu"] for c in (fp.get("topology") or {}).get("cpus") or []]
    if not llc or not cpus or llc[1] < 4096:
        return None
    inside, dram = llc[1] // 4, min(4 * llc[1], LLC_DRAM_MAX)
    return ["run", "mem-latency", "--size", f"{inside},{dram}", "--pattern", "random", "--samples",
            str(LLC_SAMPLES), "--min-time", str(LLC_SAMPLE_S), "--cpus", str(max(cpus))]


def check_llc_sharing(records: list[dict], fp: dict) -> list[Finding]:
    """Findings from the records of :func:`llc_probe_args` (mem-latency in ns at a quarter of
    the last-level cache and at DRAM size)."""
    from .. import stats
    from ..stats import levels
    from ..vocab.sizes import size_label
    llc = last_level_cache(fp)
    by_size = {r["params"].get("size"): _clean_samples(r) for r in records
               if r.get("type") == "result" and r.get("unit") == "ns" and isinstance(r.get("params"), dict)}
    if not llc or not by_size:
        return [Finding("info", "llc-not-checked", "the last-level cache was not measured "
                                                   "(no cache size in /sys, or no probe results)")]
    inside = min(by_size)
    samples, dram = by_size[inside], by_size.get(max(by_size)) if len(by_size) > 1 else None
    where = f"a chase of {size_label(inside)} inside the {size_label(llc[1])} {llc[0]}"
    dram_text = f"; DRAM ({size_label(max(by_size))}) reads {stats.median(dram):.1f} ns" if dram else ""
    if len(samples) < 5:
        return [Finding("info", "llc-not-checked", f"{where}: {LLC_SAMPLES - len(samples)} of {LLC_SAMPLES} "
                                                   "samples were preempted or stolen from (a busy machine); run "
                                                   "platperf doctor again when it is quiet")]
    split = levels.two_levels(samples)
    if split is None:
        return [Finding("ok", "llc-steady", f"{where} reads {stats.median(samples):.1f} ns in all of "
                                            f"{len(samples)} samples{dram_text}")]
    return [Finding(
        "warn", "llc-shared",
        f"the last-level cache is shared with other tenants: {where} reads {split.low:.1f} ns in "
        f"{split.n_low} and {split.high:.1f} ns in {split.n_high} of {len(samples)} samples of "
        f"{LLC_SAMPLE_S * 1e3:g} ms{dram_text}",
        "latency and bandwidth of sizes inside that cache flip between its figure and DRAM's from run to "
        "run; reports show such points at both levels (fast / slow), a median would land on either",
        "ask the host for a cache partition (resctrl / CAT on the host) or a dedicated host; otherwise "
        "compare several runs a side (platperf run --repeat N) and read both levels")]
