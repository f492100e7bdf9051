"""The steps of a suite run one after the other into one run, or into several runs of one
suite interleaved (``platperf run --repeat N``): probe steps (the probe's records read as they
arrive) and tool steps (an adapter's records) both into the run's :class:`RunSink`.

Ctrl-C and SIGTERM are heard between records: the first asks the probe to finish its sample
and write ``end``, a second kills it; either way the run keeps what arrived (partial).
"""
from __future__ import annotations

import contextlib
import dataclasses
import signal
import threading
import time
from typing import Callable, ContextManager, Optional

from ..adapters import ToolStep, run_step
from ..records import RecordError, Result
from ..store.url import StoreError
from .probe import RecordFeed
from .sink import Outcome, RunSink
from .suite import Step

# Seconds the probe gets to finish its sample after SIGINT before it is killed.
INTERRUPT_GRACE_S = 10.0
# How often the storing thread wakes while the probe is silent: to see a stop request and
# to keep the run's heartbeat fresh.
POLL_S = 0.05


class Progress:
    """What the runner tells a progress display; the default shows nothing."""

    def step_started(self, step: Step, index: int, total: int): ...
    def record(self, rec: dict): ...
    def step_finished(self, step: Step): ...


class StopRequest:
    """Ctrl-C or SIGTERM as the measuring threads see it.

    Python runs signal handlers in the main thread only, so the handler just sets this and
    every thread that drives a probe polls it: the first signal asks each probe to finish
    its sample and write ``end``; a second one kills them without waiting.
    """

    def __init__(self):
        self.signal: int | None = None
        self._first, self._again = threading.Event(), threading.Event()

    def request(self, signum: int = signal.SIGINT):
        if self._first.is_set():
            self._again.set()
        else:
            self.signal = signum
            self._first.set()

    def is_set(self) -> bool:
        return self._first.is_set()

    def hurried(self) -> bool:
        return self._again.is_set()

    @contextlib.contextmanager
    def on_signals(self):
        """SIGINT and SIGTERM set this request for the duration of the block (main thread
        only; elsewhere the caller's handlers stay in charge)."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        old = {sig: signal.signal(sig, lambda signum, _frame: self.request(signum))
               for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield self
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)


# A step's setup: entered around the probe invocation with the run's sink (which takes the
# step's findings), it may change ``step.argv`` and yields the record transform for the step
# (or None): a function given every result and histogram record before it is stored,
# returning the record to store.
Around = Callable[[RunSink, Step], ContextManager[Optional[Callable[[dict], dict]]]]


def interleave(steps: list[Step], runs: int) -> list[tuple[int, Step]]:
    """(run index, step) in the order they are measured: each step once into every run before
    the next step, the runs' order turning by one from step to step. Drift slower than a step
    (a neighbour starting, the machine warming) then touches every run alike, instead of
    making the last run differ from the first."""
    return [((k + i) % runs, step) for k, step in enumerate(steps) for i in range(runs)]


def execute_runs(sinks: list[RunSink], target, steps: list[Step], progress: Progress | None = None,
                 *, stop: StopRequest | None = None, around: Around | None = None) -> list[Outcome]:
    """Run ``steps`` on ``target`` into one or several runs of one suite, one sink each, each
    record into its run's sink as it arrives; finish the runs. Each step is a separate probe
    process into each run in turn (:func:`interleave`). A step that fails ends every run: the
    failing one failed, the others partial.

    ``stop`` is polled between records; without one, SIGINT/SIGTERM in the main thread make
    one. ``around(sink, step)`` sets each probe step up (see :data:`Around`).
    """
    outs = [sink.outcome for sink in sinks]
    own_stop = stop is None
    steps_runner = _Steps(target, progress or Progress(), stop or StopRequest())
    stop = steps_runner.stop
    schedule = interleave(steps, len(sinks))
    try:
        with stop.on_signals() if own_stop else contextlib.nullcontext():
            for index, (i, step) in enumerate(schedule):
                if stop.is_set():
                    break
                out = outs[i]
                title = f"{step.title} [run {i + 1}/{len(sinks)}]" if len(sinks) > 1 else None
                verdict = steps_runner.run(step, sinks[i], around, index, len(schedule), title)
                if verdict is not None:
                    out.status, out.error = verdict
                    for other in outs:
                        if other is not out and other.steps < len(steps):
                            other.status = "partial"
                            other.error = f"stopped with run {out.run_id} ({out.status}: {out.error})"
                    break
                out.steps += 1
                sinks[i].close()   # a connection a run only while its step runs: --repeat 100 needs 100 runs
    except BaseException as exc:
        steps_runner.kill()
        stored = isinstance(exc, StoreError)      # the store failed: a full disk, a lost server
        for sink, out in zip(sinks, outs):
            out.status = "partial" if isinstance(exc, KeyboardInterrupt) else "failed"
            out.error = str(exc) if stored else f"{type(exc).__name__}: {exc}"
            with contextlib.suppress(Exception):  # the store itself may be what failed
                sink.finish(out.status, out.error)
        if not stored:
            raise
        return outs
    for sink, out in zip(sinks, outs):
        out.signal = stop.signal
        if out.status == "complete" and out.steps < len(steps):  # a signal between two probe runs
            out.status, out.error = "partial", f"interrupted before '{steps[out.steps].title}'"
        try:
            sink.finish(out.status, out.error)
        except StoreError as exc:        # every result is in; the run's end could not be written
            kept = getattr(sink, "journal", None)
            out.status, out.error = "failed", (
                f"{exc} (the run's end is kept in {kept}: the next platperf command that opens the "
                "database records it)" if kept else
                f"{exc} (the run's end is not recorded: the next platperf command marks it abandoned)")
    return outs


class _Steps:
    """Runs one step at a time, a probe invocation or an adapter's tool, into a run's sink."""

    def __init__(self, target, progress: Progress, stop: StopRequest):
        self.target, self.progress, self.stop = target, progress, stop
        self.proc = None       # the probe process running now

    def run(self, step, sink: RunSink, around: Around | None, index: int, total: int,
            title: str | None):
        """None when the step finished, else the run's (status, error)."""
        tool = isinstance(step, ToolStep)     # an adapter's step: no probe, no setup
        with around(sink, step) if around and not tool else contextlib.nullcontext() as transform:
            if title is not None:      # after the setup, which may have changed the argv
                step = dataclasses.replace(step, title=title)
            self.progress.step_started(step, index, total)
            verdict = self.tool(step, sink) if tool else self.probe(step, sink, transform or (lambda rec: rec))
        if verdict is None:
            self.progress.step_finished(step)
        return verdict

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def tool(self, step: ToolStep, sink: RunSink) -> None:
        """An adapter's records into the run; what the board lacks is one of the run's
        warnings. A tool step never ends the run."""
        records, found = run_step(step, self.target)
        for rec in records:
            if isinstance(rec, Result):
                sink.result(rec)
                self.progress.record({"type": "result", "benchmark": rec.benchmark})
            else:
                sink.histogram(rec)
                self.progress.record(rec)
        sink.commit()
        if found is not None:
            sink.warning(found)
        return None

    def probe(self, step: Step, sink: RunSink, transform):
        """One probe invocation, its records stored as they arrive."""
        name = f"probe output of '{step.title}' (suite entry {step.number})"
        proc = self.proc = self.target.run(step.argv)
        feed = RecordFeed(proc, name)
        end, errors, interrupted_at, timed_out = None, [], None, False
        deadline = time.monotonic() + step.timeout
        try:
            while True:
                rec = feed.next(POLL_S)
                if rec is RecordFeed.DONE:
                    break
                if rec is not RecordFeed.NOTHING:
                    if rec["type"] == "end":
                        end = rec
                    elif rec["type"] == "error":
                        errors.append(rec["message"])
                    else:
                        sink.probe_record(rec, transform, kernel=step.kernel)
                    self.progress.record(rec)
                sink.commit_due()
                if interrupted_at is None and (self.stop.is_set() or time.monotonic() > deadline):
                    timed_out = not self.stop.is_set()
                    proc.interrupt()
                    interrupted_at = time.monotonic()
                elif interrupted_at is not None and (self.stop.hurried() or
                                                     time.monotonic() - interrupted_at > INTERRUPT_GRACE_S):
                    proc.kill()
        except RecordError as exc:
            sink.commit()
            self.kill()
            return "failed", str(exc)
        finally:
            feed.close()
        code = proc.wait()
        sink.commit()
        self.proc = None
        if timed_out:
            return "partial", (f"'{step.title}' did not end within its {step.timeout:g} s timeout "
                               f"and was stopped (a suite entry's `timeout = SECONDS` sets it)")
        return _verdict(step, name, proc, code, end, errors, self.stop)


def _verdict(step, name, proc, code, end, errors, stop):
    if end is None:
        if stop.is_set():
            return "partial", "interrupted before the probe wrote 'end'"
        tail = proc.stderr_tail()
        # A signal is -N from a local child, 128+N through a board's shell (an SSH target)
        signum = -code if code < 0 else code - 128 if 128 < code < 160 else None
        how = f"killed by signal {signum}" if signum else f"exit {code}"
        return "partial", (f"{name}: the probe stopped without an 'end' record "
                           f"({how}{': ' + tail if tail else ''})")
    if end["status"] == "failed" or errors:
        return "failed", f"{step.title}: " + ("; ".join(errors) or "the probe reported failure")
    if end["status"] != "complete":
        return "partial", f"interrupted during '{step.title}'"
    return None
