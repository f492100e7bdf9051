"""A latency study's mitigation tables (the Agilex 5 HPS CPU cluster latency study), as its
web page reads copied out of a browser or as ``platperf report --format md`` prints them::

    Cluster Tuning Results                  **Cluster Tuning Results**
    ...                                     | Applied Mitigation | Maximum Latency | Minimum Latency |
    Applied                                 |--------------------|-----------------|-----------------|
    Mitigation                              | none (default)     | 10.780us        | 57ns            |
    Maximum                                 | nl3a + cp          | 6.687us         | 57ns            |
    Latency
    Minimum
    Latency
    none (default) 10.780us 57ns
    nl3a + cp 6.687us 57ns

A copied page has each header word on a line of its own, then a row a line, its last two
words the figures; the table's title is the last short line before it that ends no
sentence. Each row is the latency loop's figures under the mitigations applied, in the
order the study applied them: benchmark ``latency-loop``, params ``{"mitigation":
"nl3a+cp", "table": <title>}`` (``none (default)`` is ``none``; the title keeps the
study's tables apart: its cache-coloring table has a ``none (default)`` row too), metrics
``latency_max`` and ``latency_min`` in ns, the cell as printed in ``extra["published"]``
and the title in ``extra["title"]``, so that the report prints the table again.

A copied table ends at a blank line or at a line none of whose last two words is a figure
(prose pasted right under it). A copied table of another header (the study's EMIF table,
words not figures: ``DDR4 no ECC HIGH``) is kept as printed
(:class:`~platperf.ingest.errors.Words`, its last words one a column) for the report to print
it again; a Markdown table of another header (a report's Environment) is not taken and the
import says so (:class:`~platperf.ingest.errors.Skipped`); a row of the study's table whose last two words are not both latencies (``57ns``,
``10.780us``, ``1.2ms``) refuses the file at its line.
"""
from __future__ import annotations

import re
import sys
from typing import Iterable, Iterator

from ..records import Result
from ._numbers import number
from .errors import IngestError, Skipped, Words

# What this format reads, shaped like the real thing (`platperf ingest FORMAT --help` prints it).
EXAMPLE = """\
Cluster Tuning Results

Applied
Mitigation
Maximum
Latency
Minimum
Latency
none (default) 12.500us 60ns
alpha 8.250us 60ns
"""

BENCHMARK = "latency-loop"
HEADER = ["Applied Mitigation", "Maximum Latency", "Minimum Latency"]
METRICS = ("latency_max", "latency_min")
DEFAULT = "none (default)"
_LATENCY = re.compile(r"^(\d+(?:\.\d+)?)\s*(ns|us|µs|μs|ms|s)$")
_SCALE = {"ns": 1.0, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}
_BOLD = re.compile(r"^\*\*(.+)\*\*$")
_RULE = re.compile(r"^\|[\s:|-]+\|$")
_EXPECTED = ("expected a row `<mitigation> <maximum> <minimum>` with latencies as the study writes them "
             "(57ns, 10.780us)")


def parse(text: str, name: str) -> list[Result]:
    return [r for r in read(text.splitlines(), name) if isinstance(r, Result)]


def read(lines: Iterable[str], name: str) -> Iterator[Result | Skipped | Words]:
    """The figures of every table of the study's header, table by table as the page is read;
    a :class:`Skipped` for each other table."""
    title, words, found = "", [], False     # words: a run of one-word lines (a copied header)
    table = None                            # (title, shape) of the table whose rows come
    for number_, raw in enumerate(lines, 1):
        line, where = " ".join(raw.split()), f"{name}:{number_}"
        if table is not None:
            if table[1] == "md" and _RULE.match(line):
                continue
            if table[1] == "words" and line:
                yield from _word_row(line, table, where)
                continue
            if line and (line.startswith("|") if table[1] == "md" else _row_like(line)):
                yield from _row(line, table, where)
                continue
            table = None
        if len(line.split()) == 1 and line[:1].isupper() and not line.startswith("|"):
            words.append((number_, line))
            continue
        if len(words) >= 4 and len(words) % 2 == 0:
            header = [f"{a} {b}" for (_, a), (_, b) in zip(words[::2], words[1::2])]
            start, words = f"{name}:{words[0][0]}", []
            if header == HEADER and line:
                table, found = (title, "page"), True
                yield from _row(line, table, where)
                continue
            if line:                        # a table of words (the study's EMIF table)
                table = (title, "words", header)
                yield from _word_row(line, table, where)
                continue
            yield _skipped(start, header)
        elif words:
            title = words[-1][1]            # a one-word heading
        words = []
        bold = _BOLD.match(line)
        if bold:
            title = _unescape(bold.group(1))
        elif line.startswith("|") and line.endswith("|") and not _RULE.match(line):
            header = [_unescape(c.strip()) for c in line[1:-1].split("|")]
            if header == HEADER:
                table, found = (title, "md"), True
            else:
                yield _skipped(where, header)
        elif line and not line.endswith((".", ":", ",")) and len(line) < 60:
            title = line
    if not found:
        raise IngestError(f"{name}:1", f"no table `{' | '.join(HEADER)}` in the file (is this the latency "
                                       "study's page, or a platperf report in Markdown?)")


def _word_row(line: str, table: tuple, where: str) -> Iterator[Words]:
    """A row of a copied table of words, its last words one a column: kept as printed."""
    title, _, header = table
    words = line.split()
    if len(words) < len(header):
        raise IngestError(where, f"{line!r:.60}: {len(words)} words in a row of the {len(header)}-column "
                                 f"table {title!r:.40}")
    cells = [" ".join(words[:len(words) - len(header) + 1])] + words[len(words) - len(header) + 1:]
    for column, text in zip(header[1:], cells[1:]):
        yield Words(where, "", title, cells[0], column, text, (), (header[0],), "latency")


def _row_like(line: str) -> bool:
    """A line of a copied table: one of its last two words is a figure (``57ns``, or one
    mistyped); prose right under the table, with no blank line between, ends it."""
    return any(word[:1].isdigit() for word in line.split()[-2:])


def _skipped(where: str, header: list[str]) -> Skipped:
    return Skipped(where, f"a table `{' | '.join(header):.60}` (this format reads the study's "
                          f"`{' | '.join(HEADER)}` tables)")


def _row(line: str, table: tuple, where: str) -> Iterator[Result]:
    title, shape = table
    if shape == "md":
        cells = [_unescape(c.strip()) for c in line.strip("|").split("|")]
        if len(cells) != 3:
            raise IngestError(where, f"{len(cells)} cells in a row of the study's table; {_EXPECTED}")
    else:
        words = line.split()
        if len(words) < 3:
            raise IngestError(where, f"{line!r:.60} is no row of the study's table; {_EXPECTED}")
        cells = [" ".join(words[:-2]), words[-2], words[-1]]
    mitigation = "none" if cells[0] == DEFAULT else "+".join(p.strip() for p in cells[0].split("+"))
    for metric, cell in zip(METRICS, cells[1:]):
        shape_ = _LATENCY.match(cell)
        if shape_ is None:
            raise IngestError(where, f"{metric} {cell!r:.40} is not a latency; {_EXPECTED}")
        value = number(shape_.group(1), where, "a latency") * _SCALE[shape_.group(2)]
        yield Result(BENCHMARK, {"mitigation": mitigation, "table": title}, metric, "ns", "lower", [value],
                     extra={"title": sys.intern(title), "published": cell, "source": where})


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)
