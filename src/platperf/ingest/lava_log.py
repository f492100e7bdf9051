"""What a platperf LAVA job wrote, read back from its log (for :mod:`platperf.ingest.lava`).

A LAVA job log is one record per line, ``{"dt": ..., "lvl": ..., "msg": ...}`` — prefixed
with ``- `` as the server stores it (``lavacli jobs logs ID --raw``, the REST API's
``jobs/ID/logs/``), bare as ``lava-run`` writes it. The device's console output is in the
``target`` records, one line each, with every ``"`` written ``\\"`` by the dispatcher's
shell logger. A plain console capture (one device line per line) reads the same way.

Between the markers the job's script prints (lava/device.sh)::

    PLATPERF-LAVA-BEGIN steps=N suite=S arch=A cpus=L
    PLATPERF-SNAPSHOT-BEGIN interval=0.2 / base64 of the gzipped snapshot / PLATPERF-SNAPSHOT-END
    PLATPERF-JSONL-BEGIN n / the probe's JSON Lines / PLATPERF-JSONL-END n exit=CODE
    PLATPERF-ERROR why        (the job could not place or run the probe)
    PLATPERF-LAVA-END
"""
from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from ..bounded import MAX_SNAPSHOT_BYTES, BoundError, gunzip, load_yaml

_JOB_ID = re.compile(r"/lava-(\d+)/bin/lava-test-runner|dispatcher/tmp/(\d+)\b")
_BASE64_LINE = re.compile(r"[A-Za-z0-9+/]+=*")


@dataclass
class JobLog:
    """The platperf parts of one job log; :meth:`read` yields the probe's lines."""

    planned_steps: int | None = None
    suite: str | None = None
    ended: bool = False                   # PLATPERF-LAVA-END seen
    errors: list[str] = field(default_factory=list)
    steps_begun: int = 0
    steps_ended: int = 0
    step_exits: dict[int, int] = field(default_factory=dict)
    snapshot: bytes | None = None         # the snapshot script's output, unpacked
    snapshot_error: str | None = None
    snapshot_interval: float | None = None
    noise: int = 0                        # console lines inside a JSONL section (no record) or
                                          # the snapshot (no base64): kernel messages
    job_id: str | None = None             # from the dispatcher's paths, when the log has them
    lava_error: str | None = None         # the dispatcher's own error line, if any
    job_error: str | None = None          # why LAVA ended the job: its `job` result's error_msg
    _b64: list[str] | None = None
    _b64_chars: int = 0

    def read(self, lines: Iterable[str]) -> Iterator[str]:
        """The probe's JSON Lines in the order written; the markers fill in this object."""
        step = None
        for message in device_lines(lines, self):
            text = message.strip()
            if self._b64 is not None:
                if text.startswith("PLATPERF-SNAPSHOT-END"):
                    self._unpack_snapshot()
                elif text and not _BASE64_LINE.fullmatch(text):
                    self.noise += 1       # a kernel message on the serial console, mid-snapshot
                elif text:
                    self._b64.append(text)
                    self._b64_chars += len(text)
                    if self._b64_chars > MAX_SNAPSHOT_BYTES:    # gzip's output, base64'd: far less
                        self.snapshot_error = (f"the board snapshot in the log is over "
                                               f"{MAX_SNAPSHOT_BYTES >> 20} MiB of base64; left out")
                        self._b64 = None
                continue
            if step is not None:
                if text.startswith("PLATPERF-JSONL-END"):
                    self.steps_ended += 1
                    match = re.match(r"PLATPERF-JSONL-END (\d+) exit=(-?\d+)", text)
                    if match:
                        self.step_exits[int(match[1])] = int(match[2])
                    step = None
                elif text.startswith("{"):
                    yield text
                elif text:
                    self.noise += 1
                continue
            if text.startswith("PLATPERF-LAVA-BEGIN"):
                fields = dict(w.split("=", 1) for w in text.split()[1:] if "=" in w)
                steps = fields.get("steps", "")
                self.planned_steps = int(steps) if steps.isdigit() else None
                self.suite = fields.get("suite")
            elif text.startswith("PLATPERF-SNAPSHOT-BEGIN"):
                self._b64, self._b64_chars = [], 0
                match = re.search(r"interval=([0-9]+(?:\.[0-9]+)?)\b", text)
                self.snapshot_interval = float(match[1]) if match else None
            elif text.startswith("PLATPERF-JSONL-BEGIN"):
                self.steps_begun += 1
                step = text
            elif text.startswith("PLATPERF-ERROR"):
                self.errors.append(text[len("PLATPERF-ERROR"):].strip())
            elif text.startswith("PLATPERF-LAVA-END"):
                self.ended = True
        if self._b64 is not None:
            self.snapshot_error = "the board snapshot is cut short (no PLATPERF-SNAPSHOT-END)"
            self._b64 = None

    def _unpack_snapshot(self):
        try:
            packed = base64.b64decode("".join(self._b64), validate=True)
            self.snapshot = gunzip(packed, MAX_SNAPSHOT_BYTES, "the board snapshot in the log")
        except BoundError as exc:
            self.snapshot_error = str(exc)
        except (binascii.Error, ValueError) as exc:
            self.snapshot_error = f"the board snapshot in the log does not decode ({exc})"
        self._b64 = None

    @property
    def seen(self) -> bool:
        """Whether the log holds a platperf job at all."""
        return self.planned_steps is not None or self.steps_begun > 0 or bool(self.errors)

    def unfinished(self) -> list[str]:
        """Why the run the log holds is short of the job's plan (empty when it is not)."""
        why = []
        if self.planned_steps is not None and self.steps_ended < self.planned_steps:
            why.append(f"the log holds {self.steps_ended} of the job's {self.planned_steps} probe "
                       "commands (the job was cut short: a timeout, or the board was lost)")
        elif not self.ended and not self.errors:
            why.append("the log ends before PLATPERF-LAVA-END (the job was cut short)")
        return why


def device_lines(lines: Iterable[str], into: JobLog | None = None) -> Iterator[str]:
    """The device's console lines of a LAVA job log (or of a plain console capture)."""
    for line in lines:
        stripped = line.strip()
        record_text = stripped[2:] if stripped.startswith("- {") else stripped
        if not record_text.startswith('{"dt"'):
            yield line
            continue
        record = _record(record_text)
        if record is None:
            continue
        message = record.get("msg")
        level = record.get("lvl")
        if into is not None and isinstance(message, str):
            if into.job_id is None:
                match = _JOB_ID.search(message)
                if match:
                    into.job_id = match[1] or match[2]
            if level == "error" and into.lava_error is None:
                into.lava_error = message
        if (into is not None and level == "results" and isinstance(message, dict)
                and message.get("definition") == "lava" and message.get("case") == "job"
                and message.get("error_msg")):
            into.job_error = str(message["error_msg"])
        if level == "target" and isinstance(message, str):
            # The dispatcher's shell logger writes every " as \" (lava_dispatcher/shell.py);
            # each " it wrote has that one backslash before it.
            yield message.replace('\\"', '"')


def _record(text: str) -> dict | None:
    try:
        record = json.loads(text)
    except ValueError:
        try:   # YAML's own escapes (\x.., tags such as ! "165") are not JSON
            record = load_yaml(text, "a LAVA log line")
        except Exception:  # noqa: BLE001 - a log line is untrusted input; any failure is "not a record"
            return None
    return record if isinstance(record, dict) else None
