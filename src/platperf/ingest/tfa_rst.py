"""TF-A's published PSCI performance page (``docs/perf/psci-performance-<board>.rst``): RST
grid tables under ``.. table::`` directives, one per test and release::

    .. table:: ``CPU_SUSPEND`` latencies (µs) to deepest power level in
            parallel (v2.10)

        +---------+------+-------------------+--------+-------------+
        | Cluster | Core |     Powerdown     | Wakeup | Cache Flush |
        +---------+------+-------------------+--------+-------------+
        |    0    |  0   | 242.66 (+132.03%) | 245.1  |     5.4     |

The title (which may run over several lines) names the test and, in its last parentheses,
the release: ``(v2.10)``, ``(2.10)`` (read as v2.10) or ``(latest)``. Titles TF-A gives the
TFTF runtime-instrumentation tests map to their test names (``CPU_VERSION`` is the page's
spelling of ``PSCI_VERSION``), so a page and a TFTF log of one release key alike:
benchmark ``tftf-rt-instr``, params ``{"test": ...}``, (cluster, core), metrics from the
column headers (``powerdown``, ``wakeup``, ``cache_flush``, ``latency``) in the title's unit
(µs; ns or ms where the title says so). Any other title keys its table by the title itself.

What the page prints is kept with each figure, so that the report prints the page again:
``extra["published"]`` the cell's number as written (``245.1``: its precision),
``extra["published_delta_pct"]`` a cell's ``(+x.xx%)`` (the page's own delta from the
previous release; compare recomputes it and says where the two disagree),
``extra["release"]`` the release as the title writes it (``2.9``), ``extra["caption"]`` a
row spanning the table over its header (``test_rt_instr_cpu_off_serial (latest)``) and
``extra["title"]`` the title of a table that is no TFTF test's.

The page's historic per-CPU tables (``CPU | ``PSCI_ENTRY`` (us) | ...``, a bare grid table
under a section heading and no release: TF master of 2017) are taken too, as the run
``historic``: params ``{"test": <the heading>}``, the CPU as the core, metrics from the
header (``psci_entry``, ``total_time`` in ns), with ``extra["title"]`` the heading and
``extra["headers"]`` the header as printed, so the report prints them again.

A page copied out of a browser or a mail reads the same: titles wrapped at any word and
continued without indentation, table bodies not indented, tabs for spaces, the µ of the
unit lost (``(s)``, ``(?s)``). A bare grid table of words under a heading (the page's
*Method*: the board's clocks) is kept as :class:`~platperf.ingest.errors.Words` with every
release's run. Any other grid table that is neither a per-core release table nor a per-CPU
one (a report's Environment or Deltas tables) is not taken and the import says so
(:class:`~platperf.ingest.errors.Skipped`); a ``.. table::`` whose title names a release
but whose grid cannot be read, a title without a release over a per-core table, or a cell
that is not a number, refuses the file at its line.
"""
from __future__ import annotations

import re
import sys
from typing import Iterable, Iterator

from ..records import Result
from ..vocab.tfa import TFTF_BENCHMARK as BENCHMARK, TFTF_TITLES as TITLES, metric_of
from . import _grid
from ._numbers import number
from .errors import IngestError, Skipped, Words
from .tftf_rt_instr import mode_of

_DIRECTIVE = re.compile(r"^\s*\.\.\s+table::\s*(.*)$")
_OPTION = re.compile(r"^\s*:[A-Za-z][\w -]*:")
_RELEASE = re.compile(r"^(.*)\(\s*(v?\d{1,4}(?:\.\d{1,4}){0,3}(?:-rc\d{1,3})?|latest)\s*\)\s*$")
_CELL = re.compile(r"^(\S+?)\s*(?:\(\s*(\S+?)\s*%\s*\))?$")
# The unit in a title: "(µs)" with its µ as written, as another micro sign, as "u", or
# lost or mangled by a copy ("(s)", "(?s)", "(Âµs)", U+FFFD).
_MICRO = re.compile(r"\(\s*(?:[µμu?\ufffd]|[^\x00-\x7f]{1,3})?s\s*\)")
_UNITS = {"(ns)": "ns", "(ms)": "ms"}
_SPELT = {"us": "µs"}
# The page's spellings of the TFTF tests' titles -> TFTF test names.
_ALIASES = {"PSCI_VERSION latency": "CPU_VERSION latency"}
_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{3,}$")
HISTORIC = "historic"       # the run of the page's per-CPU tables that name no release
_EXPECTED = ("expected `.. table:: <title> (vX.Y)` over a grid table whose header is "
             "`| Cluster | Core | <metric> ... |`")


def _plain(title: str) -> str:
    """A title as a key: one space between words, no markup, the unit spelt ``(µs)``."""
    text = _MICRO.sub("(µs)", " ".join(title.replace("``", "").split()))
    for alias, name in _ALIASES.items():
        text = text.replace(alias, name)
    return text


_TESTS = {_plain(title): test for test, title in TITLES.items()}


def _release(text: str) -> str:
    return text if text == "latest" or text.startswith("v") else f"v{text}"


def release_order(release: str) -> tuple:
    """v2.9 < v2.10 < v2.10-rc... by number; ``latest`` last; the historic per-CPU tables
    (:data:`HISTORIC`, no number) first: they are older than any release on the page."""
    if release == "latest":
        return (1, ())
    return (0, tuple(int(n) for n in re.findall(r"\d+", release)))


column_order = release_order     # one run per release, oldest first: history draws them in order


def parse(text: str, name: str) -> list[Result]:
    return [r for r in read(text.splitlines(), name) if isinstance(r, Result)]


def skipped(text: str, name: str) -> list[Skipped]:
    """The tables of ``text`` the import leaves out, with why."""
    return [s for s in read(text.splitlines(), name) if isinstance(s, Skipped)]


def read(lines: Iterable[str], name: str) -> Iterator[Result | Skipped | Words]:
    """The figures of every per-core release table, table by table as the page is read;
    a :class:`Skipped` for each other grid table."""
    tables = 0
    numbered = enumerate(lines, 1)
    pending = None          # a line read ahead: (number, text)
    heading, previous = "", ""      # the section title over a bare grid table (the historic ones)
    while True:
        item = pending or next(numbered, None)
        pending = None
        if item is None:
            break
        number_, line = item
        underline = _UNDERLINE.match(line.strip())
        if underline and previous.strip() and len(line.strip()) >= len(previous.strip()) \
                and not _grid.is_grid_line(previous):
            heading = " ".join(previous.split())
        previous = line
        directive = _DIRECTIVE.match(line)
        if not directive and not (_grid.is_grid_line(line) and _grid.RULE.match(line.strip())):
            continue
        title_parts, title_line = [], number_
        item = (number_, line)
        if directive:
            # the title runs to the first blank line, option or grid line, however indented
            title_parts.append(directive.group(1))
            item = next(numbered, None)
            while item and item[1].strip() and not _grid.is_grid_line(item[1]) and not _OPTION.match(item[1]):
                title_parts.append(item[1])
                item = next(numbered, None)
            while item and (not item[1].strip() or _OPTION.match(item[1])):
                item = next(numbered, None)
        grid = []
        while item and _grid.is_grid_line(item[1]):
            grid.append((item[0], item[1].strip()))
            item = next(numbered, None)
        pending = item
        previous = ""
        table = _table(grid, title_parts or [heading], title_line, name, bool(directive))
        if isinstance(table, Skipped):
            yield table
            continue
        tables += any(isinstance(item, Result) for item in table)
        yield from table
    if not tables:
        raise IngestError(f"{name}:1", f"no per-core grid tables in the file; {_EXPECTED} "
                                       "(is this TF-A's PSCI performance page?)")


def _table(grid: list[tuple[int, str]], title_parts: list[str], title_line: int, name: str,
           directive: bool) -> list[Result] | list[Words] | Skipped:
    where = f"{name}:{title_line}"
    title = _plain(" ".join(title_parts))
    release = _RELEASE.match(title) if directive else None
    if not grid:
        if release:
            raise IngestError(where, f"no grid table under `.. table:: {title:.60}`; {_EXPECTED}")
        return Skipped(where, f"`.. table:: {title:.60}` holds no grid table")
    rows = _grid.rows(grid, name, _EXPECTED)
    # platperf's own tables of a machine with several packages have a Package column first
    header, places = next(((k, n) for k, (_, cells) in enumerate(rows) for n in (2, 3)
                           if len(cells) > n and [c.lower() for c in cells[:n]]
                           == ["package", "cluster", "core"][3 - n:]), (None, 2))
    if header is None and release is None and rows and len(rows[0][1]) > 1 and rows[0][1][0].lower() == "cpu":
        return _per_cpu(rows, " ".join(" ".join(title_parts).split()), name)
    if header is None:
        first = " | ".join(rows[0][1]) if rows else ""
        if release:
            raise IngestError(f"{name}:{grid[0][0]}", f"the table of release {release.group(2)} has no "
                                                      f"`Cluster | Core` header; {_EXPECTED}")
        if not directive and title_parts[0] and len(rows) > 1 and all(len(c) == len(rows[0][1]) for _, c in rows):
            return _words(rows, " ".join(title_parts[0].split()), name)
        return Skipped(f"{name}:{grid[0][0]}", f"a grid table `{first:.70}` that is not a per-core "
                                               "table of a release")
    if release is None:
        raise IngestError(where, f"table title {title!r:.80} names no release in its last "
                                 f"parentheses, as `(v2.10)`; {_EXPECTED}")
    what, printed = release.group(1).strip(), release.group(2)
    version = _release(printed)
    test = _TESTS.get(what, what)
    unit = next((u for text, u in _UNITS.items() if text in what), "us")
    metrics = [sys.intern(c.lower().replace(" ", "_")) for c in rows[header][1][places:]]
    shared = {"column": sys.intern(version), "release": sys.intern(printed)}
    captions = " ".join(" ".join(c for c in cells if c) for _, cells in rows[:header])
    if captions:
        shared["caption"] = sys.intern(captions)
    if test == what:
        shared["title"] = sys.intern(what)
    results = []
    for number_, cells in rows[header + 1:]:
        row_where = f"{name}:{number_}"
        if len(cells) != len(metrics) + places:
            raise IngestError(row_where, f"{len(cells)} cells in a row of a {len(metrics) + places}-column "
                                         f"table; {_EXPECTED}")
        package, cluster, core = [None] * (3 - places) + [
            _index(c, row_where, what_) for c, what_ in zip(cells[:places], ("package", "cluster", "core")[3 - places:])]
        for metric, cell in zip(metrics, cells[places:]):
            if not cell:
                continue
            m = _CELL.match(cell)
            if m is None:
                raise IngestError(row_where, f"{metric} cell {cell!r:.40}: expected a number, "
                                             "optionally `(+x.xx%)`")
            extra = {**shared, "source": row_where, "published": sys.intern(m.group(1))}
            if m.group(2) is not None:
                extra["published_delta_pct"] = number(m.group(2), row_where, "a percentage", signed=True)
            results.append(Result(
                benchmark=BENCHMARK, params={"test": test}, metric=metric, unit=unit,
                direction="lower", samples=[number(m.group(1), row_where, f"{metric} in {_SPELT.get(unit, unit)}")],
                mode=mode_of(test), package=package, cluster=cluster, core=core, extra=extra))
    return results


def _words(rows: list, title: str, name: str) -> list[Words]:
    """A bare grid table of words under a heading (the page's board: *Method*, ``Domain |
    Frequency (MHz)``): kept with the runs as printed, for the report to print it again."""
    header = rows[0][1]
    return [Words(f"{name}:{number_}", "", title, cells[0], column, text, (), (header[0],), "tfa")
            for number_, cells in rows[1:] for column, text in zip(header[1:], cells[1:])]


def _per_cpu(rows: list, title: str, name: str) -> list[Result]:
    """A historic per-CPU table (``CPU | ``PSCI_ENTRY`` (us) | ...``, under a heading and no
    release): one run, :data:`HISTORIC`, keyed by the heading as the test and the CPU as
    the core; its title and header kept as printed."""
    header = rows[0][1]
    metrics = [metric_of(h) for h in header[1:]]
    test = _plain(title)
    shared = {"column": HISTORIC, "title": sys.intern(title), "headers": [sys.intern(h) for h in header]}
    results = []
    for number_, cells in rows[1:]:
        row_where = f"{name}:{number_}"
        if len(cells) != len(header):
            raise IngestError(row_where, f"{len(cells)} cells in a row of a {len(header)}-column per-CPU table; "
                                         "expected `| CPU | <figure> ... |`")
        cpu = _index(cells[0], row_where, "CPU")
        for (metric, unit), cell in zip(metrics, cells[1:]):
            if not cell:
                continue
            results.append(Result(
                benchmark=BENCHMARK, params={"test": test}, metric=metric, unit=unit, direction="lower",
                samples=[number(cell, row_where, f"{metric} in {_SPELT.get(unit, unit)}")],
                mode="parallel" if "parallel" in test else "serial", core=cpu,
                extra={**shared, "source": row_where, "published": sys.intern(cell)}))
    return results


def _index(cell: str, where: str, what: str) -> int:
    if not (cell.isascii() and cell.isdigit() and len(cell) <= 6):
        raise IngestError(where, f"{what} {cell!r:.40} is not a small unsigned integer; {_EXPECTED}")
    return int(cell)
