"""LMBench output (lmbench 2 and 3) in the forms it is published in: its summary tables, a
results file (``results/<os>/<host>.0``), or the programs' own lines collected in a run log.

* The summary tables of ``make summary`` / ``make see`` (``L M B E N C H  3 . 0   S U M M A R Y``,
  LMBench 2 and 3): one run per row, that is per host and OS (``Result.extra["column"]``), blank
  cells absent, figures keyed as platperf names them (:mod:`platperf.ingest.lmbench_summary`).
* ``lat_mem_rd``: a ``"stride=128`` header, then ``size_mb latency_ns`` pairs (size in 2^20
  bytes, ``%.5f``), up to a blank line -> ``mem-latency`` pattern ``seq`` (``random`` after a
  results file's ``Random load latency`` line), size in bytes, stride, metric ``latency`` ns.
* ``bw_mem``: the command line (``bw_mem -P 1 16m bcopy``, as a run log echoes it), then its
  ``size_mb MB/s`` line (``-v`` adds fields after these two) -> ``mem-bandwidth`` kernel, size in
  bytes (``bcopy conflict``: ``layout=conflict``), metric ``bandwidth``. lmbench3's lib_timing.c
  defines MB as 10^6 bytes for bandwidths, the unit of the results format, so figures are stored
  as printed. The size is printed in 10^6 bytes with two decimals; it is restored to the
  roundest multiple of 4 KiB within the printed precision (``16.78`` -> 16 MiB). A results
  file's bw_mem blocks (``"libc bcopy unaligned``, ``Memory read bandwidth`` ...) are the same
  keys, the kernel its script ran (bcopy, bzero, fcp, cp, frd, rd, fwr, wr, rdwr).
* ``bw_file_rd`` / ``bw_mmap_rd`` (their command line, or a results file's ``"read bandwidth``,
  ``"Mmap read open2close bandwidth`` ... blocks) -> ``os-file-read`` method read/mmap, scope
  io/o2c, size; ``lat_mmap`` (``"mappings``) -> ``os-mmap`` size, latency us; ``bw_tcp`` (``Socket
  bandwidth using localhost``) -> ``lmbench`` test ``Socket bandwidth using localhost``, size.
* ``lat_ctx``: ``"size=16k ovr=1.2`` then ``processes microseconds`` pairs -> ``os-ctx`` procs,
  size in bytes; ``lat_fs`` (``"File system latency`` or its command line): ``0k files
  creates/s deletes/s`` rows -> ``os-fs`` size, metrics ``create`` and ``delete`` in files/s.
* ``name: value microseconds`` (``Simple syscall: 0.1234 microseconds``, ``Process fork+exit:``,
  ``TCP latency using localhost:``), ``name: value nanoseconds``, ``name: value MB/sec`` and
  ``KB/sec`` -> metric ``latency`` (us or ns) or ``bandwidth`` (MB/s, KB/s); the measurements
  the summary tables and TI's guide name too take their keys (``Simple syscall`` ->
  ``os-syscall`` op ``null``, ``Pipe latency`` -> ``os-ipc`` kind ``pipe``, ``Process fork+exit``
  -> ``os-proc`` op ``fork``: :data:`platperf.vocab.lmbench.LMBENCH_PROGRAM_KEYS`), so that a
  results file and a summary of two releases pair; the others benchmark ``lmbench``, params
  ``{"test": name}``.

Said and not read: blocks of no figure platperf keys (``Memory load parallelism``, other quoted
blocks), getpercent's tables. Refused, in one line: a pair without its header or command line,
a summary table of unknown columns, and a file cut in the middle of its last figure (the last
line stops inside a figure: fewer decimals than LMBench prints, no unit, a summary row short of
its column). The file is read line by line (``read``), never held whole.
"""
from __future__ import annotations

from typing import Iterable, Iterator

from ..records import Result
from .errors import IngestError
from .lmbench_blocks import BW_MEM_KERNELS, OTHER_PROGRAMS, Blocks, bw_mem_bytes, lat_mem_rd_bytes
from .lmbench_summary import Summary

__all__ = ["BW_MEM_KERNELS", "EXAMPLE", "OTHER_PROGRAMS", "parse", "read", "bw_mem_bytes", "lat_mem_rd_bytes"]

# LMBench as it is found: a summary table, then a run log's lines (``platperf ingest lmbench --help``).
EXAMPLE = """\
                 L M B E N C H  3 . 0   S U M M A R Y
Context switching - times in microseconds - smaller is better
-------------------------------------------------------------------------
Host                 OS  2p/0K 2p/16K 2p/64K 8p/16K 8p/64K 16p/16K 16p/64K
                         ctxsw  ctxsw  ctxsw ctxsw  ctxsw   ctxsw   ctxsw
--------- ------------- ------ ------ ------ ------ ------ ------- -------
revyos-lp Linux 6.6.108   11.2   12.4   12.6   13.7   15.5    16.5    35.3

$ lat_syscall -P 1 null
Simple syscall: 0.5186 microseconds
$ bw_mem -P 1 16m bcopy
16.78 702.31
"stride=128
0.00049 2.402
0.00098 2.402
"""


def parse(text: str, name: str) -> list[Result]:
    return [r for r in read(text.splitlines(), name) if isinstance(r, Result)]


def read(lines: Iterable[str], name: str) -> Iterator:
    """The results of ``lines`` one at a time, as the file is read (see ingest.read_lines), with
    what it says it left out (ingest.Skipped, ingest.Note)."""
    summary, blocks = Summary(name), Blocks(name)
    found, last = False, None
    for number_, line in enumerate(lines, 1):
        last = summary if summary.takes(line) else blocks
        for item in last.feed(line, number_):
            found = found or isinstance(item, Result)
            yield item
        if last is summary and summary.declined:      # the line after a table: a run log's again
            last = blocks
            for item in blocks.feed(line, number_):
                found = found or isinstance(item, Result)
                yield item
    if last is not None:
        yield from last.end()
    if not found:
        raise IngestError(f"{name}:1", 'no LMBench results: expected a summary (L M B E N C H  3 . 0   '
                                       'S U M M A R Y), "stride=N blocks, bw_mem command and result lines, '
                                       "or `name: value microseconds` lines")
