"""A platperf LAVA job's log (``platperf lava job``; docs/lava.md)::

    platperf ingest lava 12345 --label sdk-11.1 --identity lab     # from the server
    platperf ingest lava job-12345.yaml --label sdk-11.1           # a saved log

The probe's JSON Lines between the job's ``PLATPERF-JSONL-BEGIN/END`` markers are read as
``probe-jsonl`` reads a saved stream (meta, every result and histogram, warnings, the
``end`` records); the board snapshot the job printed is kept for the caller to describe the
board with (fingerprint, doctor findings, the (cluster, core) of each CPU:
``platperf.measure.description.describe_job_board``). A log cut short (a job timeout, a lost
board) gives a ``partial`` run with everything before the cut; a job that could not place
the probe gives an error naming LAVA's or the job's own message.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ..records import Result
from .errors import IngestError
from .lava_log import JobLog
from .probe_jsonl import ProbeStream

# What this format reads, shaped like the real thing (`platperf ingest FORMAT --help` prints it).
EXAMPLE = """\
- {"dt": "2026-11-23T10:41:17.15", "lvl": "target", "msg": "PLATPERF-LAVA-BEGIN steps=2 suite=tiny arch=x86_64 cpus=0-1"}
- {"dt": "2026-11-23T10:41:17.15", "lvl": "target", "msg": "PLATPERF-SNAPSHOT-BEGIN interval=0.2"}
  ... (the board's /sys and /proc, gzip + base64)
- {"dt": "2026-11-23T10:41:17.61", "lvl": "target", "msg": "PLATPERF-JSONL-BEGIN 1"}
  ... (the probe's JSON Lines, one record a line)
- {"dt": "2026-11-23T10:41:18.30", "lvl": "target", "msg": "PLATPERF-JSONL-END 1 exit=0"}
"""


@dataclass
class LavaRun:
    """One job's run as the log gives it."""

    log: JobLog = field(default_factory=JobLog)
    stream: ProbeStream = field(default_factory=ProbeStream)
    results: list[Result] = field(default_factory=list)

    @property
    def status(self) -> str:
        return self.stream.status

    @property
    def error(self) -> str | None:
        return self.stream.error


def read_run(lines: Iterable[str], name: str) -> LavaRun:
    """The run in a job log's ``lines``; IngestError if the log holds no platperf run."""
    run = LavaRun()
    read = [0]

    def counted(lines):
        for read[0], line in enumerate(lines, 1):
            yield line

    run.results = list(run.stream.read(run.log.read(counted(lines)), name))
    log = run.log
    end = f"{name}:{read[0]}"      # what the whole log lacks is found at its end
    if not log.seen:
        why = f"; LAVA says: {log.lava_error}" if log.lava_error else ""
        raise IngestError(f"{name}:1", "no PLATPERF-LAVA-BEGIN or PLATPERF-JSONL-BEGIN line: not the "
                                       f"log of a job written by `platperf lava job`{why}")
    if log.errors:
        raise IngestError(end, f"the job did not run the probe: {log.errors[0]}")
    if run.stream.meta is None:
        why = f" (LAVA says: {log.lava_error})" if log.lava_error else ""
        raise IngestError(end, f"the job's log holds no probe record{why}")
    run.stream.unfinished.extend(log.unfinished())
    for number, code in sorted(log.step_exits.items()):
        if code != 0 and not run.stream.errors:
            run.stream.unfinished.append(f"probe command {number} exited {code}")
    if log.noise:
        run.stream.warnings.append({
            "type": "warning", "code": "lava-console-noise",
            "message": f"{log.noise} console line(s) inside the probe's output or the board "
                       "snapshot in the LAVA log were neither records nor base64 (kernel messages "
                       "on a serial console?) and were left out"})
    return run


def parse(text: str, name: str) -> list[Result]:
    results = read_run(text.splitlines(), name).results
    if not results:
        raise IngestError(f"{name}:1", "the job's log holds no result record")
    return results


def histograms(text: str, name: str) -> list[dict]:
    return read_run(text.splitlines(), name).stream.histograms
