"""The PMU: what ``platperf run --events`` can count on the target (issue 37, docs/events.md).

Read through the target's own /sys and /proc, as every check: the kernel's event sources
(``/sys/bus/event_source/devices/*``: its ``type``, the ``cpus`` a core PMU serves, ``events/``
the events it names, ``caps/``), ``/proc/sys/kernel/perf_event_paranoid``, and which of the
events the suites use (a suite's ``events = [...]``; the issue's cycles, instructions, l1d,
l2d, llc, bus where none names any) the core PMUs cannot count.

The number of counters a core PMU has is not in sysfs on Arm (the kernel's boot log says
"enabled with armv8_pmuv3_0 PMU driver, 7 counters available"); ``caps/`` holds what the
kernel does show (``slots``: PMMIR_EL1's operations a cycle for the STALL_SLOT events), said as
it is, never as a number of counters. The number of events counted at once is measured by the
probe (``platperf-probe info``: pinned groups of growing size, probe/src/event_count.c) and
said beside the PMU where the doctor has the probe's record.
"""
from __future__ import annotations

from ..events import NAMES
from ..events.suites import suites_events
from ..machine.sysroot import SysRoot, format_cpu_list, parse_cpu_list
from .finding import Finding

SOURCES = "sys/bus/event_source/devices"
PARANOID = "proc/sys/kernel/perf_event_paranoid"
# event sources that are the kernel's own, not a PMU
KERNEL_SOURCES = ("software", "tracepoint", "breakpoint", "kprobe", "uprobe", "msr", "power")
X86_CORE = ("cpu", "cpu_core", "cpu_atom")
ARM_CORE = ("armv8_", "armv7_", "armv6_")
# the set, for suites that name none
PARANOID_FIX = "as root: sysctl kernel.perf_event_paranoid=1 (or run as root, or give the probe CAP_PERFMON)"


def core_pmus(sysroot: SysRoot) -> dict[str, dict]:
    """{name: {"cpus": [...] or None (all), "events": [names], "caps": {name: text}}} of the core PMUs."""
    out = {}
    for name in sysroot.listdir(SOURCES):
        if name not in X86_CORE and not name.startswith(ARM_CORE):
            continue
        base = f"{SOURCES}/{name}"
        cpus = sysroot.read(f"{base}/cpus")
        out[name] = {"cpus": parse_cpu_list(cpus) if cpus else None,
                     "events": sysroot.listdir(f"{base}/events"),
                     "caps": {c: (sysroot.read(f"{base}/caps/{c}") or "").strip()
                              for c in sysroot.listdir(f"{base}/caps")}}
    return out


def uncountable(pmu: str, events: list[str], asked: list[str]) -> list[str]:
    """The ``asked`` names a core PMU cannot count by name: on Arm, a PMUv3 common event its
    ``events/`` does not list; on x86, a name with no generic event (l2d, l3d, bus: raw only)."""
    listed = {e.lower() for e in events}
    missing = []
    for item in asked:
        rows = [n for n in NAMES if n.asked == item.replace("-", "_") or n.asked == item]
        if not rows or all(n.software for n in rows):
            continue
        if pmu.startswith(ARM_CORE):
            lacking = [n.arm for n in rows if n.arm and n.arm.lower() not in listed]
        else:
            lacking = [n.counter for n in rows if n.generic is None]
        if lacking:
            missing.append(f"{item} ({', '.join(lacking)})")
    return missing


def _measured(probe_meta: dict | None) -> dict[str, dict]:
    """{core PMU name: its entry} of the probe's ``info`` (meta.pmu_counters,
    probe/src/event_count.c): {"cpu", "at_once"} or {"cpu", "why"}. The key "" is the one entry
    the probe writes where the kernel names no core PMU per CPU (x86's ``cpu``, or none)."""
    return {str(e.get("pmu") or ""): e for e in (probe_meta or {}).get("pmu_counters") or [] if isinstance(e, dict)}


def _at_once(entry: dict | None) -> str:
    """"; 7 events counted at once (measured on CPU 0)", or why the probe could not measure it."""
    if not entry:
        return ""
    if isinstance(entry.get("at_once"), int):
        return f"; {entry['at_once']} events counted at once (measured on CPU {entry.get('cpu')})"
    return f"; events at once not measured: {entry.get('why')}"


def check_pmu(root: SysRoot | str = "/", asked: list[str] | None = None,
              probe_meta: dict | None = None) -> list[Finding]:
    sysroot = SysRoot.of(root)
    findings = [_paranoid(sysroot)] if sysroot.read(PARANOID) is not None else []
    sources = sysroot.listdir(SOURCES)
    if not sources:
        return findings + [Finding("info", "pmu-unknown", "no event sources readable (/sys/bus/event_source): "
                                                          "what --events can count is not known here")]
    cores = core_pmus(sysroot)
    others = [s for s in sources if s not in cores and s not in KERNEL_SOURCES]
    if not cores:
        # info, not warn: no figure is bent by it; a run that asks for events says so itself
        # the probe's own attempt, where doctor has it: "no core PMU: perf_event_open gives ENOENT"
        said = _measured(probe_meta).get("")
        probe_says = f"; the probe: {said['why']}" if said and said.get("why") else ""
        return findings + [Finding(
            "info", "pmu-none", f"no hardware events: the event sources are {', '.join(sources)} (no core PMU, "
                                f"as in a VM without a virtual PMU){probe_says}",
            "platperf run --events counts only the software events (page_faults; as root context_switches "
            "and migrations) and says so once",
            "on a VM: give it a virtual PMU (QEMU/KVM: -cpu host,pmu=on; libvirt <pmu state='on'/>); on a board: "
            "enable the PMU in the device tree (arm,armv8-pmuv3 or the core's pmu node) and CONFIG_ARM_PMU")]
    asked = asked if asked is not None else suites_events()
    measured = _measured(probe_meta)
    for name, pmu in cores.items():
        serves = f"CPUs {format_cpu_list(pmu['cpus'])}" if pmu["cpus"] else "every CPU"
        caps = "; caps: " + ", ".join(f"{k} {v}" for k, v in pmu["caps"].items()) if pmu["caps"] else ""
        # the probe's entry for this PMU, else its unnamed one when this is the only core PMU (x86's cpu)
        at_once = _at_once(measured.get(name, measured.get("") if len(cores) == 1 else None))
        findings.append(Finding("ok", "pmu-core", f"core PMU {name} on {serves}: {len(pmu['events'])} event"
                                                  f"{'' if len(pmu['events']) == 1 else 's'} listed{caps}{at_once}"))
        missing = uncountable(name, pmu["events"], asked)
        if missing:
            findings.append(Finding(
                "info", "pmu-events-missing", f"{name} cannot count {', '.join(missing)} of the suites' events",
                "those counters are left out on its CPUs, said once a run; the rest are counted",
                "count a raw event of the core's own list instead (armv8_pmuv3/r17/, cpu/event=..,umask=../): "
                "docs/events.md"))
    if others:
        findings.append(Finding("info", "pmu-uncore", f"other PMUs: {', '.join(others)} (uncore, interconnect: "
                                                      "counted for the cluster, not a CPU)"))
    return findings


def _paranoid(sysroot: SysRoot) -> Finding:
    text = (sysroot.read(PARANOID) or "").strip()
    try:
        level = int(text)
    except ValueError:
        return Finding("info", "perf-paranoid", f"perf_event_paranoid reads {text!r}: not a level")
    if level >= 3:
        return Finding("info", "perf-paranoid",
                       f"perf_event_paranoid is {level}: no counting without CAP_PERFMON (Debian's kernels)",
                       "platperf run --events counts nothing unless run as root; it says so once", PARANOID_FIX)
    if level == 2:
        return Finding("info", "perf-paranoid",
                       "perf_event_paranoid is 2: user-space counting only without CAP_PERFMON",
                       "context_switches and migrations read 0 in user space: not counted unless run as root",
                       PARANOID_FIX)
    return Finding("ok", "perf-paranoid", f"perf_event_paranoid is {level}: events can be counted")
