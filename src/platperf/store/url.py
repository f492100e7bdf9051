"""What ``--db`` names: a SQLite file (path or ``sqlite:///PATH``) or a PostgreSQL database
(``postgresql://USER@HOST:PORT/DBNAME``), and whether it can be written.

Every way this goes wrong is a :class:`StoreError`: one line that the CLI prints before
exiting 2 (unknown scheme, missing driver, unreachable server, read-only database).
"""
from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

SUPPORTED = ("a SQLite path (platperf.db) or sqlite:///PATH, "
             "postgresql://USER:PASSWORD@HOST:PORT/DBNAME")
WRITERS = "run, ingest and interference"
# Seconds a PostgreSQL connection attempt may take before it counts as unreachable.
CONNECT_TIMEOUT_S = 10
# How long a SQLite writer waits for another one before "database is locked": long enough
# for 8 processes that each migrate, sweep and write their runs in short transactions.
BUSY_TIMEOUT_S = 30


class StoreError(Exception):
    """A store problem a person can act on; the CLI prints it as one line and exits 2."""


@dataclass
class Target:
    url: str                   # what SQLAlchemy opens
    shown: str                 # what messages say (no password)
    read_only: bool = False
    connect_args: dict = field(default_factory=dict)
    server: str | None = None  # HOST:PORT of a PostgreSQL server

    def problem(self, exc) -> str:
        """One line for a database error met while opening."""
        reason = str(getattr(exc, "orig", None) or exc).strip()
        if self.server is not None:
            reason = reason.splitlines()[0] if reason else type(exc).__name__
            reason = reason.removeprefix("connection failed: ")
            return f"cannot use PostgreSQL database {self.shown} (server {self.server}): {reason}"
        if self.read_only:
            return f"cannot read database {self.shown} (opened read-only): {reason}"
        if _full(self.url) and ("disk I/O error" in reason or "disk is full" in reason):
            return write_problem(self.shown, "disk is full")   # SQLite's journal had no room
        return f"cannot open database {self.shown}: {reason}"


def _full(url: str) -> bool:
    """Whether the directory of a SQLite file has less than a page or two left."""
    path = make_url(url).database or ""
    try:
        st = os.statvfs(Path(path).resolve().parent)
    except (OSError, ValueError):
        return False
    return st.f_bavail * st.f_frsize < 64 * 1024


def write_problem(shown: str, exc) -> str:
    """One line for a database error met while writing; a full disk said as such (SQLite's
    SQLITE_FULL, PostgreSQL's disk_full / "could not extend file", ENOSPC)."""
    reason = str(getattr(exc, "orig", None) or exc).strip()
    first = reason.splitlines()[0] if reason else type(exc).__name__
    code = getattr(getattr(exc, "orig", None), "sqlstate", None)
    if "disk is full" in first or "No space left" in reason or "could not extend" in reason \
            or code == "53100":
        return f"database {shown}: the disk is full (no space left on the device); free space, then measure again"
    return f"database {shown}: {first}"


def resolve(db: str, write: bool) -> Target:
    """The database ``db`` names, opened for writing when ``write`` or when it can be."""
    if "://" not in db:
        return _sqlite_file(db, write, forced_ro=False)
    try:
        url = make_url(db)
    except ArgumentError:
        raise StoreError(f"cannot parse database URL {db!r}; use {SUPPORTED}") from None
    backend = url.get_backend_name()
    if backend == "sqlite":
        if url.drivername not in ("sqlite", "sqlite+pysqlite"):
            raise StoreError(f"unsupported SQLite driver {url.drivername}; use {SUPPORTED}")
        forced_ro = url.query.get("mode") == "ro"
        if not url.database or url.database == ":memory:":
            return Target(url="sqlite://", shown="sqlite:// (in memory)")
        return _sqlite_file(url.database, write, forced_ro)
    if backend in ("postgresql", "postgres"):
        return _postgresql(url)
    raise StoreError(f"unknown database URL scheme '{url.drivername}' in --db {_hidden(url)}; "
                     f"use {SUPPORTED}")


def _postgresql(url) -> Target:
    if url.drivername not in ("postgresql", "postgres", "postgresql+psycopg"):
        raise StoreError(f"unsupported PostgreSQL driver {url.drivername}: platperf uses "
                         "psycopg 3, write postgresql://...")
    if importlib.util.find_spec("psycopg") is None:
        raise StoreError(f"--db {_hidden(url)} needs the PostgreSQL driver psycopg 3, which is "
                         "not installed: pip install 'platperf[postgres]'")
    shown = _hidden(url)
    url = url.set(drivername="postgresql+psycopg")
    server = f"{url.host or 'localhost'}:{url.port or 5432}"
    return Target(url=url.render_as_string(hide_password=False), shown=shown,
                  connect_args={"connect_timeout": CONNECT_TIMEOUT_S}, server=server)


def _hidden(url) -> str:
    return url.render_as_string(hide_password=True)


def _sqlite_file(name: str, write: bool, forced_ro: bool) -> Target:
    path = Path(name).expanduser()
    parent = path.resolve().parent
    shown = str(name)
    if not parent.is_dir():
        if write:
            raise StoreError(f"cannot create database {shown}: directory {parent} does not exist")
        raise StoreError(f"no database {shown}: directory {parent} does not exist")
    if not write and not path.exists():
        # A reading command given a mistyped path must not leave an empty database behind.
        raise StoreError(f"no database {shown}; measure first with 'platperf run' or give --db")
    file_ok = os.access(path, os.W_OK) if path.exists() else os.access(parent, os.W_OK)
    # WAL needs the -wal and -shm files next to the database: a directory we cannot write
    # makes the database read-only even when the file itself is writable.
    dir_ok = os.access(parent, os.W_OK)
    writable = file_ok and dir_ok and not forced_ro
    if write and not writable:
        why = ("opened with mode=ro" if forced_ro else
               f"{path} is not writable" if path.exists() and not file_ok else
               f"directory {parent} is not writable")
        raise StoreError(f"database {shown} is read-only ({why}); {WRITERS} store results: "
                         "choose a writable path with --db")
    if writable:
        return Target(url=f"sqlite:///{path}", shown=shown,
                      connect_args={"timeout": BUSY_TIMEOUT_S})
    # Read-only. Without a -wal file and with no way to create the -shm file SQLite cannot
    # open a WAL database unless told nobody writes it (immutable); otherwise mode=ro still
    # sees what a live writer commits.
    wal = Path(f"{path}-wal")
    mode = "mode=ro" if dir_ok or wal.exists() else "immutable=1"
    uri = f"file:{quote(str(path.resolve()))}?{mode}"
    return Target(url=f"sqlite:///{uri}&uri=true", shown=shown, read_only=True,
                  connect_args={"timeout": BUSY_TIMEOUT_S})
