"""STREAM (McCalpin) output of every 5.x version: the ``Function  Rate  Avg time  Min time  Max time`` table.

The versions print the same four rows under two headers and two array-size lines:

* 5.10: ``This system uses 8 bytes per array element.``, ``Array size = 10000000 (elements),
  Offset = 0 (elements)``, ``Function    Best Rate MB/s  Avg time     Min time     Max time``,
  rows ``Copy:  18514.5  0.242368  0.231979  0.317779`` (rate %.1f, times %.6f);
* 5.4 to 5.9: ``This system uses 8 bytes per DOUBLE PRECISION word.``, ``Array size = 2000000,
  Offset = 0``, ``Total memory required = 45.8 MB.``, ``Function      Rate (MB/s)   Avg time
  Min time     Max time``, rows ``Copy:  9663.6238  0.0524  0.0523  0.0527`` (all %.4f); HPCC's
  STREAM prints ``Rate (GB/s)`` (stored in MB/s, x 1000).

Each row -> ``mem-bandwidth`` with params ``kernel`` (copy, scale, add, triad: the row name in
lower case) and ``size`` (bytes of ONE array: ``Array size`` elements x the ``bytes per array
element`` / ``per DOUBLE PRECISION word`` line, 8 when absent), metric ``bandwidth`` in MB/s
(STREAM's MB is 10^6 bytes, the unit of the results format), the best rate; ``avg_time_s``,
``min_time_s`` and ``max_time_s`` go to extra. Several runs in one file give several samples.
An OpenMP run of more than one thread measures the cores together: ``threads`` joins the params
so that it never pairs with a one-core figure. The thread count is ``Number of Threads counted``
(5.10), else the last ``Number of Threads requested`` (5.9 prints only that; a script running
the binary again at another count prints it again before each table).

Refused, with the line: a run that says ``Failed Validation`` (its rates are not those of a
correct copy); a table before any ``Array size`` line; a row of another shape than four
numbers; a table without rows, or whose rows stop before Triad in STREAM's order (Copy, Scale,
then the end: the output was cut); a last row cut inside its last figure. A table that holds
some rows only, not in that order (a script keeping the Triad line), is read and its missing
rows are said (ingest.Note).
"""
from __future__ import annotations

import re
from typing import Iterable, Iterator

from ..records import Result
from ._numbers import number
from .errors import IngestError, Note

KERNELS = ("copy", "scale", "add", "triad")
_HEADER = re.compile(r"^\s*Function\s+(?:Best\s+)?Rate\s*\(?\s*(MB|GB)/s\s*\)?\s+Avg time\s+Min time\s+Max time\s*$")
_ROW = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]*):\s*(.*)$")
_VERSION = re.compile(r"STREAM version \$Revision:\s*(\S+)\s*\$")
_ARRAY_SIZE = re.compile(r"Array size\s*=\s*(\S+?)(?:,?\s|,?$)")
_ELEMENT_BYTES = re.compile(r"uses\s+(\S+)\s+bytes per ")
_REQUESTED = re.compile(r"Number of Threads requested\s*=\s*(\S+)")
_COUNTED = re.compile(r"Number of Threads counted\s*=\s*(\S+)")
_ROW_SHAPE = "`Name:  best_rate_MBps  avg_time  min_time  max_time`"
# a `Function  Best Rate MB/s` table of rates alone: another tool's (VirtualClient's StreamMsft)
_FOREIGN = re.compile(r"^\s*Function\s+Best (?:Rate MB/s|Latency ns)\s*$")

# STREAM as it is printed (``platperf ingest stream --help``): 5.10, one run of 2 OpenMP threads.
EXAMPLE = """\
STREAM version $Revision: 5.10 $
This system uses 8 bytes per array element.
Array size = 10000000 (elements), Offset = 0 (elements)
Number of Threads requested = 2
Number of Threads counted = 2
Function    Best Rate MB/s  Avg time     Min time     Max time
Copy:            1455.4     0.110832     0.109936     0.112411
Scale:           1595.7     0.101402     0.100269     0.103210
Add:             1415.0     0.171177     0.169611     0.173370
Triad:           1384.6     0.174881     0.173335     0.176420
"""


def parse(text: str, name: str) -> list[Result]:
    return [r for r in read(text.splitlines(), name) if isinstance(r, Result)]


class _Run:
    """What the lines before a table said: array size, bytes per element, threads."""

    def __init__(self):
        self.elements = self.element_bytes = self.requested = self.counted = None

    @property
    def threads(self):
        return self.counted if self.counted is not None else self.requested

    def note(self, line: str, where: str) -> bool:
        """Take what ``line`` says of the run; True when it said something."""
        for pattern, field, what in ((_ARRAY_SIZE, "elements", "an array size in elements"),
                                     (_ELEMENT_BYTES, "element_bytes", "bytes per array element"),
                                     (_COUNTED, "counted", "a thread count")):
            found = pattern.search(line)
            if found:
                setattr(self, field, _whole(found.group(1).replace(",", ""), where, what))
                return True
        requested = _REQUESTED.search(line)
        if requested:   # a new count: the binary was run again (stream-scaling), its count not yet counted
            self.requested, self.counted = _whole(requested.group(1), where, "a thread count"), None
            return True
        return False


def read(lines: Iterable[str], name: str) -> Iterator:
    """The results of ``lines`` one at a time, as the file is read (see ingest.read_lines), with a
    Note for a table that holds some rows only."""
    found = False
    run = _Run()
    table = None          # {"where": header line, "rows": [kernels], "scale": MB per unit}
    last_row = None       # (where, fields) of the last line when it was a row
    for number_, line in enumerate(lines, 1):
        where = f"{name}:{number_}"
        last_row = None
        if "Failed Validation" in line:
            raise IngestError(where, "STREAM reports a failed validation; its rates are not trustworthy "
                                     "(fix the run, or remove this run from the file)")
        if _FOREIGN.match(line):
            raise IngestError(where, "a `Function  Best Rate MB/s` table without STREAM's Avg, Min and Max time "
                                     "columns: not McCalpin's STREAM output")
        header = _HEADER.match(line)
        if header:
            yield from _table_end(table)
            if run.elements is None:
                raise IngestError(where, "expected an `Array size = N (elements)` line before the "
                                         "Function table")
            table = {"where": where, "rows": [], "scale": 1000.0 if header.group(1) == "GB" else 1.0}
            continue
        row = _ROW.match(line) if table is not None else None
        if row:
            result = _row(row, run, table, where)
            table["rows"].append(result.params["kernel"])
            last_row = (where, row.group(2).split())
            found = True
            yield result
            continue
        if table is not None:
            yield from _table_end(table)
            table = None
        if _VERSION.search(line):
            run = _Run()               # a new run prints its own array size
        else:
            run.note(line, where)
    yield from _table_end(table, at_end=True)
    _check_cut(last_row)
    if not found:
        raise IngestError(f"{name}:1", "no STREAM results: expected a `Function    Best Rate MB/s  Avg time"
                                       "     Min time     Max time` table")


def _row(row, run: _Run, table: dict, where: str) -> Result:
    fields = row.group(2).split()
    if len(fields) != 4:
        raise IngestError(where, f"expected {_ROW_SHAPE}, got {len(fields)} values")
    best, avg, low, high = (number(f, where, what) for f, what in zip(
        fields, ("a best rate in MB/s", "an avg time in s", "a min time in s", "a max time in s")))
    params = {"kernel": row.group(1).lower(), "size": run.elements * (run.element_bytes or 8)}
    if run.threads and run.threads > 1:  # an aggregate of several cores is another measurement
        params["threads"] = run.threads
    extra = {"avg_time_s": avg, "min_time_s": low, "max_time_s": high, "source": where}
    if table["scale"] != 1.0:
        extra["published"] = f"{fields[0]} GB/s"
    return Result(benchmark="mem-bandwidth", params=params, metric="bandwidth", unit="MB/s", direction="higher",
                  samples=[best * table["scale"]], extra=extra)


def _table_end(table: dict | None, at_end: bool = False) -> Iterator:
    """A table's rows checked when it ends: none, or STREAM's first rows only (cut), is refused;
    another selection of rows is said."""
    if table is None:
        return
    rows, where = table["rows"], table["where"]
    if not rows:
        raise IngestError(where, "this STREAM table has no Copy, Scale, Add, Triad rows: the output is cut "
                                 "or not STREAM's")
    known = [k for k in rows if k in KERNELS]
    missing = [k.title() for k in KERNELS if k not in rows]
    if not missing:
        return
    if known == list(KERNELS[:len(known)]):
        ending = "the file ends" if at_end else "the table ends"
        raise IngestError(where, f"this STREAM table stops after {', '.join(k.title() for k in known)}: {ending} "
                                 f"before {', '.join(missing)}; the output looks cut, import it whole")
    yield Note(where, f"this STREAM table holds {', '.join(k.title() for k in rows)} only: "
                      f"{', '.join(missing)} not in the file")


def _check_cut(last_row):
    """The file's last line, a row whose last time has fewer decimals than its first: cut."""
    if last_row is None:
        return
    where, fields = last_row
    decimals = [len(f.partition(".")[2]) for f in fields[1:]]
    if decimals and decimals[-1] < decimals[0]:
        raise IngestError(where, f"the file ends in the middle of a figure ({fields[-1]!r}; STREAM prints "
                                 f"{decimals[0]} decimals here): it looks cut; import the whole output")


def _whole(text: str, where: str, what: str) -> int:
    value = number(text, where, what)
    if not value.is_integer() or not 0 < value < 2**62:
        raise IngestError(where, f"expected {what} (a positive whole number), got {text!r:.40}")
    return int(value)
