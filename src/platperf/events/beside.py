"""The events counted with a figure, shown right after it: a latency that regressed by 40% with
its ``l2d_refill per access +38%`` on the next line, not forty rows away in name order.

A counter result shares its figure's key but for the metric (events.counted), so a listed row
is the counter of the first listed figure of the same (benchmark, params, mode, package,
cluster, core); a counter whose figure is not listed keeps its own place.
"""
from __future__ import annotations

from . import is_counter, spoken

__all__ = ["beside_figures", "spoken"]


def _measured_at(row) -> tuple:
    return tuple(row.key[:6])


def beside_figures(rows: list) -> list:
    """``rows`` (anything with ``key`` as records.ResultKey and ``unit``, in the order they are
    listed) with each counter moved right after the first figure of its key, counters of one
    figure in their listed order."""
    def counter(r) -> bool:
        return is_counter(r.key[6], r.unit)

    figures = {_measured_at(r) for r in rows if not counter(r)}
    followers: dict[tuple, list] = {}
    for r in rows:
        if counter(r) and _measured_at(r) in figures:
            followers.setdefault(_measured_at(r), []).append(r)
    out = []
    for r in rows:
        if counter(r) and _measured_at(r) in figures:
            continue                  # placed after its figure
        out.append(r)
        if not counter(r):
            out += followers.pop(_measured_at(r), [])
    return out
