"""Findings and warnings as a person reads them: one line for what repeats.

A run's findings hold doctor's checks and the probe's warnings, and the probe warns once per
CPU and kernel ("3 of 3 samples are kept although preempted ..." a dozen times over, each
with other numbers). :func:`collapse` makes one entry of each (level, code): its message with
the numbers that differ as ranges (``1-3 of 3 samples ...``), how many times it was seen and
where (runs, CPUs). The report's Findings section and ``platperf show`` print these entries;
the JSON exports keep every finding as recorded.
"""
from __future__ import annotations

import re

from .machine.sysroot import format_cpu_list

_NUMBER = re.compile(r"(\d+(?:\.\d+)?)")


def merge_messages(messages: list[str]) -> str:
    """One message for several that differ only in their numbers: each number that differs
    becomes its range (``1-3``); messages of other shapes: the first, with ``(and N others)``."""
    unique = list(dict.fromkeys(messages))
    if len(unique) == 1:
        return unique[0]
    parts = [_NUMBER.split(m) for m in unique]
    if any(len(p) != len(parts[0]) or p[0::2] != parts[0][0::2] for p in parts):
        return f"{unique[0]} (and {len(unique) - 1} other message(s) of this kind)"
    out = []
    for i, first in enumerate(parts[0]):
        if i % 2 == 0:
            out.append(first)
            continue
        values = sorted({float(p[i]) for p in parts})
        text = {float(p[i]): p[i] for p in parts}
        out.append(text[values[0]] if len(values) == 1 else f"{text[values[0]]}-{text[values[-1]]}")
    return "".join(out)


def collapse(findings: list[dict]) -> list[dict]:
    """One entry per (level, code, message but its numbers, effect, fix), in order of first
    appearance (messages of other words stay apart: they say other things): the finding's
    fields, ``message`` merged by :func:`merge_messages`, ``count`` (how many were recorded),
    ``runs`` (the ``run`` ids given, sorted) and ``cpus`` (the CPUs named, as a list text
    such as ``0-3``; "" for none)."""
    groups: dict[tuple, list[dict]] = {}
    for f in findings:
        shape = _NUMBER.sub("#", str(f.get("message") or ""))
        key = (f.get("level"), f.get("code"), shape, f.get("effect"), f.get("fix"))
        groups.setdefault(key, []).append(f)
    out = []
    for same in groups.values():
        cpus = sorted({f["cpu"] for f in same if isinstance(f.get("cpu"), int)})
        out.append({**same[0], "message": merge_messages([str(f.get("message") or "") for f in same]),
                    "count": len(same), "runs": sorted({f["run"] for f in same if f.get("run") is not None}),
                    "cpus": format_cpu_list(cpus) if cpus else ""})
    return out
