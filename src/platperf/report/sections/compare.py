"""Comparison: two runs or labels key by key, as the TF-A release tables show them (issue 10).

``platperf compare`` renders :func:`document`; a report over several columns of one machine
gets :func:`build`: its last column against the one before, the changes only. Figures and
verdicts come from :mod:`platperf.compare.keyed`; this module only lays them out.
"""
from __future__ import annotations

import math

from ... import stats
from ...compare import keyed as compare
from ...compare.decisions import worse
from ...events.beside import beside_figures, spoken
from ...records import key_order, key_text
from ...vocab.figures import number
from .. import compare_json, tfa
from ..document import Document, Section, Table
from .compare_page import page_items, page_text
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
    """The key's decision (platperf.compare.decisions), loud when it regressed; an undecided change
    beyond the tolerance that one run a side cannot confirm says so."""
    if row.status == "not measured":
        return "; ".join(f"{side} {why}" for side, why in (("base", row.base_not_measured),
                                                           ("new", row.new_not_measured)) if why)
    if row.status != "both":
        return row.status
    if row.decision == "regressed":
        return "REGRESSED"
    if row.decision == "undecided" and row.decision_why:
        return "undecided (shared cache)"
    if row.unconfirmed:
        return f"undecided (unconfirmed, {'worse' if worse(row.direction, row.new - row.base) else 'better'})"
    return row.decision


def change_interval_text(row: compare.Row) -> str:
    """The interval of the change behind the decision: ``[-1.20%, +0.85%]``."""
    ci = row.decision_ci
    return "" if ci is None else f"[{ci[1]:+.2f}%, {ci[2]:+.2f}%]"


def runs_text(row: compare.Row) -> str:
    """What settles a row: ``5 runs a side``, ``>= 3 runs a side`` (from one run's samples, a
    lower bound), or ``2+ runs a side`` (no spread known)."""
    if row.runs_needed is None:
        return "2+ runs a side" if row.spread_pct is None or row.spread_pct == 0 else "over 1000 runs"
    at_least = ">= " if row.spread_basis == "samples" else ""
    return f"{at_least}{row.runs_needed} runs a side"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def settle_text(rows: list[compare.Row]) -> str:
    """How many runs a side would settle these unconfirmed changes: ``5 runs a side would
    settle them``, ``3 to 12 ...``, ``at least ...`` (from one run's samples: a lower bound)."""
    finite, noisy, unknown = [], 0, False
    for r in rows:
        if r.runs_needed is not None:
            finite.append(r.runs_needed)
        elif r.spread_pct:
            noisy += 1                  # over 1000 runs
        else:
            finite.append(2)            # no spread known: a second run shows it
            unknown = True
    at_least = "at least " if unknown or any(r.spread_basis == "samples" for r in rows) else ""
    if not finite:
        return "over 1000 runs a side would settle them: too noisy"
    lo, hi = min(finite), max(finite)
    text = f"{at_least}{lo}{'' if lo == hi else f' to {hi}'} runs a side would settle them"
    return text + (f"; {noisy} need over 1000" if noisy else "")


def unconfirmed_reason(cmp: compare.Comparison) -> str:
    """Why changes are unconfirmed, true for the test used: ``one run on a side`` and/or
    ``fewer than 4 runs a side, too few for Mann-Whitney U``."""
    bases = {r.basis for r in cmp.unconfirmed}
    parts = []
    if "single-run" in bases:
        parts.append("one run on a side")
    if "too-few-runs" in bases:
        parts.append(f"fewer than {stats.mwu_min_runs(cmp.alpha)} runs a side, too few for "
                     f"Mann-Whitney U to reach p < {cmp.alpha:g}")
    return " or ".join(parts)


def verdict_line(cmp: compare.Comparison) -> str:
    """The comparison in one line: every key regressed, improved, equivalent within the
    tolerance or undecided (the unconfirmed changes among them and the runs that would
    settle them), then the keys on one side only."""
    parts = [f"{len(cmp.decided('regressed'))} regressed", f"{len(cmp.decided('improved'))} improved",
             f"{len(cmp.decided('equivalent'))} equivalent within {cmp.tolerance:g}%",
             f"{len(cmp.decided('undecided'))} undecided"]
    if cmp.unconfirmed:
        parts[-1] += (f" ({_count(len(cmp.unconfirmed), 'unconfirmed change')}: "
                      f"{settle_text(cmp.unconfirmed)})")
    for status in ("added", "removed"):
        n = sum(r.status == status for r in cmp.rows)
        if n:
            parts.append(f"{n} {status}")
    return f"{cmp.new_ref} against {cmp.base_ref}: " + ", ".join(parts)


def method_text(cmp: compare.Comparison) -> str:
    test = {"welch": "Welch's t test on the run medians",
            "mwu": "Mann-Whitney U on the run medians",
            "bootstrap": "a 95% bootstrap interval of the ratio of the run medians"}[cmp.test]
    return (f"Figures are medians of the run medians of {cmp.new_ref}; each is paired with "
            f"{cmp.base_ref} by benchmark, parameters, mode, cluster, core and metric, never by "
            f"row position. Each run is one observation: its samples share its conditions. With "
            f"two runs or more a side a cell reads NEW (+x.xx%) when the change is at least "
            f"{cmp.tolerance:g}% and significant ({test}, p < {cmp.alpha:g} adjusted for the "
            f"number of keys by Benjamini-Hochberg); with one run on a side"
            + (f" (Mann-Whitney U: fewer than {stats.mwu_min_runs(cmp.alpha)} runs a side)"
               if cmp.test == "mwu" else "")
            + f" a change of at least {cmp.tolerance:g}% is shown but unconfirmed, never a "
            f"regression.")


def decision_text(cmp: compare.Comparison) -> str:
    """What the four words mean here, for one look (compare) or the repeated looks of
    ``platperf run --against``."""
    t = f"{cmp.tolerance:g}%"
    if cmp.sequential:
        return (f"Decisions ({cmp.sequential}): regressed or improved when the interval of the "
                f"change lies wholly beyond +-{t}, equivalent when it lies wholly within +-{t}, "
                f"undecided when the budget ended first. Interval: the one the decision rests on.")
    level = round(100 * (1 - 2 * cmp.alpha))
    return (f"Equivalent: the {level}% Welch interval of the change (on the logs of the run "
            f"medians) lies within +-{t}, the two one-sided tests at {cmp.alpha:g}; it needs two "
            f"runs a side. Undecided: neither a confirmed change nor shown equivalent -- more "
            f"runs, or platperf run --against, decide it. Interval: that {level}% interval.")


def sessions_text(cmp: compare.Comparison) -> str:
    """Whether a side's runs came from several sessions, and so the drift between them was
    counted (compare.Row.sessions; stats.sequential.session_parts), or ""."""
    counted = [r.sessions for r in cmp.rows if r.sessions]
    if not counted or cmp.sequential:
        return ""
    base, new = (max(s[i] for s in counted) for i in (0, 1))
    return (f"Sessions: the runs came from {base} base and {new} new sessions (platperf run "
            f"invocations), so the test and the interval take each session's mean as one "
            f"observation and a side of one session carries its own session's offset: more "
            f"sessions narrow them, more runs of one session do not (docs/gate.md).")


def detectable_text(cmp: compare.Comparison) -> str:
    """How small a change these runs can catch, and how many runs a tolerance-sized one needs
    (not for keys whose sessions were counted: more runs of a session do not narrow those)."""
    both = [r for r in cmp.rows if r.status == "both"]
    rows = [r for r in both if not r.sessions]
    mdes = [r.mde_pct for r in rows if r.mde_pct is not None and math.isfinite(r.mde_pct)]
    # runs a side for a tolerance-sized change, over the keys whose spread is known
    needed = [math.inf if r.runs_needed is None else r.runs_needed for r in rows if r.spread_pct]
    parts = []
    if mdes:
        runs = min(min(r.runs_base, r.runs_new) for r in rows if r.mde_pct is not None)
        parts.append(f"With these runs ({runs}+ a side) the smallest change detected with 80% "
                     f"power is {stats.median(mdes):.2f}% on the median key "
                     f"({max(mdes):.2f}% on the noisiest).")
    if needed:
        lower = any(r.spread_basis == "samples" for r in rows if r.spread_pct)

        def runs(n):
            return "over 1000" if math.isinf(n) else str(n)
        parts.append(f"A change of {cmp.tolerance:g}% needs {runs(stats.median(needed, low=True))} "
                     f"runs a side on the median key, {runs(max(needed))} on the noisiest"
                     + (" (from one run's samples: at least that many)." if lower else "."))
    unstable = sum(r.unstable for r in both)
    if unstable:
        parts.append(f"{unstable} figure(s) have a 95% interval wider than {cmp.tolerance:g}%: "
                     "unstable.")
    return " ".join(parts)


def _results_section(cmp: compare.Comparison) -> Section:
    def caption(rows: list[compare.Row]) -> str:
        single = [r for r in rows if r.basis in ("single-run", "too-few-runs")]
        if not single:
            return ""
        few = "One run a side" if all(r.basis == "single-run" for r in single) else \
            f"Fewer than {stats.mwu_min_runs(cmp.alpha)} runs a side for Mann-Whitney U"
        if len(single) == len([r for r in rows if r.status == "both"]):
            return f"{few}: changes are shown but unconfirmed."
        return f"{len(single)} figure(s) with {few[0].lower() + few[1:]}: their changes are unconfirmed."

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
        out.append(Section("Regressions", items=_change_items(beside_figures(cmp.regressions))))
    if cmp.unconfirmed:
        rows = cmp.unconfirmed
        out.append(Section("Unconfirmed changes", text=(
            f"{len(rows)} change(s) of at least {cmp.tolerance:g}% with {unconfirmed_reason(cmp)}: "
            "not regressions until more runs confirm them (platperf run --repeat N)."),
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


def _rank(row: compare.Row) -> int:
    """Regressions first, then what may be one, then the rest (see :func:`listed_rows`)."""
    for_the_worse = row.status == "both" and worse(row.direction, row.new - row.base)
    order = (row.regression, row.unconfirmed and for_the_worse, row.status == "removed", row.status == "added",
             row.improvement, row.decision == "undecided")
    return next((i for i, hit in enumerate(order) if hit), len(order))


def listed_rows(cmp: compare.Comparison, all_keys: bool = False) -> list[compare.Row]:
    """The keys that changed (confirmed, unconfirmed, added, removed, measured on other
    page backing; after run --against, every key not shown equivalent), regressions first,
    then unconfirmed changes for the worse, removed, added, improvements, unconfirmed
    changes for the better; with ``all_keys`` the unchanged keys after them."""
    rows = [r for r in cmp.rows if all_keys or r.shown or r.status != "both" or r.pages_differ
            or (cmp.sequential and r.decision != "equivalent") or (r.page and r.page.disagrees)]
    # within a rank in the table's column order, so that a key's rows fold under one heading;
    # the events counted with a figure right after it (a regression beside its refills)
    return beside_figures(sorted(rows, key=lambda r: (_rank(r), key_order(r.key[:3] + r.key[5:] + r.key[3:5]))))


def p_header(cmp: compare.Comparison) -> str:
    return "Ratio 95% CI" if cmp.test == "bootstrap" else "p (BH)"


def p_legend(cmp: compare.Comparison) -> str:
    """What the p column holds, for the test used."""
    n = sum(r.basis == "runs" for r in cmp.rows)
    if cmp.test == "bootstrap":
        return (f"Ratio 95% CI: a seeded bootstrap interval of new/base over the run medians; a "
                f"change is confirmed when it excludes 1 and is at least {cmp.tolerance:g}%.")
    test = {"welch": "Welch's t test", "mwu": "Mann-Whitney U"}[cmp.test]
    return (f"p (BH): the p-value of {test} on the run medians, adjusted over the {n} keys tested "
            f"by Benjamini-Hochberg; a change is confirmed when it is under {cmp.alpha:g} and the "
            f"change at least {cmp.tolerance:g}%.")


KEY_HEADERS = ["Benchmark", "Params", "Mode", "Metric", "Unit", "Cluster", "Core"]


def list_table(cmp: compare.Comparison, rows: list[compare.Row], ci: bool = False) -> Table:
    """One line a key: its figures, change, test, runs, verdict and what would settle it.
    On a terminal too narrow for it the key's benchmark, params, mode, metric and unit fold
    into a heading line, and the least needed columns go first (report/terminal.py)."""
    # a Package column only where cluster numbers restart in each package (several sockets)
    packages = any(r.key.package is not None for r in rows)
    key_headers = KEY_HEADERS[:5] + ["Package"] * packages + KEY_HEADERS[5:]
    headers = key_headers + ["Base", "New", "Change", "Interval", "Page", p_header(cmp), "Runs", "Detectable",
                             "Verdict", "To settle", "Note"]
    at = headers.index("Change")
    if ci:
        headers[at:at] = ["Base 95% CI", "New 95% CI"]
    out = []
    for r in rows:
        bench, params, mode, package, cluster, core, metric = r.key
        p = "" if r.p_value is None else f"{r.p_value:.3g}"
        if r.ratio_ci:
            p = f"[{r.ratio_ci[0]:.3f}, {r.ratio_ci[1]:.3f}]"
        said = verdict(r)
        note = ", ".join(([] if not r.unstable else ["unstable"])
                         + ([f"pages {r.pages_base} -> {r.pages_new}"] if r.pages_differ else [])
                         + ([f"page: {r.page.verdict}"] if r.page and r.page.disagrees else []))
        line = [bench, params, mode, spoken(metric, r.unit), r.unit, *[place(package)] * packages, place(cluster),
                place(core), number(r.base), number(r.new),
                delta_text(r.delta_pct) if r.status == "both" else "",
                change_interval_text(r), r.page.page_text if r.page else "", p,
                f"{r.runs_base}/{r.runs_new}", "" if r.mde_pct is None else f"{r.mde_pct:.2f}%",
                said, runs_text(r) if r.unconfirmed else "", note]
        if ci:
            line[at:at] = [interval_text(r.base_ci), interval_text(r.new_ci)]
        out.append(line)
    # a column empty on every line listed says nothing (no p with one run a side)
    keep = [i for i, h in enumerate(headers) if h in key_headers or any(line[i] for line in out)]
    return Table(f"base {cmp.base_ref}, new {cmp.new_ref}: tolerance {cmp.tolerance:g}%, "
                 f"test {cmp.test}", [headers[i] for i in keep], [[line[i] for i in keep] for line in out],
                 fold=5,
                 optional=("Detectable", "Note", "Base 95% CI", "New 95% CI", "To settle", "Interval",
                           "Runs", p_header(cmp), "Page", "Unit"))


def footer(cmp: compare.Comparison, listed: int, all_keys: bool) -> str:
    """The lines under the table, each true for this comparison and its test."""
    lines = [page_text(cmp)] if page_text(cmp) else []
    if cmp.unconfirmed:
        lines.append(f"{_count(len(cmp.unconfirmed), 'change')} with {unconfirmed_reason(cmp)} "
                     f"{'is' if len(cmp.unconfirmed) == 1 else 'are'} unconfirmed, not regressions: "
                     f"{settle_text(cmp.unconfirmed)} (platperf run --repeat N).")
    if any(r.basis == "runs" for r in cmp.rows):
        lines.append(p_legend(cmp))
    if any(r.decision_ci for r in cmp.rows) or cmp.sequential:
        lines.append(decision_text(cmp))
    held = [r for r in cmp.rows if r.decision == "undecided" and r.decision_why]
    if held:
        lines.append(f"Not decided here: {_count(len(held), 'key')} (shared cache): "
                     f"{held[0].decision_why}.")
    lines += [text for text in (sessions_text(cmp), detectable_text(cmp)) if text]
    keys = sum(r.status == "both" for r in cmp.rows)
    if not all_keys:
        what = "were not shown equivalent" if cmp.sequential else "changed"
        none = (f"Every one of the {keys} keys was shown equivalent" if cmp.sequential else
                f"No key of {keys} changed by {cmp.tolerance:g}% or more and significantly")
        lines.append(f"Listed: the {listed} key(s) that {what}, of {len(cmp.rows)}; "
                     f"--all lists every key." if listed else f"{none}; --all lists them.")
    return "\n\n".join(lines)


def terminal_document(cmp: compare.Comparison, all_keys: bool = False, ci: bool = False) -> Document:
    """What ``platperf compare`` prints on a terminal: the verdict as its first line, what
    differs between the sides, one table of the keys that changed (regressions first), and
    what the figures mean."""
    doc = Document(verdict_line(cmp))
    items = [(f"differs: {d.key}", f"{d.base} -> {d.new}" + (" (refused without --force)" if d.refuse else ""))
             for d in cmp.differences]
    pages = pages_section(cmp)
    if pages:
        items.append(("differs: page backing", pages.text))
    if items:
        doc.sections.append(Section("", items=items))
    rows = listed_rows(cmp, all_keys)
    if rows:
        doc.sections.append(Section("", tables=[list_table(cmp, rows, ci)]))
    doc.sections.append(Section("", text=footer(cmp, len(rows), all_keys)))
    doc.data = compare_json.to_json(cmp)
    return doc


def document(cmp: compare.Comparison, all_keys: bool = False, ci: bool = False) -> Document:
    """The comparison as a Document: the verdict line, the keys that changed (every key with
    ``all_keys``) regressions first, then one grid table per (benchmark, params, mode), in
    the TF-A layout ``Cluster | Core | <metric>...``, cells annotated per :func:`cell`."""
    doc = Document(f"{cmp.new_ref} compared with {cmp.base_ref}")
    doc.sections.append(Section("Verdict", text=verdict_line(cmp)))
    rows = listed_rows(cmp, all_keys)
    if rows:
        doc.sections.append(Section("Changes" if not all_keys else "Every key",
                                    tables=[list_table(cmp, rows, ci)]))
    doc.sections.append(Section("Method", text=" ".join((method_text(cmp), p_legend(cmp),
                                                         decision_text(cmp)))))
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
    if page_text(cmp):
        doc.sections.append(Section("The page's own deltas", text=page_text(cmp), items=page_items(cmp)))
    doc.sections.append(_results_section(cmp))
    doc.sections.extend(_verdict_sections(cmp))
    doc.data = compare_json.to_json(cmp)
    return doc


def section(cmp: compare.Comparison) -> Section:
    shown = listed_rows(cmp)
    text = (verdict_line(cmp) + f" over {sum(r.status == 'both' for r in cmp.rows)} keys. "
            + method_text(cmp) + " " + detectable_text(cmp)
            + (f" {len(cmp.pages_differ)} key(s) were measured on other page backing on the two "
               "sides (probe --pages)." if cmp.pages_differ else "")
            + (" " + page_text(cmp) if page_text(cmp) else ""))
    tables = [list_table(cmp, shown[:MAX_LISTED])] if shown else []
    return Section(f"Compared with {cmp.base_ref}", text=text.strip(), tables=tables)


def build(data) -> Section | None:
    """The last column against the one before, when both are runs of one machine
    (:attr:`platperf.report.data.ReportData.comparison`)."""
    return None if data.comparison is None else section(data.comparison)
