"""One writer for every run of a measuring command: the boards hand it their records, it
writes them on one connection in shared transactions and beats every live run's heartbeat.

Why one: a connection per board, and a second one for its heartbeat, exhausted SQLAlchemy's
pool (5 + 10) at 15 boards and lost every result of the boards that waited for one; a
PostgreSQL server's max_connections (100 by default) would stop a 200-board lab the same way.
One connection holds for any number of boards, and SQLite has one writer at a time anyway.

Back-pressure, not failure: the records waiting are bounded (:data:`MAX_PENDING`); a board
that finds the queue full waits, its probe's output waits in the pipe, and the probe waits on
its write. A database that is busy (another process's write lock outlasting SQLite's busy
timeout, a PostgreSQL serialization failure or deadlock) has the batch written again after
a pause, for up to :data:`BUSY_GIVE_UP_S`. A database that went away — a PostgreSQL restart,
failover or network blip (the connection lost or refused, ``admin_shutdown``), a disk that
returns EIO or ENOSPC and then recovers — is waited for the same way, for up to the store's
``retry_s`` (``--db-retry``, :data:`DB_RETRY_S` by default): the batch is kept and written
again, nothing measured is dropped, and the user is told once when the store goes away and
once when it is back. Past that time the runs fail with the cause; the writer then tries each
later batch once (the store may be back) instead of waiting again. Any other error fails only
the runs whose records were refused: each run's part of the batch is tried on its own.

A commit whose answer was lost: the connection can break after the server made the commit
durable and before its answer arrived (an immediate shutdown, a network cut). Written again,
the batch would be stored twice. On PostgreSQL each batch's transaction id is read before its
commit, and after a lost connection the server is asked what became of it
(``txid_status``): committed, the batch counts as written; aborted, it is written again; still
in progress, asked again after the pause. SQLite commits in this process: no answer to lose.
"""
from __future__ import annotations

import queue
import sys
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Callable

from sqlalchemy.exc import SQLAlchemyError

from .url import StoreError, write_problem

# Records (and requests) waiting for the writer at most: beyond it the boards wait.
MAX_PENDING = 20_000
# Longest time a record waits for its commit while more keep coming (a lone record is
# committed at once): well inside the 100 ms in which a record must be durable.
BATCH_S = 0.05
MAX_BATCH = 5_000
# How often every live run says its owner lives; store.sweep.STALE_AFTER_S is the limit.
HEARTBEAT_S = 10.0
# How long a busy database is waited for, batch after batch, before the runs fail.
BUSY_GIVE_UP_S = 600.0
# How long a database that went away is waited for (--db-retry): a restart takes a second, a
# failover or a full disk's cleaning minutes; well inside store.sweep.STALE_AFTER_S, so that no
# other platperf takes a waiting run for abandoned.
DB_RETRY_S = 300.0
_BUSY_SQLSTATES = {"40001", "40P01", "55P03"}   # serialization failure, deadlock, lock not available
# the connection lost or refused (class 08), the server shutting down or starting (57P01-03),
# out of disk or memory (class 53)
_GONE_SQLSTATES = ("08", "57P01", "57P02", "57P03", "53")
_GONE_WORDS = ("disk I/O error", "database or disk is full", "unable to open database file",
               "server closed the connection", "connection refused", "Connection refused",
               "terminating connection", "the database system is", "could not connect", "connection is closed",
               "No space left", "could not extend")


@dataclass
class _Op:
    fn: Callable | None             # fn(*args, conn=..., **kw); None: a flush
    args: tuple = ()
    kw: dict = field(default_factory=dict)
    owner: object = None            # the RunSink whose record this is (None: a plain call)
    kept: tuple | None = None       # the owner's counts once this op is committed
    future: Future | None = None    # a call's or flush's answer
    value: object = None


_CLOSE = object()      # the owner of the op that ends the writer


class StoreWriter:
    """The writer of ``store``: a thread with one connection, fed through a bounded queue."""

    def __init__(self, store, say: Callable[[str], None] | None = None):
        self.store = store
        self.retry_s = float(getattr(store, "retry_s", DB_RETRY_S))
        self.say = say or _say
        self._gone_since: float | None = None    # when the store went away; None while it is there
        self._gave_up = False                    # the wait ran out: later batches try once
        self._queue: queue.Queue = queue.Queue(MAX_PENDING)
        self._live: set[int] = set()
        self._conn = None
        self._xid: int | None = None   # PostgreSQL: the id of the batch's transaction until it is known committed
        self._last_beat = time.monotonic()
        self.connections = 0          # connections the writer opened (1 unless one was lost)
        self.busy_retries = 0         # batches written again because the database was busy
        self.gone_retries = 0         # batches written again because the database was away
        self.lost_answers = 0         # batches committed whose commit's answer was lost
        self._thread = threading.Thread(target=self._serve, name="store writer", daemon=True)
        self._thread.start()

    # -- the boards' side -------------------------------------------------------------------
    def write(self, owner, kept: tuple, fn: Callable, *args, **kw):
        """``fn(*args, conn=, **kw)`` in a coming batch; ``owner.committed(kept)`` once it is
        committed, ``owner.store_failed(line)`` if it cannot be. Waits while the queue is full."""
        self._queue.put(_Op(fn, args, kw, owner, kept))

    def call(self, fn: Callable, *args, **kw):
        """``fn(*args, conn=, **kw)`` written and committed; its value, or StoreError."""
        op = _Op(fn, args, kw, future=Future())
        self._queue.put(op)
        return op.future.result()

    def flush(self, owner=None):
        """Returns once everything handed over before it is committed (StoreError when what
        ``owner`` handed over could not be)."""
        op = _Op(None, owner=owner, future=Future())
        self._queue.put(op)
        op.future.result()

    def close(self):
        """Everything handed over committed, the connection closed (SQLite then folds its
        write-ahead log into the database file), the thread ended."""
        if self._thread.is_alive():
            op = _Op(None, owner=_CLOSE, future=Future())
            self._queue.put(op)
            op.future.result()
            self._thread.join()

    def watch(self, run_id: int):
        self._live.add(run_id)

    def forget(self, run_id: int):
        self._live.discard(run_id)

    # -- the writer's side ------------------------------------------------------------------
    def _serve(self):
        while True:
            batch = self._gather()
            closing = [op for op in batch if op.owner is _CLOSE]
            batch = [op for op in batch if op.owner is not _CLOSE]
            if batch or time.monotonic() - self._last_beat >= HEARTBEAT_S:
                self._commit(batch)
            if closing:
                if self._conn is not None:
                    try:
                        self._conn.close()
                    except Exception:   # noqa: BLE001 -- closing what may be broken
                        pass
                    self._conn = None
                for op in closing:
                    op.future.set_result(None)
                return

    def _gather(self) -> list[_Op]:
        """The next batch: what waits now, up to MAX_BATCH or BATCH_S after its first op;
        a call or flush ends it (its caller is waiting)."""
        try:
            first = self._queue.get(timeout=max(0.05, min(HEARTBEAT_S, 1.0)))
        except queue.Empty:
            return []
        batch, started = [first], time.monotonic()
        while first.future is None and len(batch) < MAX_BATCH and time.monotonic() - started < BATCH_S:
            try:
                op = self._queue.get_nowait()
            except queue.Empty:
                break
            batch.append(op)
            if op.future is not None:
                break
        return batch

    def _commit(self, batch: list[_Op]):
        started, pause = time.monotonic(), 0.05
        while True:
            try:
                if self._xid is not None and self._landed():
                    self._done(batch)     # its commit went through; only the answer was lost
                else:
                    self._apply(batch, beat=True)
                self._back(batch)
                return
            except Exception as exc:      # noqa: BLE001 -- whatever it is, the boards hear of it
                self._rollback()
                if not (_gone(exc) or isinstance(exc, _Undecided)):
                    self._xid = None      # refused or busy: that transaction did not commit
                if _busy(exc) and time.monotonic() - started <= BUSY_GIVE_UP_S:
                    self.busy_retries += 1
                elif (_gone(exc) or isinstance(exc, _Undecided)) and self._wait_gone(exc, len(batch)):
                    self.gone_retries += 1
                else:
                    break
                time.sleep(pause)
                pause = min(2 * pause, 2.0)
        if self._xid is not None:     # a lost commit, and the wait ran out: once more, did it land?
            try:
                if self._landed():
                    self._done(batch)
                    return
            except Exception:             # noqa: BLE001 -- still away: the runs fail below, with the cause
                self._rollback()
            self._xid = None              # it belongs to this batch, never to the next
        # Not busy: each run's part on its own, so that one board's refused record (or a lost
        # server) fails the runs it touches and not the ones that shared its batch.
        groups: dict[int, list[_Op]] = {}
        for op in batch:
            groups.setdefault(id(op.owner) if op.owner is not None else id(op), []).append(op)
        for ops in groups.values():
            try:
                self._apply(ops, beat=False)
            except Exception as exc:      # noqa: BLE001
                self._rollback()
                self._refuse(ops, exc)
        self._xid = None

    def _wait_gone(self, exc: Exception, held: int) -> bool:
        """Whether to write the batch again: the store went away and the wait has not run out
        (the first time, the user hears of it)."""
        now = time.monotonic()
        if self._gone_since is None:
            self._gone_since, self._gave_up = now, False
            self.say(f"the database went away ({_cause(self.store, exc)}): keeping {held} record(s) and "
                     f"writing them again for up to {self.retry_s:g} s (--db-retry)")
        if self._gave_up or now - self._gone_since > self.retry_s:
            if not self._gave_up:
                self.say(f"the database is still away after {now - self._gone_since:.0f} s: giving up, "
                         "the runs it held fail")
            self._gave_up = True
            return False
        return True

    def _back(self, batch: list[_Op]):
        if self._gone_since is not None:
            self.say(f"the database is back after {time.monotonic() - self._gone_since:.1f} s: "
                     f"{len(batch)} record(s) written")
            self._gone_since, self._gave_up = None, False

    def _connection(self):
        if self._conn is None:
            self._conn = self.store.engine.connect()
            self.connections += 1
        return self._conn

    def _landed(self) -> bool:
        """Whether the transaction whose connection broke (``_xid``) committed; _Undecided
        while the server still has it open."""
        conn = self._connection()
        with conn.begin():
            status = conn.exec_driver_sql(f"SELECT txid_status({int(self._xid)})").scalar()
        if status == "in progress":
            raise _Undecided(f"transaction {self._xid} still in progress on the server")
        self._xid = None
        self.lost_answers += status == "committed"
        return status == "committed"

    def _apply(self, ops: list[_Op], beat: bool):
        conn = self._connection()
        with conn.begin():
            # what writes (not an idle writer's empty batch: that sends nothing at all)
            if conn.dialect.name == "postgresql" and any(op.fn is not None for op in ops):
                self._xid = conn.exec_driver_sql("SELECT txid_current()").scalar()
            for op in ops:
                if op.fn is not None:
                    op.value = op.fn(*op.args, conn=self._conn, **op.kw)
            if beat and self._live and time.monotonic() - self._last_beat >= HEARTBEAT_S:
                self.store.heartbeat(*sorted(self._live), conn=self._conn)
                self._last_beat = time.monotonic()
        self._xid = None
        self._done(ops)

    @staticmethod
    def _done(ops: list[_Op]):
        for op in ops:
            if op.kept is not None:
                op.owner.committed(op.kept)
            if op.future is not None and not op.future.done():
                op.future.set_result(op.value)

    def _rollback(self):
        """The connection back to a clean state; a broken one is dropped (the next batch opens
        another)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                if conn.in_transaction():
                    conn.rollback()
                self._conn = conn if not conn.invalidated else None
            except Exception:
                pass
            if self._conn is None:
                try:
                    conn.close()
                except Exception:
                    pass

    def _refuse(self, ops: list[_Op], exc: Exception):
        line = write_problem(self.store.url, exc) if isinstance(exc, SQLAlchemyError) else str(exc)
        for op in ops:
            if op.owner is not None:
                op.owner.store_failed(line)
            if op.future is not None and not op.future.done():
                op.future.set_exception(exc if isinstance(exc, StoreError) else StoreError(line))


class _Undecided(Exception):
    """A lost commit's transaction the server has not ended yet: asked again after the pause."""


def _say(line: str):
    print(f"platperf: {line}", file=sys.stderr, flush=True)


def _gone(exc) -> bool:
    """The database went away rather than refused a record: a lost or refused connection, a
    server shutting down, a disk that is full or failing."""
    if not isinstance(exc, SQLAlchemyError):
        return False
    if getattr(exc, "connection_invalidated", False):
        return True
    orig = getattr(exc, "orig", None)
    state = getattr(orig, "sqlstate", None) or ""
    if state and state.startswith(_GONE_SQLSTATES):
        return True
    text = str(orig or exc)
    return any(word in text for word in _GONE_WORDS)


def _cause(store, exc) -> str:
    """The first line of what the driver said, without SQLAlchemy's background link."""
    orig = getattr(exc, "orig", None)
    first = (str(orig) if orig is not None else str(exc)).strip().splitlines()
    return first[0][:160] if first else type(exc).__name__


def _busy(exc) -> bool:
    if not isinstance(exc, SQLAlchemyError):
        return False
    orig = getattr(exc, "orig", None)
    return ("database is locked" in str(orig or exc) or "database is busy" in str(orig or exc)
            or getattr(orig, "sqlstate", None) in _BUSY_SQLSTATES)
