"""Hardware and software events counted with every sample (issue 37, docs/events.md).

The probe (``platperf-probe run KERNEL --events LIST``) reads a perf_event_open group around
each sample's timed region and writes the counts in the result record's ``events`` field
(docs/results-format.md, "events"). The host keeps each counter as one more result of the
record's key (:mod:`.counted`), checks the kernels' claims against them (:mod:`.claims`) and
shows them beside their figure.

:data:`NAMES` is the names ``--events`` takes, as docs/events.md and ``doctor`` say them: what
each counter is on an Arm PMUv3 (the common event and its number, Arm ARM D17.11) and on x86
(the Linux kernel's generic events, linux/perf_event.h). Its order and spellings follow the
probe's table (probe/src/event_names.c).
"""
from __future__ import annotations

import re
from typing import NamedTuple


class EventName(NamedTuple):
    asked: str            # the --events item
    counter: str          # the counter's name, the metric's stem
    arm: str | None       # PMUv3 common event
    arm_code: int | None  # its number
    generic: str | None   # perf's generic event (x86 and Arm kernels without the PMU's sysfs)
    unit: str             # what one count is
    software: bool = False


NAMES: tuple[EventName, ...] = (
    EventName("cycles", "cycles", "CPU_CYCLES", 0x11, "cycles", "cycles"),
    EventName("instructions", "instructions", "INST_RETIRED", 0x08, "instructions", "instructions"),
    EventName("branches", "branches", "BR_RETIRED", 0x21, "branches", "events"),
    EventName("branch-misses", "branch_misses", "BR_MIS_PRED_RETIRED", 0x22, "branch-misses", "events"),
    EventName("l1d", "l1d", "L1D_CACHE", 0x04, "L1-dcache-loads", "events"),
    EventName("l1d", "l1d_refill", "L1D_CACHE_REFILL", 0x03, "L1-dcache-load-misses", "events"),
    EventName("l2d", "l2d", "L2D_CACHE", 0x16, None, "events"),
    EventName("l2d", "l2d_refill", "L2D_CACHE_REFILL", 0x17, None, "events"),
    EventName("l3d", "l3d", "L3D_CACHE", 0x2B, None, "events"),
    EventName("l3d", "l3d_refill", "L3D_CACHE_REFILL", 0x2A, None, "events"),
    EventName("llc", "llc", "LL_CACHE_RD", 0x36, "LLC-loads", "events"),
    EventName("llc", "llc_miss", "LL_CACHE_MISS_RD", 0x37, "LLC-load-misses", "events"),
    EventName("bus", "bus_access", "BUS_ACCESS", 0x19, None, "events"),
    EventName("page_faults", "page_faults", None, None, "page-faults", "events", True),
    EventName("context_switches", "context_switches", None, None, "context-switches", "events", True),
    EventName("migrations", "cpu_migrations", None, None, "cpu-migrations", "events", True),
)

# what one operation of a kernel is (the record's events.per), as the probe's kernels say it:
# what tells a counter's column from a figure's where only the metric is at hand
PERS = ("access", "byte", "pass", "call", "iteration", "page", "load", "operation", "switch", "op")
_COUNTER_METRIC = re.compile(r"^([a-z0-9][a-z0-9_]*)_per_([a-z]+)$")
_COUNTER_UNIT = re.compile(r"^(?:events|cycles|instructions|ns)/([a-z]+)$")


def counter_metric(name: str, per: str) -> str:
    """``l2d_refill``, ``access`` -> ``l2d_refill_per_access``: the stored metric of a counter."""
    return f"{name}_per_{per}"


def is_counter(metric: str, unit: str | None) -> bool:
    """Whether a stored result is a counter of events (``l2d_refill_per_access`` in
    ``events/access``), not a kernel's own figure: its metric says per what, and so does its unit."""
    m, u = _COUNTER_METRIC.match(metric or ""), _COUNTER_UNIT.match(unit or "")
    return bool(m and u and m.group(2) == u.group(1))


def is_counter_metric(metric: str) -> bool:
    """:func:`is_counter` where only the metric is at hand (a table's columns)."""
    m = _COUNTER_METRIC.match(metric or "")
    return bool(m and m.group(2) in PERS)


def split_metric(metric: str) -> tuple[str, str] | None:
    """``l2d_refill_per_access`` -> (``l2d_refill``, ``access``); None for another metric."""
    m = _COUNTER_METRIC.match(metric or "")
    return (m.group(1), m.group(2)) if m else None


def spoken(metric: str, unit: str | None = None) -> str:
    """A counter's metric as a person says it: ``l2d_refill per access``; other metrics as they are."""
    if unit is not None and not is_counter(metric, unit):
        return metric
    parts = split_metric(metric)
    return f"{parts[0]} per {parts[1]}" if parts else metric


# every spelling of a name the probe takes (probe/src/event_names.c), perf's and the counters'
SPELLINGS = ("cycles", "cpu-cycles", "instructions", "branches", "branch-instructions", "branch-misses",
             "l1d", "l2d", "l3d", "llc", "bus", "page-faults", "faults", "minor-faults", "major-faults",
             "context-switches", "cs", "cpu-migrations", "migrations", "task-clock", "alignment-faults")
_RAW = re.compile(r"^(r[0-9a-fA-F]+|[A-Za-z0-9_-]+/[A-Za-z0-9_=,.-]+/?)$")


def split_list(text: str) -> list[str]:
    """``cycles,cpu/event=0x24,umask=0x21/,l2d`` -> its three items: a comma inside a raw event's
    terms (between its slashes) belongs to the event, as perf reads it."""
    items, current, inside = [], "", False
    for ch in text:
        if ch == "/":
            inside = not inside
        if ch == "," and not inside:
            items.append(current.strip())
            current = ""
        else:
            current += ch
    items.append(current.strip())
    return items


def check_list(text) -> str:
    """An ``--events`` list (text, or a suite's list of names) as the probe's argument; ValueError
    with one line naming an item that is no event name nor a raw event as perf spells it."""
    if isinstance(text, list):
        if not all(isinstance(item, str) for item in text):
            raise ValueError(f"events = {text!r:.60} must be a list of names: events = [\"cycles\", \"l2d\"]")
        text = ",".join(text)
    if not isinstance(text, str) or not text.strip():
        raise ValueError("events: give at least one event name, e.g. cycles,instructions,l2d")
    for item in split_list(text):
        if not (item.replace("_", "-") in SPELLINGS or _RAW.match(item)):
            raise ValueError(f"unknown event '{item}' (valid: {', '.join(dict.fromkeys(n.asked for n in NAMES))}, "
                             f"or a raw event as perf spells it: armv8_pmuv3/r17/, cpu/event=0x24,umask=0x21/, "
                             f"r17; docs/events.md)")
    return ",".join(split_list(text))
