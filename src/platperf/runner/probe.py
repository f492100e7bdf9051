"""The probe's protocol as the host speaks it: ``platperf-probe list --json`` (its kernels),
``info`` (its ``meta``), any command's records, and a feed that reads a running command's
records in their own thread."""
from __future__ import annotations

import json
import queue
import threading

from ..records import read_stream
from .suite import SuiteError


def probe_kernels(target) -> list[dict]:
    """``platperf-probe list --json`` on ``target``."""
    proc = target.run(["list", "--json"])
    text = "".join(proc)
    code = proc.wait()
    if code != 0:
        raise SuiteError(f"platperf-probe list failed (exit {code}): {proc.stderr_tail()}")
    try:
        return json.loads(text)["kernels"]
    except (ValueError, KeyError, TypeError):
        raise SuiteError("platperf-probe list --json did not print {\"kernels\": [...]}") from None


# `platperf-probe info` or `list` answer in well under a second on any board; one that has not
# in this long is stopped (a probe that hangs, a board that stopped it).
QUERY_TIMEOUT_S = 120.0


def probe_records(target, args: list[str], timeout: float = QUERY_TIMEOUT_S) -> list[dict]:
    """The records of ``platperf-probe ARGS`` on ``target`` (meta first); SuiteError when it
    fails, prints nothing or has not ended after ``timeout`` seconds (RecordError when it
    prints a bad record)."""
    name = f"platperf-probe {args[0]}"
    proc = target.run(args)
    stopping = threading.Event()     # set before the kill: the probe may end before kill returns

    def stop():
        stopping.set()
        proc.kill()
    watchdog = threading.Timer(timeout, stop)
    watchdog.daemon = True
    watchdog.start()
    try:
        records = list(read_stream(proc, name))
    finally:
        code = proc.wait()
        watchdog.cancel()
    if stopping.is_set() and code != 0:
        raise SuiteError(f"{name} did not answer in {timeout:g} s on {target.name}; stopped")
    if code != 0 or not records:
        raise SuiteError(f"{name} failed (exit {code}): {proc.stderr_tail()}")
    return records


def probe_meta(target) -> dict:
    """The probe's ``meta`` record from ``platperf-probe info``."""
    return probe_records(target, ["info"])[0]


FEED_RECORDS = 4096     # records read ahead of the store at most


class RecordFeed:
    """The probe's records, read by their own thread into a queue.

    The storing thread never blocks on the probe: while the probe is silent it still sees
    Ctrl-C and a store that refused a record (the store's writer batches, commits and keeps
    the heartbeat on its own).
    """

    DONE, NOTHING = object(), object()

    def __init__(self, proc, name: str):
        # Bounded: when the store falls behind, the reader waits, the pipe fills and the probe
        # waits on its write (back-pressure), instead of the queue growing without end.
        self._queue: queue.Queue = queue.Queue(maxsize=FEED_RECORDS)
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(proc, name), daemon=True,
                                        name=f"read {name}")
        self._thread.start()

    def _read(self, proc, name):
        try:
            for rec in read_stream(proc, name):
                if not self._put(("record", rec)):
                    return
        except BaseException as exc:   # handed to the storing thread, which raises it
            self._put(("raise", exc))
        else:
            self._put(("done", None))

    def _put(self, item) -> bool:
        """Wait for room; False once the storing thread has stopped listening (close())."""
        while not self._closed.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def close(self):
        """The storing thread is done with this feed: a reader waiting for room gives up."""
        self._closed.set()

    def next(self, timeout: float):
        try:
            kind, item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return self.NOTHING
        if kind == "raise":
            raise item
        return item if kind == "record" else self.DONE
