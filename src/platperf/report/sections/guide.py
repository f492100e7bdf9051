"""The performance guide as TI prints it: its sections and csv-table titles, its row names
and units, one column per run (imported board or measured), ``avg (min X, max Y)`` cells.

Each column holds the board-level figures of its run (:mod:`platperf.compare.board_level`: serial
results, the mean of the per-CPU medians with their min and max; an imported board's
published figure and its published min and max). Each figure's key is placed by
:func:`platperf.guide.to_cell` (TI's aliases of a row repeat it), so ``platperf ingest
rst-csv-table`` reads this section back to the same keys and values.

The tables are TI's, table by table: a table the guide printed once per board (its storage
tables) is printed once per board, and a column of an imported page keeps the table it came
from; columns keep the page's order and rows the page's, its ``n/a`` cells and the rows it
names by a command (``Command Used``) are printed again; the page's own columns (a power
table's, which name no board) are not prefixed with a label; a table of several cells a run
prints ``avg (min, max)`` over that run's samples where TI does (boot time). The boards sit in
TI's ``Evaluation Modules`` table, each measured board with its revision and memory data
rate when it tells them.
"""
from __future__ import annotations

import math

from ... import guide
from ...compare import board_level
from ...vocab import OWN_SECTION
from ...vocab.figures import spread
from ..data import ReportData, machine_read
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
BOARDS = "Evaluation Modules"
NOT_REPORTED = "not reported"


def cell(figure: board_level.Figure) -> str:
    return spread(figure.value, figure.min, figure.max)


def _line(source) -> float:
    """``"guide.rst:72"`` -> 72: where an imported cell was read."""
    tail = str(source or "").rpartition(":")[2]
    return int(tail) if tail.isdigit() else math.inf


def _texts(value) -> list[str]:
    return [value] if isinstance(value, str) else [v for v in value or () if isinstance(v, str)]


class _Table:
    def __init__(self, title: str, group):
        self.title, self.group = title, group
        self.columns: dict[tuple[int, str], float] = {}      # (run column, header) -> place
        self.rows: dict[str, dict[tuple[int, str], str]] = {}
        self.row_lines: dict[str, float] = {}                # row -> its line in the page
        self.widths: dict[str, int] = {}                     # row -> cells the page printed
        self.line = math.inf                                 # the table's line in the page

    def put(self, i: int, column: str, row: str, text: str, at: float, line: float):
        self.columns.setdefault((i, column), at)
        self.rows.setdefault(row, {})[(i, column)] = text
        self.row_lines[row] = min(self.row_lines.get(row, math.inf), line)
        self.line = min(self.line, line)


def build(data: ReportData) -> list[Section] | None:
    tables: dict[tuple, _Table] = {}
    placed: dict[str, tuple[tuple[str, ...], list[str]]] = {}   # title -> (headings, row headers)
    bare: set[int] = set()          # columns of a page's own (board-less) tables
    for i, col in enumerate(data.columns):
        results = [r for r in col.results if r.benchmark not in OWN_SECTION]
        members: dict[guide.Key, list] = {}
        for r in results:           # an import says where its table sat in the guide
            key = guide.make_key(r.benchmark, r.params, r.metric, r.unit, r.direction)
            members.setdefault(key, []).append(r)
            header = _texts(board_level.published(r, "row_header"))
            if header and r.mode == "serial":
                placed.setdefault(guide.to_cell(key).title,
                                  (tuple(_texts(board_level.published(r, "section"))), header))
        imported = [r for r in results if _texts(board_level.published(r, "row_header"))]
        if imported and all(board_level.published(r, "column") == "" for r in imported):
            bare.add(i)
        for key, figure in board_level.board_figures(results).items():
            _place(tables, i, key, figure, members.get(key, []))
        for words in (w for run in col.runs for w in ((run.get("meta") or {}).get("published") or [])):
            _place_words(tables, placed, i, words)
    _join_measured(tables)
    if not tables:
        return None
    tree: dict = {}
    platperf_titles = set(guide.fallback.PLATPERF_TITLES.values())
    # the guide's order where the tables came from a guide, then as measured, platperf's last
    order = sorted(tables.values(), key=lambda t: (t.title in platperf_titles, t.line))
    boards = _boards(data, tables.pop((BOARDS, None), None), bare)
    for t in order:
        if t.title == BOARDS:
            continue
        headings = guide.sections(t.title) or placed.get(t.title, ((), []))[0] or OTHER
        node = tree
        for heading in headings:
            node = node.setdefault(heading, {})
        node.setdefault(None, []).append(_table(t, data, placed.get(t.title, ((), []))[1], bare))
    out = [_section(name, node, (name,)) for name, node in tree.items() if name is not None]
    return ([Section(BOARDS, tables=[boards])] if boards else []) + out


def _place(tables: dict, i: int, key: guide.Key, figure: board_level.Figure, members: list):
    """One board-level figure into its table(s): TI's row and column, in the table it came
    from (an import) or its board's own (a table TI prints once per board)."""
    first = members[0] if len(members) == 1 else None
    group = board_level.published(first, "table") if first is not None else None
    where = guide.to_cell(key, figure.n)
    if guide.spread(where.title) and figure.samples and figure.min is None:
        mean, low, high = figure.samples
        figure = board_level.Figure(mean, low, high, figure.n)
    row = board_level.published(first, "row") if first is not None else None
    command = next((c for r in members for c in _texts(r.extra.get("command"))), None)
    if not isinstance(row, str) and command and guide.row_header(where.title) == ("Command Used",):
        row = command               # a row says what ran: iperf3 and its arguments
    line = _line(board_level.published(first, "source")) if first is not None else math.inf
    if group is None and guide.per_board(where.title):
        group = ("board", i)
    text = cell(figure)
    headers, width = (board_level.published(first, name) if first is not None else None
                      for name in ("headers", "width"))
    headers = headers if isinstance(headers, list) else []
    for spot in (where, *guide.also(key)):
        name = row if isinstance(row, str) and spot is where else spot.row
        table = tables.setdefault((spot.title, group), _Table(spot.title, group))
        # within a board, the page's order of its columns
        at = headers.index(spot.column) + 1 if spot.column in headers else math.inf
        table.put(i, spot.column, name, text, at, line)
        if spot is where:           # the page's columns left empty
            for k, column in enumerate(headers, 1):
                if isinstance(column, str):
                    table.columns.setdefault((i, column), k)
        if spot is where and isinstance(width, int):
            table.widths[name] = width


def _place_words(tables: dict, placed: dict, i: int, words: dict):
    """A cell the page printed as words (``n/a``, a board's description) into its table."""
    title = words.get("title")
    if not isinstance(title, str) or words.get("layout"):     # another section's (TF-A's board)
        return
    group = next((t.group for t in tables.values() if t.title == title and (i, words.get("header")) in t.columns),
                 next((t.group for t in tables.values() if t.title == title and any(c[0] == i for c in t.columns)),
                      None))
    table = tables.setdefault((title, group), _Table(title, group))
    if title != BOARDS:
        placed.setdefault(title, (tuple(_texts(words.get("section"))), _texts(words.get("row_header"))))
    line = _line(words.get("where"))
    at = table.columns.get((i, words.get("header")), math.inf)
    table.put(i, str(words.get("header")), str(words.get("row")), str(words.get("text")), at, line)


def _join_measured(tables: dict):
    """A measured column of a table the guide prints once for all boards joins the boards
    of the page (its first table of that title), as one table."""
    for (title, group), table in list(tables.items()):
        if group is not None:
            continue
        page = sorted((t for (name, g), t in tables.items() if name == title and g is not None
                       and not (isinstance(g, tuple) and g[0] == "board")), key=lambda t: t.line)
        if page:
            into = page[0]
            for (i, column), at in table.columns.items():
                into.columns.setdefault((i, column), at)
            for row, cells in table.rows.items():
                into.rows.setdefault(row, {}).update(cells)
                into.row_lines.setdefault(row, table.row_lines.get(row, math.inf))
            del tables[(title, group)]


def _table(t: _Table, data: ReportData, row_headers: list[str], bare: set) -> Table:
    headers = list(row_headers or guide.row_header(t.title) or ["Benchmarks"])
    # board by board, as TI; within a board, the page's order of its columns
    columns = sorted(t.columns, key=lambda c: (c[0], t.columns[c]))
    if guide.sorted_rows(t.title):
        names = sorted(t.rows)
    else:
        names = sorted(t.rows, key=lambda r: t.row_lines.get(r, math.inf))     # stable: as measured
    rows = []
    for name in names:
        lead = name.split(", ", len(headers) - 1) if len(headers) > 1 else [name]
        lead += [""] * (len(headers) - len(lead))
        row = lead + [t.rows[name].get(c, "") for c in columns]
        width = t.widths.get(name, len(row))
        rows.append(row[:width] if not any(row[width:]) else row)   # as short as the page printed it
    return Table(title=t.title, headers=headers + [what if i in bare else f"{data.columns[i].name}: {what}"
                                                   for i, what in columns],
                 rows=rows, layout="guide")


def _boards(data: ReportData, page: _Table | None, bare: set) -> Table | None:
    """TI's Evaluation Modules table: the boards a page describes, in its words, then each
    measured board: its model, revision, CPU frequency and memory data rate as far as its
    fingerprint tells them. A run whose machine was never read (an imported file, a probe
    stream without its board's /sys) has no row: nothing of its board is known."""
    rows = []
    if page is not None:
        for name in sorted(page.rows, key=lambda r: page.row_lines.get(r, math.inf)):
            rows.append([name, next(iter(page.rows[name].values()))])
    for i, col in enumerate(data.columns):
        text = "" if i in bare or not any(machine_read(run) for run in col.runs) else board_text(col.fingerprint)
        if text:
            rows.append([col.name, text])
    return Table(BOARDS, ["Name", "Description"], rows, layout="grid") if rows else None


def board_text(fp: dict) -> str:
    """A measured board as TI describes its evaluation modules: ``AM62x SK rev E2 with ARM
    running at 1.4GHz, DDR4 data rate 1600 MT/S``. What the board does not tell is left out
    of the sentence and named once at its end: ``AM625 SK with ARM running at 1.4GHz (rev and
    memory data rate not reported)``; "" when it tells not even its model."""
    machine = fp.get("machine") if isinstance(fp.get("machine"), dict) else {}
    cpu = fp.get("cpu") if isinstance(fp.get("cpu"), dict) else {}
    model = machine.get("model") or cpu.get("model")
    if not model:
        return ""
    revision = machine.get("revision")
    memory = fp.get("memory") if isinstance(fp.get("memory"), dict) else {}
    rate = memory.get("data_rate_mts")
    policies = ((fp.get("cpufreq") or {}).get("policies") or []) if isinstance(fp.get("cpufreq"), dict) else []
    khz = max((p.get("max_khz") or 0 for p in policies if isinstance(p, dict)), default=0)
    speed = f"{khz / 1e6:g}GHz" if khz >= 1e6 else f"{khz / 1e3:g}MHz" if khz else None
    cores = "ARM" if str(cpu.get("arch") or "").startswith(("aarch64", "arm")) else "CPU"
    text = " ".join([str(model)] + [f"rev {revision}"] * bool(revision)
                    + [f"with {cores} running at {speed}"] * bool(speed))
    if rate:
        text += f", {memory.get('type') or 'memory'} data rate {rate} MT/S"
    untold = [what for what, told in (("rev", revision), ("CPU frequency", speed), ("memory data rate", rate))
              if not told]
    if untold:
        named = ", ".join(untold[:-1]) + " and " + untold[-1] if len(untold) > 1 else untold[0]
        text += f" ({named} {NOT_REPORTED})"
    return text


def _section(title: str, node: dict, path: tuple) -> Section:
    return Section(title=title, text=_TEXT.get(path, ""), tables=node.get(None, []),
                   subsections=[_section(name, child, path + (name,))
                                for name, child in node.items() if name is not None])
