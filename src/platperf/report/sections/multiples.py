"""History that shows what changed (issue 38 part 2): the largest release-to-release steps
first, then small multiples -- a sparkline per key, grouped by benchmark and laid out by
(package, cluster, core) as TF-A's tables are (``Cluster | Core | <metric>...``) --
each step of at least the tolerance labelled and a flagged one drawn thick.

Every step is judged by :mod:`platperf.compare.steps` with the spread the key has; the steps
listed are also handed to the keyed comparison of their two labels
(:func:`platperf.compare.keyed.compare_runs`), whose decision and whose reading of a
published page's own delta (:mod:`platperf.compare.annotations`: TF-A's ``(+x.xx%)``) stand
beside platperf's. Only the listed steps' labels are loaded again: the view costs what it
prints.
"""
from __future__ import annotations

from dataclasses import replace

from ... import history
from ...compare import keyed, steps as judged
from ...records import ResultKey, key_order
from ...vocab.figures import number
from ...vocab.spoken import benchmark_text, metric_text, place_text, unit_text, what_text
from ...vocab.tfa import METRIC_ORDER as PSCI_METRIC_ORDER, metric_title, table_rank
from ..document import Section, Table
from ..sparkline import blocks, sparkline
from ..tfa import place

MAX_STEPS = 12          # steps listed first; every step is in its sparkline
MAX_MULTIPLES = 300     # sparklines drawn; the tables after them are counted, not drawn
MAX_LABELLED = 2        # step labels on one sparkline: the flagged, then the largest
# columns in the order TF-A's pages print them, then the psci suite's, then as found
METRIC_ORDER = ("powerdown", "wakeup", "cache_flush", "latency") + PSCI_METRIC_ORDER


class Judged:
    """A series with its steps judged."""

    def __init__(self, series: history.Series, tolerance: float):
        self.series = series
        runs = [len(p.run_ids) or 1 for p in series.points]
        self.steps = judged.judge(series.values, series.direction, runs, tolerance)

    @property
    def far(self) -> list[judged.Step]:
        return [s for s in self.steps if s.far]

    def labelled(self) -> list[judged.Step]:
        big = [s for s in self.steps if s.big]
        return sorted(big, key=lambda s: (not s.far, -s.size))[:MAX_LABELLED]


def _rank(step: judged.Step) -> tuple:
    return (not step.far, not step.big, -step.size)


def listed(all_judged: list[Judged], limit: int = MAX_STEPS) -> list[tuple[Judged, judged.Step]]:
    """The steps of at least the tolerance, far beyond their key's spread first, then the
    largest (|log ratio|)."""
    found = [(j, s) for j in all_judged for s in j.steps if s.big]
    return sorted(found, key=lambda js: _rank(js[1]))[:limit]


class Pairs:
    """The keyed comparison of two points' runs, made once a pair (None without a store).

    Asked only where it adds to the step's own judgement: two runs or more a side (its test),
    or an imported new side (a published page's own delta to read). A nightly run against the
    night before, one run a side, would load two whole runs to say "unconfirmed"."""

    def __init__(self, store, tolerance: float):
        self.store, self.tolerance, self.made, self.sources = store, tolerance, {}, {}

    def _imported(self, run_ids) -> bool:
        for i in run_ids:
            if i not in self.sources:
                self.sources[i] = str(self.store.run(i).get("source") or "")
        return any(self.sources[i].startswith("ingest:") for i in run_ids)

    def row(self, s: history.Series, step: judged.Step) -> keyed.Row | None:
        if self.store is None:
            return None
        before, after = s.points[step.index - 1], s.points[step.index]
        pair = (tuple(before.run_ids), tuple(after.run_ids))
        if not all(pair) or step.basis != "runs" and not self._imported(pair[1]):
            return None
        if pair not in self.made:
            cmp = keyed.compare_runs(self.store, [self.store.run(i) for i in pair[0]],
                                     [self.store.run(i) for i in pair[1]], before.label, after.label,
                                     tolerance=self.tolerance)
            self.made[pair] = {r.key: r for r in cmp.rows}
        return self.made[pair].get(tuple(s.key))


def _decision(row: keyed.Row | None) -> str:
    if row is None:
        return ""
    word = row.decision or row.status
    return f"{word} (unconfirmed)" if row.unconfirmed else word


def copies(row: keyed.Row | None) -> bool:
    """Runs of a release that give one figure to the digit on both sides: copies of one figure
    (a release read from two published pages), not runs whose spread is known."""
    return row is not None and row.spread_basis == "runs" and row.spread_pct == 0


def steps_table(rows: list[tuple[Judged, judged.Step]], pairs: Pairs, boards: bool = True) -> Table:
    """The largest steps, a line each: what (after its board, with ``boards``), where, the
    releases, both figures, the change, what the series lets be said of it, compare's
    decision, the page's own delta and what compare makes of it."""
    lines = []
    for j, step in rows:
        s, k = j.series, ResultKey(*j.series.key)
        row = pairs.row(s, step)
        page = row.page if row is not None else None
        why, decided = step.why(), _decision(row)
        if copies(row):     # judged as one figure a release, by the key's other steps
            why = replace(step, runs=(1, 1)).why()
            decided = "its runs repeat one figure"
        lines.append([(f"{s.target}: " if s.target and boards else "") + what_text(s.key),
                      place_text(k.package, k.cluster, k.core), metric_text(k.metric),
                      f"{s.points[step.index - 1].label}→{s.points[step.index].label}",
                      f"{number(step.before)} {unit_text(s.unit)}", f"{number(step.after)} {unit_text(s.unit)}",
                      judged.change_text(step.change_pct), "FLAGGED" if step.far else "", why,
                      decided, page.page_text if page else "", page.verdict if page else ""])
    headers = ["Benchmark", "Where", "Metric", "Step", "Before", "After", "Change", "Flag", "What can be said",
               "Compare", "Page", "Page says"]
    keep = [i for i, h in enumerate(headers) if i < 8 or any(line[i] for line in lines)]
    return Table("Largest steps", [headers[i] for i in keep], [[line[i] for i in keep] for line in lines],
                 fold=1, optional=("What can be said", "Page says", "Compare", "Before", "Page", "Step"))


def cell_text(j: Judged) -> str:
    """``▁▁▁█ 5.40 → 138.88; v2.13 +2,407%``: the series in blocks, first and last figure,
    the labelled steps (``!`` after a flagged one)."""
    values = j.series.values
    text = f"{blocks(values)} {number(values[0])} → {number(values[-1])}" if len(values) > 1 else \
        f"{blocks(values)} {number(values[0])}"
    marks = [f"{j.series.points[s.index].label} {judged.change_text(s.change_pct)}{'!' * s.far}"
             for s in sorted(j.labelled(), key=lambda s: s.index)]
    return text + (f"; {', '.join(marks)}" if marks else "")


def _picture(j: Judged) -> str:
    s = j.series
    labelled = j.labelled()
    return sparkline(list(s.values), [p.label for p in s.points], unit_text(s.unit),
                     {st.index: judged.change_text(st.change_pct) for st in labelled},
                     {st.index for st in labelled if st.far})


def _table(members: list[Judged], span: str) -> Table:
    """One (benchmark, params, mode): a row a place, a column a metric, as TF-A's tables."""
    bench, params, mode = members[0].series.key[:3]
    packages = any(j.series.key[3] is not None for j in members)
    metrics = sorted(dict.fromkeys(j.series.key[6] for j in members),
                     key=lambda m: METRIC_ORDER.index(m) if m in METRIC_ORDER else len(METRIC_ORDER))
    places: dict[tuple, dict[str, Judged]] = {}
    for j in sorted(members, key=lambda j: key_order(j.series.key)):
        places.setdefault(tuple(j.series.key[3:6] if packages else j.series.key[4:6]), {})[j.series.key[6]] = j
    units = "/".join(sorted({unit_text(j.series.unit) for j in members}))
    # the test as people say it, not TF-A's own title: a page read back (platperf ingest
    # tfa-rst) takes a title of TF-A's form for a release's figures, and these are a series
    title = f"{what_text((bench, params, mode))} ({units}), {span}"
    table = Table(title, ["Package"] * packages + ["Cluster", "Core"] + [metric_title(m) for m in metrics], [])
    for i, (where, by) in enumerate(places.items()):
        table.rows.append([place(p) for p in where] + [cell_text(by[m]) if m in by else "" for m in metrics])
        for c, m in enumerate(metrics, len(where)):
            if m in by:
                table.graphics[(i, c)] = _picture(by[m])
    return table


def judge_all(series: list[history.Series], tolerance: float = keyed.TOLERANCE) -> list[Judged]:
    return [Judged(s, tolerance) for s in series if s.points]


def multiples(all_judged: list[Judged], span: str, boards: bool = True,
              limit: int = MAX_MULTIPLES) -> tuple[list[Section], int]:
    """(a section a board and benchmark, each a table per (params, mode) laid out as TF-A's,
    tables holding a flagged step first; the series left undrawn past MAX_MULTIPLES)."""
    groups: dict[tuple, dict[tuple, list[Judged]]] = {}
    for j in sorted(all_judged, key=lambda j: (table_rank(*j.series.key[:2]), key_order(j.series.key))):
        board = (j.series.target or "", j.series.key[0])
        groups.setdefault(board, {}).setdefault(tuple(j.series.key[:3]), []).append(j)
    def flagged(members) -> bool:
        return any(j.far for j in members)
    out, drawn, left = [], 0, 0
    for (target, benchmark), tables in sorted(groups.items(), key=lambda kv: not any(map(flagged, kv[1].values()))):
        shown = []
        for members in sorted(tables.values(), key=lambda m: not flagged(m)):
            if drawn + len(members) > limit:
                left += len(members)
                continue
            drawn += len(members)
            shown.append(_table(members, span))
        if shown:
            out.append(Section(f"{target}: {benchmark_text(benchmark)}" if target and boards
                               else benchmark_text(benchmark),
                               tables=shown))
    return out, left
