"""``doctor``: what on this machine will bend the results, what it does to them, how to fix it.

Each check gives one :class:`Finding` per problem (or one ``ok``), a line a person can act on.
Levels: ``ok`` (checked, fine), ``info`` (worth knowing, no harm), ``warn`` (results are
usable but noisier or not comparable with a tuned machine), ``bad`` (results are unreliable).
Warnings never make ``platperf doctor`` fail: a board under test is often not tunable.

One module per family of checks, and :data:`CHECKS`, their order: a new check is a function
in its family's module and one row.

    cpu       frequency scaling and boost, SMT siblings, a topology that contradicts itself,
              isolation, a virtual machine
    load      the load average, busy processes, hypervisor steal time
    counter   the probe's counter (its step), a neighbour sharing the cores (L1 hit time per CPU),
              other tenants sharing the last-level cache (a chase inside it)
    kernel    resctrl, cpuidle states
    pmu       the event sources, each core PMU and its CPUs, perf_event_paranoid, the suites'
              events it cannot count (platperf run --events)
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

from ..machine.sysroot import SysRoot
from .counter import (CORE_MAX_CPUS, CORE_SAMPLE_S, CORE_SAMPLES, CORE_WARN, LLC_DRAM_MAX, LLC_SAMPLE_S,
                      LLC_SAMPLES, check_core_sharing, check_counter, check_llc_sharing, core_probe_args,
                      last_level_cache, llc_probe_args, meta_from)
from .cpu import check_cpufreq, check_isolation, check_smt, check_topology, check_vm
from .finding import LEVELS, Finding
from .kernel import check_cpuidle, check_resctrl
from .pmu import check_pmu
from .load import (BUSY_SHARE, SSH_SERVERS, BusyProcess, Looks, ProcTimes, busy_between, check_busy_processes,
                   check_load, check_steal, cpu_stat, cpu_times, own_processes, process_share,
                   steal_shares, two_looks, uptime_s)

__all__ = ["BUSY_SHARE", "CHECKS", "CORE_MAX_CPUS", "CORE_SAMPLES", "CORE_SAMPLE_S", "CORE_WARN",
           "LEVELS", "LLC_DRAM_MAX", "LLC_SAMPLES", "LLC_SAMPLE_S", "SSH_SERVERS", "BusyProcess",
           "Finding", "Look", "Looks", "ProcTimes", "busy_between", "check", "check_busy_processes",
           "check_core_sharing", "check_counter", "check_cpufreq", "check_cpuidle", "check_isolation",
           "check_llc_sharing", "check_load", "check_pmu", "check_resctrl", "check_smt", "check_steal", "check_topology",
           "check_vm",
           "core_probe_args", "cpu_stat", "cpu_times", "last_level_cache", "llc_probe_args",
           "own_processes", "process_share", "steal_shares", "two_looks", "uptime_s"]


@dataclass
class Look:
    """What the checks read of one machine."""

    sysroot: SysRoot
    fingerprint: dict
    probe_meta: dict | None       # the probe's meta record (the counter checks)
    looks: Looks | None           # two looks at /proc, sample_s apart (None: not sampled)
    sample_s: float
    core_records: list[dict] | None   # the records of core_probe_args' command
    llc_records: list[dict] | None = None   # the records of llc_probe_args' command


# The checks in the order their findings are listed.
CHECKS: tuple[tuple[str, Callable[[Look], list[Finding]]], ...] = (
    ("cpufreq", lambda m: check_cpufreq(m.fingerprint)),
    ("smt", lambda m: check_smt(m.fingerprint)),
    ("topology", lambda m: check_topology(m.fingerprint)),
    ("isolation", lambda m: check_isolation(m.fingerprint)),
    ("load", lambda m: check_load(m.fingerprint)),
    ("busy-processes", lambda m: check_busy_processes(m.sysroot, m.sample_s, m.looks) if m.looks else []),
    ("steal", lambda m: check_steal(m.sysroot, m.looks)),
    ("vm", lambda m: check_vm(m.fingerprint)),
    ("counter", lambda m: check_counter(m.probe_meta if m.probe_meta is not None else meta_from(m.fingerprint),
                                        m.fingerprint)),
    ("core-sharing", lambda m: check_core_sharing(m.core_records, m.fingerprint)
     if m.core_records is not None else []),
    ("llc-sharing", lambda m: check_llc_sharing(m.llc_records, m.fingerprint)
     if m.llc_records is not None else []),
    ("resctrl", lambda m: check_resctrl(m.sysroot)),
    ("cpuidle", lambda m: check_cpuidle(m.sysroot)),
    ("pmu", lambda m: check_pmu(m.sysroot, probe_meta=m.probe_meta)),
)


def check(root: SysRoot | str | os.PathLike = "/", fingerprint: dict | None = None,
          probe_meta: dict | None = None, sample_s: float = 0.2,
          core_records: list[dict] | None = None, llc_records: list[dict] | None = None) -> list[Finding]:
    """All checks on the machine at ``root`` (a SysRoot — a remote target's snapshot — or a
    path). ``fingerprint`` is collected when not given; ``probe_meta`` (the probe's meta record)
    enables the counter checks, ``core_records`` (the records of the probe command
    :func:`core_probe_args` gives) the check for a neighbour sharing the cores, ``llc_records``
    (of :func:`llc_probe_args`) the check for a last-level cache shared with other tenants. Busy
    processes are sampled over ``sample_s`` seconds (0 skips the sampling)."""
    from ..fingerprint import collect
    sysroot = SysRoot.of(root)
    fp = fingerprint if fingerprint is not None else collect(sysroot, probe_meta)
    look = Look(sysroot, fp, probe_meta, two_looks(sysroot, sample_s) if sample_s > 0 else None,
                sample_s, core_records, llc_records)
    return [finding for _, run in CHECKS for finding in run(look)]
