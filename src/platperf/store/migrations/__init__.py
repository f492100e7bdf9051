"""Schema migrations of the store (alembic), run by :class:`platperf.store.Store` on open.

The CLI opens the store on every command, so the common case — a database already at
head — is one ``SELECT`` on ``alembic_version`` and never loads alembic's script
directory. A new revision goes in ``versions/`` and :data:`HEAD` moves to it (a test
checks that the two agree).
"""
from __future__ import annotations

from pathlib import Path

from sqlalchemy import inspect, select, text

HEAD = "0001"
_HERE = Path(__file__).resolve().parent

# Databases written before the migrations existed carry only platperf_store.schema = 1,
# which is exactly revision 0001.
_LEGACY_SCHEMA_REVISION = {"1": "0001"}


def current_revision(conn) -> str | None:
    try:
        row = conn.execute(text("SELECT version_num FROM alembic_version")).first()
    except Exception:  # no table yet: a new or pre-migration database
        conn.rollback()
        return None
    return row[0] if row else None


def upgrade(engine, db_name: str):
    """Bring the database at ``engine`` to :data:`HEAD`; refuse one from a newer platperf."""
    with engine.connect() as conn:
        rev = current_revision(conn)
    if rev == HEAD:
        return
    if rev is not None and not _known(_script_directory(), rev):
        raise _newer(db_name, rev)
    with engine.begin() as conn:
        if rev is None:
            legacy = _legacy_revision(conn)
            if legacy is not None and legacy.startswith("newer:"):
                raise _newer(db_name, legacy[len("newer:"):])
            if legacy is not None:
                _stamp(conn, legacy)
        _run_upgrade(conn)


def _newer(db_name, rev):
    from .. import StoreError
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
