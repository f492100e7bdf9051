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
column headers (``powerdown``, ``wakeup``, ``cache_flush``, ``latency``) in µs. Any other
title keys its table by the title itself.

A cell's ``(+x.xx%)`` is the page's own delta from the previous release: the value is the
sample, the delta is kept in ``extra["published_delta_pct"]`` (compare recomputes deltas).
A row spanning the whole table (``test_rt_instr_cpu_off_serial (latest)``) is a caption;
grid tables without ``Cluster | Core`` headers (the page's historic per-CPU tables, which
name no release) are skipped. One run per release (``extra["column"]``), in release order.
"""
from __future__ import annotations

import re

from ..records import Result
from ._numbers import number
from .errors import IngestError
from ..vocab.tfa import TFTF_BENCHMARK as BENCHMARK, TFTF_TITLES as TITLES
from .tftf_rt_instr import mode_of

_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+table::\s*(.*)$")
_RELEASE = re.compile(r"^(.*)\(\s*(v?\d{1,4}(?:\.\d{1,4}){0,3}(?:-rc\d{1,3})?|latest)\s*\)\s*$")
_CELL = re.compile(r"^(\S+?)\s*(?:\(\s*(\S+?)\s*%\s*\))?$")
_RULE = re.compile(r"^\+(?:[-=]+\+)+$")
# The page's spellings of the TFTF tests' titles -> TFTF test names.
_ALIASES = {"CPU_VERSION latency": "PSCI_VERSION latency"}
_EXPECTED = ("expected `.. table:: <title> (vX.Y)` over a grid table whose header is "
             "`| Cluster | Core | <metric> ... |`")


def _plain(title: str) -> str:
    text = " ".join(title.replace("``", "").split())
    for alias, name in _ALIASES.items():
        text = text.replace(alias, name)
    return text


_TESTS = {_plain(title): test for test, title in TITLES.items()}


def _release(text: str) -> str:
    return text if text == "latest" or text.startswith("v") else f"v{text}"


def release_order(release: str) -> tuple:
    """v2.9 < v2.10 < v2.10-rc... by number; ``latest`` last."""
    if release == "latest":
        return (1, ())
    return (0, tuple(int(n) for n in re.findall(r"\d+", release)))


def parse(text: str, name: str) -> list[Result]:
    lines = text.splitlines()
    results: list[Result] = []
    tables = 0
    i = 0
    while i < len(lines):
        directive = _DIRECTIVE.match(lines[i])
        if not directive:
            i += 1
            continue
        where = f"{name}:{i + 1}"
        indent = len(directive.group(1))
        title_parts = [directive.group(2)]
        i += 1
        while i < len(lines) and lines[i].strip() and not lines[i].lstrip().startswith(("+", ":")) \
                and len(lines[i]) - len(lines[i].lstrip()) > indent:
            title_parts.append(lines[i])
            i += 1
        while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith(":")):
            i += 1
        grid = []
        while i < len(lines) and lines[i].strip().startswith(("+", "|")):
            grid.append((i + 1, lines[i].strip()))
            i += 1
        rows = _rows(grid, name)
        # platperf's own tables of a machine with several packages have a Package column first
        header, places = next(((k, n) for k, (_, cells) in enumerate(rows) for n in (2, 3)
                               if len(cells) > n and [c.lower() for c in cells[:n]]
                               == ["package", "cluster", "core"][3 - n:]), (None, 2))
        if header is None:
            continue   # not a per-core table: the historic per-CPU ones, any other
        title = _plain(" ".join(title_parts))
        release = _RELEASE.match(title)
        if release is None:
            raise IngestError(where, f"table title {title!r:.80} names no release in its last "
                                     f"parentheses, as `(v2.10)`; {_EXPECTED}")
        tables += 1
        what, version = release.group(1).strip(), _release(release.group(2))
        test = _TESTS.get(what, what)
        metrics = [c.lower().replace(" ", "_") for c in rows[header][1][places:]]
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
                extra = {"column": version, "source": row_where}
                if m.group(2) is not None:
                    extra["published_delta_pct"] = number(m.group(2), row_where, "a percentage", signed=True)
                results.append(Result(
                    benchmark=BENCHMARK, params={"test": test}, metric=metric, unit="us",
                    direction="lower", samples=[number(m.group(1), row_where, f"{metric} in µs")],
                    mode=mode_of(test), package=package, cluster=cluster, core=core, extra=extra))
    if not tables:
        raise IngestError(f"{name}:1", f"no per-core grid tables in the file; {_EXPECTED} "
                                       "(is this TF-A's PSCI performance page?)")
    # one run per release, oldest first: `history` then draws them in release order
    return sorted(results, key=lambda r: release_order(r.extra["column"]))


def _index(cell: str, where: str, what: str) -> int:
    if not (cell.isascii() and cell.isdigit() and len(cell) <= 6):
        raise IngestError(where, f"{what} {cell!r:.40} is not a small unsigned integer; {_EXPECTED}")
    return int(cell)


def _rows(grid: list[tuple[int, str]], name: str) -> list[tuple[int, list[str]]]:
    """(line number, cells) per row of a grid; a row's several lines join cell by cell; a
    row spanning fewer columns than the others (a caption row) is kept as it is."""
    rows, pending = [], []
    for number_, line in grid + [(0, "+")]:
        if _RULE.match(line) or line == "+":
            if pending:
                first = pending[0][0]
                width = max(len(cells) for _, cells in pending)
                joined = [" ".join(cells[k] for _, cells in pending if k < len(cells)).strip()
                          for k in range(width)]
                rows.append((first, joined))
            pending = []
        elif line.startswith("|"):
            pending.append((number_, [c.strip() for c in line.strip("|").split("|")]))
        else:
            raise IngestError(f"{name}:{number_}", f"grid line {line!r:.40} is neither a rule (+---+) "
                                                   f"nor a row (| ... |); {_EXPECTED}")
    return rows
