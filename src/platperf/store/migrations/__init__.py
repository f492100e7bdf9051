"""Schema migrations of the store (alembic), run by :class:`platperf.store.Store` on open.

The CLI opens the store on every command, so the common case — a database already at
head — is one ``SELECT`` on ``alembic_version`` and never loads alembic's script
directory. A new revision goes in ``versions/`` and :data:`HEAD` moves to it (a test
checks that the two agree).
"""
from __future__ import annotations

import contextlib
from pathlib import Path

from sqlalchemy import inspect, select, text

HEAD = "0004"
_HERE = Path(__file__).resolve().parent

# Databases written before the migrations existed carry only platperf_store.schema = 1,
# which is exactly revision 0001.
_LEGACY_SCHEMA_REVISION = {"1": "0001"}


def current_revision(conn) -> str | None:
    # has_table, not a failing SELECT: on PostgreSQL a failed statement aborts the
    # transaction that holds the migration lock.
    if not inspect(conn).has_table("alembic_version"):
        return None
    row = conn.execute(text("SELECT version_num FROM alembic_version")).first()
    return row[0] if row else None


def upgrade(engine, db_name: str, write: bool = True):
    """Bring the database at ``engine`` to :data:`HEAD`; refuse one from a newer platperf.

    Several processes may open one new database at once (8 ``platperf run`` into one
    file): the migration runs under a lock (SQLite ``BEGIN EXCLUSIVE``, PostgreSQL an
    advisory lock) and the revision is read again once the lock is held, so one process
    migrates and the others find the database at head.
    """
    with engine.connect() as conn:
        rev = current_revision(conn)
    if rev == HEAD:
        return
    if rev is not None and not _known(_script_directory(), rev):
        raise _newer(db_name, rev)
    if not write:
        from ..url import StoreError
        raise StoreError(f"database {db_name} is read-only and needs an upgrade of its schema "
                         f"(revision {rev or 'none'} to {HEAD}); open it once where it is writable")
    with engine.connect() as conn:
        with _migration_lock(conn):
            rev = current_revision(conn)
            if rev is not None and rev != HEAD and not _known(_script_directory(), rev):
                raise _newer(db_name, rev)
            if rev is None:
                legacy = _legacy_revision(conn)
                if legacy is not None and legacy.startswith("newer:"):
                    raise _newer(db_name, legacy[len("newer:"):])
                if legacy is not None:
                    _stamp(conn, legacy)
            if rev != HEAD:
                _run_upgrade(conn)


# Any fixed number: every platperf process takes the same PostgreSQL advisory lock.
_PG_MIGRATION_LOCK = 0x706c6174  # "plat"


@contextlib.contextmanager
def _migration_lock(conn):
    """One transaction holding the database's migration lock; committed on success."""
    sqlite = conn.dialect.name == "sqlite"
    if sqlite:
        # Outside any transaction (SQLite ignores it inside one): the batch migrations copy
        # and drop tables, and a DROP with foreign keys on would cascade to the results.
        conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
        conn.exec_driver_sql("BEGIN EXCLUSIVE")  # waits up to busy_timeout for other writers
    else:
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_MIGRATION_LOCK})
    try:
        yield
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    finally:
        if sqlite:
            conn.exec_driver_sql("PRAGMA foreign_keys=ON")


def _newer(db_name, rev):
    from ..url import StoreError
    return StoreError(f"database {db_name} has schema revision {rev}, newer than this platperf "
                      f"understands (it knows up to {HEAD}); upgrade platperf or use another --db")


def _known(script, rev) -> bool:
    try:
        return script.get_revision(rev) is not None
    except Exception:
        return False


def _legacy_revision(conn) -> str | None:
    if "platperf_store" not in inspect(conn).get_table_names():
        return None
    from ..schema import store_info
    row = conn.execute(select(store_info.c.value).where(store_info.c.key == "schema")).first()
    if row is None:
        return None
    return _LEGACY_SCHEMA_REVISION.get(row[0], "newer:" + row[0])


def _config(conn):
    from alembic.config import Config
    cfg = Config()
    cfg.set_main_option("script_location", str(_HERE))
    cfg.attributes["connection"] = conn
    return cfg


def _script_directory():
    from alembic.script import ScriptDirectory
    return ScriptDirectory(str(_HERE))


def _stamp(conn, rev):
    from alembic import command
    command.stamp(_config(conn), rev)


def _run_upgrade(conn):
    from alembic import command
    command.upgrade(_config(conn), "head")
