"""A measuring command's boards, from their names to their runs: the one way a board is opened,
measured and closed (``platperf run``, its gate, ``platperf interference``, ``targets check``).

:meth:`Session.run` gives each board a life of its own, all boards at once: its target opened,
the board described and its steps planned (the request may refuse the board: a CPU not online,
a gate's baseline from another machine), its runs measured through the runner (``repeat`` of
them, or rounds until the request's goal is reached: measure.until; every record stored as it
arrives) and its target closed, none waiting for another. The store is opened by the first
board that is ready to measure: when none is, no database is touched. A board that does not
answer in time (connect, banner, describe, a step) is given up with one line, the others go
on. Without a request the boards are only described.
"""
from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass

from ..runner.executor import Around, Progress, StopRequest, execute_runs
from ..runner.sink import Outcome, RunSink
from ..runner.suite import Step
from .description import Description, describe


@dataclass
class Board:
    """One target of a measuring command, from its name to its run's outcome."""

    name: str
    target: object = None
    description: Description | None = None
    steps: list[Step] | None = None
    run_ids: list[int] = dataclasses.field(default_factory=list)
    outcomes: list[Outcome] = dataclasses.field(default_factory=list)
    error: str | None = None       # why the board was not measured (or its run's error)
    verdict: object = None         # compare.gate.Verdict: what --repeat auto / --against reached

    @property
    def run_id(self) -> int | None:
        return self.run_ids[0] if self.run_ids else None

    @property
    def status(self) -> str:
        """The worst of its runs': failed, partial, complete."""
        if not self.outcomes:
            return "failed"
        return max((o.status for o in self.outcomes), key=("complete", "partial", "failed").index)

    def as_dict(self) -> dict:
        outs = self.outcomes
        error = next((o.error for o in outs if o.error), None) if outs else self.error
        return {"target": self.name, "run_id": self.run_id, "run_ids": list(self.run_ids),
                "status": self.status, "results": sum(o.results for o in outs),
                "histograms": sum(o.histograms for o in outs), "error": error}


class Session:
    """The boards ``names`` for ``request`` (measure.requests: what to measure and under which
    label; None only describes them). ``target_options`` go to ``targets.get_target``. Once
    :meth:`run`, ``store`` is the store the boards were measured into (None when no board was
    ready: no database was opened) and ``store_error`` the line of a store that could not be."""

    def __init__(self, names: list[str], request=None, *, max_connect: int | None = None,
                 **target_options):
        from ..targets.base import DEFAULT_MAX_CONNECT, ConnectSlots
        self.boards = [Board(name) for name in names]
        self.request = request
        limit = max_connect or DEFAULT_MAX_CONNECT
        self._options = {**target_options, "connect_slots": ConnectSlots(limit)}
        # Boards connecting and describing themselves at once: 200 boards' snapshots at once
        # made each take minutes on a loaded host and fail their 120 s round trip; a board that
        # hangs holds one of these for its timeout, never the others' measuring.
        self._bringing_up = threading.BoundedSemaphore(limit)
        self.stop = StopRequest()
        self.store, self.store_error = None, None
        self._store_lock = threading.Lock()

    def _prepare(self, board: Board):
        from ..targets import get_target
        with self._bringing_up:
            if self.stop.is_set():
                raise RuntimeError("interrupted before it was reached")
            board.target = get_target(board.name, **self._options)
            board.description = describe(board.target)
            board.steps = self.request.steps(board.target, board.description) if self.request else []

    def run(self, db: str | None = None, *, db_retry: float | None = None,
            on_ready=lambda board: None, progress_for=lambda board: None) -> StopRequest:
        """Each board's whole life in its own thread, all at once (see the module's text), into
        the store ``db`` (opened once, by the first board ready; ``db_retry``: the seconds a
        database that went away is waited for). ``on_ready(board)`` is told of each board about
        to be measured. One board failing does not stop the others; a stop request (Ctrl-C,
        SIGTERM) interrupts them all, each run left partial."""
        def life(board: Board):
            try:
                self._prepare(board)    # at most max_connect boards at once (see __init__)
                if self.request is None:
                    return
                if self.stop.is_set():
                    board.error = "interrupted before it was measured"
                    return
                store = self._store_for(db, db_retry)
                on_ready(board)
                self._measure_one(store, board, progress_for)
            finally:
                _close(board)

        with self.stop.on_signals():
            _each(self.boards, life)
        if self.store is not None:
            self.store.close_writer()    # every record committed; the store still reads
        return self.stop

    def _store_for(self, db: str, retry: float | None):
        """The store, opened by the first board that asks; a store that cannot be opened fails
        every board that asks with its line (``store_error``)."""
        from ..store import Store, StoreError
        with self._store_lock:
            if self.store is None and self.store_error is None:
                try:
                    self.store = Store(db)
                    if retry is not None:
                        self.store.retry_s = retry
                except StoreError as exc:
                    self.store_error = str(exc)
            if self.store_error is not None:
                raise StoreError(self.store_error)
            return self.store

    def _measure_one(self, store, board: Board, progress_for):
        request = self.request
        options = dict(suite=request.name, label=request.label, note=request.note,
                       progress=progress_for(board), stop=self.stop, around=request.around,
                       begun=board.run_ids.append)
        if getattr(request, "goal", None) is None:
            board.outcomes = measure_runs(store, board.target, board.description, board.steps,
                                          repeat=request.repeat, **options)
            return
        from .until import measure_until
        board.outcomes, board.verdict = measure_until(store, board.target, board.description,
                                                      board.steps, request.goal,
                                                      measure_runs=measure_runs, **options)


def _close(board: Board):
    """The board's target closed: a board that stopped answering holds only its own close, for
    a bounded time (targets.ssh_master.STOP_TIMEOUT_S)."""
    target, board.target = board.target, None
    if target is not None:
        try:
            target.close()
        except Exception as exc:   # a board that vanished: its results are stored already
            board.error = board.error or f"closing the target: {exc}"


def measure_runs(store, target, description: Description, steps: list[Step], *, suite: str,
                 repeat: int = 1, label: str | None = None, note: str | None = None,
                 progress: Progress | None = None, stop: StopRequest | None = None,
                 around: Around | None = None, begun=None) -> list[Outcome]:
    """``repeat`` runs of ``steps`` on ``target`` under one label, each begun with
    ``description``, every record stored as it arrives, their steps interleaved
    (runner.executor.execute_runs); ``begun(run_id)`` is called for each run as it is created."""
    sinks = []
    for _ in range(repeat):
        # Through the store's one writer, as every record of the run (store/writer.py).
        run_id = store.writer().call(store.begin_run, label=label, target=target.name, suite=suite,
                                     fingerprint=description.fingerprint,
                                     findings=description.findings, note=note, meta=description.meta)
        sinks.append(RunSink(store, run_id, description.place, findings=description.findings,
                             fingerprint=description.fingerprint,
                             has_meta=description.meta is not None))
        if begun is not None:
            begun(run_id)
    return execute_runs(sinks, target, steps, progress, stop=stop, around=around)


def _each(boards: list[Board], work):
    """``work(board)`` in a thread per board; an exception becomes the board's error."""

    def guarded(board: Board):
        try:
            work(board)
        except Exception as exc:
            board.error = str(exc) or type(exc).__name__

    threads = [threading.Thread(target=guarded, args=(b,), name=f"board {b.name}", daemon=True)
               for b in boards]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.1)   # in short waits: the main thread must stay free for signal handlers
