"""TF-A's published PSCI performance pages (``docs/perf/psci-performance-<platform>.rst``: Juno,
N1SDP), in every form TF-A has published them since 2017:

* **grid tables** under ``.. table::`` directives, one per test and release (2023-2025)::

    .. table:: ``CPU_SUSPEND`` latencies (µs) to deepest power level in
            parallel (v2.10)

        +---------+------+-------------------+--------+-------------+
        | Cluster | Core |     Powerdown     | Wakeup | Cache Flush |
        +---------+------+-------------------+--------+-------------+
        |    0    |  0   | 242.66 (+132.03%) | 245.1  |     5.4     |

* **csv-tables**, their rows inline or, since 2026, in a ``:file:`` beside the page
  (``data/juno/current/test_rt_instr_susp_deep_parallel.csv``, and ``previous/``)::

    .. csv-table:: ``CPU_SUSPEND`` latencies (ns) to deepest power level in parallel (current release)
        :header: Cluster, Core, Powerdown, Wakeup, Cache Flush
        :file: data/juno/current/test_rt_instr_susp_deep_parallel.csv

* the **historic per-CPU tables** (``CPU | ``PSCI_ENTRY`` (us) | ...``: a bare grid table under
  a section heading and no release, TF master of 2017), taken as the run ``historic``: params
  ``{"test": <the heading>}``, the CPU as the core, metrics from the header.

Keys stay the same across forms, so that any two releases of a platform pair cell for cell:
benchmark ``tftf-rt-instr``, params ``{"test": <TFTF test>}`` (the titles map to TFTF's tests;
``CPU_VERSION`` is the page's spelling of ``PSCI_VERSION``), (cluster, core), metrics
``powerdown``, ``wakeup`` (also as the 2023 pages misspell it, ``Wakekup``), ``cache_flush``,
``latency``, always in µs: a title's ``(ns)`` or ``(ms)`` is the unit its figures are read
in, and they are stored in µs, the unit of every page before 2025 and of TFTF's logs.

The release is the title's last parentheses: ``(v2.10)``, ``(2.10)`` (v2.10), ``(latest)``.
Three forms name none, and the import asks for it rather than guess:

* a title without release (the 2023 pages, one release each): ``--label`` is its release;
* ``(current release)`` / ``(previous release)`` and the ``current/`` / ``previous/`` data
  folders (2026): ``--release current=v2.15 --release previous=v2.14`` names them. A csv-table
  whose rows are in one of those folders belongs to that folder's release, whatever its title
  says (in May 2026 the CPU_VERSION titles still said 2.14 over the 2.15 data); its title's
  release is kept as printed.

What the page prints is kept with each figure, so that the report prints the page again:
``extra["published"]`` the cell's number as written (``245.1``, its precision),
``extra["published_unit"]`` where that is not µs, ``extra["published_delta_pct"]`` a cell's
``(+x.xx%)``, ``extra["release"]`` the release as the title writes it, ``extra["caption"]`` a
row spanning the table over its header, ``extra["title"]`` the title of a table that is no
TFTF test's.

Refused, with the line and what to do: a cell that is not a number, a row of the wrong width,
a release table without a ``Cluster | Core`` header, a table without release and no
``--label``, ``current``/``previous`` without ``--release``, a ``:file:`` not beside the page.
Said (:class:`~platperf.ingest.errors.Note`) and kept apart, never pooled: a table whose rows
repeat a (cluster, core) — N1SDP's pages of 2023-2026 print four cores as cluster 0 core 0
twice and cluster 1 core 0 twice (TFTF's affinity levels on a CPU whose MPIDR counts
threads) — keeps each such row, in the page's order, as a key of its own (params ``row`` 1,
2, ...), as the page's own deltas pair them. Not taken and said
(:class:`~platperf.ingest.errors.Skipped`): grid tables of other kinds (a report's
Environment table). A bare grid table of words under a heading (the
page's *Method*: the board's clocks) is kept as :class:`~platperf.ingest.errors.Words` with
every release's run. A page copied out of a browser or a mail reads the same: titles wrapped
at any word, bodies not indented, tabs for spaces, the µ of the unit lost (``(s)``, ``(?s)``).
"""
from __future__ import annotations

import re
import sys
from collections import Counter
from typing import Iterable, Iterator

from ..records import Result
from ..vocab.tfa import TFTF_BENCHMARK as BENCHMARK, TFTF_TITLES as TITLES, metric_of
from . import _csv_directive, _grid
from ._numbers import number
from .errors import IngestError, Note, Skipped, Words
from .tftf_rt_instr import mode_of

EXAMPLE = """\
.. table:: ``CPU_SUSPEND`` latencies (µs) to deepest power level in parallel (v2.10)

    +---------+------+-------------------+--------+-------------+
    | Cluster | Core |     Powerdown     | Wakeup | Cache Flush |
    +---------+------+-------------------+--------+-------------+
    |    0    |  0   | 242.66 (+132.03%) | 245.1  |     5.4     |
    +---------+------+-------------------+--------+-------------+

.. csv-table:: ``CPU_OFF`` latencies (ns) on all non-lead CPUs (v2.10)
    :header: Cluster, Core, Powerdown, Wakeup, Cache Flush

    "1","0","185700 (-30.51%)","23240 (-29.45%)","88280 (-47.60%)"
"""

_DIRECTIVE = re.compile(r"^\s*\.\.\s+table::\s*(.*)$")
_OPTION = re.compile(r"^\s*:[A-Za-z][\w -]*:")
_RELEASE = re.compile(r"^(.*)\(\s*(v?\d{1,4}(?:\.\d{1,4}){0,3}(?:-rc\d{1,3})?|latest|[a-z]+ release)\s*\)\s*$")
_CELL = re.compile(r"^(\S+?)\s*(?:\(\s*(\S+?)\s*%\s*\))?$")
# The unit in a title: "(µs)" with its µ as written, as another micro sign, as "u", or
# lost or mangled by a copy ("(s)", "(?s)", "(Âµs)", U+FFFD); "(ns)", "(ms)".
_MICRO = re.compile(r"\(\s*(?:[µμu?\ufffd]|[^\x00-\x7f]{1,3})?s\s*\)")
_TITLE_UNIT = re.compile(r"\((ns|ms|µs)\)")
TO_US = {"us": 1.0, "ns": 1e-3, "ms": 1e3}
_SPELT = {"us": "µs"}
# The page's spellings of the TFTF tests' titles -> TFTF test names; of the headers -> metrics.
_ALIASES = {"PSCI_VERSION latency": "CPU_VERSION latency"}
_METRICS = {"wakekup": "wakeup"}
_FOLDERS = ("current", "previous")      # TF-A's data/<platform>/<folder>/ since 2026
_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{3,}$")
HISTORIC = "historic"       # the run of the page's per-CPU tables that name no release
_EXPECTED = ("expected `.. table:: <title> (vX.Y)` over a grid table, or `.. csv-table:: <title> "
             "(vX.Y)`, whose header is `Cluster | Core | <metric> ...`")


def _plain(title: str) -> str:
    """A title as a key: one space between words, no markup, the unit spelt ``(µs)`` (figures
    are stored in µs, whatever unit the title reads them in)."""
    text = _MICRO.sub("(µs)", " ".join(title.replace("``", "").split()))
    text = _TITLE_UNIT.sub("(µs)", text)
    for alias, name in _ALIASES.items():
        text = text.replace(alias, name)
    return text


def _unit(title: str) -> str:
    """The unit a title reads its figures in: ``(ns)``, ``(ms)``, else µs."""
    found = _TITLE_UNIT.findall(" ".join(title.split()))
    return {"ns": "ns", "ms": "ms"}.get(found[-1] if found else "", "us")


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


def parse(text: str, name: str, **options) -> list[Result]:
    return [r for r in read(text.splitlines(), name, **options) if isinstance(r, Result)]


class _Page:
    """What a page's tables share: the options of the import and the headings read so far."""

    def __init__(self, name: str, label: str | None, releases: dict | None, unit: str | None):
        self.name, self.label, self.releases, self.unit = name, label, dict(releases or {}), unit
        self.heading = ""

    def release(self, title: str, where: str, folder: str | None) -> tuple[str, str]:
        """(the run, the release as printed) of a table titled ``title``; ``folder``: the
        ``current``/``previous`` folder its rows came from."""
        named = _RELEASE.match(title)
        printed = named.group(2) if named else ""
        word = folder or (printed.split()[0] if printed.endswith(" release") else None)
        if word:
            if word not in self.releases:
                raise IngestError(where, f"the table {_csv_directive.short(_words_of(title), 60)} is of the page's "
                                         f"`{word}` release: say which releases the page's current and "
                                         "previous are, e.g. --release current=v2.15 --release previous=v2.14")
            return self.releases[word], printed or f"{word} release"
        if printed:
            return _release(printed), printed
        if self.label is None:
            raise IngestError(where, f"table title {title!r:.80} names no release in its last parentheses, "
                                     f"as `(v2.10)`: give the page's release with --label (e.g. --label v2.9)")
        return self.label, ""


def read(lines: Iterable[str], name: str, label: str | None = None, releases: dict | None = None,
         unit: str | None = None) -> Iterator[Result | Skipped | Words]:
    """The figures of every per-core table, table by table as the page is read; a
    :class:`Skipped` for each table not taken. ``label``, ``releases`` and ``unit`` are the
    import's ``--label``, ``--release WORD=RELEASE`` and ``--unit`` (see the module's text)."""
    if unit is not None and unit not in TO_US:
        raise IngestError(f"{name}:1", f"--unit {unit!r}: expected one of {', '.join(TO_US)}")
    page = _Page(name, label, releases, unit)
    tables = 0
    numbered = _csv_directive.Lookahead(enumerate(lines, 1))
    previous = ""
    for number_, line in numbered:
        underline = _UNDERLINE.match(line.strip())
        if underline and previous.strip() and len(line.strip()) >= len(previous.strip()) \
                and not _grid.is_grid_line(previous):
            page.heading = " ".join(previous.split())
        previous = line
        csv_table = _csv_directive.DIRECTIVE.match(line)
        if csv_table:
            table = _csv_directive.read(numbered, csv_table, number_, name, "`Cluster, Core, <metric> ...`")
            items = _release_table(page, table.title, table.header, table.rows, table.where,
                                   _folder(table.file), captions="")
        elif _DIRECTIVE.match(line) or (_grid.is_grid_line(line) and _grid.RULE.match(line.strip())):
            items = _grid_table(page, numbered, number_, line)
            previous = ""
        else:
            continue
        if isinstance(items, Skipped):
            yield items
            continue
        found = False
        for item in items:          # a table's figures as they are made: a long table is not held twice
            found = found or isinstance(item, Result)
            yield item
        tables += found
    if not tables:
        raise IngestError(f"{name}:1", f"no per-core tables in the file; {_EXPECTED} "
                                       "(is this TF-A's PSCI performance page?)")


def _folder(file: str) -> str | None:
    """``current`` / ``previous`` where a csv-table's rows are in TF-A's data folders."""
    parts = file.replace("\\", "/").split("/")
    return parts[-2] if len(parts) >= 2 and parts[-2] in _FOLDERS else None


def _grid_table(page: _Page, numbered, number_: int, line: str):
    """A ``.. table::`` (its title may run over several lines) or a bare grid table."""
    directive = _DIRECTIVE.match(line)
    title_parts, item = [], (number_, line)
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
    if item:
        numbered.push_back(item)
    name, where = page.name, f"{page.name}:{number_}"
    title = _plain(" ".join(title_parts or [page.heading]))
    if not grid:
        if directive and _RELEASE.match(title):
            raise IngestError(where, f"no grid table under `.. table:: {title:.60}`; {_EXPECTED}")
        return Skipped(where, f"`.. table:: {title:.60}` holds no grid table")
    rows = _grid.rows(grid, name, _EXPECTED)
    at = _header_at(rows)
    if at is None:
        return _other_grid(rows, title_parts, page, directive, grid[0][0], title)
    header, places = at
    captions = " ".join(" ".join(c for c in cells if c) for _, cells in rows[:header])
    if not directive:
        return Skipped(f"{name}:{grid[0][0]}", "a per-core grid table with no `.. table::` title naming "
                                               "its test and release")
    body = [(f"{name}:{n}", cells) for n, cells in rows[header + 1:]]
    return _release_table(page, " ".join(title_parts), rows[header][1], body, where, None, captions)


def _header_at(rows: list) -> tuple[int, int] | None:
    """(the row of the ``Cluster | Core`` header, how many place columns: 2, or 3 with the
    Package column of platperf's own tables of several packages), or None."""
    return next(((k, n) for k, (_, cells) in enumerate(rows) for n in (2, 3)
                 if len(cells) > n and [c.lower() for c in cells[:n]] == ["package", "cluster", "core"][3 - n:]),
                None)


def _other_grid(rows, title_parts, page: _Page, directive, first_line: int, title: str):
    """A grid table without a ``Cluster | Core`` header: historic per-CPU, the board's words,
    or not taken."""
    name = page.name
    if rows and len(rows[0][1]) > 1 and rows[0][1][0].lower() == "cpu" and not _RELEASE.match(title):
        return _per_cpu(rows, " ".join(" ".join(title_parts or [page.heading]).split()), name)
    first = " | ".join(rows[0][1]) if rows else ""
    if directive and _RELEASE.match(title):
        raise IngestError(f"{name}:{first_line}", f"the table {title!r:.60} has no `Cluster | Core` header; "
                                                  f"{_EXPECTED}")
    if not directive and page.heading and len(rows) > 1 and all(len(c) == len(rows[0][1]) for _, c in rows):
        return _words(rows, page.heading, name)
    return Skipped(f"{name}:{first_line}", f"a grid table `{first:.70}` that is not a per-core table of a release")


def _release_table(page: _Page, raw_title: str, header: list[str], body: list, where: str,
                   folder: str | None, captions: str) -> Iterator[Result | Note]:
    """The figures of one per-core table of a release: ``body`` is [(``file:line``, cells)]."""
    at = _header_at([(0, header)])
    if at is None:
        raise IngestError(where, f"the table {_csv_directive.short(_words_of(raw_title), 60)} has no "
                                 f"`Cluster | Core` header; {_EXPECTED}")
    places = at[1]
    title = _plain(raw_title)
    run, printed = page.release(title, where, folder)
    named = _RELEASE.match(title)
    what = (named.group(1) if named else title).strip()
    test = _TESTS.get(what, what)
    unit = page.unit or _unit(raw_title)
    metrics = [sys.intern(_METRICS.get(m, m)) for m in (c.lower().replace(" ", "_") for c in header[places:])]
    shared = {"column": sys.intern(run), "release": sys.intern(printed or run)}
    if captions:
        shared["caption"] = sys.intern(captions)
    if test == what:
        shared["title"] = sys.intern(what)
    rows = []
    for row_where, cells in body:
        if len(cells) != len(metrics) + places:
            raise IngestError(row_where, f"{len(cells)} cells in a row of a {len(metrics) + places}-column "
                                         f"table; {_EXPECTED}")
        rows.append((row_where, tuple(_index(c, row_where, what_) for c, what_
                                      in zip(cells[:places], ("package", "cluster", "core")[3 - places:])),
                     cells[places:]))
    counts = Counter(place for _, place, _ in rows)
    repeated = [place for place, n in counts.items() if n > 1]
    if repeated:
        yield Note(where, f"the table {_csv_directive.short(_words_of(raw_title), 60)} repeats "
                                   f"{', '.join(_place(p) for p in repeated)}: those rows are kept apart in the page's "
                                   "order (params row=1, 2), as the page's deltas pair them")
    seen: Counter = Counter()
    for row_where, place, cells in rows:
        seen[place] += 1
        params = {"test": test, **({"row": seen[place]} if counts[place] > 1 else {})}
        package, cluster, core = (None,) * (3 - places) + place
        for metric, cell in zip(metrics, cells):
            if cell:
                yield _figure(cell, row_where, metric, unit, params, (package, cluster, core), shared)


def _words_of(title: str) -> str:
    """A title as printed, without its markup, for a message."""
    return " ".join(title.replace("``", "").split())


def _figure(cell: str, where: str, metric: str, unit: str, params: dict, place: tuple, shared: dict) -> Result:
    m = _CELL.match(cell)
    if m is None:
        raise IngestError(where, f"{metric} cell {cell!r:.40}: expected a number, optionally `(+x.xx%)`")
    extra = {**shared, "source": where, "published": sys.intern(m.group(1))}
    if unit != "us":
        extra["published_unit"] = unit
    if m.group(2) is not None:
        extra["published_delta_pct"] = number(m.group(2), where, "a percentage", signed=True)
    value = number(m.group(1), where, f"{metric} in {_SPELT.get(unit, unit)}") * TO_US[unit]
    package, cluster, core = place
    return Result(benchmark=BENCHMARK, params=params, metric=metric, unit="us", direction="lower",
                  samples=[value], mode=mode_of(params["test"]), package=package, cluster=cluster, core=core,
                  extra=extra)


def _place(place: tuple) -> str:
    return " ".join(f"{what} {n}" for what, n in zip(("package", "cluster", "core")[3 - len(place):], place))


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
