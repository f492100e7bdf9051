"""One run's records on their way into the store, probe steps and tool steps alike.

A :class:`RunSink` places each result and histogram on its (package, cluster, core), writes it in
batches (each record committed at most ``BATCH_S`` after it was read), counts it in the
run's :class:`Outcome` and keeps the run's heartbeat fresh. The run's findings (the doctor's,
a mitigation not applied, the probe's and the adapters' warnings) stay in memory and are
written once, when the run finishes.
"""
from __future__ import annotations

import contextlib

import time
from dataclasses import dataclass, field
from typing import Callable

from ..records import Result, result_from_record

# Longest time a record read from the probe waits for its commit when more keep coming:
# well inside the 100 ms in which a record must be durable.
BATCH_S = 0.05
# How often a run says its owner lives (store.heartbeat); a run silent for longer than
# store.sweep.STALE_AFTER_S is taken for abandoned by later commands.
HEARTBEAT_S = 10.0


@dataclass
class Outcome:
    run_id: int
    status: str = "complete"       # complete | partial | failed
    error: str | None = None
    results: int = 0
    histograms: int = 0
    warnings: list[dict] = field(default_factory=list)
    signal: int | None = None      # the signal that interrupted the run
    steps: int = 0                 # steps the probe finished with `end` complete


class RunSink:
    """The records of the begun run ``run_id``.

    ``findings``: the run's findings as it was begun with them; ``has_meta``: whether it was
    begun with the probe's ``meta`` (else the first ``meta`` record the probe writes is kept).
    One transaction per record costs about 0.15-0.5 ms; a probe writing 100,000 small
    results in a burst would spend a minute in commits, so a burst shares transactions.
    """

    def __init__(self, store, run_id: int, place: Callable[[int], tuple], *,
                 findings=(), has_meta: bool = True):
        self.store, self.run_id, self.place = store, run_id, place
        self.outcome = Outcome(run_id)
        self.findings = list(findings or [])
        self.has_meta = has_meta
        self._findings_changed = False
        self.conn, self.trans, self.oldest = None, None, None
        self._kept = (0, 0)          # results and histograms committed, so in the database
        self.last_beat = time.monotonic()

    # -- records ---------------------------------------------------------------------------
    def probe_record(self, rec: dict, transform: Callable[[dict], dict] = lambda rec: rec,
                     kernel: str | None = None):
        """A ``meta``, ``result``, ``histogram`` or ``warning`` record of the probe; results
        and histograms go through ``transform`` first (a step's setup, runner.executor).
        A warning about one CPU keeps the ``kernel`` that wrote it (findings.collapse)."""
        kind = rec["type"]
        if kind == "meta" and not self.has_meta:
            self._write(self.store.update_run, self.run_id, meta=rec)
            self.has_meta = True
        elif kind == "result":
            self.result(result_from_record(transform(rec)))
        elif kind == "histogram":
            self.histogram(transform(rec))
        elif kind == "warning":
            if kernel and "cpu" in rec:
                rec = {"benchmark": kernel, **rec}
            if rec not in self.outcome.warnings:  # each invocation repeats its own
                self.outcome.warnings.append(rec)

    def result(self, res: Result):
        if res.cpu is not None and res.cluster is None:
            res.set_place(self.place(res.cpu))
        self._write(self.store.add_result, self.run_id, res)
        self.outcome.results += 1

    def histogram(self, rec: dict):
        package, cluster, core = self.place(rec["cpu"]) if rec.get("cpu") is not None else (None, None, None)
        self._write(self.store.add_histogram, self.run_id, rec, cluster=cluster, core=core, package=package)
        self.outcome.histograms += 1

    def warning(self, rec: dict):
        """A warning of the run in the probe's shape (an adapter's finding): kept as it comes."""
        self.outcome.warnings.append(rec)

    def finding(self, finding: dict):
        """A finding of the run in the doctor's shape (a mitigation not applied)."""
        self.findings.append(finding)
        self._findings_changed = True

    # -- transactions ----------------------------------------------------------------------
    def _write(self, add, *args, **kw):
        from sqlalchemy.exc import SQLAlchemyError
        try:
            if self.conn is None:
                self.conn = self.store.engine.connect()
            if self.trans is None:
                self.trans = self.conn.begin()
                self.oldest = time.monotonic()
            add(*args, conn=self.conn, **kw)
        except SQLAlchemyError as exc:
            self._failed(exc)

    def commit_due(self, more_waiting: bool):
        """Commits when nothing more is waiting to be batched with it, or when the oldest
        uncommitted record has waited BATCH_S: a burst is one transaction, a lone record is
        durable at once. Beats the heartbeat when it is due."""
        if self.trans is not None and (not more_waiting or time.monotonic() - self.oldest >= BATCH_S):
            self.commit()
        if time.monotonic() - self.last_beat >= HEARTBEAT_S:
            self.beat()

    def commit(self):
        from sqlalchemy.exc import SQLAlchemyError
        if self.trans is not None:
            try:
                self.trans.commit()
            except SQLAlchemyError as exc:
                self._failed(exc)
            self.trans, self.oldest = None, None
        self._kept = (self.outcome.results, self.outcome.histograms)

    def _failed(self, exc):
        """The batch not committed is lost with the transaction: the counts go back to what
        the database holds, and the error is one line (a full disk said as such)."""
        from ..store import StoreError
        from ..store.url import write_problem
        self.outcome.results, self.outcome.histograms = self._kept
        if self.trans is not None:
            with contextlib.suppress(Exception):
                self.trans.rollback()
            self.trans, self.oldest = None, None
        raise StoreError(write_problem(self.store.url, exc)) from None

    def beat(self):
        # Inside an open batch the beat joins it: a second connection would wait on the
        # batch's own write lock (SQLite has one writer).
        from sqlalchemy.exc import SQLAlchemyError
        self.last_beat = time.monotonic()
        try:
            self.store.heartbeat(self.run_id, conn=self.conn if self.trans is not None else None)
        except SQLAlchemyError as exc:
            self._failed(exc)

    def close(self):
        try:
            self.commit()
        finally:
            if self.conn is not None:
                with contextlib.suppress(Exception):
                    self.conn.close()
                self.conn = None

    def finish(self, status: str, error: str | None = None):
        """Writes what is pending, the findings (once, when the run added any) and the run's
        end."""
        from sqlalchemy.exc import SQLAlchemyError
        self.close()
        try:
            if self._findings_changed or self.outcome.warnings:
                self.store.update_run(self.run_id, findings=with_probe_warnings(self.findings,
                                                                                 self.outcome.warnings))
            self.store.finish_run(self.run_id, status, error)
        except SQLAlchemyError as exc:
            self._failed(exc)


def with_probe_warnings(findings, warnings):
    """Probe warnings join the doctor findings of the run, marked as the probe's."""
    extra = [{"level": w.get("level", "warn"), "code": w.get("code", "probe-warning"),
              "message": w["message"], "effect": None, "fix": w.get("fix"),
              "source": w.get("source", "probe"),
              **{k: w[k] for k in ("cpu", "benchmark") if w.get(k) is not None}} for w in warnings]
    return list(findings or []) + extra
