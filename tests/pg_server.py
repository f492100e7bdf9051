"""A real PostgreSQL server for the test session, and a database per test.

Started from Debian's ``postgresql`` package (``/usr/lib/postgresql/*/bin``): ``initdb`` in
a temporary directory, ``pg_ctl start`` on a free 127.0.0.1 port, as the ``postgres``
system user when the tests run as root (PostgreSQL refuses to run as root); stopped at the
end of the session. Each test that asks for ``pg_database`` gets a database of its own,
dropped afterwards. ``db_url`` runs a test once on a new SQLite file and once on a new
PostgreSQL database.
"""
from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass

import pytest

from conftest import missing, require_module

# Durability is not what these tests check: without fsync initdb and CREATE DATABASE are
# several times faster on a busy machine.
_FAST = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"


@dataclass
class PgServer:
    host: str
    port: int
    user: str
    data: str = ""          # the cluster's directory, for pg_ctl
    bin_dir: str = ""
    as_user: tuple = ()     # runuser -u postgres -- when the tests run as root
    options: str = ""       # the server's -o options (its port and socket directory)

    def ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        """``pg_ctl ARGS`` on this server (``restart -m fast``, ``stop -m immediate``, ``start``):
        the fault tests take the database away under a running platperf."""
        extra = ["-o", self.options] if args and args[0] in ("start", "restart") else []
        return subprocess.run([*self.as_user, f"{self.bin_dir}/pg_ctl", "-D", self.data, "-w", "-t", "120",
                               *args, *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, check=check)

    def url(self, dbname: str) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{dbname}"

    def admin(self):
        """An autocommit connection to the maintenance database (CREATE/DROP DATABASE)."""
        import psycopg
        return psycopg.connect(host=self.host, port=self.port, user=self.user,
                               dbname="postgres", autocommit=True)


def _bin_dir() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return os.path.dirname(found[-1]) if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_pg(missing=missing, fail=pytest.fail, durable: bool = False):
    """A PostgreSQL server of its own on a free 127.0.0.1 port, stopped at the end (the tests'
    fixture and bench/fleet.py). ``missing(why)``/``fail(why)`` say what stops it from starting.
    ``durable``: fsync and synchronous commits on, as a lab's server has them (the tests that
    crash the server: without them a commit acknowledged before the crash may be lost)."""
    bin_dir = _bin_dir()
    if bin_dir is None:
        missing("PostgreSQL server binaries are not installed (Debian package postgresql; make deps)")
    as_user: list[str] = []
    top = tempfile.mkdtemp(prefix="platperf-pg-")
    if os.geteuid() == 0:
        try:
            pg = pwd.getpwnam("postgres")
        except KeyError:
            missing("running as root and there is no 'postgres' user to run the server as")
        os.chown(top, pg.pw_uid, pg.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data, log = os.path.join(top, "data"), os.path.join(top, "server.log")
    user = "platperf"
    subprocess.run([*as_user, f"{bin_dir}/initdb", "-D", data, "-U", user, "--auth=trust",
                    "-E", "UTF8", "--no-sync", "--locale=C"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    port = _free_port()
    options = f"-h 127.0.0.1 -p {port} -k {top}" + ("" if durable else f" {_FAST}")
    started = subprocess.run(
        [*as_user, f"{bin_dir}/pg_ctl", "-D", data, "-l", log, "-w", "-t", "120", "start",
         "-o", options],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if started.returncode != 0:
        with open(log) as f:
            fail(f"PostgreSQL did not start: {started.stderr.strip()} {f.read()[-2000:]}")
    try:
        yield PgServer("127.0.0.1", port, user, data, bin_dir, tuple(as_user), options)
    finally:
        subprocess.run([*as_user, f"{bin_dir}/pg_ctl", "-D", data, "-m", "fast", "-w", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(top, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server():
    require_module("psycopg")
    with running_pg() as server:
        yield server


@contextlib.contextmanager
def new_database(server: PgServer, prefix: str = "t_"):
    """The URL of a new, empty database on ``server``, dropped afterwards (the server started
    again first if a test left it stopped)."""
    name = prefix + uuid.uuid4().hex[:12]
    with server.admin() as c:
        c.execute(f'CREATE DATABASE "{name}"')
    yield server.url(name)
    if server.data and server.ctl("status", check=False).returncode != 0:
        server.ctl("start")
    with server.admin() as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_database(pg_server):
    """The URL of a new, empty PostgreSQL database, dropped after the test."""
    with new_database(pg_server) as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A new, empty results database: a SQLite file, then a PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "platperf.db")
    return request.getfixturevalue("pg_database")
