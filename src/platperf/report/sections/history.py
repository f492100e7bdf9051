"""History: each key's series over the report's runs, change points marked (issue 5).

With fewer points than two segments of :data:`platperf.history.MIN_SIZE` no change point
can be found, and the section is left out.
"""
from __future__ import annotations

from ... import history
from ...records import key_text
from ...vocab.figures import number
from ..document import Plot, Section, Table

MAX_PLOTS = 40     # a report over thousands of keys plots the changed ones first, then stops


def build(data) -> Section | None:
    if len(data.columns) < 2 * history.MIN_SIZE:
        return None
    series = history.series_from_groups(
        (col.name, [r["id"] for r in col.runs], col.results) for col in data.columns)
    return section(history.analyse(series))


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
        rows.append([key_title(s), len(values), None if last is None else number(last),
                     "; ".join(change_text(s, cp) for cp in s.change_points) or "none"])
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


def section(series: list[history.Series]) -> Section:
    changed = [s for s in series if s.change_points]
    ordered = changed + [s for s in series if not s.change_points]
    shown = [s for s in ordered if s.points][:MAX_PLOTS]
    text = (f"{len(series)} series over {max((len(s.points) for s in series), default=0)} "
            f"points; {len(changed)} with change points. A change point is the first run of a "
            "new level, found by e-divisive means (Matteson & James 2014) with the Welch t test "
            "of Hunter/Apache Otava.")
    if len(ordered) > len(shown):
        text += f" Plotted: the first {len(shown)} series, those with change points first."
    return Section("History", text=text, tables=[summary_table(ordered)],
                   plots=[plot(s) for s in shown])
