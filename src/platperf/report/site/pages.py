"""The pages of a lab's site, as report Documents: the index (boards x labels), a board's page
(its labels, each with its guide and its comparison with the label before), and the links
between them. Where each page lives is :func:`path`: a name made of the board's and the
label's own names, never of a run id, so that a link stays what it was as runs are added.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from ..document import Document, Section, Table

MAX_INDEX_LABELS = 12     # the newest labels the index's matrix shows; a board's page lists all
MAX_SITE_MULTIPLES = 150  # sparklines on a board's history page: its size stays bounded


def slug(name: str) -> str:
    """A file name for ``name``: its letters, digits, ``.``, ``_`` and ``-`` in lower case, and
    a short hash of the whole name when that changed it (``v2.10`` stays ``v2.10``; ``Nightly
    #5`` is ``nightly-5-<hash>``), so that two names never share a file, on a file system that
    ignores case too."""
    text = re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-.")[:60] or "x"
    if text != name:
        text += "-" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return text


def path(board: str, label: str | None = None, kind: str = "index") -> str:
    """Where a page lives, from the site's root: ``boards/<board>/index.html``,
    ``.../history.html``, ``.../labels/<label>.html`` (its guide), ``.../compare/<label>.html``
    (the label against the one before it)."""
    base = f"boards/{slug(board)}"
    if kind in ("index", "history"):
        return f"{base}/{kind}.html"
    return f"{base}/{'labels' if kind == 'guide' else 'compare'}/{slug(label)}.html"


def up(page: str) -> str:
    """The way from ``page`` back to the root: ``../../`` for ``boards/b/index.html``."""
    return "../" * page.count("/")


def html_page(doc: Document, page: str, crumbs: list[tuple[str, str]]) -> str:
    """The page's HTML with a line of links back up the site over its title."""
    from html import escape

    from .. import render
    back = " › ".join(f'<a href="{escape(up(page) + href, quote=True)}">{escape(name)}</a>' for name, href in crumbs)
    return render(doc, "html").replace("<body>", f'<body><p class="crumbs">{back}</p>', 1)


@dataclass
class Label:
    name: str
    runs: list[dict]                     # the board's runs of this label, oldest first
    results: int = 0
    guide: bool = False                  # its pages are written (the newest --pages labels)
    verdict: str = ""                    # against the label before: the comparison's one word
    flagged: int = 0                     # steps far beyond their key's spread at this label

    @property
    def started(self) -> str:
        return str(self.runs[0].get("started_at") or "")[:16].replace("T", " ")


@dataclass
class Board:
    name: str
    machine: str = ""
    labels: list[Label] = field(default_factory=list)    # in order of their first run

    @property
    def runs(self) -> int:
        return sum(len(lb.runs) for lb in self.labels)


def _mark(label: Label) -> str:
    """What changed at a label, in a word or two: the comparison's verdict and the steps flagged."""
    parts = [label.verdict] if label.verdict else []
    if label.flagged:
        parts.append(f"{label.flagged} flagged")
    return "; ".join(parts)


def index_doc(boards: list[Board], title: str) -> Document:
    """The lab's index: a line a board, then boards x the newest labels."""
    rows, links = [], {}
    for i, b in enumerate(boards):
        newest = b.labels[-1] if b.labels else None
        rows.append([b.name, b.machine, b.runs, len(b.labels), newest.name if newest else "",
                     _mark(newest) if newest else "", "history"])
        links[(i, 0)] = path(b.name)
        links[(i, 6)] = path(b.name, kind="history")
        if newest and newest.guide:
            links[(i, 4)] = path(b.name, newest.name, "guide")
            if newest.verdict:
                links[(i, 5)] = path(b.name, newest.name, "compare")
    table = Table("Boards", ["Board", "Machine", "Runs", "Labels", "Newest label", "Against the one before",
                             "History"], rows, layout="guide")
    table.links.update(links)
    newest = _newest_labels(boards)
    grid = Table(f"Boards x the newest {len(newest)} labels", ["Board", *newest], [], layout="guide")
    for i, b in enumerate(boards):
        by = {lb.name: lb for lb in b.labels}
        grid.rows.append([b.name] + [(_mark(by[n]) or f"{len(by[n].runs)} run{'s' * (len(by[n].runs) > 1)}")
                                     if n in by else "" for n in newest])
        grid.links[(i, 0)] = path(b.name)
        for j, n in enumerate(newest, 1):
            if n in by and by[n].guide:
                grid.links[(i, j)] = path(b.name, n, "guide")
    runs = sum(b.runs for b in boards)
    text = (f"{len(boards)} board{'s' * (len(boards) != 1)}, {runs:,} runs. Each board's page lists its labels, each with its guide and "
            "its comparison with the label before; its history shows every key's series, the largest "
            "steps first. A cell of the grid: the verdict of the label against the one before "
            "(regressed, undecided, improved, equivalent) and the steps flagged far beyond their "
            "key's spread.")
    return Document(title, sections=[Section("Lab", text=text, tables=[table, grid] if newest else [table])])


def _newest_labels(boards: list[Board]) -> list[str]:
    started: dict[str, str] = {}
    for b in boards:
        for lb in b.labels:
            started[lb.name] = max(started.get(lb.name, ""), lb.started)
    return sorted(started, key=lambda n: started[n])[-MAX_INDEX_LABELS:]


def board_doc(board: Board) -> Document:
    """A board's page: its machine, its labels newest first with their guide and comparison."""
    rows, links = [], {}
    for i, lb in enumerate(reversed(board.labels)):
        rows.append([lb.name, lb.started, len(lb.runs), lb.results, "guide" if lb.guide else "",
                     _mark(lb) or ("compared" if lb.guide and lb is not board.labels[0] else "")])
        if lb.guide:
            links[(i, 4)] = path(board.name, lb.name, "guide")
            links[(i, 0)] = path(board.name, lb.name, "guide")
            if lb is not board.labels[0]:
                links[(i, 5)] = path(board.name, lb.name, "compare")
    table = Table("Labels, newest first", ["Label", "Started", "Runs", "Results", "Guide",
                                           "Against the one before"], rows, layout="guide")
    table.links = {k: v.removeprefix(f"boards/{slug(board.name)}/") for k, v in links.items()}
    written = sum(lb.guide for lb in board.labels)
    text = board.machine + ("\n\n" if board.machine else "") + (
        f"{board.runs:,} runs under {len(board.labels)} labels; the newest {written} have their guide and "
        f"comparison pages" + (f" (platperf site --pages 0 writes them all)." if written < len(board.labels)
                               else "."))
    return Document(f"{board.name}", sections=[Section("Board", text=text, tables=[table])])
