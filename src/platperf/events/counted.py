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
lower is better, sample i = counts[i] / iterations, and ``extra`` the event, PMU, code, the
``--events`` item, the raw counts and each sample's running share (running_ns / enabled_ns).
Compare, history, gate and show then key and pair it as any metric.

A counter that ran for less than all of a sample (the PMU had fewer counters than the groups
asked, and they took turns) is kept as counted, never scaled: its share is stored and one
``events-partial`` warning says so. A record without ``events`` is untouched.
"""
from __future__ import annotations

import math
import re

from ..records import RecordError, Result
from . import counter_metric

_NAME = re.compile(r"^[a-z0-9][a-z0-9_]{0,62}$")
_PER = re.compile(r"^[a-z]{1,20}$")
# a share this close to 1 is the same read, not a counter that took turns: time_enabled and
# time_running are two clock reads of the kernel's, a few ns apart on an idle group
FULL_SHARE = 0.999


def check_events(rec: dict, where: str):
    """The ``events`` field of a result record, checked as records.check_record checks the rest:
    RecordError for a counter whose counts do not match the samples one for one, a missing or
    non-positive ``iterations`` (the divisor), a negative or non-finite count."""
    events = rec["events"]
    if not isinstance(events, dict):
        raise RecordError(where, "'events' must be an object {\"per\": ..., \"counters\": [...]}")
    per = events.get("per")
    if not isinstance(per, str) or not _PER.match(per):
        raise RecordError(where, f"'events.per' must name one operation (access, byte, pass), got {per!r:.40}")
    iterations = rec.get("iterations")
    if not isinstance(iterations, (int, float)) or isinstance(iterations, bool) or not 0 < iterations < 1e30:
        raise RecordError(where, f"a result with 'events' needs 'iterations' above 0 (operations per "
                                 f"sample, the counts' divisor), got {iterations!r:.40}")
    counters = events.get("counters")
    if not isinstance(counters, list):
        raise RecordError(where, "'events.counters' must be a list")
    n, names = len(rec["samples"]), set()
    for i, c in enumerate(counters):
        at = f"'events.counters[{i}]'"
        if not isinstance(c, dict) or not isinstance(c.get("name"), str) or not _NAME.match(c["name"]):
            raise RecordError(where, f"{at} must have a 'name' of a-z, 0-9 and _ (l2d_refill)")
        if c["name"] in names:
            raise RecordError(where, f"{at}: '{c['name']}' is counted twice in one record")
        names.add(c["name"])
        if not isinstance(c.get("unit"), str) or not _PER.match(c["unit"]):
            raise RecordError(where, f"{at} ({c['name']}) must have a 'unit' (events, cycles, instructions)")
        expected = c.get("expected")     # the disassembly's count per operation (events.claims)
        if expected is not None and (not isinstance(expected, (int, float)) or isinstance(expected, bool)
                                     or not 0 <= expected < 1e30):
            raise RecordError(where, f"{at} ({c['name']}): 'expected' must be a count per {per}, "
                                     f"got {expected!r:.40}")
        for field in ("counts", "enabled_ns", "running_ns"):
            values = c.get(field)
            if values is None and field != "counts":
                continue
            if not isinstance(values, list) or len(values) != n:
                raise RecordError(where, f"{at} ({c['name']}): '{field}' must hold one number per sample "
                                         f"({n}), got {len(values) if isinstance(values, list) else values!r:.40}")
            for v in values:
                if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) \
                        or not 0 <= v < 1e30:
                    raise RecordError(where, f"{at} ({c['name']}): '{field}' holds {v!r:.40}, not a "
                                             f"count of 0 or more")


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
        per, iterations = events["per"], float(res.extra["iterations"])
        res.extra["events_per"] = per
        out, warnings = [], []
        for c in events.get("counters", []):
            seen = (res.benchmark, res.params_key, res.mode, res.cpu, c["name"], tuple(c["counts"]))
            if seen in self._seen:
                continue
            self._seen.add(seen)
            shares = running_shares(c)
            extra = {k: c[k] for k in ("event", "pmu", "code", "asked", "expected") if c.get(k) is not None}
            extra.update(counts=list(c["counts"]), iterations=res.extra["iterations"], per=per)
            if shares is not None:
                extra["running_share"] = [round(s, 6) for s in shares]
            counter = Result(benchmark=res.benchmark, params=dict(res.params),
                             metric=counter_metric(c["name"], per), unit=f"{c['unit']}/{per}",
                             direction="lower", samples=[v / iterations for v in c["counts"]],
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
