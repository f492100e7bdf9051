"""The probe's own JSON Lines, written by hand on a board that has no SSH::

    platperf-probe run mem-latency --cpus 0 > board.jsonl
    platperf-probe run mem-bandwidth --cpus 0 >> board.jsonl

Every invocation writes ``meta`` ... ``end`` (docs/results-format.md); a file holding several
invocations one after another is normal. The records are read with
:func:`platperf.records.read_stream`, as ``platperf run`` reads them from a live probe,
and become one run: the first ``meta`` is the run's meta, results, histograms and warnings
are kept, and the ``end`` records give the status. An invocation without its ``end`` (the
board lost power, the file was cut short) makes the run ``partial``; an ``error`` record or
an ``end`` saying failed makes it ``failed``. A last line torn in the middle of a record is
where the file was cut: it is left out and the run is ``partial``; any other line that is
not a record stops the import with ``file:line``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from ..events.counted import Counted
from ..records import RecordError, Result, read_stream, result_from_record
from .errors import IngestError

# What this format reads, shaped like the real thing (`platperf ingest FORMAT --help` prints it).
EXAMPLE = """\
{"type":"meta","schema":1,"probe_version":"0.1.0","build_id":"a7cb3560647da6ee","arch":"aarch64", ...}
{"type":"result","benchmark":"mem-latency","params":{"pattern":"random","size":16384,"stride":64},"cpu":0,"mode":"serial","metric":"latency","unit":"ns","direction":"lower","samples":[1.23,1.24]}
{"type":"end","status":"complete","results":1,"seconds":0.4}
"""

COMPLETE, PARTIAL, FAILED = "complete", "partial", "failed"


@dataclass
class ProbeStream:
    """What the invocations in one or more files say about the run, filled in by :meth:`read`."""

    meta: dict | None = None
    histograms: list[dict] = field(default_factory=list)
    warnings: list[dict] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)       # from `error` records and failed ends
    unfinished: list[str] = field(default_factory=list)   # why the run is partial
    _open: str | None = None                              # where the unended invocation began
    _line: int = 0                                        # the line read_stream read last
    _kernel: str | None = None                            # `run KERNEL` of the open invocation
    counted: Counted = field(default_factory=Counted)     # the counters of --events (events.counted)

    def read(self, lines: Iterable[str], name: str) -> Iterator[Result]:
        """The ``result`` records of one file as :class:`Result`, in order; IngestError on a bad line."""
        try:
            for rec in read_stream(self._untorn(lines, name), name):
                # read_stream yields a record as soon as it has read its line
                where = f"{name}:{self._line}"
                kind = rec["type"]
                if kind == "meta":
                    self._close(f"{where}: a new invocation began")
                    self._open = where
                    self._kernel = _kernel(rec)
                    if self.meta is None:
                        self.meta = rec
                elif kind == "result":
                    res = result_from_record(rec, where)
                    counters, warnings = self.counted.expand(res)    # --events: one result each
                    yield res
                    yield from counters
                    self.warnings += [w for w in warnings if w not in self.warnings]
                elif kind == "histogram":
                    self.histograms.append(rec)
                elif kind == "warning":
                    if self._kernel and "cpu" in rec:   # the kernel that wrote it (findings.collapse)
                        rec = {"benchmark": self._kernel, **rec}
                    if rec not in self.warnings:  # every invocation repeats its own
                        self.warnings.append(rec)
                elif kind == "error":
                    self.errors.append(f"{where}: {rec['message']}")
                elif kind == "end":
                    if rec["status"] == FAILED:
                        self.errors.append(f"{where}: the probe reported failure")
                    elif rec["status"] != COMPLETE:
                        self.unfinished.append(f"{where}: the probe ended '{rec['status']}'")
                    self._open = None
        except RecordError as exc:
            raise IngestError(exc.where, exc.message) from None
        self._close(f"{name}: the file ends")

    @property
    def status(self) -> str:
        return FAILED if self.errors else PARTIAL if self.unfinished else COMPLETE

    @property
    def error(self) -> str | None:
        return "; ".join(self.errors + self.unfinished) or None

    def _close(self, why: str):
        if self._open is not None:
            self.unfinished.append(f"the invocation starting at {self._open} has no 'end' ({why})")
            self._open = None

    def _untorn(self, lines: Iterable[str], name: str) -> Iterator[str]:
        """``lines`` without a last line that stops inside a record (where the file was cut)."""
        previous = None
        for number, line in enumerate(lines, 1):
            if previous is not None:
                self._line = number - 1
                yield previous
            previous = line
        if previous is None:
            return
        line = previous
        try:
            json.loads(line) if line.strip() else None
        except ValueError:
            if line.lstrip().startswith("{") and not line.rstrip().endswith("}"):
                self.unfinished.append(f"{name}:{number}: the last line is cut short; left out")
                return
        self._line = number
        yield line


def _kernel(meta: dict) -> str | None:
    """The kernel of ``platperf-probe run KERNEL ...`` from a meta record's argv."""
    argv = meta.get("argv")
    if isinstance(argv, list) and "run" in argv[1:2] and len(argv) > 2 and isinstance(argv[2], str):
        return argv[2]
    return None


def parse(text: str, name: str) -> list[Result]:
    results = list(ProbeStream().read(text.splitlines(), name))
    if not results:
        raise IngestError(f"{name}:1", "no result records: expected platperf-probe JSON Lines "
                                       "(a meta record, results, an end record)")
    return results


def histograms(text: str, name: str) -> list[dict]:
    stream = ProbeStream()
    for _ in stream.read(text.splitlines(), name):
        pass
    return stream.histograms
