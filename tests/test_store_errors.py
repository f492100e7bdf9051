"""One line and exit 2 for every database that cannot be used as asked: an unknown URL
scheme, a missing driver, an unreachable server, a read-only database (reading commands
work on it; writing ones say why not)."""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from platperf.records import Result
from platperf.store import Store

STREAM = Path(__file__).parent / "fixtures" / "ingest" / "stream" / "stream.txt"


def platperf(*args, preamble="pass", user=None):
    """The real command in a new interpreter; as ``user`` when given (see read_only_dir)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    code = (f"import sys\n{preamble}\nfrom platperf.cli import main\n"
            "sys.argv = ['platperf'] + sys.argv[1:]\nmain()")
    cmd = [sys.executable, "-c", code, *map(str, args)]
    if user:
        # Another uid that may still read and search everything (this interpreter lives under
        # /root) but has no CAP_DAC_OVERRIDE: it writes only where permissions allow.
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups",
               "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search", *cmd]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd="/")


def one_line(r):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("platperf: error: "), r.stderr
    return lines[0]


@pytest.mark.parametrize("db", ["foo://x", "mysql://u@127.0.0.1/db"])
def test_an_unknown_url_scheme_lists_the_supported_ones(db):
    line = one_line(platperf("runs", "--db", db))
    assert "unknown database URL scheme" in line
    assert "sqlite:///PATH" in line and "postgresql://" in line


def test_postgresql_without_its_driver_names_the_extra_to_install():
    # This interpreter cannot import psycopg, as after a plain 'pip install platperf'.
    r = platperf("runs", "--db", "postgresql://u:secret@127.0.0.1:5432/platperf",
                 preamble="sys.modules['psycopg'] = None")
    line = one_line(r)
    assert "pip install 'platperf[postgres]'" in line
    assert "secret" not in line


def test_an_unreachable_server_names_host_port_and_reason():
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    line = one_line(platperf("runs", "--db", f"postgresql://platperf:secret@127.0.0.1:{port}/platperf"))
    assert f"(server 127.0.0.1:{port})" in line and "refused" in line.lower()
    assert "secret" not in line


def test_an_unknown_database_on_a_running_server_is_one_line(pg_server):
    line = one_line(platperf("runs", "--db", pg_server.url("no_such_db")))
    assert "no_such_db" in line and "does not exist" in line


def _stored_runs(db):
    store = Store(db)
    ids = []
    for label in ("v2.11", "v2.12"):
        run_id = store.begin_run(label=label)
        store.add_result(run_id, Result("mem-latency", {"size": 4096}, "latency", "ns", "lower",
                                        [10.0, 10.2, 10.1]))
        store.finish_run(run_id, "complete")
        ids.append(run_id)
    # and one whose owner is gone: a read-only database must not be swept
    dead = store.begin_run(label="dead")
    store.update_run(dead, owner_pid=_dead_pid())
    store.engine.dispose()
    return ids, dead


def _dead_pid():
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


@pytest.fixture
def read_only_dir():
    """A directory the test's commands cannot write. Root ignores permissions, so as root the
    commands run as the postgres user (a directory owned by root is read-only to them);
    otherwise the directory is made 0555."""
    top = tempfile.mkdtemp(prefix="platperf-ro-")
    os.chmod(top, 0o755)
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.fail("setpriv (util-linux) is needed to test a read-only database as root")
        yield Path(top), "postgres"
    else:
        yield Path(top), None
    os.chmod(top, 0o755)
    shutil.rmtree(top)


def _lock(path: Path, user):
    if user is None:
        path.chmod(0o555)


@pytest.mark.parametrize("dir_writable", [False, True], ids=["dir-read-only", "file-read-only"])
def test_reading_commands_work_on_a_read_only_database(read_only_dir, dir_writable):
    top, user = read_only_dir
    where = top / "d"
    where.mkdir()
    db = where / "platperf.db"
    (base, new), dead = _stored_runs(str(db))
    db.chmod(0o444)
    if dir_writable:  # the file alone is read-only: SQLite may add its -shm next to it
        where.chmod(0o777)
    else:
        _lock(where, user)
    before = sorted(p.name for p in where.iterdir())
    for args in (["runs"], ["show", "v2.12"], ["report", "v2.11", "v2.12", "--format", "md"],
                 ["compare", "v2.11", "v2.12"], ["history", "--format", "json"]):
        r = platperf(*args, "--db", db, user=user)
        assert r.returncode == 0, (args, r.stderr)
        assert "v2.12" in r.stdout or args[0] == "history", (args, r.stdout)
    r = platperf("show", "dead", "--db", db, user=user)
    assert r.returncode == 0 and f"run {dead} (dead) is running" in r.stderr   # not swept
    w = platperf("ingest", "stream", STREAM, "--label", "x", "--db", db, user=user)
    line = one_line(w)
    assert f"database {db} is read-only" in line and "choose a writable path" in line
    if not dir_writable:
        assert sorted(p.name for p in where.iterdir()) == before
    assert [r["label"] for r in Store(f"sqlite:///{db}?mode=ro", write=False).runs()] == \
        ["v2.11", "v2.12", "dead"]


def test_a_read_only_database_that_needs_a_migration_is_one_line(read_only_dir):
    from alembic import command
    from sqlalchemy import create_engine
    from platperf.store.migrations import _config
    top, user = read_only_dir
    db = top / "old.db"
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        command.upgrade(_config(conn), "0001")
    engine.dispose()
    db.chmod(0o444)
    _lock(top, user)
    line = one_line(platperf("runs", "--db", db, user=user))
    assert "is read-only and needs an upgrade of its schema (revision 0001 to 0004)" in line


def test_mode_ro_in_the_url_opens_read_only_even_for_root(tmp_path):
    db = tmp_path / "p.db"
    _stored_runs(str(db))
    url = f"sqlite:///{db}?mode=ro"
    r = platperf("runs", "--db", url)
    assert r.returncode == 0 and "v2.11" in r.stdout
    line = one_line(platperf("ingest", "stream", STREAM, "--label", "x", "--db", url))
    assert "read-only (opened with mode=ro)" in line
    assert [x["status"] for x in Store(str(db), write=False).runs()][-1] == "abandoned"  # writable: swept


def test_a_new_database_in_a_read_only_directory_is_refused_and_not_created(read_only_dir):
    top, user = read_only_dir
    _lock(top, user)
    line = one_line(platperf("ingest", "stream", STREAM, "--label", "x", "--db", top / "x.db", user=user))
    assert f"directory {top} is not writable" in line
    assert list(top.iterdir()) == []


@pytest.mark.parametrize("command", [["runs"], ["show", "latest"], ["compare", "v1", "v2"],
                                     ["history"], ["report", "latest"]])
@pytest.mark.parametrize("spelling", ["{}", "sqlite:///{}"])
def test_a_reading_command_given_a_database_that_does_not_exist_says_so_and_creates_nothing(
        tmp_path, command, spelling):
    typo = tmp_path / "platperf.bd"
    line = one_line(platperf(*command, "--db", spelling.format(typo)))
    assert f"no database {typo};" in line
    assert list(tmp_path.iterdir()) == []
