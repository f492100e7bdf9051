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
    # results are keyed by (package, cluster, core): CPUs placed otherwise pair other cores
    "topology.places": (REFUSE, "CPUs placed at other (package, cluster, core): keys would pair other cores"),
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


# The probe's meta record (docs/results-format.md), stored with a run beside its fingerprint
# and looked up here under "meta".
_META_KEYS = {
    "meta.arch": (REFUSE, "another architecture"),
    "meta.build_id": (WARN, "a different probe build measured different code"),
    "meta.compiler": (WARN, "another compiler generates other code"),
    "meta.cflags": (WARN, "other compiler flags generate other code"),
    "meta.counter.name": (WARN, "another counter"),
    "meta.counter.freq_hz": (WARN, "another counter frequency changes the time resolution"),
    "meta.fallback": (WARN, "portable C loops instead of the assembly ones"),
}


def comparability_keys() -> dict[str, str]:
    """{dotted key: 'refuse' | 'warn'} — the facts that change results; 'refuse' ones (CPU model,
    architecture) make a comparison meaningless unless forced."""
    return {key: level for key, (level, _) in _KEYS.items()}


@dataclass(frozen=True)
class Difference:
    key: str
    base: str
    new: str
    refuse: bool
    why: str


def lookup(fingerprint: dict, dotted: str):
    value = fingerprint
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def _fact_text(key: str, value) -> str:
    """A fact as compared: a calibrated counter frequency moves by a few ppm from run to run,
    so frequencies compare to 0.1 MHz; a real change (24 -> 50 MHz, another TSC) still shows."""
    if key.endswith("freq_hz") and isinstance(value, (int, float)):
        return f"{value / 1e6:.1f} MHz"
    return json.dumps(value, sort_keys=True) if isinstance(value, (list, dict)) else str(value)


def diff(base, new) -> list[Difference]:
    """The comparability keys whose values differ between two sides.

    A side is one fingerprint or a list of them (a label's runs: every value seen on that side);
    a fingerprint may carry its run's probe meta under ``"meta"``. A key missing on one side (an
    ingested log has no fingerprint) is not a difference: nothing is known to have changed."""
    def seen(side, key):
        fps = side if isinstance(side, list) else [side]
        return {_fact_text(key, v) for v in (lookup(fp or {}, key) for fp in fps) if v is not None}

    out = []
    for key, (level, why) in {**_KEYS, **_META_KEYS}.items():
        a, b = seen(base, key), seen(new, key)
        if a and b and a != b:
            out.append(Difference(key, ", ".join(sorted(a)), ", ".join(sorted(b)), level == REFUSE, why))
    return out
