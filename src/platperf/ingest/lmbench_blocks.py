"""LMBench's per-benchmark outputs, as the programs print them on stderr and a results file
(``results/<os>/<host>.0``) or a run log collects them. The shapes and their keys are listed in
:mod:`platperf.ingest.lmbench`; this module reads them line by line (:class:`Blocks`).
"""
from __future__ import annotations

import re
from typing import Iterator

from ..records import Result
from ..vocab.lmbench import lmbench_program_key
from ._numbers import number
from .errors import IngestError, Skipped

# A results file's blocks, as lmbench's script writes them (the ``lmbench`` format reads them).
EXAMPLE = """\
Simple syscall: 0.1303 microseconds
"read bandwidth
0.524288 17993.09
1.05 17652.11

"size=0k ovr=0.66
2 3.40
4 3.65

"File system latency
0k\t469\t84505\t138552
"""

BW_MEM_KERNELS = ("rd", "wr", "rdwr", "cp", "frd", "fwr", "fcp", "bzero", "bcopy")

# a block's title (as lmbench's script echoes it, quoted or not) -> what its `size value` pairs are:
# (benchmark, params, metric, unit, direction, decimals the value is printed with or None)
_BW = ("bandwidth", "MB/s", "higher", (2, 6))     # lib_timing.c mb(): %.2f, %.6f below 1 MB/s


def _mem(kernel, **more):
    return ("mem-bandwidth", {"kernel": kernel, **more}, *_BW)


def _file(method, scope):
    return ("os-file-read", {"method": method, "scope": scope}, *_BW)


BLOCKS = {
    "mappings": ("os-mmap", {}, "latency", "us", "lower", None),
    "read bandwidth": _file("read", "io"), "read open2close bandwidth": _file("read", "o2c"),
    "Mmap read bandwidth": _file("mmap", "io"), "Mmap read open2close bandwidth": _file("mmap", "o2c"),
    "libc bcopy unaligned": _mem("bcopy"), "libc bcopy aligned": _mem("bcopy", layout="conflict"),
    "Memory bzero bandwidth": _mem("bzero"), "unrolled bcopy unaligned": _mem("fcp"),
    "unrolled partial bcopy unaligned": _mem("cp"), "Memory read bandwidth": _mem("frd"),
    "Memory partial read bandwidth": _mem("rd"), "Memory write bandwidth": _mem("fwr"),
    "Memory partial write bandwidth": _mem("wr"), "Memory partial read/write bandwidth": _mem("rdwr"),
}
# blocks of pairs that are no figure platperf keys: said, not read
SKIPPED_BLOCKS = ("Memory load parallelism",)
# the programs whose output follows their command line in a run log, and what it is
_PROGRAMS = {"bw_file_rd": "file", "bw_mmap_rd": "mmap", "lat_mmap": "mappings", "lat_fs": "fs", "bw_tcp": "tcp"}
OTHER_PROGRAMS = ("bw_pipe", "bw_unix", "lat_ctx", "lat_ops", "lat_mem_rd", "par_mem", "stream", "tlb", "cache",
                  "line")

_STRIDE = re.compile(r'^\s*"stride=(.*)$')
_CTX = re.compile(r'^\s*"size=(\d+)k\s+ovr=([0-9.]+)\s*$')
_TITLE = re.compile(r'^\s*"?\s*(.*?)\s*$')
_QUOTED_HEADER = re.compile(r'^\s*"')
_PAIR = re.compile(r"^\s*(\S+)\s+(\S+)\s*$")
# bw_mem -v adds the average rate and `time_per_iter_stddev=..%` after the pair; bw_tcp ends with MB/sec
_BW_LINE = re.compile(r"^\s*([0-9.]\S*)\s+(\S+)(?:\s.*)?$")
_TCP_PAIR = re.compile(r"^\s*([0-9.]\S*)\s+(\S+)\s+MB/sec\s*$")
_FS_ROW = re.compile(r"^\s*(\d+)k\s+(\d+)\s+(\d+)\s+(\d+)\s*$")
_NUMERIC = re.compile(r"^\s*[0-9.]")
_BW_MEM = re.compile(r"(?:^|[\s/])bw_mem\s+(.*)$")
_PROGRAM = re.compile(r"(?:^|[\s/])(" + "|".join(list(_PROGRAMS) + list(OTHER_PROGRAMS)) + r")(?:\s+(.*))?$")
_FIGURE = re.compile(r"^\s*([A-Za-z][^:]*?)\s*:\s*(\S+)\s+(microseconds|nanoseconds|MB/sec|KB/sec)\s*$")
_UNITS = {"microseconds": ("latency", "us", "lower"), "nanoseconds": ("latency", "ns", "lower"),
          "MB/sec": ("bandwidth", "MB/s", "higher"), "KB/sec": ("bandwidth", "KB/s", "higher")}
# the names LMBench always prints a unit after: a last line of one without it was cut
_UNIT_NAMES = re.compile(r"^\s*(Simple |Select on |Signal handler |Protection fault|Pipe |AF_UNIX |Process fork|"
                         r"UDP latency|TCP latency|RPC/|TCP/IP connection|Pagefaults on|File .* bandwidth|STREAM |"
                         r"(?:integer|int64|uint64|float|double) (?:bit|add|mul|div|mod|bogomflops)\s*:)")
_CUT_FIGURE = re.compile(r"^[^:]*:\s*[0-9.]*\s*(\S*)\s*$")


class Blocks:
    """The per-benchmark reader: ``feed`` one line, ``end`` when the file ends."""

    def __init__(self, name: str):
        self.name = name
        self.context = None       # ("stride", bytes) | ("bw_mem", params) | ("block", spec) | ("ctx", k) | ...
        self.pattern = "seq"      # lat_mem_rd: "Random load latency" makes the next blocks random
        self.last = None          # (where, text, decimals) of the last line when it was a figure

    def feed(self, line: str, number_: int) -> Iterator:
        where = f"{self.name}:{number_}"
        self.last = None
        if not line.strip():
            if self.context and self.context[0] in ("stride", "block", "ctx", "fs", "skip"):
                self.context = None
            return
        if self._header(line, where):
            yield from self._said(line, where)
            return
        figure = _FIGURE.match(line)
        if figure:
            yield self._named(figure, where)
            return
        if self._command(line):
            return
        yield from self._pair(line, where)

    def _said(self, line: str, where: str) -> Iterator:
        if self.context and self.context[0] == "skip" and self.context[1] is None:
            self.context = ("skip", line.strip())
            yield Skipped(where, f"the LMBench block {line.strip().lstrip(chr(34))!r} holds no figure platperf "
                                 "keys; not imported")

    def _header(self, line: str, where: str) -> bool:
        """A line that opens a block: its context set. True when it was one."""
        text = line.strip()
        if text in ("Memory load latency", "Random load latency"):
            self.pattern, self.context = ("random" if text.startswith("Random") else "seq"), None
            return True
        stride = _STRIDE.match(line)
        if stride:
            value = number(stride.group(1), where, 'a stride in bytes after "stride=')
            if value <= 0 or not value.is_integer():
                raise IngestError(where, f'expected a positive whole stride after "stride=, got {value:g}')
            self.context = ("stride", int(value))
            return True
        ctx = _CTX.match(line)
        if ctx:
            self.context = ("ctx", int(ctx.group(1)))
            return True
        title = _TITLE.match(line).group(1)
        if title in BLOCKS:
            self.context = ("block", BLOCKS[title])
        elif title == "File system latency":
            self.context = ("fs",)
        elif re.fullmatch(r"Socket bandwidth using \S+", title):
            self.context = ("block", ("lmbench", {"test": title}, *_BW))
        elif title in SKIPPED_BLOCKS or _QUOTED_HEADER.match(line):
            self.context = ("skip", None)
        else:
            return False
        return True

    def _named(self, figure, where: str) -> Result:
        test, value, unit_word = figure.groups()
        metric, unit, direction = _UNITS[unit_word]
        # the measurements the summary and the guides name too carry their keys (vocab.lmbench)
        benchmark, params = lmbench_program_key(test) or ("lmbench", {"test": test})
        return Result(benchmark=benchmark, params=dict(params), metric=metric, unit=unit, direction=direction,
                      samples=[number(value, where, f"a number of {unit_word}")], extra={"source": where})

    def _command(self, line: str) -> bool:
        """A command line of a run log (``$ bw_mem -P 1 16m bcopy``): what its output will be."""
        if self.context and self.context[0] == "stride":
            return False
        bw_mem = _BW_MEM.search(line)
        if bw_mem:
            args = bw_mem.group(1).split()
            kernels = [a for a in args if a in BW_MEM_KERNELS]
            more = {"layout": "conflict"} if "conflict" in args and kernels[-1:] == ["bcopy"] else {}
            self.context = ("bw_mem", {"kernel": kernels[-1], **more}) if kernels else ("skip", "bw_mem")
            return True
        program = _PROGRAM.search(line)
        if not program:
            return False
        kind, args = _PROGRAMS.get(program.group(1)), (program.group(2) or "").split()
        if kind in ("file", "mmap"):
            scope = "o2c" if "open2close" in args else "io"
            self.context = ("one", _file("read" if kind == "file" else "mmap", scope))
        elif kind == "mappings":
            self.context = ("one", BLOCKS["mappings"])
        elif kind == "fs":
            self.context = ("fs",)
        elif kind == "tcp" and args and not args[-1].startswith("-"):
            self.context = ("one", ("lmbench", {"test": f"Socket bandwidth using {args[-1]}"}, *_BW))
        else:
            self.context = ("skip", program.group(1))
        return True

    def _pair(self, line: str, where: str) -> Iterator:
        kind = self.context[0] if self.context else None
        numeric = bool(_NUMERIC.match(line))
        if kind == "stride":
            yield self._lat_mem_rd(line, where)
        elif kind == "bw_mem" and _BW_LINE.match(line):
            yield self._bandwidth(line, where, ("mem-bandwidth", self.context[1], *_BW))
            self.context = ("skip", "bw_mem")          # one line per bw_mem run
        elif kind in ("block", "one") and numeric:
            yield self._bandwidth(line, where, self.context[1])
            if kind == "one":
                self.context = ("skip", "one")
        elif kind == "ctx" and numeric:
            yield self._lat_ctx(line, where)
        elif kind == "fs" and numeric:
            yield from self._lat_fs(line, where)
        elif kind is None and numeric and _PAIR.match(line):
            raise IngestError(where, "a `size value` pair with no `\"stride=N` header (lat_mem_rd) or "
                                     "`bw_mem SIZE KERNEL` command line before it; include the command "
                                     "lines in the log")
        elif _UNIT_NAMES.match(line) and _CUT_FIGURE.match(line):
            self.last = (where, line, "unit")        # a figure line without its unit: cut if it is the last

    def _lat_mem_rd(self, line: str, where: str) -> Result:
        pair = _PAIR.match(line)
        if not pair:
            raise IngestError(where, "expected a `size_mb latency_ns` pair of lat_mem_rd "
                                     "(or a blank line ending the stride block)")
        size_mb = number(pair.group(1), where, "a size in MB (2^20 bytes)")
        latency = number(pair.group(2), where, "a latency in ns")
        self.last = (where, pair.group(2), (3,))            # lat_mem_rd prints %.5f %.3f
        return Result(benchmark="mem-latency",
                      params={"pattern": self.pattern, "size": lat_mem_rd_bytes(size_mb), "stride": self.context[1]},
                      metric="latency", unit="ns", direction="lower", samples=[latency], extra={"source": where})

    def _bandwidth(self, line: str, where: str, spec: tuple) -> Result:
        """A ``size_mb value`` line (bw_mem, bw_file_rd, bw_mmap_rd, lat_mmap, bw_tcp ``... MB/sec``)."""
        benchmark, params, metric, unit, direction, decimals = spec
        pair = _TCP_PAIR.match(line) or _BW_LINE.match(line)
        if not pair:
            raise IngestError(where, f"expected a `size_mb {metric}` pair of the LMBench block")
        size_mb = number(pair.group(1), where, "a size in MB (10^6 bytes)")
        value = number(pair.group(2), where, f"a {metric} in {unit}")
        self.last = (where, pair.group(2), decimals)
        return Result(benchmark=benchmark, params={**params, "size": bw_mem_bytes(size_mb)}, metric=metric,
                      unit=unit, direction=direction, samples=[value], extra={"source": where})

    def _lat_ctx(self, line: str, where: str) -> Result:
        pair = _PAIR.match(line)
        if not pair:
            raise IngestError(where, "expected a `processes microseconds` pair of lat_ctx (or a blank line)")
        procs = number(pair.group(1), where, "a number of processes")
        if not procs.is_integer() or procs < 1:
            raise IngestError(where, f"expected a whole number of processes, got {pair.group(1)!r}")
        latency = number(pair.group(2), where, "a context switch time in microseconds")
        self.last = (where, pair.group(2), (2,))            # lat_ctx prints %d %.2f
        return Result(benchmark="os-ctx", params={"procs": int(procs), "size": self.context[1] * 1024},
                      metric="latency", unit="us", direction="lower", samples=[latency], extra={"source": where})

    def _lat_fs(self, line: str, where: str) -> Iterator[Result]:
        row = _FS_ROW.match(line)
        if not row:
            raise IngestError(where, "expected a lat_fs row `SIZEk files creates/s deletes/s`")
        size_k, files = int(row.group(1)), int(row.group(2))
        for metric, text in (("create", row.group(3)), ("delete", row.group(4))):
            yield Result(benchmark="os-fs", params={"size": size_k * 1024}, metric=metric, unit="files/s",
                         direction="higher", samples=[number(text, where, f"{metric}s per second")],
                         extra={"source": where, "files": files})

    def end(self) -> Iterator:
        """A last line cut in the middle of its figure (the file ended before its newline): a
        value printed with fewer decimals than the program prints, or a figure line without
        its unit. Refused: the cut figure would be stored as if measured."""
        if self.last is None:
            return
        where, text, decimals = self.last
        if decimals == "unit":
            raise IngestError(where, f"the file ends inside `{text.strip()[:60]}` (no unit after the figure): "
                                     "it looks cut; import the whole output")
        if isinstance(decimals, tuple) and _decimals(text) not in decimals:
            raise IngestError(where, f"the file ends in the middle of a figure ({text!r}; LMBench prints "
                                     f"{' or '.join(map(str, decimals))} decimals here): it looks cut; "
                                     "import the whole output")
        yield from ()


def _decimals(text: str) -> int:
    return len(text.partition(".")[2]) if "." in text else 0


def lat_mem_rd_bytes(size_mb: float) -> int:
    """lat_mem_rd prints size / 2^20 with 5 decimals; its sizes are multiples of 512 bytes."""
    if not 0 < size_mb < 2**40:  # beyond any memory: keep the figure, clamp the key
        return 0 if size_mb <= 0 else 2**60
    size = size_mb * 1048576
    nearest = round(size / 512) * 512
    return nearest if abs(nearest - size) <= 6 else round(size)


def bw_mem_bytes(size_mb: float) -> int:
    """bw_mem prints size / 10^6 (two decimals from 1 MB): pick the roundest 4 KiB multiple."""
    if not 1 <= size_mb < 2**40:
        return 2**60 if size_mb >= 2**40 else max(0, round(size_mb * 1e6))
    size = size_mb * 1e6
    low, high = int((size - 5000) // 4096) + 1, int((size + 5000) // 4096)
    if low > high:
        return round(size)
    return 4096 * max(range(low, high + 1), key=lambda k: (k & -k, -abs(4096 * k - size)))
