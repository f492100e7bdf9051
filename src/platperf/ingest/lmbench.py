"""LMBench output (lmbench3), as the tools print it on stderr or a run log collects it.

Three shapes are read; every other line (banners, lat_fs tables, lat_ctx blocks, ...)
is skipped:

* ``lat_mem_rd``: a ``"stride=128`` header, then ``size_mb latency_ns`` pairs (size in
  2^20 bytes, ``%.5f``), up to a blank line -> ``mem-latency`` pattern ``seq``, size in
  bytes, stride, metric ``latency`` ns.
* ``bw_mem``: the command line (``bw_mem -P 1 16m bcopy``, as a run log echoes it), then
  its ``size_mb MB/s`` line (``-v`` adds fields after these two) -> ``mem-bandwidth`` kernel, size in bytes, metric
  ``bandwidth``. lmbench3's lib_timing.c defines MB as 10^6 bytes for bandwidths ("people
  are quoting ... bandwidths all power of ten"), the unit of the results format, so
  figures are stored as printed. The size is printed in 10^6 bytes with two decimals; it
  is restored to the roundest multiple of 4 KiB within the printed precision
  (``16.78`` -> 16 MiB). Pairs after other commands (bw_file_rd, lat_mmap, ...) are skipped.
* ``name: value microseconds`` (``Simple syscall: 0.1234 microseconds``, ``Process
  fork+exit: ...``), ``name: value nanoseconds`` and ``name: value MB/sec`` ->
  benchmark ``lmbench``, params ``{"test": name}``, metric ``latency`` (us or ns) or
  ``bandwidth`` (MB/s).
"""
from __future__ import annotations

import re
from typing import Iterable, Iterator

from ..records import Result
from ._numbers import number
from .errors import IngestError

BW_MEM_KERNELS = ("rd", "wr", "rdwr", "cp", "frd", "fwr", "fcp", "bzero", "bcopy")
# the other LMBench programs whose `size value` lines are not read
OTHER_PROGRAMS = ("bw_file_rd", "bw_mmap_rd", "bw_pipe", "bw_unix", "bw_tcp", "lat_ctx", "lat_mmap",
                  "lat_fs", "lat_ops", "lat_mem_rd", "par_mem", "stream", "tlb", "cache", "line")

_STRIDE = re.compile(r'^\s*"stride=(.*)$')
_QUOTED_HEADER = re.compile(r'^\s*"')
_PAIR = re.compile(r"^\s*(\S+)\s+(\S+)\s*$")
# bw_mem -v adds the average rate and `time_per_iter_stddev=..%` after the pair
_BW_MEM_LINE = re.compile(r"^\s*([0-9.]\S*)\s+(\S+)(?:\s.*)?$")
_NUMERIC = re.compile(r"^\s*[0-9.]")
_BW_MEM = re.compile(r"(?:^|[\s/])bw_mem\s+(.*)$")
_PROGRAM = re.compile(r"(?:^|[\s/])(" + "|".join(OTHER_PROGRAMS) + r")(?:\s|$)")
_FIGURE = re.compile(r"^\s*([A-Za-z][^:]*?)\s*:\s*(\S+)\s+(microseconds|nanoseconds|MB/sec)\s*$")
_UNITS = {"microseconds": ("latency", "us", "lower"), "nanoseconds": ("latency", "ns", "lower"),
          "MB/sec": ("bandwidth", "MB/s", "higher")}


def parse(text: str, name: str) -> list[Result]:
    return list(read(text.splitlines(), name))


def read(lines: Iterable[str], name: str) -> Iterator[Result]:
    """The results of ``lines`` one at a time, as the file is read (see ingest.read_lines)."""
    found = False
    context = None  # ("stride", bytes) | ("bw_mem", kernel) | ("skip",)
    for number_, line in enumerate(lines, 1):
        where = f"{name}:{number_}"
        if not line.strip():
            if context and context[0] == "stride":
                context = None
            continue
        stride = _STRIDE.match(line)
        if stride:
            value = number(stride.group(1), where, 'a stride in bytes after "stride=')
            if value <= 0 or not value.is_integer():
                raise IngestError(where, f'expected a positive whole stride after "stride=, got {value:g}')
            context = ("stride", int(value))
            continue
        if _QUOTED_HEADER.match(line):
            context = ("skip",)  # another LMBench block ("libc bcopy aligned, "size=0k ovr=...)
            continue
        figure = _FIGURE.match(line)
        if figure:
            test, value, unit_word = figure.groups()
            metric, unit, direction = _UNITS[unit_word]
            found = True
            yield Result(
                benchmark="lmbench", params={"test": test}, metric=metric, unit=unit,
                direction=direction, samples=[number(value, where, f"a number of {unit_word}")],
                extra={"source": where})
            continue
        bw_mem = _BW_MEM.search(line)
        if bw_mem and not (context and context[0] == "stride"):
            kernels = [a for a in bw_mem.group(1).split() if a in BW_MEM_KERNELS]
            context = ("bw_mem", kernels[-1]) if kernels else ("skip",)
            continue
        if _PROGRAM.search(line) and not (context and context[0] == "stride"):
            context = ("skip",)
            continue
        pair = _PAIR.match(line)
        if context and context[0] == "stride":
            if not pair:
                raise IngestError(where, "expected a `size_mb latency_ns` pair of lat_mem_rd "
                                         "(or a blank line ending the stride block)")
            size_mb = number(pair.group(1), where, "a size in MB (2^20 bytes)")
            latency = number(pair.group(2), where, "a latency in ns")
            found = True
            yield Result(
                benchmark="mem-latency",
                params={"pattern": "seq", "size": _lat_mem_rd_bytes(size_mb), "stride": context[1]},
                metric="latency", unit="ns", direction="lower", samples=[latency],
                extra={"source": where})
        elif context and context[0] == "bw_mem" and _BW_MEM_LINE.match(line):
            bw_line = _BW_MEM_LINE.match(line)
            size_mb = number(bw_line.group(1), where, "a size in MB (10^6 bytes) from bw_mem")
            bandwidth = number(bw_line.group(2), where, "a bandwidth in MB/s from bw_mem")
            found = True
            yield Result(
                benchmark="mem-bandwidth", params={"kernel": context[1], "size": _bw_mem_bytes(size_mb)},
                metric="bandwidth", unit="MB/s", direction="higher", samples=[bandwidth],
                extra={"source": where})
            context = ("skip",)  # one line per bw_mem run
        elif pair and _NUMERIC.match(line) and context is None:
            raise IngestError(where, "a `size value` pair with no `\"stride=N` header (lat_mem_rd) or "
                                     "`bw_mem SIZE KERNEL` command line before it; include the command "
                                     "lines in the log")
    if not found:
        raise IngestError(f"{name}:1", 'no LMBench results: expected "stride=N blocks, bw_mem command '
                                       "and result lines, or `name: value microseconds` lines")


def _lat_mem_rd_bytes(size_mb: float) -> int:
    """lat_mem_rd prints size / 2^20 with 5 decimals; its sizes are multiples of 512 bytes."""
    if not 0 < size_mb < 2**40:  # beyond any memory: keep the figure, clamp the key
        return 0 if size_mb <= 0 else 2**60
    size = size_mb * 1048576
    nearest = round(size / 512) * 512
    return nearest if abs(nearest - size) <= 6 else round(size)


def _bw_mem_bytes(size_mb: float) -> int:
    """bw_mem prints size / 10^6 (two decimals from 1 MB): pick the roundest 4 KiB multiple."""
    if not 1 <= size_mb < 2**40:
        return 2**60 if size_mb >= 2**40 else max(0, round(size_mb * 1e6))
    size = size_mb * 1e6
    low, high = int((size - 5000) // 4096) + 1, int((size + 5000) // 4096)
    if low > high:
        return round(size)
    return 4096 * max(range(low, high + 1), key=lambda k: (k & -k, -abs(4096 * k - size)))
