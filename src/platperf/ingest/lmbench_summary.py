"""LMBench's summary tables (``make summary`` / ``make see``: scripts/getsummary of lmbench 2 and 3).

The summary is the form most published LMBench figures take::

                     L M B E N C H  3 . 0   S U M M A R Y
    Processor, Processes - times in microseconds - smaller is better
    ------------------------------------------------------------------------------
    Host                 OS  Mhz null null      open slct sig  sig  fork exec sh
                                 call  I/O stat clos TCP  inst hndl proc proc proc
    --------- ------------- ---- ---- ---- ---- ---- ---- ---- ---- ---- ---- ----
    revyos-lp Linux 6.6.108 1846 0.28 0.32 0.92 1.82 2.61 0.31 1.19 341. 857. 2059

Each row is one results file of one host (``Host`` cut to 9 characters, ``OS`` to 13); each
column a figure. getsummary prints a figure in its column's width, cut rather than rounded
(``341.`` is 341.x, ``13.K`` is 13.x thousand, ``11.7K`` 11700, ``1.2M`` 1.2 million): the
figure is stored as printed (K and M multiplied out) and the cell kept in
``extra["published"]``. A blank cell is a figure the run did not measure: absent, never 0.
The header's dash line gives each column's span; a row's cells are placed under the column
they sit in, so blanks in the middle of a row keep the columns after them in place.

One run per row (``Result.extra["column"]``: ``host OS``): the hosts of one summary never pool.
getsummary prints one row per results file, so a host that ran twice (``make rerun``, or two
kernels printing the same truncated ``uname``) has two rows; they stay two runs, the second
named ``host OS #2``, since the summary cannot say whether they measured the same thing.

Keys are platperf's where the column is a measurement it already names
(:mod:`platperf.vocab.lmbench`, TI's LMBench table): ``null call`` is ``os-syscall`` op ``null``,
``2p/16K`` ``os-ctx`` procs 2 size 16 KiB, ``Pipe`` latency ``os-ipc`` kind ``pipe``, ``L1 $``
``mem-latency`` seq stride 128 size 1 KiB (getsummary's lat_mem_rd point), ``0K File Create``
``os-fs`` size 0 ``create`` in files/s (getsummary prints microseconds per file, 10^6 / files
per second; the figure is turned back), ``intgr add`` ``cpu-ops`` int add. The other columns
(``null I/O``, the average of read and write; ``Mmap Latency``, ``Main mem``: a point getsummary
picked) are ``lmbench`` ``test`` = LMBench's own name for them. A figure printed twice
(``Mhz``, ``2p/0K ctxsw``) is read from its first table.

Skipped and said: getpercent's tables (``make see`` prints them after the summary: factors of
the best host, not figures). Refused, with the line: a table header platperf does not know the
columns of, a cell that is no figure, cells that do not sit under the header's columns, and a
last row cut short (the file ends in the middle of a figure).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Iterator

from ..records import Result
from .errors import IngestError, Note, Skipped

BANNER = re.compile(r"L\s?M\s?B\s?E\s?N\s?C\s?H\s+(\d)\s?\.\s?(\d)\s+S\s?U\s?M\s?M\s?A\s?R\s?Y")
_PERCENT = re.compile(r"Comparison to best of the breed|factor slower than the best|percentage of the best")
_DASHES = re.compile(r"-+")
_CELL = re.compile(r"^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[KM]?$")
_GUESS = re.compile(r"\s+((?:No L[12] cache|Bad mhz)\?)\s*$")

US, NS, MBS = "us", "ns", "MB/s"

# A table of getsummary's, blank cells and cut figures as it prints them (read by the ``lmbench`` format).
EXAMPLE = """\
                 L M B E N C H  3 . 0   S U M M A R Y
*Local* Communication latencies in microseconds - smaller is better
---------------------------------------------------------------------
Host                 OS 2p/0K  Pipe AF     UDP  RPC/   TCP  RPC/ TCP
                        ctxsw       UNIX         UDP         TCP conn
--------- ------------- ----- ----- ---- ----- ----- ----- ----- ----
revyos-lp Linux 6.6.108  11.2             66.9        87.4       174.
"""


@dataclass(frozen=True)
class Column:
    """What a summary column holds: ``key`` (benchmark, params, metric, unit, direction), or
    None for a column of words (``Guesses``). ``per_file``: getsummary prints 10^6 / figure."""
    name: str
    key: tuple | None
    per_file: bool = False


def _lm(test, unit=US, metric="latency", direction="lower"):
    return ("lmbench", {"test": test}, metric, unit, direction)


def _os(benchmark, params, unit=US, metric="latency", direction="lower"):
    return (benchmark, params, metric, unit, direction)


MHZ = Column("Mhz", _lm("Mhz", "MHz", "clock", "higher"))
CTX0 = Column("2p/0K ctxsw", _os("os-ctx", {"procs": 2, "size": 0}))


def _ctx(procs, kib):
    return Column(f"{procs}p/{kib}K ctxsw", _os("os-ctx", {"procs": procs, "size": kib * 1024}))


def _ops(kind, label, ops):
    return [Column(f"{label} {op}", _os("cpu-ops", {"type": kind, "op": op}, NS)) if op != "bogo"
            else Column(f"{label} bogo", _lm(f"{kind} bogomflops", NS)) for op in ops]


def _fs(kib, what):
    return Column(f"{kib}K File {what.title()}", _os("os-fs", {"size": kib * 1024}, "files/s", what, "higher"), True)


def _bw(name, key=None):
    return Column(name, key or _lm(name, MBS, "bandwidth", "higher"))


_PROCESSOR = [MHZ, Column("null call", _os("os-syscall", {"op": "null"})), Column("null I/O", _lm("null I/O")),
              Column("stat", _os("os-syscall", {"op": "stat"})), Column("open clos", _os("os-syscall", {"op": "open"})),
              Column("slct TCP", _os("os-ipc", {"kind": "select-tcp", "fds": 100})),
              Column("sig inst", _os("os-signal", {"op": "install"})),
              Column("sig hndl", _os("os-signal", {"op": "catch"})),
              Column("fork proc", _os("os-proc", {"op": "fork"})), Column("exec proc", _os("os-proc", {"op": "exec"})),
              Column("sh proc", _os("os-proc", {"op": "shell"}))]
_FILE_VM = [_fs(0, "create"), _fs(0, "delete"), _fs(10, "create"), _fs(10, "delete"),
            Column("Mmap Latency", _lm("Mmap Latency")), Column("Prot Fault", _os("os-signal", {"op": "prot"})),
            Column("Page Fault", _os("os-pagefault", {}))]
_LOCAL = [CTX0, Column("Pipe", _os("os-ipc", {"kind": "pipe"})), Column("AF UNIX", _os("os-ipc", {"kind": "unix"})),
          Column("UDP", _lm("UDP latency using localhost")), Column("RPC/UDP", _lm("RPC/udp latency using localhost")),
          Column("TCP", _os("os-ipc", {"kind": "tcp"})), Column("RPC/TCP", _lm("RPC/tcp latency using localhost")),
          Column("TCP conn", _os("os-ipc", {"kind": "connect"}))]
_MEMORY = [MHZ, Column("L1 $", _os("mem-latency", {"pattern": "seq", "size": 1024, "stride": 128}, NS)),
           Column("L2 $", _os("mem-latency", {"pattern": "seq", "size": 131072, "stride": 128}, NS)),
           Column("Main mem", _lm("Main mem", NS))]
GUESSES = Column("Guesses", None)

# table title (as printed, up to " - ") -> {number of columns after Host and OS: columns}
# (LMBench 2 and 3 differ where the counts do: 3 added tlb/cache/mem/scal, 100fd selct, Rand mem)
TABLES: dict[str, dict[int, list[Column]]] = {
    "Basic system parameters": {
        2: [Column("Description", None), MHZ],
        6: [Column("Description", None), MHZ, Column("tlb pages", _lm("tlb pages", "pages", "size", "higher")),
            Column("cache line bytes", _lm("cache line", "bytes", "size", "higher")),
            Column("mem par", _lm("mem par", "x", "parallelism", "higher")),
            Column("scal load", _lm("scal load", "x", "load", "higher"))]},
    "Processor, Processes": {11: _PROCESSOR},
    "Basic integer operations": {5: _ops("int", "intgr", ("bit", "add", "mul", "div", "mod"))},
    "Basic uint64 operations": {5: _ops("int64", "int64", ("bit", "add", "mul", "div", "mod"))},
    "Basic float operations": {4: _ops("float", "float", ("add", "mul", "div", "bogo"))},
    "Basic double operations": {4: _ops("double", "double", ("add", "mul", "div", "bogo"))},
    "Context switching": {7: [CTX0, _ctx(2, 16), _ctx(2, 64), _ctx(8, 16), _ctx(8, 64), _ctx(16, 16), _ctx(16, 64)]},
    "*Local* Communication latencies": {8: _LOCAL},
    "*Remote* Communication latencies": {5: [Column(f"remote {n}", _lm(f"{n} latency to a remote host"))
                                             for n in ("UDP", "RPC/UDP", "TCP", "RPC/TCP", "TCP conn")]},
    "File & VM system latencies": {7: _FILE_VM, 8: _FILE_VM + [Column("100fd selct", _lm("Select on 100 fd's"))]},
    "*Local* Communication bandwidths": {9: [
        _bw("Pipe", _os("os-ipc-bw", {"kind": "pipe"}, MBS, "bandwidth", "higher")),
        _bw("AF UNIX", _os("os-ipc-bw", {"kind": "unix"}, MBS, "bandwidth", "higher")),
        _bw("TCP", _lm("Socket bandwidth using localhost", MBS, "bandwidth", "higher")),
        _bw("File reread"), _bw("Mmap reread"), _bw("Bcopy (libc)"), _bw("Bcopy (hand)"), _bw("Mem read"),
        _bw("Mem write")]},
    "Memory latencies": {5: _MEMORY + [GUESSES], 6: _MEMORY + [Column("Rand mem", _lm("Rand mem", NS)), GUESSES]},
}


def table_title(line: str) -> str | None:
    """The TABLES name a summary title line starts with (``Context switching - times in ...``)."""
    text = line.strip()
    return next((t for t in TABLES if text.startswith(t)), None)


@dataclass
class _Table:
    title: str
    line: int                       # where its title is
    header: list = field(default_factory=list)
    spans: list = field(default_factory=list)      # (start, end) of each dash group
    columns: list | None = None
    aligned: bool = True            # every row so far ends at its last cell's column end
    rows: dict = field(default_factory=dict)       # "host OS" -> rows read of it in this table


class Summary:
    """Reads the lines of a summary as they come (``feed``); ``end`` checks the last row."""

    def __init__(self, name: str):
        self.name = name
        self.version: str | None = None     # "3.0" once a banner is read
        self.percent = False                # inside getpercent's tables
        self.table: _Table | None = None
        self.state = ""                     # "title" (dash rule next), "header", "rows"
        self.seen: set = set()              # (run, key) read: a figure printed twice is read once
        self.repeated: set = set()          # "host OS" said to have several rows
        self.last = None                    # the last line, when it was a row: checked by end()
        self.declined = False               # the line fed ended a table without being one of its rows

    def takes(self, line: str) -> bool:
        """Whether ``line`` is the summary's: its banner, a table of it, getpercent's tables;
        the lines around them (make's, a run log's) are not."""
        if BANNER.search(line) or self.percent:
            return True
        return self.version is not None and (self.table is not None or bool(table_title(line) or
                                                                           _PERCENT.search(line)))

    def feed(self, line: str, number: int) -> Iterator:
        where = f"{self.name}:{number}"
        self.last, self.declined = None, False
        banner = BANNER.search(line)
        if banner:
            self.version, self.percent, self.table, self.state = f"{banner[1]}.{banner[2]}", False, None, ""
            return
        if _PERCENT.search(line):
            if not self.percent:
                yield Skipped(where, "getpercent's tables (factors of the best host, not figures) not imported")
            self.percent, self.table, self.state = True, None, ""
            return
        title = table_title(line)
        if title and not self.percent:
            self.table, self.state = _Table(title, number), "title"
            return
        if self.table is None:
            return
        if self.state == "title":
            if line.strip() and not line.strip().strip("-"):
                self.state = "header"          # the rule under the title
            elif number - self.table.line > 2:
                self.table, self.state = None, ""
            return                             # (the memory table's "(WARNING - may not be correct ...)")
        if self.state == "header":
            yield from self._header(line, where)
            return
        if self.state == "rows":
            yield from self._row(line, number, where)

    def _header(self, line: str, where: str) -> Iterator:
        groups = [(m.start(), m.end()) for m in _DASHES.finditer(line)]
        if len(groups) < 3 or line.replace("-", "").strip():
            self.table.header.append(line)
            if len(self.table.header) > 4:
                raise IngestError(where, f"expected the dash line under the `{self.table.title}` header "
                                         "(--------- ------------- ----)")
            return
        table = self.table
        layouts = TABLES[table.title]
        table.columns = layouts.get(len(groups) - 2)
        if table.columns is None:
            counts = " or ".join(str(n) for n in layouts)
            raise IngestError(where, f"a `{table.title}` table of {len(groups) - 2} columns after Host and OS; "
                                     f"LMBench 2 and 3 print {counts}: not an LMBench summary platperf knows")
        table.spans = groups
        self.state = "rows"
        yield from ()

    def _row(self, line: str, number: int, where: str) -> Iterator:
        table = self.table
        if not line.strip():
            return
        host_span, os_span = table.spans[0], table.spans[1]
        if len(line.rstrip()) < os_span[1]:
            if len(line) > host_span[0] and line[host_span[0]] != " ":
                self.last = (number, line, None, None, True)   # a row stopping inside Host or OS: cut if last
            return
        # getsummary prints "%-9.9s %13.13s": a space after the host, the OS right-aligned to its column
        if line[host_span[0]] == " " or line[host_span[1]] != " " or line[os_span[1] - 1] == " ":
            self.table, self.state, self.declined = None, "", True   # not a row: the table has ended
            return
        rest = line[os_span[1]:]
        guess = _GUESS.search(rest)
        if guess:
            rest = rest[:guess.start()]
        tokens = [(m.start() + os_span[1], m.end() + os_span[1], m.group()) for m in re.finditer(r"\S+", rest)]
        if not all(_CELL.match(t) or t == "-" or self._in_text_column(s, e) for s, e, t in tokens):
            self.table, self.state, self.declined = None, "", True   # words where figures belong: not a row
            return
        run = yield from self._run_name(line, host_span, os_span, where)
        placed = self._place(tokens, where)
        self._remember_last(number, line, placed)
        for index, (_start, _end, text) in placed:
            column = table.columns[index]
            if column.key is not None and text != "-":
                yield from self._figure(column, text, run, where, guess[1] if guess else None)

    def _in_text_column(self, start: int, end: int) -> bool:
        """A word under a column of words (Basic system parameters' Description)."""
        table = self.table
        return any(table.columns[i].key is None and start < e and end > s
                   for i, (s, e) in enumerate(table.spans[2:]))

    def _run_name(self, line: str, host_span, os_span, where: str):
        host = line[host_span[0]:os_span[0]].strip()
        system = line[os_span[0]:os_span[1]].strip()
        name = f"{host} {system}".strip()
        seen = self.table.rows.get(name, 0) + 1
        self.table.rows[name] = seen
        if seen == 2 and name not in self.repeated:
            self.repeated.add(name)
            yield Note(where, f"`{name}` has several rows in the `{self.table.title}` table (getsummary prints "
                              f"one row per results file): kept as runs `{name}`, `{name} #2`, ...")
        return name if seen == 1 else f"{name} #{seen}"

    def _place(self, tokens: list, where: str) -> list:
        """[(column index, token)]: each cell under the column whose span it overlaps most."""
        spans = self.table.spans[2:]
        placed, previous = [], -1
        for token in tokens:
            start, end, _ = token
            overlaps = [min(end, e) - max(start, s) for s, e in spans]
            best = max(range(len(spans)), key=lambda i: (overlaps[i], -abs(end - spans[i][1])))
            if overlaps[best] <= 0:
                best = min(range(len(spans)), key=lambda i: abs(end - spans[i][1]))
            if best <= previous:
                break
            placed.append((best, token))
            previous = best
        else:
            return placed
        figures = [i for i, c in enumerate(self.table.columns) if c.key is not None]
        if len(tokens) == len(figures):           # cells out of line, but one under each figure column
            return list(zip(figures, tokens))
        raise IngestError(where, f"the cells of this row do not sit under the {len(spans)} columns of the "
                                 f"`{self.table.title}` header; expected one figure or a blank under each")

    def _remember_last(self, number: int, line: str, placed: list):
        """The row's last cell and whether the rows before it ended at their column's end
        (getsummary right-aligns every figure in its column)."""
        table = self.table
        if not placed:
            return
        index, (_start, end, _text) = placed[-1]
        column_end = table.spans[2 + index][1]
        self.last = (number, line, end, column_end, table.aligned)
        table.aligned = table.aligned and end == column_end

    def _figure(self, column: Column, text: str, run: str, where: str, guess: str | None) -> Iterator:
        benchmark, params, metric, unit, direction = column.key
        value = _value(text)
        if not math.isfinite(value):
            raise IngestError(where, f"expected a figure under `{column.name}`, got {text!r:.40} (out of range)")
        if column.per_file:
            if value <= 0:
                raise IngestError(where, f"expected microseconds per file under `{column.name}`, got {text!r}")
            value = 1e6 / value
        key = (run, benchmark, tuple(sorted(params.items())), metric)
        if key in self.seen:
            return
        self.seen.add(key)
        extra = {"source": where, "column": run, "published": text, "table": self.table.title}
        if column.per_file:
            extra["published_unit"] = "us per file"
        if guess:
            extra["guess"] = guess
        yield Result(benchmark=benchmark, params=dict(params), metric=metric, unit=unit, direction=direction,
                     samples=[value], extra=extra)

    def end(self) -> Iterator:
        """At the end of the file: a last row that stops inside its last cell's column, where the
        rows before it ended at the column's end, was cut in the middle of a figure."""
        if self.last is None:
            return
        number, line, end, column_end, aligned = self.last
        if end != column_end and aligned:
            raise IngestError(f"{self.name}:{number}", f"the file ends inside a row ({line.strip()[-24:]!r}): "
                                                       "it looks cut in the middle of a figure; import the "
                                                       "whole summary")
        yield from ()


def _value(text: str) -> float:
    scale = {"K": 1e3, "M": 1e6}.get(text[-1], 1.0)
    return float(text.rstrip("KM")) * scale
