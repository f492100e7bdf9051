"""The performance guide as TI prints it: its sections and csv-table titles, its row names
and units, one column per run (imported board or measured), ``avg (min X, max Y)`` cells.

Each column holds the board-level figures of its run (:mod:`platperf.placement`: serial
results, the mean of the per-CPU medians with their min and max; an imported board's
published figure and its published min and max). Each figure's key is placed by
:func:`platperf.guide.to_cell` (TI's aliases of a row repeat it), so ``platperf ingest
rst-csv-table`` reads this section back to the same keys and values.
"""
from __future__ import annotations

import math

from ... import guide, placement
from ...vocab import OWN_SECTION
from ...vocab.figures import spread
from ..data import ReportData
from ..document import Section, Table

LMBENCH_TEXT = """\
Names follow LMBench and the TI performance guide. lat_mem_rd-strideS-szN: a pointer chase
with stride S bytes over N, where N is LMBench's size in MB (2^20 bytes) times 1000, so sz31k
is 32 KiB and sz1000k is 1 MiB (below 1k, N is bytes: sz50 is 50 bytes); sizes up to a cache
level's size give that level's latency, sizes of at least twice the last-level cache give the
latency of external memory. bw_mem-K-N: LMBench bw_mem kernel K over N (16mb = 16 MiB).

MB/s is 10^6 bytes per second, as STREAM and LMBench's bw_mem both count it (bw_mem's MB is
1000*1000 bytes; only lat_mem_rd's sizes are in 2^20-byte MB). LMBench bw_mem counts the
bytes a copy moves once, STREAM counts them read and written, so STREAM copy reads about
twice bw_mem bcopy.

A measured column is the board-level figure of the run: its serial results, the mean of the
per-CPU medians with their minimum and maximum when there are several CPUs or runs."""
STREAM_TEXT = "Stream rows use the largest array size measured."
PLATPERF_TEXT = ("Figures of platperf with no row in the guide, as benchmark[parameters] metric "
                 "(unit); sizes in bytes.")
_TEXT = {("System Benchmarks", "LMBench"): LMBENCH_TEXT, ("System Benchmarks", "Stream"): STREAM_TEXT,
         ("System Benchmarks", "platperf"): PLATPERF_TEXT}
OTHER = ("Other Tables",)


def cell(figure: placement.Figure) -> str:
    return spread(figure.value, figure.min, figure.max)


def _line(source) -> float:
    """``"guide.rst:72"`` -> 72: where an imported cell was read."""
    tail = str(source or "").rpartition(":")[2]
    return int(tail) if tail.isdigit() else math.inf


def _texts(value) -> list[str]:
    return [value] if isinstance(value, str) else [v for v in value or () if isinstance(v, str)]


class _Table:
    def __init__(self, title: str):
        self.title = title
        self.columns: list[tuple[int, str]] = []        # (run column, header without board)
        self.rows: dict[str, dict[tuple[int, str], str]] = {}


def build(data: ReportData) -> list[Section] | None:
    tables: dict[str, _Table] = {}
    placed: dict[str, tuple[tuple[str, ...], list[str]]] = {}   # title -> (headings, row headers)
    first_line: dict[str, float] = {}                            # title -> its line in the guide
    for i, col in enumerate(data.columns):
        for r in col.results:       # an import says where its table sat in the guide
            header = _texts(placement.published(r, "row_header"))
            if header and r.mode == "serial":
                title = guide.to_cell(guide.make_key(r.benchmark, r.params, r.metric, r.unit,
                                                     r.direction)).title
                placed.setdefault(title, (tuple(_texts(placement.published(r, "section"))), header))
                line = _line(placement.published(r, "source"))
                first_line[title] = min(first_line.get(title, line), line)
        results = [r for r in col.results if r.benchmark not in OWN_SECTION]
        for key, figure in placement.board_figures(results).items():
            text = cell(figure)
            for where in (guide.to_cell(key, figure.n), *guide.also(key)):
                table = tables.get(where.title) or tables.setdefault(where.title, _Table(where.title))
                if (i, where.column) not in table.columns:
                    table.columns.append((i, where.column))
                table.rows.setdefault(where.row, {})[(i, where.column)] = text
    if not tables:
        return None
    tree: dict = {}
    platperf_titles = set(guide.fallback.PLATPERF_TITLES.values())
    # the guide's order where the tables came from a guide, then as measured, platperf's last
    order = sorted(tables, key=lambda t: (t in platperf_titles, first_line.get(t, math.inf)))
    for title in order:
        headings = guide.sections(title) or placed.get(title, ((), []))[0] or OTHER
        node = tree
        for heading in headings:
            node = node.setdefault(heading, {})
        node.setdefault(None, []).append(_table(tables[title], data, placed.get(title, ((), []))[1]))
    return [_section(name, node, (name,)) for name, node in tree.items() if name is not None]


def _table(t: _Table, data: ReportData, row_headers: list[str]) -> Table:
    headers = row_headers or [guide.row_header(t.title) or "Benchmarks"]
    columns = sorted(t.columns, key=lambda c: c[0])                  # board by board, as TI
    names = sorted(t.rows) if guide.sorted_rows(t.title) else list(t.rows)
    rows = []
    for name in names:
        lead = name.split(", ", len(headers) - 1) if len(headers) > 1 else [name]
        lead += [""] * (len(headers) - len(lead))
        rows.append(lead + [t.rows[name].get(c, "") for c in columns])
    return Table(title=t.title, headers=headers + [f"{data.columns[i].name}: {what}" for i, what in columns],
                 rows=rows, layout="guide")


def _section(title: str, node: dict, path: tuple) -> Section:
    return Section(title=title, text=_TEXT.get(path, ""), tables=node.get(None, []),
                   subsections=[_section(name, child, path + (name,))
                                for name, child in node.items() if name is not None])
