"""History: each key's series over the report's runs or a store's labels (issue 5), as a
release manager reads it (issue 38): the largest release-to-release steps first, each judged
with the spread its key has (:mod:`platperf.compare.steps`), then small multiples
(:mod:`platperf.report.sections.multiples`), then the change points e-divisive means finds
where a series is long enough for it (2 x :data:`platperf.history.MIN_SIZE` points) and a
plot of each series that has one.

A report shows it over six columns or more of one machine (its last two comparable).
"""
from __future__ import annotations

from ... import history
from ...records import key_text
from ...vocab.figures import number
from ..document import Plot, Section, Table
from . import multiples
from ...compare.keyed import TOLERANCE

MAX_PLOTS = 10     # full plots of the series with change points; the multiples show every series
MAX_ROWS = 200     # series in the change-point table of a page: those with change points first
# as before issue 38: a report of two to five labels has its verdict and comparison; its own
# page read back (platperf ingest tfa-rst) must not meet the small multiples' Cluster | Core
# tables as releases. `platperf history` and the site show steps from two points on.
MIN_COLUMNS = 2 * history.MIN_SIZE


def build(data) -> Section | None:
    if len(data.columns) < MIN_COLUMNS or data.comparison is None:
        return None
    series = history.series_from_groups(
        (col.name, [r["id"] for r in col.runs], col.results) for col in data.columns)
    return section(history.analyse(series), data.store)


def key_title(s: history.Series) -> str:
    """The key as a person reads it, after its board when the series is one board's."""
    return (f"{s.target}: " if s.target is not None else "") + key_text(s.key, s.unit)


def change_text(s: history.Series, cp: history.ChangePoint) -> str:
    pct = cp.change_pct
    verdict = "worse" if s.regression(cp) else "better"
    return f"{cp.label} ({'' if pct is None else f'{pct:+.2f}%, '}{verdict})"


def summary_table(series: list[history.Series]) -> Table:
    rows = []
    for s in series:
        values = s.values
        last = values[-1] if values else None
        # too short a series is no evidence of "none": the test could not split it
        short = len(values) < 2 * history.MIN_SIZE
        rows.append([key_title(s), len(values), None if last is None else number(last),
                     "; ".join(change_text(s, cp) for cp in s.change_points)
                     or (f"too few points ({len(values)} < {2 * history.MIN_SIZE})" if short else "none")])
    return Table("Change points (e-divisive means, Welch t test p < "
                 f"{history.MAX_P:g})", ["Series", "Points", "Last", "Change points"], rows,
                 layout="grid", fold=1)     # on a narrow terminal the key is a line over its row


def plot(s: history.Series) -> Plot:
    from .. import svg
    labels = [p.label for p in s.points]

    def x_text(x: float) -> str:
        i = int(round(x))
        return labels[i] if abs(x - i) < 1e-9 and 0 <= i < len(labels) else ""

    marks = [(cp.index - 0.5, change_text(s, cp)) for cp in s.change_points]
    svg_text = svg.line_plot(key_title(s), [(s.key[-1], [(i, p.value) for i, p in enumerate(s.points)])],
                             x_label="run", y_label=s.unit, log_x=False, vlines=marks,
                             x_format=x_text)
    caption = ("change points: " + "; ".join(change_text(s, cp) for cp in s.change_points)
               if s.change_points else "no change point")
    return Plot(key_title(s), svg_text, caption=caption)


def _test_text(points: int, tolerance: float) -> str:
    """Which test the series allow, and why."""
    need = 2 * history.MIN_SIZE
    judged = (f"each release-to-release step is judged with the spread its key has: its runs where both "
              f"releases have two or more (the keyed comparison, Welch's t test on the run medians), else "
              f"its other steps (the step's modified z-score against them, Iglewicz & Hoaglin 1993: beyond "
              f"3.5, or more where the key has fewer than 20 other steps so that an unchanged key is flagged "
              f"on at most 0.5% of its steps, and at least {tolerance:g}% is far beyond the key's known "
              f"spread), else nothing "
              f"(one step and one figure a release: no spread known, the change alone is shown).")
    if points < need:
        return (f"The change-point test (e-divisive means, Matteson & James 2014) needs {need} points, "
                f"{history.MIN_SIZE} each side of a change; with {points} it cannot split a series, so "
                + judged)
    return ("Change points are the first run of a new level, found by e-divisive means (Matteson & James "
            "2014) with the Welch t test of Hunter/Apache Otava; besides, " + judged)


def section(series: list[history.Series], store=None, tolerance: float = TOLERANCE,
            max_multiples: int = multiples.MAX_MULTIPLES, judged: list | None = None,
            max_plots: int = MAX_PLOTS) -> Section:
    """The history view of ``series`` (module docstring); ``store``: the labels' runs, for the
    keyed comparison and the published page's own deltas of the steps listed; ``judged``: the
    series' steps already judged (multiples.judge_all), not judged again; ``max_plots``: full
    plots of the series with change points (the small multiples show every series)."""
    series = [s for s in series if s.points]
    every = judged if judged is not None else multiples.judge_all(series, tolerance)
    points = max((len(s.points) for s in series), default=0)
    longest = max(series, key=lambda s: len(s.points), default=None)
    span = f"{longest.points[0].label} to {longest.points[-1].label}" if longest else ""
    far = sum(len(j.far) for j in every)
    changed = [s for s in series if s.change_points]
    text = (f"{len(series)} series over {points} points ({span}). " + _test_text(points, tolerance)
            + f" {far} step{'s' * (far != 1)} of {tolerance:g}% or more lie far beyond their key's spread"
            + (f"; {len(changed)} series have change points." if points >= 2 * history.MIN_SIZE else "."))
    rows = multiples.listed(every)
    boards = sorted({str(s.target) for s in series if s.target is not None})
    if len(boards) == 1:
        text = f"Board {boards[0]}: " + text
    tables = [multiples.steps_table(rows, multiples.Pairs(store, tolerance), len(boards) > 1)] if rows else []
    grids, left = multiples.multiples(every, span, len(boards) > 1, max_multiples)
    if left:
        text += (f" Small multiples: the {left} series past the first {max_multiples} are not drawn "
                 "(platperf history --json has them), those with a flagged step first.")
    subsections = grids
    if points >= 2 * history.MIN_SIZE:
        ordered = (changed + [s for s in series if not s.change_points])[:MAX_ROWS]
        subsections.append(Section("Change points", tables=[summary_table(ordered)],
                                   plots=[plot(s) for s in changed[:max_plots]]))
    return Section("History", text=text, tables=tables, subsections=subsections)
