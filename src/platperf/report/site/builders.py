"""The pages of a board that read the store: its history, a label's guide, a label against the
one before. Each is made only when its inputs changed (site._Site.write); what the index and
the board's page say of it (the comparison's verdict, the steps flagged at each label) is kept
with the manifest, so that a page left as it was still says it.
"""
from __future__ import annotations

from ... import history
from ...compare import keyed
from ..data import ReportData, RunColumn
from ..document import Document, Section
from .pages import MAX_SITE_MULTIPLES, Board, Label, html_page, path

MAX_CHANGES = 200        # keys listed on a comparison page; `platperf compare --json` has all


def _full(store, runs: list[dict]) -> list[dict]:
    """The stored runs with every column (the index read them without their JSON)."""
    return [store.run(str(r["id"]), archived=True) for r in runs]


def history_page(site, b: Board, crumbs, key: str) -> dict[str, int]:
    """The board's history page; {label: steps flagged far beyond their key's spread there}."""
    from ..sections import history as view
    page = path(b.name, kind="history")

    def make() -> str:
        named = all(lb.runs[0].get("label") for lb in b.labels)
        labels = [lb.name for lb in b.labels] if named else None
        series = [s for _, found in history.board_series(site.store, labels, targets=[b.name]) for s in found]
        history.analyse(series)
        judged = view.multiples.judge_all(series)
        shown = view.section(series, site.store, max_multiples=MAX_SITE_MULTIPLES, judged=judged, max_plots=3)
        flagged: dict[str, int] = {}
        for j in judged:
            for step in j.far:
                name = j.series.points[step.index].label
                flagged[name] = flagged.get(name, 0) + 1
        site.now_notes[page] = flagged
        return html_page(Document(f"{b.name}: history", sections=[shown]), page, crumbs)
    site.write(page, key, make)
    return site.note(page) or {}


def guide_page(site, b: Board, lb: Label, crumbs, key: str):
    """The label's performance guide on the board: the report of its runs there."""
    from ..sections import build_document
    page = path(b.name, lb.name, "guide")

    def make() -> str:
        runs = _full(site.store, lb.runs)
        results = [res for r in runs for res in site.store.results(r["id"], with_samples=False)]
        data = ReportData([RunColumn(lb.name, runs, results)], store=site.store)
        doc = build_document(data, title=f"{b.name}: {lb.name}", export=False)
        return html_page(doc, page, crumbs)
    site.write(page, key, make)


def compare_page(site, b: Board, base: Label, new: Label, crumbs, key: str):
    """The label against the one before on the board: the verdict, the largest changes, the
    keys that changed (the first MAX_CHANGES), and how compare decided."""
    from ..sections import compare as presentation, verdict
    page = path(b.name, new.name, "compare")

    def make() -> str:
        cmp = keyed.compare_runs(site.store, _full(site.store, base.runs), _full(site.store, new.runs),
                                 base.name, new.name)
        word = verdict.overall(cmp)
        site.now_notes[page] = word
        rows = presentation.listed_rows(cmp)
        counts = presentation.verdict_line(cmp).removeprefix(f"{cmp.new_ref} against {cmp.base_ref}: ")
        head = Section("Verdict", text=f"{new.name} against {base.name} on {b.name}: {word} (tolerance "
                                       f"{cmp.tolerance:g}%). {counts}.",
                       tables=[verdict.changes_table(cmp, verdict.largest(cmp))] if verdict.largest(cmp) else [])
        listed = Section("Changes", text=(f"The first {MAX_CHANGES} of {len(rows)}; platperf compare "
                                          f"{base.name} {new.name} --json has every key." if len(rows) > MAX_CHANGES
                                          else ""),
                         tables=[presentation.list_table(cmp, rows[:MAX_CHANGES])] if rows else [])
        method = Section("Method", text=" ".join((presentation.method_text(cmp), presentation.p_legend(cmp),
                                                   presentation.decision_text(cmp))))
        extra = [Section("Not like for like", items=[(d.key, f"{d.base} -> {d.new}") for d in cmp.differences])] \
            if cmp.differences else []
        doc = Document(f"{b.name}: {new.name} against {base.name}", sections=[head, listed, *extra, method])
        return html_page(doc, page, crumbs + [(new.name, path(b.name, new.name, "guide"))])
    site.write(page, key, make)
    new.verdict = site.note(page) or ""
