"""A result record's counted events as stored results (docs/results-format.md, "events").

The record's field, from the probe's ``--events``::

    "iterations": 969616,
    "events": {"per": "access",
               "counters": [{"name": "l2d_refill", "asked": "l2d", "event": "L2D_CACHE_REFILL",
                             "pmu": "armv8_pmuv3_0", "code": "0x17", "unit": "events",
                             "counts": [c0, c1, c2], "enabled_ns": [...], "running_ns": [...],
                             "expected": 0.0625}]}     # optional: the disassembly's count per op

Each counter becomes one more result of the record's (benchmark, params, mode, cpu): metric
``<name>_per_<per>`` (``l2d_refill_per_access``), unit ``<unit>/<per>`` (``events/access``),
lower is better, sample i = counts[i] / iterations (/ ``events.iterations[i]``, each sample's own,
where the record's samples hold different operation counts: align-sweep's pooled rounds), and
``extra`` the event, PMU, code, the ``--events`` item, the raw counts and each sample's running
share (running_ns / enabled_ns).
Compare, history, gate and show then key and pair it as any metric.

The field is checked where every record is (records.check_record). A counter that ran for less than all of a sample (the PMU had fewer counters than the groups
asked, and they took turns) is kept as counted, never scaled: its share is stored and one
``events-partial`` warning says so. A record without ``events`` is untouched.
"""
from __future__ import annotations

from ..records import Result
from . import counter_metric

# a share this close to 1 is the same read, not a counter that took turns: time_enabled and
# time_running are two clock reads of the kernel's, a few ns apart on an idle group
FULL_SHARE = 0.999


def running_shares(counter: dict) -> list[float] | None:
    """running_ns / enabled_ns of each sample (1.0 where nothing was enabled), or None when the
    probe did not say."""
    enabled, running = counter.get("enabled_ns"), counter.get("running_ns")
    if enabled is None or running is None:
        return None
    return [min(1.0, r / e) if e else 1.0 for e, r in zip(enabled, running)]


class Counted:
    """The counters of one run's records, each stored once.

    mem-latency writes its latency in ns and in cycles as two records of one measurement,
    each with the same counts: the second adds nothing (a counter already seen for the key
    with the same counts is not stored again)."""

    def __init__(self):
        self._seen: set = set()
        self.counters: list[Result] = []     # every counter stored, for the kernels' claims

    def expand(self, res: Result) -> tuple[list[Result], list[dict]]:
        """(the counters of ``res`` as results, the warnings they need); ``res`` loses its
        ``events`` field (the counters hold it) and keeps ``events_per``."""
        events = res.extra.pop("events", None)
        if not isinstance(events, dict):
            return [], []
        per = events["per"]
        # each sample's own divisor where the samples hold different operation counts (align-sweep's
        # pooled rounds), else the record's one
        each = events.get("iterations")
        iterations = each if each is not None else res.extra["iterations"]
        divisors = [float(v) for v in each] if each is not None else [float(iterations)] * len(res.samples)
        res.extra["events_per"] = per
        out, warnings = [], []
        for c in events.get("counters", []):
            seen = (res.benchmark, res.params_key, res.mode, res.cpu, c["name"], tuple(c["counts"]))
            if seen in self._seen:
                continue
            self._seen.add(seen)
            shares = running_shares(c)
            extra = {k: c[k] for k in ("event", "pmu", "code", "asked", "expected") if c.get(k) is not None}
            extra.update(counts=list(c["counts"]), iterations=iterations, per=per)
            if shares is not None:
                extra["running_share"] = [round(s, 6) for s in shares]
            counter = Result(benchmark=res.benchmark, params=dict(res.params),
                             metric=counter_metric(c["name"], per), unit=f"{c['unit']}/{per}",
                             direction="lower", samples=[v / d for v, d in zip(c["counts"], divisors)],
                             cpu=res.cpu, mode=res.mode, cluster=res.cluster, core=res.core,
                             package=res.package, extra=extra)
            out.append(counter)
            if shares is not None and min(shares) < FULL_SHARE:
                warnings.append(partial_warning(counter, shares))
        self.counters += out
        return out, warnings


def partial_warning(counter: Result, shares: list[float]) -> dict:
    """The warning of a counter that ran for part of a sample, in the probe's shape."""
    partial = sum(s < FULL_SHARE for s in shares)
    params = f" [{counter.params_key}]" if counter.params else ""
    where = f" on CPU {counter.cpu}" if counter.cpu is not None else ""
    return {"type": "warning", "level": "warn", "code": "events-partial", "source": "platperf",
            "benchmark": counter.benchmark, **({"cpu": counter.cpu} if counter.cpu is not None else {}),
            "message": f"{counter.extra.get('event') or counter.metric} of {counter.benchmark}{params}{where} "
                       f"counted during {min(shares):.0%} of a sample at least ({partial} of {len(shares)} "
                       f"samples): kept as counted, not scaled (more events than counters; the "
                       f"share of each sample is stored)"}
