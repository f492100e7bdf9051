"""The first screen of a report over several labels of one machine: the verdict of the
newest against the one before, in one word with the tolerance, and the largest changes,
keys as people say them. The comparison is :attr:`platperf.report.data.ReportData.comparison`
(each key's :class:`platperf.compare.decisions.Decision`); this module only reads it.

The one word reads the keys' decisions as the gate's exit code does (``platperf run
--against``, docs/gate.md): **regressed** when a key regressed; else **undecided** when a key
is; else **improved** when a key improved; else **equivalent**, every key within the
tolerance.
"""
from __future__ import annotations

import math

from ...compare import keyed
from ...vocab.figures import number
from ...records import ResultKey
from ...vocab.spoken import benchmark_text, metric_text, place_text, unit_text, what_text
from ..data import ReportData
from ..document import Section, Table
from .compare import delta_text, verdict, verdict_line

TITLE = "Verdict"
MAX_CHANGES = 10


def overall(cmp: keyed.Comparison) -> str:
    """One of regressed, undecided, improved, equivalent (module docstring)."""
    for word in ("regressed", "undecided", "improved"):
        if cmp.decided(word):
            return word
    return "equivalent"


def _size(row: keyed.Row) -> float:
    """How large a change is, either way: |log(new / base)| (a halving and a doubling alike)."""
    if row.base and row.new and row.base > 0 and row.new > 0:
        return abs(math.log(row.new / row.base))
    return math.inf if row.delta_pct is None else abs(row.delta_pct) / 100.0


def largest(cmp: keyed.Comparison, limit: int = MAX_CHANGES) -> list[keyed.Row]:
    """The changes a cell shows (at least the tolerance; confirmed or not), regressions first,
    then the largest."""
    rows = [r for r in cmp.rows if r.status == "both" and r.shown]
    return sorted(rows, key=lambda r: (not r.regression, -_size(r)))[:limit]


def changes_table(cmp: keyed.Comparison, rows: list[keyed.Row]) -> Table:
    """A change a line: what was measured (folded into a heading line over its rows on a narrow
    terminal), where, the metric, both figures, the change and its decision."""
    lines = []
    for r in rows:
        k = ResultKey(*r.key)
        lines.append([what_text(r.key), place_text(k.package, k.cluster, k.core, None),
                      metric_unit(k.metric, r.unit), number(r.base), number(r.new),
                      delta_text(r.delta_pct), verdict(r)])
    shown = sum(r.status == "both" and r.shown for r in cmp.rows)
    more = f"{shown - len(rows)} more changes in the tables below." if shown > len(rows) else ""
    return Table(f"Largest changes, {cmp.new_ref} against {cmp.base_ref}",
                 ["Benchmark", "Where", "Metric", cmp.base_ref, cmp.new_ref, "Change", "Decision"], lines,
                 caption=more, fold=1, optional=(cmp.base_ref, "Where"))


def metric_unit(metric: str, unit: str) -> str:
    """``latency (ns)``; ``cycles`` alone where the metric is its unit."""
    said, unit = metric_text(metric), unit_text(unit)
    return said if said == unit or not unit else f"{said} ({unit})"


def by_benchmark(rows: list[keyed.Row]) -> str:
    """``memory latency 336, memory bandwidth 144``: where the keys of one word lie."""
    counts: dict[str, int] = {}
    for r in rows:
        name = benchmark_text(r.key[0])
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def build(data: ReportData) -> Section | None:
    cmp = data.comparison
    if cmp is None:
        return None
    word = overall(cmp)
    text = (f"{cmp.new_ref} against {cmp.base_ref}: {word.upper() if word == 'regressed' else word} "
            f"(tolerance {cmp.tolerance:g}%). " + verdict_line(cmp).removeprefix(f"{cmp.new_ref} against {cmp.base_ref}: ") + ".")
    for word in ("regressed", "improved"):
        if cmp.decided(word):
            text += f" {word.capitalize()}: {by_benchmark(cmp.decided(word))}."
    rows = largest(cmp)
    if not rows:
        text += f" No key changed by {cmp.tolerance:g}% or more."
    return Section(TITLE, text=text, tables=[changes_table(cmp, rows)] if rows else [])
