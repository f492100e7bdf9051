"""The tables of a document as a reader sees them, to tell whether a report reproduces a
published page table by table: title, column names, rows in order, every cell as printed.

Written apart from platperf's importers (a test must not judge the code with itself). Three
shapes are read: reStructuredText (``.. table::`` over a grid table, a bare grid table under
a heading, ``.. csv-table::``), Markdown pipe tables under a ``**title**`` line, and the text
of a web page copied out of a browser (the Agilex study: each header word on a line of its
own, then one row a line, the figures last).
"""
from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from conftest import missing

REPOSITORY = Path(__file__).resolve().parent.parent
# The reference documents sit beside the checkout (../shared/reference), as CI lays them out,
# or PLATPERF_REFERENCE names their directory (a checkout cloned elsewhere).
REFERENCE = Path(os.environ.get("PLATPERF_REFERENCE", REPOSITORY.parent / "shared" / "reference"))
TFA = "tf-a-psci-performance-juno-v2.10.rst"
TI = "am62x-linux-performance-guide.rst"
AGILEX = "agilex5-hps-cpu-cluster-latency.md"


def reference(name: str) -> Path:
    """A reference document; without it the test skips (fails under CI=true)."""
    path = REFERENCE / name
    if not path.exists():
        missing(f"{path}: the reference documents are not beside this checkout "
                "(../shared/reference, or set PLATPERF_REFERENCE to their directory)")
    return path


@dataclass
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]
    captions: list[str] = field(default_factory=list)   # rows spanning the table
    line: int = 0

    @property
    def shape(self) -> tuple:
        return (self.title, tuple(self.header), tuple(map(tuple, self.rows)), tuple(self.captions))


def _words(text: str) -> str:
    return " ".join(text.split())


_RULE = re.compile(r"^\+([-=]+\+)+$")
_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}$")


def _grid_lines(lines: list[str], i: int) -> tuple[list[str], int]:
    """The lines of an RST grid table from line ``i`` on, and the line after it."""
    grid = []
    while i < len(lines) and lines[i].strip().startswith(("+", "|")):
        grid.append(lines[i].strip())
        i += 1
    return grid, i


def _grid(lines: list[str]) -> tuple[list[str], list[list[str]], list[str]]:
    """(header, rows, caption rows) of a grid table's lines (stripped)."""
    rows, pending, header_rule = [], [], None
    for line in lines:
        if _RULE.match(line):
            if pending:
                width = max(len(p) for p in pending)
                rows.append([_words(" ".join(p[k] for p in pending if k < len(p))) for k in range(width)])
            pending = []
            if "=" in line and header_rule is None:
                header_rule = len(rows)
        else:
            pending.append([c for c in line.strip()[1:-1].split("|")])
    width = max((len(r) for r in rows), default=0)
    captions = []
    while rows and len(rows[0]) < width:
        captions.append(" ".join(rows.pop(0)))
    return (rows[0] if rows else []), rows[1:], captions


def rst_tables(text: str) -> list[Table]:
    """Every grid table and csv-table of an RST text, in order."""
    lines = text.splitlines()
    out: list[Table] = []
    heading = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and line.strip() and _UNDERLINE.match(lines[i + 1].strip()) \
                and len(lines[i + 1].strip()) >= len(line.strip()) and not line.lstrip().startswith(("+", "..", "|")):
            heading = _words(line)
            i += 2
            continue
        directive = re.match(r"^\s*\.\. (csv-table|table)::\s*(.*)$", line)
        if directive:
            indent = len(line) - len(line.lstrip())
            title = [directive.group(2)]
            i += 1
            while i < len(lines) and lines[i].strip() and not lines[i].lstrip().startswith((":", "+")) \
                    and len(lines[i]) - len(lines[i].lstrip()) > indent:
                title.append(lines[i])
                i += 1
            title = _words(" ".join(title))
            if directive.group(1) == "csv-table":
                i, table = _csv(lines, i, title)
                out.append(table)
                continue
            while i < len(lines) and not lines[i].strip():
                i += 1
            start = i
            grid, i = _grid_lines(lines, i)
            header, rows, captions = _grid(grid)
            out.append(Table(title, header, rows, captions, start + 1))
            continue
        if line.strip().startswith("+") and _RULE.match(line.strip()):
            start = i
            grid, i = _grid_lines(lines, i)
            header, rows, captions = _grid(grid)
            after = next((lines[j] for j in range(i, min(i + 3, len(lines))) if lines[j].strip()), "")
            named = re.match(r"^Table:\s+(.*)$", after.strip())
            out.append(Table(_words(named.group(1)) if named else heading, header, rows, captions, start + 1))
            continue
        i += 1
    return out


def _csv(lines: list[str], i: int, title: str) -> tuple[int, Table]:
    header: list[str] = []
    start = i
    while i < len(lines) and (lines[i].strip().startswith(":") or not lines[i].strip()):
        option = re.match(r"^\s*:header:\s*(.*)$", lines[i])
        if option:
            header = next(csv.reader([option.group(1)], skipinitialspace=True))
        i += 1
    body = []
    while i < len(lines) and lines[i].strip() and lines[i].startswith((" ", "\t")):
        body.append(lines[i].strip())
        i += 1
    rows = [[_unescape(c) for c in row] for row in csv.reader(body, skipinitialspace=True)]
    return i, Table(title, [_unescape(h) for h in header], rows, [], start)


def _unescape(cell: str) -> str:
    """A cell as it reads (RST's backslash escapes dropped)."""
    return _words(re.sub(r"\\(.)", r"\1", cell))


def markdown_tables(text: str) -> list[Table]:
    """Pipe tables, each titled by the ``**title**`` line over it."""
    lines = text.splitlines()
    out, title, i = [], "", 0
    while i < len(lines):
        line = lines[i].strip()
        bold = re.match(r"^\*\*(.*)\*\*$", line)
        if bold:
            title = _unescape(bold.group(1))
        if line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[-:| ]+\|$", lines[i + 1].strip()):
            start = i
            header = _pipe(line)
            i += 2
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(_pipe(lines[i].strip()))
                i += 1
            out.append(Table(title, header, rows, [], start + 1))
            title = ""
            continue
        i += 1
    return out


def _pipe(line: str) -> list[str]:
    cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])
    return [_unescape(c) for c in cells]


def page_tables(text: str) -> list[Table]:
    """Tables of a web page copied as text (the Agilex study): a header of two-word column
    names, one word a line, then rows whose last cells are the figures, titled by the last
    short line before the paragraph that introduces them."""
    lines = [line.strip() for line in text.splitlines()]
    out, i = [], 0
    while i + 3 < len(lines):
        pairs = []
        j = i
        while j + 1 < len(lines) and lines[j] and lines[j + 1] and len(lines[j].split()) == 1 \
                and len(lines[j + 1].split()) == 1 and lines[j][0].isupper():
            pairs.append(f"{lines[j]} {lines[j + 1]}")
            j += 2
        if len(pairs) >= 2:
            rows = []
            while j < len(lines) and lines[j] and len(lines[j].split()) >= len(pairs):
                words = lines[j].split()
                figures = len(pairs) - 1
                rows.append([" ".join(words[:-figures])] + words[-figures:])
                j += 1
            title = ""
            for k in range(i - 1, -1, -1):
                if lines[k] and not lines[k].endswith((".", ":", ",")) and len(lines[k]) < 60:
                    title = lines[k]
                    break
            out.append(Table(title, pairs, rows, [], i + 1))
            i = j
            continue
        i += 1
    return out


def reproduced(published: list[Table], rendered: list[Table]) -> tuple[list[Table], dict[int, str]]:
    """(the published tables found in ``rendered`` exactly, {index of each other one: what
    differs in the rendered table closest to it})."""
    left = [t.shape for t in rendered]
    found, gaps = [], {}
    for n, table in enumerate(published):
        if table.shape in left:
            left.remove(table.shape)
            found.append(table)
        else:
            gaps[n] = _closest(table, rendered)
    return found, gaps


def _closest(table: Table, rendered: list[Table]) -> str:
    same = [t for t in rendered if t.title == table.title]
    if not same:
        return "no table titled so"
    best = same[0]
    for t in same:
        if t.header == table.header:
            best = t
            break
    if best.header != table.header:
        return f"header {best.header} instead of {table.header}"
    if best.captions != table.captions:
        return f"caption rows {best.captions} instead of {table.captions}"
    for k, (got, want) in enumerate(zip(best.rows, table.rows)):
        if got != want:
            return f"row {k + 1} {got} instead of {want}"
    return f"{len(best.rows)} rows instead of {len(table.rows)}"
