"""STREAM (McCalpin) output: the ``Function  Best Rate MB/s  Avg time  Min time  Max time`` table.

Each row -> ``mem-bandwidth`` with params ``kernel`` (copy, scale, add, triad: the row
name in lower case) and ``size`` (bytes of ONE array: ``Array size`` elements x the
``bytes per array element`` line, 8 when absent), metric ``bandwidth`` in MB/s (STREAM's
MB is 10^6 bytes, the unit of the results format), the best rate; ``avg_time_s``,
``min_time_s`` and ``max_time_s`` go to extra. Several runs in one file give
several samples. A run that says ``Failed Validation`` is refused: its rates are not
those of a correct copy. An OpenMP run with more than one thread (``Number of Threads
counted``) measures the cores together: ``threads`` joins the params so that it never
pairs with a one-core figure.
"""
from __future__ import annotations

import re
from typing import Iterable, Iterator

from ..records import Result
from ._numbers import number
from .errors import IngestError

_HEADER = re.compile(r"^\s*Function\s+Best Rate MB/s\s+Avg time\s+Min time\s+Max time\s*$")
_ROW = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]*):\s*(.*)$")
_ARRAY_SIZE = re.compile(r"Array size\s*=\s*(\S+)")
_ELEMENT_BYTES = re.compile(r"uses\s+(\S+)\s+bytes per array element")
_THREADS = re.compile(r"Number of Threads counted\s*=\s*(\S+)")
_ROW_SHAPE = "`Name:  best_rate_MBps  avg_time  min_time  max_time`"


def parse(text: str, name: str) -> list[Result]:
    return list(read(text.splitlines(), name))


def read(lines: Iterable[str], name: str) -> Iterator[Result]:
    """The results of ``lines`` one at a time, as the file is read (see ingest.read_lines)."""
    found = False
    elements = element_bytes = threads = None
    in_table = False
    for number_, line in enumerate(lines, 1):
        where = f"{name}:{number_}"
        if "Failed Validation" in line:
            raise IngestError(where, "STREAM reports a failed validation; its rates are not trustworthy "
                                     "(fix the run, or remove this run from the file)")
        if _HEADER.match(line):
            if elements is None:
                raise IngestError(where, "expected an `Array size = N (elements)` line before the "
                                         "Function table")
            in_table = True
            continue
        if in_table:
            row = _ROW.match(line)
            if row is None:
                in_table = False
            else:
                fields = row.group(2).split()
                if len(fields) != 4:
                    raise IngestError(where, f"expected {_ROW_SHAPE}, got {len(fields)} values")
                best, avg, low, high = (number(f, where, what) for f, what in zip(
                    fields, ("a best rate in MB/s", "an avg time in s", "a min time in s", "a max time in s")))
                params = {"kernel": row.group(1).lower(), "size": elements * (element_bytes or 8)}
                if threads and threads > 1:  # an aggregate of several cores is another measurement
                    params["threads"] = threads
                found = True
                yield Result(
                    benchmark="mem-bandwidth", params=params,
                    metric="bandwidth", unit="MB/s", direction="higher", samples=[best],
                    extra={"avg_time_s": avg, "min_time_s": low, "max_time_s": high, "source": where})
                continue
        size = _ARRAY_SIZE.search(line)
        if size:
            elements = _whole(size.group(1), where, "an array size in elements")
            continue
        per_element = _ELEMENT_BYTES.search(line)
        if per_element:
            element_bytes = _whole(per_element.group(1), where, "bytes per array element")
            continue
        counted = _THREADS.search(line)
        if counted:
            threads = _whole(counted.group(1), where, "a thread count")
    if not found:
        raise IngestError(f"{name}:1", "no STREAM results: expected a `Function    Best Rate MB/s  Avg time"
                                       "     Min time     Max time` table")


def _whole(text: str, where: str, what: str) -> int:
    value = number(text, where, what)
    if not value.is_integer() or not 0 < value < 2**62:
        raise IngestError(where, f"expected {what} (a positive whole number), got {text!r:.40}")
    return int(value)
