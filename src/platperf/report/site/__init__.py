"""A static site for a whole lab (issue 38 part 3), as asv publishes its results and KernelCI
shows its boards: ``platperf site -o DIR`` writes

* ``index.html`` -- the boards, each with its newest label and what changed there, and a grid
  of boards x the newest labels;
* ``boards/<board>/index.html`` -- the board's labels, newest first;
* ``boards/<board>/history.html`` -- every key's series over the board's labels, the largest
  steps first, small multiples (report.sections.history);
* ``boards/<board>/labels/<label>.html`` -- the label's performance guide on that board (the
  report of its runs there, summary first);
* ``boards/<board>/compare/<label>.html`` -- the label against the label before it on the
  board (the keyed comparison, compare's own page).

Every page is one self-contained HTML file (inline CSS and SVG, no script, nothing fetched:
it opens offline and from any static web server). Names come from the boards' and labels'
own names (pages.slug), never from run ids: a link stays the same as runs are added. A
page's inputs (its runs, their status and end) are kept in ``site.json``; writing the site
again rewrites only the pages whose inputs changed, and the index and board pages. The guide
and comparison pages are written for each board's newest ``pages`` labels (0: every label):
a lab's year of nightly labels is listed, not rendered, until asked.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

from ... import __version__
from .pages import Board, Label, board_doc, html_page, index_doc, path

MANIFEST = "site.json"


@dataclass
class Written:
    boards: int = 0
    runs: int = 0
    results: int = 0
    pages: int = 0           # written this time
    unchanged: int = 0       # left as they were (their inputs did not change)
    bytes: int = 0           # the whole site on disk
    seconds: float = 0.0


class _Site:
    def __init__(self, store, out: Path, say):
        self.store, self.out, self.say = store, out, say
        old = out / MANIFEST
        saved = json.loads(old.read_text()) if old.exists() else {}
        self.before, self.notes = saved.get("pages", {}), saved.get("notes", {})
        self.now: dict[str, str] = {}
        self.now_notes: dict = {}       # what a page made now says of itself (a verdict, steps)
        self.done = Written()

    def note(self, page: str):
        """What the page says of itself for the index: made now, or kept from its last making."""
        return self.now_notes.get(page, self.notes.get(page))

    def inputs(self, *parts) -> str:
        return hashlib.sha1(json.dumps([__version__, *parts], default=str, sort_keys=True).encode()).hexdigest()

    def write(self, page: str, key: str | None, make):
        """``make()`` -> the page's HTML, written unless ``key`` (its inputs) is unchanged."""
        target = self.out / page
        if key is not None:
            self.now[page] = key
            if self.before.get(page) == key and target.exists():
                self.done.unchanged += 1
                if page in self.notes:
                    self.now_notes[page] = self.notes[page]
                return
        from ... import atomic
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text(target, make())
        self.done.pages += 1


def lab(store, targets=None) -> list[Board]:
    """The boards of ``store`` (``targets``: only these) and their labels, in order of their
    first run; a run without a label is a label of its own, ``run N``."""
    from ...store.queries import list_runs
    from ..machine_line import machine_text
    with store.engine.connect() as c:
        found, _ = list_runs(c, limit=0, targets=targets)
    counts = store.result_counts([r["id"] for r in found])
    boards: dict[str, Board] = {}
    for run in found:
        b = boards.setdefault(str(run["target"]), Board(str(run["target"])))
        name = run["label"] or f"run {run['id']}"
        label = next((lb for lb in b.labels if lb.name == name), None)
        if label is None:
            label = Label(name, [])
            b.labels.append(label)
        label.runs.append(run)
        label.results += counts.get(run["id"], 0)
    for b in boards.values():
        newest = store.run(str(b.labels[-1].runs[-1]["id"]), archived=True)
        b.machine = machine_text(newest.get("fingerprint") or {})
    return sorted(boards.values(), key=lambda b: b.name)


def write_site(store, out: Path, *, targets=None, pages: int = 30, say=lambda text: None) -> Written:
    """Write the site of ``store`` into ``out`` (module docstring); what was written, how big,
    how long."""
    start = time.perf_counter()
    site = _Site(store, out, say)
    boards = lab(store, targets)
    for b in boards:
        chosen = b.labels if pages == 0 else b.labels[-pages:]
        for lb in chosen:
            lb.guide = not any(r.get("archived") for r in lb.runs)
        say(f"{b.name}: {len(b.labels)} labels, {b.runs} runs")
        _board_pages(site, b)
        site.write(path(b.name), None,
                   lambda b=b: html_page(board_doc(b), path(b.name), [("lab", "index.html")]))
        site.done.runs += b.runs
        site.done.results += sum(lb.results for lb in b.labels)
    title = f"platperf lab: {len(boards)} board{'s' * (len(boards) != 1)}"
    site.write("index.html", None, lambda: html_page(index_doc(boards, title), "index.html", []))
    (out / MANIFEST).write_text(json.dumps({"version": 1, "pages": site.now, "notes": site.now_notes},
                                           indent=0, sort_keys=True))
    done = site.done
    done.boards = len(boards)
    done.bytes = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    done.seconds = time.perf_counter() - start
    return done


def _board_pages(site: _Site, b: Board):
    """The board's history, and each chosen label's guide and comparison with the label before."""
    from .builders import compare_page, guide_page, history_page
    state = [[(r["id"], r.get("status"), str(r.get("finished_at"))) for r in lb.runs] for lb in b.labels]
    crumbs = [("lab", "index.html"), (b.name, path(b.name))]
    judged = history_page(site, b, crumbs, site.inputs("history", b.name, state))
    for i, lb in enumerate(b.labels):
        lb.flagged = judged.get(lb.name, 0)
        if not lb.guide:
            continue
        guide_page(site, b, lb, crumbs, site.inputs("guide", b.name, lb.name, state[i]))
        if i:
            compare_page(site, b, b.labels[i - 1], lb, crumbs,
                         site.inputs("compare", b.name, lb.name, state[i - 1], state[i]))
