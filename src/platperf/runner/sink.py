"""One run's records on their way into the store, probe steps and tool steps alike.

A :class:`RunSink` places each result and histogram on its (package, cluster, core), hands it
to the store's one writer (store/writer.py: shared batches, each record committed at most
``BATCH_S`` after it was handed over, every live run's heartbeat) and counts it in the run's
:class:`Outcome`. No board holds a connection: the number of boards does not change the
number of connections. The run's findings (the doctor's, a mitigation not applied, the
probe's and the adapters' warnings) stay in memory and are written once, when the run finishes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..events.counted import Counted
from ..records import Result, result_from_record


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
    The counts of its :class:`Outcome` are what was handed over; when the store refuses a
    batch they go back to what was committed, and the error is one line.
    """

    def __init__(self, store, run_id: int, place: Callable[[int], tuple], *,
                 findings=(), has_meta: bool = True, fingerprint: dict | None = None):
        self.store, self.run_id, self.place = store, run_id, place
        self.writer = store.writer()
        self.writer.watch(run_id)
        self.outcome = Outcome(run_id)
        self.findings = list(findings or [])
        self.has_meta = has_meta
        self.fingerprint = fingerprint      # the kernels' claims read its caches (events.claims)
        self.counted = Counted()
        self._findings_changed = False
        self._kept = (0, 0)          # results and histograms committed, so in the database
        self._problem: str | None = None    # the writer's one line, once it refused a record

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
            res = result_from_record(transform(rec))
            counters, warnings = self.counted.expand(res)    # --events: one result each, beside it
            for one in (res, *counters):
                self.result(one)
            for w in warnings:
                self.warning(w)
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
        self.outcome.results += 1
        self._write(self.store.add_result, self.run_id, res)

    def histogram(self, rec: dict):
        package, cluster, core = self.place(rec["cpu"]) if rec.get("cpu") is not None else (None, None, None)
        self.outcome.histograms += 1
        self._write(self.store.add_histogram, self.run_id, rec, cluster=cluster, core=core, package=package)

    def warning(self, rec: dict):
        """A warning of the run in the probe's shape (an adapter's finding): kept as it comes."""
        self.outcome.warnings.append(rec)

    def finding(self, finding: dict):
        """A finding of the run in the doctor's shape (a mitigation not applied)."""
        self.findings.append(finding)
        self._findings_changed = True

    # -- the writer ------------------------------------------------------------------------
    def _write(self, add, *args, **kw):
        self._check()
        self.writer.write(self, (self.outcome.results, self.outcome.histograms), add, *args, **kw)

    def committed(self, kept: tuple):
        """The writer's word that the counts ``kept`` are in the database."""
        self._kept = kept

    def store_failed(self, line: str):
        """The writer's word that a record of this run was refused (``line`` says why)."""
        self._problem = self._problem or line

    def _check(self):
        """The batch the store refused is lost: the counts go back to what the database
        holds, and the error is one line (a full disk said as such)."""
        if self._problem is not None:
            from ..store import StoreError
            self.outcome.results, self.outcome.histograms = self._kept
            raise StoreError(self._problem)

    def commit_due(self):
        """Between records: says at once when the store refused one (the writer batches,
        commits and beats the heartbeat on its own)."""
        self._check()

    def commit(self):
        """Everything handed over is committed, or StoreError."""
        from ..store import StoreError
        try:
            self.writer.flush(self)
        except StoreError:
            pass        # the writer told this sink too: _check says it with the counts kept
        self._check()

    def close(self):
        self.commit()

    def finish(self, status: str, error: str | None = None):
        """Writes what is pending, the findings (once, when the run added any) and the run's
        end: the end is written even after a refused batch, whose records are not counted, and
        the run is then failed with the store's line."""
        from ..store import StoreError
        try:
            try:
                self.writer.flush(self)
            except StoreError:
                pass
            if self._problem is not None:   # refused after the board's last record: not complete
                self.outcome.results, self.outcome.histograms = self._kept
                status, error = "failed", self._problem
                self.outcome.status, self.outcome.error = status, error
            self._check_claims()
            try:
                if self._findings_changed or self.outcome.warnings:
                    self.writer.call(self.store.update_run, self.run_id,
                                     findings=with_probe_warnings(self.findings, self.outcome.warnings))
                self.writer.call(self.store.finish_run, self.run_id, status, error)
            except StoreError:
                # the database is away: the end goes where the next platperf that opens it finds it
                from ..store import journal
                self.journal = journal.record(self.store, self.run_id, status, error)
                raise
        finally:
            self.writer.forget(self.run_id)

    def _check_claims(self):
        """The kernels' claims against the run's counted events (events.claims), once."""
        from ..events.claims import check
        found = check(self.counted.counters, self.fingerprint)
        self.counted.counters = []
        if found:
            self.findings += found
            self._findings_changed = True


def with_probe_warnings(findings, warnings):
    """Probe warnings join the doctor findings of the run, marked as the probe's."""
    extra = [{"level": w.get("level", "warn"), "code": w.get("code", "probe-warning"),
              "message": w["message"], "effect": None, "fix": w.get("fix"),
              "source": w.get("source", "probe"),
              **{k: w[k] for k in ("cpu", "benchmark") if w.get(k) is not None}} for w in warnings]
    return list(findings or []) + extra
