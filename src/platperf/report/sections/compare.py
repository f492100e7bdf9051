"""Comparison: two runs or labels key by key, as the TF-A release tables show them (issue 10).

``platperf compare`` renders :func:`document`; a report over several columns of one machine
gets :func:`build`: its last column against the one before, the changes only. Figures and
verdicts come from :mod:`platperf.compare`; this module only lays them out.
"""
from __future__ import annotations

import math
import statistics

from ... import compare
from ...records import key_text
from ...vocab.figures import number
from .. import tfa
from ..document import Document, Section, Table
from ..tfa import place  # noqa: F401  (cli/compare.py prints with it and number)

MAX_LISTED = 40     # keys listed by name in a section; the JSON export has all of them


def delta_text(delta: float | None) -> str:
    return "" if delta is None else f"{delta:+.2f}%"


def interval_text(ci: tuple | None) -> str:
    return "" if ci is None else f"[{number(ci[0])}, {number(ci[1])}]"


def side_text(row: compare.Row, side: str) -> str:
    """One side's figure, or why it has none (``rejected``, ``not entered``)."""
    return getattr(row, f"{side}_not_measured") or number(getattr(row, side))


def cell(row: compare.Row) -> str:
    """``242.66 (+132.03%)`` when the change is shown, else the new value alone; ``rejected``
    (no figure) for an idle state the new side never entered."""
    if row.status == "not measured":
        if row.new_not_measured:
            return row.new_not_measured
        return f"{number(row.new)} (was {row.base_not_measured})" if row.new is not None else \
            f"removed (was {row.base_not_measured})"
    if row.status == "removed":
        return f"removed (was {number(row.base)})"
    if row.status == "added":
        return f"{number(row.new)} (added)"
    if row.shown:
        return f"{number(row.new)} ({delta_text(row.delta_pct) or 'from 0'})"
    return number(row.new)


def verdict(row: compare.Row) -> str:
    if row.status == "not measured":
        return "; ".join(f"{side} {why}" for side, why in (("base", row.base_not_measured),
                                                           ("new", row.new_not_measured)) if why)
    if row.status != "both":
        return row.status
    if row.regression:
        return "REGRESSION"
    if row.improvement:
        return "better"
    if row.unconfirmed:
        worse = row.new > row.base if row.direction == "lower" else row.new < row.base
        return f"unconfirmed ({'worse' if worse else 'better'})"
    return ""


def runs_text(row: compare.Row) -> str:
    """What settles a row: ``5 runs a side``, ``>= 3 runs a side`` (from one run's samples, a
    lower bound), or ``2+ runs a side`` (no spread known)."""
    if row.runs_needed is None:
        return "2+ runs a side" if row.spread_pct is None or row.spread_pct == 0 else "over 1000 runs"
    at_least = ">= " if row.spread_basis == "samples" else ""
    return f"{at_least}{row.runs_needed} runs a side"


def method_text(cmp: compare.Comparison) -> str:
    test = {"welch": "Welch's t test on the run medians",
            "mwu": "Mann-Whitney U on the run medians",
            "bootstrap": "a 95% bootstrap interval of the ratio of the run medians"}[cmp.test]
    return (f"Figures are medians of the run medians of {cmp.new_ref}; each is paired with "
            f"{cmp.base_ref} by benchmark, parameters, mode, cluster, core and metric, never by "
            f"row position. Each run is one observation: its samples share its conditions. With "
            f"two runs or more a side a cell reads NEW (+x.xx%) when the change is at least "
            f"{cmp.tolerance:g}% and significant ({test}, p < {cmp.alpha:g} adjusted for the "
            f"number of keys by Benjamini-Hochberg); with one run on a "
            f"side a change of at least {cmp.tolerance:g}% is shown but unconfirmed, never a "
            f"regression.")


def detectable_text(cmp: compare.Comparison) -> str:
    """How small a change these runs can catch, and how many runs a tolerance-sized one needs."""
    rows = [r for r in cmp.rows if r.status == "both"]
    mdes = [r.mde_pct for r in rows if r.mde_pct is not None and math.isfinite(r.mde_pct)]
    # runs a side for a tolerance-sized change, over the keys whose spread is known
    needed = [math.inf if r.runs_needed is None else r.runs_needed for r in rows if r.spread_pct]
    parts = []
    if mdes:
        runs = min(min(r.runs_base, r.runs_new) for r in rows if r.mde_pct is not None)
        parts.append(f"With these runs ({runs}+ a side) the smallest change detected with 80% "
                     f"power is {statistics.median(mdes):.2f}% on the median key "
                     f"({max(mdes):.2f}% on the noisiest).")
    if needed:
        lower = any(r.spread_basis == "samples" for r in rows if r.spread_pct)

        def runs(n):
            return "over 1000" if math.isinf(n) else str(n)
        parts.append(f"A change of {cmp.tolerance:g}% needs {runs(statistics.median_low(needed))} "
                     f"runs a side on the median key, {runs(max(needed))} on the noisiest"
                     + (" (from one run's samples: at least that many)." if lower else "."))
    unstable = sum(r.unstable for r in rows)
    if unstable:
        parts.append(f"{unstable} figure(s) have a 95% interval wider than {cmp.tolerance:g}%: "
                     "unstable.")
    return " ".join(parts)


def _results_section(cmp: compare.Comparison) -> Section:
    def caption(rows: list[compare.Row]) -> str:
        single = [r for r in rows if r.basis in ("single-run", "too-few-runs")]
        if not single:
            return ""
        if len(single) == len([r for r in rows if r.status == "both"]):
            return "One run a side: changes are shown but unconfirmed."
        return f"{len(single)} figure(s) with one run on a side: their changes are unconfirmed."

    return Section("Results", tables=tfa.grid_tables(
        ((r.key, r.unit, r) for r in cmp.rows), cmp.new_ref, cell, cmp.metric_order, caption))


def _change_items(rows: list[compare.Row]) -> list[tuple[str, str]]:
    return [(key_text(r.key), f"{number(r.base)} -> {number(r.new)} {r.unit} "
                              f"({delta_text(r.delta_pct)}, {r.direction} is better)")
            for r in rows]


def _verdict_sections(cmp: compare.Comparison) -> list[Section]:
    out = []
    unmeasured = [r for r in cmp.rows if r.status == "not measured"]
    if unmeasured:
        out.append(Section("Not measured", text=(
            "Idle states the firmware rejected (the state's `rejected` counter moved) or the CPU "
            "never entered (`usage` unchanged) while they were the only ones enabled: their "
            "samples are the wake-up of another state, so they have no figure and no change."),
            items=[(key_text(r.key), f"{cmp.base_ref}: {side_text(r, 'base') or 'absent'}, "
                                     f"{cmp.new_ref}: {side_text(r, 'new') or 'absent'}")
                   for r in unmeasured[:MAX_LISTED]]))
    changed = [r for r in cmp.rows if r.status in ("added", "removed")]
    if changed:
        out.append(Section("Added and removed", items=[
            (key_text(r.key), f"{r.status} ({number(r.new if r.status == 'added' else r.base)} "
                              f"{r.unit})") for r in changed]))
    if cmp.regressions:
        out.append(Section("Regressions", items=_change_items(cmp.regressions)))
    if cmp.unconfirmed:
        rows = cmp.unconfirmed
        out.append(Section("Unconfirmed changes", text=(
            f"{len(rows)} change(s) of at least {cmp.tolerance:g}% with one run on a side: not "
            "regressions until more runs confirm them (platperf run --repeat N)."),
            items=[(name, f"{value}; {verdict(r)}; settled by {runs_text(r)}")
                   for (name, value), r in zip(_change_items(rows[:MAX_LISTED]), rows)]))
    return out


def pages_section(cmp: compare.Comparison) -> Section | None:
    """Keys whose buffers were backed by other pages on the two sides (probe --pages)."""
    rows = cmp.pages_differ
    if not rows:
        return None
    return Section("Page backing differs", text=(
        f"{len(rows)} key(s) were measured in buffers backed by other pages on the two sides: "
        "below the last-level cache the backing changes which cache sets a buffer fills, at DRAM "
        "sizes 4 KiB pages add TLB misses that huge pages avoid (docs/probe.md, Page backing). "
        "Run both sides with the same platperf-probe --pages."),
        items=[(key_text(r.key), f"{r.pages_base} -> {r.pages_new}") for r in rows[:MAX_LISTED]])


def document(cmp: compare.Comparison) -> Document:
    """The comparison as a Document: one grid table per (benchmark, params, mode), in the
    TF-A layout ``Cluster | Core | <metric>...``, cells annotated per :func:`cell`."""
    doc = Document(f"{cmp.new_ref} compared with {cmp.base_ref}")
    doc.sections.append(Section("Method", text=method_text(cmp)))
    detect = detectable_text(cmp)
    if detect:
        doc.sections.append(Section("How many runs", text=detect))
    if cmp.differences:
        doc.sections.append(Section("Not like for like", text=(
            "These differ between the two sides and change results:"),
            items=[(d.key + (" (refused without --force)" if d.refuse else ""),
                    f"{d.base} -> {d.new}") for d in cmp.differences]))
    pages = pages_section(cmp)
    if pages:
        doc.sections.append(pages)
    doc.sections.append(_results_section(cmp))
    doc.sections.extend(_verdict_sections(cmp))
    doc.data = compare.to_json(cmp)
    return doc


def changes_table(cmp: compare.Comparison, rows: list[compare.Row], ci: bool = False) -> Table:
    """Shown changes, one line each: figures (with their intervals on request), change,
    verdict, the smallest change these runs detect and the runs a tolerance-sized one needs."""
    headers = ["Key", "Unit", cmp.base_ref, cmp.new_ref, "Change", "Verdict", "Detectable",
               "Runs needed"]
    if ci:
        headers[4:4] = [f"{cmp.base_ref} 95% CI", f"{cmp.new_ref} 95% CI"]
    out = []
    for r in rows:
        line = [key_text(r.key), r.unit, number(r.base), number(r.new), delta_text(r.delta_pct),
                verdict(r), "" if r.mde_pct is None else f"{r.mde_pct:.2f}%", runs_text(r)]
        if ci:
            line[4:4] = [interval_text(r.base_ci), interval_text(r.new_ci)]
        out.append(line)
    return Table(f"Changes of at least {cmp.tolerance:g}%", headers, out, layout="grid")


def section(cmp: compare.Comparison) -> Section:
    shown = [r for r in cmp.rows if r.shown]
    text = (f"{cmp.new_ref} against {cmp.base_ref}: {len(cmp.regressions)} regression(s), "
            f"{sum(r.improvement for r in cmp.rows)} improvement(s), {len(cmp.unconfirmed)} "
            f"unconfirmed change(s) over {sum(r.status == 'both' for r in cmp.rows)} keys. "
            + method_text(cmp) + " " + detectable_text(cmp)
            + (f" {len(cmp.pages_differ)} key(s) were measured on other page backing on the two "
               "sides (probe --pages)." if cmp.pages_differ else ""))
    tables = [changes_table(cmp, shown[:MAX_LISTED])] if shown else []
    return Section(f"Compared with {cmp.base_ref}", text=text.strip(), tables=tables)


def build(data) -> Section | None:
    """The last column against the one before, when both are runs of one machine (a guide's
    columns are different boards: nothing to compare)."""
    if len(data.columns) < 2 or data.store is None:
        return None
    base, new = data.columns[-2], data.columns[-1]
    cmp = compare.compare_runs(data.store, base.runs, new.runs, base.name, new.name)
    if cmp.refused:
        return None
    return section(cmp)
