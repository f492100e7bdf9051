"""Writing results as three rows each (their key once, a summary, the samples) and reading
them back; see store/schema.py for the tables and store/packing.py for the formats.

A key row is written with ``INSERT ... ON CONFLICT DO NOTHING`` in the same transaction as
the results that use it, every time: a key seen in a transaction that was rolled back is
gone, and a result must never name a key that is not there. A key id that is already taken
by another key (two digests, one id) is refused, never merged (``packing.KeyCollision``).
"""
from __future__ import annotations

import json
import threading

from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from .. import stats
from ..records import Result, not_measured
from .packing import (KEY_COLUMNS, KeyCollision, digest, key_id, key_text, pack_extra, pack_samples,
                      unpack_samples)
from .schema import result_keys, result_samples, summaries

_SUMMARY_COLUMNS = ("run_id", "key_id", "n", "min", "median", "mean", "max", "stdev", "not_measured")
_CHUNK = 500          # ids in one IN (...) list


class StoredResult(Result):
    """A :class:`Result` read back, with its run id and summary."""

    run_id: int
    summary: dict

    @property
    def not_measured(self) -> str | None:
        # As stored with the summary (store/schema.py): known without the result's extra.
        if "stored_not_measured" in self.__dict__:
            return self.__dict__["stored_not_measured"]
        return super().not_measured


class KeyRow:
    """A result's key as ``result_keys`` holds it."""

    __slots__ = ("id", "digest", "values")

    def __init__(self, res: Result):
        text_ = key_text(res.benchmark, res.params, res.cpu, res.package, res.cluster, res.core, res.mode,
                         res.metric, res.unit, res.direction)
        self.id = key_id(text_)
        self.digest = digest(text_)
        self.values = (res.benchmark, res.params_key, json.dumps(res.params), res.cpu, res.package, res.cluster,
                       res.core, res.mode, res.metric, res.unit, res.direction)


class KeyBook:
    """The key ids this process has checked against their digests (a collision is looked for
    once per key and process)."""

    def __init__(self):
        self.checked: set[int] = set()
        self._lock = threading.Lock()

    def write(self, conn, keys: list[KeyRow]):
        """The keys' rows there in ``conn``'s transaction (written where missing), sorted by id
        so that two writers of one new key never wait on each other in a circle."""
        distinct = sorted({k.id: k for k in keys}.values(), key=lambda k: k.id)
        rows = [(k.id, k.digest, *k.values) for k in distinct]
        names = ("id", "digest", *KEY_COLUMNS)
        if conn.dialect.name == "sqlite":
            sql = (f"INSERT OR IGNORE INTO result_keys ({', '.join(names)}) "
                   f"VALUES ({', '.join('?' * len(names))})")
            sqlite_executemany(conn, sql, rows)
        else:
            marks = ", ".join("CAST(:params_json AS json)" if n == "params_json" else f":{n}" for n in names)
            conn.execute(text(f"INSERT INTO result_keys ({', '.join(names)}) VALUES ({marks}) "
                              "ON CONFLICT (id) DO NOTHING"), [dict(zip(names, r)) for r in rows])
        with self._lock:
            new = [k for k in distinct if k.id not in self.checked]
        for i in range(0, len(new), _CHUNK):
            part = new[i:i + _CHUNK]
            found = dict(conn.execute(select(result_keys.c.id, result_keys.c.digest)
                                      .where(result_keys.c.id.in_([k.id for k in part]))).all())
            for k in part:
                if found.get(k.id) != k.digest:
                    raise KeyCollision(f"result key {k.values[0]} [{k.values[1]}] has the id {k.id} of another "
                                       "key already stored; report this to platperf (it is never merged)")
        with self._lock:
            self.checked.update(k.id for k in new)


def write_results(book: KeyBook, conn, run_id: int, results_: list[Result]):
    """``results_`` of run ``run_id``: their keys, summaries and samples, on ``conn``."""
    keys = [KeyRow(res) for res in results_]
    book.write(conn, keys)
    rows = []
    for res, key in zip(results_, keys):
        s = stats.summary(res.samples)
        rows.append((run_id, key.id, s["n"], s["min"], s["median"], s["mean"], s["max"], s["stdev"],
                     not_measured(res.benchmark, res.metric, res.extra)))
    sqlite = conn.dialect.name == "sqlite"
    packed = [(pack_samples(res.samples), pack_extra(res.extra or None) if sqlite else None) for res in results_]
    if sqlite:
        # One writer holds the database while this transaction writes: SQLite gives new rows
        # max(rowid) + 1, so the summaries just written are the last len(rows) ids.
        sqlite_executemany(conn, f"INSERT INTO summaries ({', '.join(_SUMMARY_COLUMNS)}) "
                                 f"VALUES ({', '.join('?' * len(_SUMMARY_COLUMNS))})", rows)
        last = conn.exec_driver_sql("SELECT last_insert_rowid()").scalar()
        ids = range(last - len(rows) + 1, last + 1)
        sqlite_executemany(conn, "INSERT INTO result_samples (result_id, samples, extra) VALUES (?, ?, ?)",
                           [(i, blob, extra) for i, (blob, extra) in zip(ids, packed)])
        return
    ids = sorted(conn.execute(text("SELECT nextval(pg_get_serial_sequence('summaries', 'id')) "
                                   "FROM generate_series(1, :n)"), {"n": len(rows)}).scalars())
    conn.execute(summaries.insert(), [dict(id=i, **dict(zip(_SUMMARY_COLUMNS, r))) for i, r in zip(ids, rows)])
    # (the column packs extra itself: it is given as the JSON value)
    conn.execute(result_samples.insert(), [dict(result_id=i, samples=blob, extra=res.extra or None)
                                           for i, (blob, _), res in zip(ids, packed, results_)])


def sqlite_executemany(conn, sql: str, rows: list[tuple]):
    """``executemany`` on the driver cursor of ``conn`` (inside its transaction): SQLAlchemy's
    per-statement work costs 90 us a row against 17 us, the most of storing 100,000 results.
    Driver errors become SQLAlchemy's, as every caller expects."""
    import sqlite3
    cursor = conn.connection.cursor()
    try:
        cursor.executemany(sql, rows)
    except sqlite3.Error as exc:
        raise DBAPIError.instance(sql, None, exc, sqlite3.Error) from None
    finally:
        cursor.close()


def read_results(conn, run_id: int, with_samples: bool = True, with_extra: bool = True) -> list[StoredResult]:
    """The results of run ``run_id`` in the order stored. Without samples their list is empty;
    without extra (``show``) it is {} and ``not_measured`` is the stored one. A result whose
    samples were archived has neither."""
    k, s, d = result_keys.c, summaries.c, result_samples.c
    cols = [s.id, k.id.label("key_id"), s.n, s.min, s.median, s.mean, s.max, s.stdev, s.not_measured]
    q = select(*cols).select_from(summaries.join(result_keys, k.id == s.key_id))
    if with_samples or with_extra:
        cols = [*([d.samples] if with_samples else []), *([d.extra] if with_extra else [])]
        q = q.add_columns(*cols).outerjoin(result_samples, d.result_id == s.id)
    q = q.where(s.run_id == run_id).order_by(s.id)
    rows = conn.execute(q).all()
    keys = read_keys(conn, {row.key_id for row in rows})
    out = []
    for row in rows:
        key = keys[row.key_id]
        m = row._mapping
        res = StoredResult(benchmark=key["benchmark"], params=dict(key["params_json"]), metric=key["metric"],
                           unit=key["unit"], direction=key["direction"],
                           samples=unpack_samples(m["samples"]) if with_samples and m["samples"] is not None else [],
                           cpu=key["cpu"], mode=key["mode"], package=key["package"], cluster=key["cluster"],
                           core=key["core"], extra=(m["extra"] or {}) if with_extra else {})
        if not with_extra:
            res.stored_not_measured = m["not_measured"]
        res.run_id = run_id
        res.summary = {name: m[name] for name in ("n", "min", "median", "mean", "max", "stdev")}
        out.append(res)
    return out


def read_keys(conn, ids) -> dict[int, dict]:
    """Key id -> its row (a fresh dict each, params_json decoded), for ``ids``."""
    ids = list(ids)
    out = {}
    for i in range(0, len(ids), _CHUNK):
        for row in conn.execute(select(result_keys).where(result_keys.c.id.in_(ids[i:i + _CHUNK]))):
            out[row.id] = dict(row._mapping)
    return out
