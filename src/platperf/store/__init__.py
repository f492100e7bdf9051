"""The results store: one SQLite file by default (WAL), PostgreSQL by URL.

Records are written as they arrive, each in its own transaction unless ``conn=`` is given
(``platperf run`` commits its records at most 0.2 s apart), so an interrupted run keeps
every finished result. Use :meth:`Store.transaction` for all-or-nothing imports. The
schema is brought to the newest alembic revision on open (``store/migrations``), under a
lock so that many processes may open one new database at once.

A run records its owner (host, pid) and a heartbeat; opening a writable database marks
the runs whose owner is gone ``abandoned`` (``store/sweep.py``).
"""
from __future__ import annotations

import atexit
import contextlib
import datetime as _dt
import os
import socket
import threading

from sqlalchemy import create_engine, event, func, select, update
from sqlalchemy.exc import SQLAlchemyError

from ..records import Result, canonical_params
from .hosts import machine_name
from .packing import KeyCollision, unpack_samples
from .results_io import KeyBook, StoredResult, read_results, write_results
from .schema import histograms, runs
from .url import BUSY_TIMEOUT_S, StoreError, resolve, write_problem
from .writer import DB_RETRY_S

__all__ = ["Store", "StoreError", "StoredResult", "now", "BUSY_TIMEOUT_S", "unpack_samples"]


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# Built once with the values as parameters: SQLAlchemy then reuses the compiled statement,
# where .values(**row) would rebuild and re-key it for every record (0.3 ms each).
_INSERT_HISTOGRAM = histograms.insert()


class Store:
    """The results database ``db``: a SQLite path, ``sqlite:///PATH`` or ``postgresql://...``.

    ``write=True`` (``run``, ``ingest``, ``interference``) needs a writable database and
    says why not in one line. ``write=False`` (``runs``, ``show``, ``report``, ``compare``,
    ``history``) opens it writable when it can, else read-only: then nothing is migrated
    or swept, and a database that needs a migration is refused in one line.
    """

    def __init__(self, db: str = "platperf.db", write: bool = True):
        target = resolve(db, write)
        self.url = target.shown
        self.read_only = target.read_only
        try:
            self.engine = create_engine(target.url, connect_args=target.connect_args)
        except ImportError:
            raise StoreError(f"{self.url} needs the PostgreSQL driver psycopg 3: "
                             "pip install 'platperf[postgres]'") from None
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas_ro if self.read_only
                         else _sqlite_pragmas)
        try:
            self._migrate(db)
        except SQLAlchemyError as exc:
            raise StoreError(target.problem(exc)) from None
        self.abandoned: list[int] = []
        self.ended: list[int] = []
        self.retry_s = DB_RETRY_S       # how long a database that went away is waited for (--db-retry)
        self._writer = None
        self._keys = KeyBook()
        if not self.read_only:
            from .journal import apply
            from .sweep import sweep
            try:
                self.ended = apply(self)     # runs whose end the database could not take then
                self.abandoned = sweep(self)
            except SQLAlchemyError as exc:
                # A reader may lack the right to update (a shared PostgreSQL with a
                # read-only role): it reads the runs as they are.
                if write:
                    raise StoreError(target.problem(exc)) from None

    def _migrate(self, db):
        from .migrations import upgrade
        upgrade(self.engine, self.url, write=not self.read_only)

    def writer(self):
        """The one writer of this store's measuring runs (store/writer.py): every board's
        records go through it, on one connection, whatever the number of boards."""
        with _WRITER_LOCK:
            if self._writer is None:
                from .writer import StoreWriter
                self._writer = StoreWriter(self)
                atexit.register(self.close_writer)
            return self._writer

    def close_writer(self):
        """The writer's records committed and its connection closed (at exit at the latest)."""
        with _WRITER_LOCK:
            writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()

    @contextlib.contextmanager
    def transaction(self):
        """One transaction for a whole import: everything or nothing is stored."""
        with self.engine.begin() as conn:
            yield conn

    # -- runs -------------------------------------------------------------------------
    def begin_run(self, *, label=None, target="local", suite=None, source="probe",
                  fingerprint=None, findings=None, note=None, meta=None, conn=None) -> int:
        """A new ``running`` run owned by this process (host name and pid, heartbeat now)."""
        for name, value in (("label", label), ("target", target), ("suite", suite),
                            ("source", source), ("note", note)):
            # Refused on SQLite too, so that a database can move to PostgreSQL unchanged.
            if isinstance(value, str) and "\0" in value:
                raise StoreError(f"the {name} contains a NUL character, which PostgreSQL "
                                 "cannot store as text; remove it")
        started = now()
        values = dict(label=label, target=target, suite=suite, source=source, status="running",
                      started_at=started, fingerprint=fingerprint, findings=findings, note=note,
                      meta=meta, owner_host=socket.gethostname(), owner_pid=os.getpid(),
                      heartbeat_at=started, host=machine_name(fingerprint) or None)
        with self._conn(conn) as c:
            return c.execute(runs.insert().values(**values)).inserted_primary_key[0]

    def heartbeat(self, *run_ids: int, conn=None):
        """Say the runs' owner is alive; one beat at least every 30 s keeps a run from being
        taken for abandoned (:data:`platperf.store.sweep.STALE_AFTER_S`)."""
        with self._conn(conn) as c:
            c.execute(update(runs).where(runs.c.id.in_(run_ids)).values(heartbeat_at=now()))

    def update_run(self, run_id: int, conn=None, **values):
        if "fingerprint" in values and "host" not in values:
            values["host"] = machine_name(values["fingerprint"]) or None
        with self._conn(conn) as c:
            c.execute(update(runs).where(runs.c.id == run_id).values(**values))

    def finish_run(self, run_id: int, status: str, error: str | None = None, conn=None):
        self.update_run(run_id, conn=conn, status=status, error=error, finished_at=now())

    def runs(self) -> list[dict]:
        """Every run with every column, oldest first (``platperf runs`` reads a page of them
        without their JSON: store/queries.py)."""
        with self.engine.connect() as c:
            return [dict(r._mapping) for r in c.execute(select(runs).order_by(runs.c.id))]

    def result_counts(self, run_ids=None) -> dict[int, int]:
        """Results stored per run id, of ``run_ids`` or of every run (runs with none are
        absent). A run whose samples were archived keeps its count (its summaries stay)."""
        from .queries import result_counts
        with self.engine.connect() as c:
            return result_counts(c, run_ids)

    def run(self, ref, archived: bool = False) -> dict:
        """A run by id, ``latest``, or label (its newest run); see :meth:`runs_for`."""
        return self.runs_for(ref, archived)[-1]

    def runs_for(self, ref, archived: bool = False) -> list[dict]:
        """Run ``ref``: an id, ``latest``, or a label (all its runs, oldest first). A label
        nothing has is one line naming the nearest labels. A run whose samples were archived
        is refused (what needs samples cannot use it) unless ``archived``."""
        from .queries import missing_run, refuse_archived
        ref = str(ref)
        with self.engine.connect() as c:
            if ref == "latest":
                q = select(runs).order_by(runs.c.id.desc()).limit(1)
            elif ref.isdigit():
                q = select(runs).where(runs.c.id == int(ref))
            else:
                q = select(runs).where(runs.c.label == ref).order_by(runs.c.id)
            found = [dict(r._mapping) for r in c.execute(q)]
            if not found:
                raise StoreError(missing_run(c, self.url, ref))
        if not archived:
            refuse_archived(found, ref)
        return found

    # -- results ----------------------------------------------------------------------
    def add_result(self, run_id: int, res: Result, conn=None):
        self.add_results(run_id, [res], conn=conn)

    def add_results(self, run_id: int, results_: list[Result], conn=None):
        """Store ``results_`` of run ``run_id``: their keys where new, their summaries and
        samples (store/results_io.py), a few statements whatever their number."""
        if not results_:
            return
        with self._conn(conn) as c:
            try:
                write_results(self._keys, c, run_id, results_)
            except KeyCollision as exc:
                raise StoreError(str(exc)) from None

    def add_histogram(self, run_id: int, rec: dict, cluster=None, core=None, conn=None, package=None):
        row = dict(run_id=run_id, benchmark=rec["benchmark"], params=canonical_params(rec["params"]),
                   params_json=rec["params"], cpu=rec.get("cpu"), package=package, cluster=cluster, core=core,
                   mode=rec.get("mode", "serial"), unit=rec["unit"], record=rec)
        with self._conn(conn) as c:
            c.execute(_INSERT_HISTOGRAM, row)

    def results(self, run_id: int, with_samples: bool = True, with_extra: bool = True) -> list[StoredResult]:
        """The results of a run in the order stored; ``with_samples=False``: no samples unpacked
        (a report quotes summaries); ``with_extra=False``: nor the probe's fields (``show``)."""
        with self.engine.connect() as c:
            return read_results(c, run_id, with_samples, with_extra)

    def histograms(self, run_id: int) -> list[dict]:
        with self.engine.connect() as c:
            rows = c.execute(select(histograms).where(histograms.c.run_id == run_id)
                             .order_by(histograms.c.id))
            return [dict(r._mapping) for r in rows]

    def histogram_count(self, run_ids) -> int:
        with self.engine.connect() as c:
            return c.execute(select(func.count()).select_from(histograms)
                             .where(histograms.c.run_id.in_(list(run_ids)))).scalar() or 0

    @contextlib.contextmanager
    def _conn(self, conn):
        if conn is not None:
            yield conn
            return
        try:
            with self.engine.begin() as c:
                yield c
        except SQLAlchemyError as exc:
            raise StoreError(write_problem(self.url, exc)) from None


_WRITER_LOCK = threading.Lock()


def _sqlite_pragmas(dbapi_conn, _record):
    cur = dbapi_conn.cursor()
    # The busy timeout first: switching a new file to WAL needs a lock another process may hold.
    cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_S * 1000}")
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def _sqlite_pragmas_ro(dbapi_conn, _record):
    cur = dbapi_conn.cursor()
    cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_S * 1000}")
    cur.execute("PRAGMA query_only=ON")
    cur.close()
