"""Which fingerprint facts make two runs' results incomparable, and how two fingerprints differ.

A difference in a *changes-results* key is printed above a comparison (the numbers may have
moved for that reason, not the release); a difference in a *refuse* key stops the comparison
unless ``--force``: a Cortex-A53 against a Cortex-A76, or aarch64 against x86_64, is not a
release-to-release change at all.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

REFUSE, WARN = "refuse", "warn"

_KEYS = {
    "cpu.arch": (REFUSE, "another architecture"),
    "cpu.model": (REFUSE, "another CPU model (core types)"),
    "cpu.midr": (WARN, "another core revision"),
    "cpu.count": (WARN, "a different number of online CPUs"),
    "toolchain.compiler": (WARN, "another compiler generates other code"),
    "toolchain.cflags": (WARN, "other compiler flags generate other code"),
    "probe.build_id": (WARN, "a different probe build measured different code"),
    "probe.fallback": (WARN, "portable C loops instead of the assembly ones"),
    "probe.counter.freq_hz": (WARN, "another counter frequency changes the time resolution"),
    "cpufreq.governors": (WARN, "another frequency governor"),
    "cpufreq.boost": (WARN, "boost/turbo switched"),
    "kernel.release": (WARN, "another kernel"),
    "kernel.isolcpus": (WARN, "other isolated CPUs"),
    "kernel.nohz_full": (WARN, "other tickless CPUs"),
    "kernel.rcu_nocbs": (WARN, "other RCU-offloaded CPUs"),
    "kernel.preempt": (WARN, "another preemption model"),
    "smt.active": (WARN, "SMT switched"),
    "virtualization.vm": (WARN, "virtual machine against bare metal"),
}


def comparability_keys() -> dict[str, str]:
    """{dotted key: 'refuse' | 'warn'} — the facts that change results; 'refuse' ones (CPU model,
    architecture) make a comparison meaningless unless forced."""
    return {key: level for key, (level, _) in _KEYS.items()}


@dataclass(frozen=True)
class Difference:
    key: str
    base: object
    new: object
    refuse: bool
    why: str


def lookup(fingerprint: dict, dotted: str):
    value = fingerprint
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def diff(base: dict, new: dict) -> list[Difference]:
    """The comparability keys whose values differ. A key missing on one side (an ingested log has
    no fingerprint) is not a difference: nothing is known to have changed."""
    out = []
    for key, (level, why) in _KEYS.items():
        a, b = lookup(base or {}, key), lookup(new or {}, key)
        if a is None or b is None:
            continue
        if json.dumps(a, sort_keys=True) != json.dumps(b, sort_keys=True):
            out.append(Difference(key, a, b, level == REFUSE, why))
    return out
