"""A lab from one host (issue 27): many boards at once, each a real sshd on 127.0.0.1 with its
own alias, the real probe, one command. Boards that hang, a gateway that drops connections
beyond its MaxStartups, a descriptor limit too low for the fleet. Functional checks only."""
from __future__ import annotations

import getpass
import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit

import pytest
from conftest import missing, require_probe
from sshd_server import HungServer, Sshd, fleet_config, missing_parts, signal_tree, start_fleet

BOARDS = 16
TINY = ('[[bench]]\nkernel = "mem-latency"\npattern = "random"\nsize = ["16k"]\n'
        'samples = 2\nwarmup = 0\nmin_time = 0.002\n')
# A step that lasts long enough to hang a board in the middle of it.
LONG_STEP = '[[bench]]\nkernel = "latency-loop"\nduration = 20\n'


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """BOARDS sshd instances, boards b1..bN, and `hung`: a port that accepts and never answers."""
    why = missing_parts()
    if why:
        missing(why)
    root = tmp_path_factory.mktemp("fleet")
    servers = start_fleet(root, BOARDS)
    hung = HungServer()
    yield servers, hung, root
    hung.close()
    for server in servers:
        server.stop()


def platperf(cwd, config, *args, timeout=600, **kw):
    env = dict(os.environ, PLATPERF_SSH_CONFIG=str(config))
    env.pop("PLATPERF_PROBE", None)
    return subprocess.run([sys.executable, "-m", "platperf", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout, **kw)


def targets(names) -> str:
    return ",".join(f"ssh://{n}" for n in names)


class Backends:
    """The most server processes the database ``url`` had at once while the block ran."""

    def __init__(self, url: str):
        self.url, self.most = url, 0
        self._done = threading.Event()

    def _watch(self):
        import psycopg
        parts = urlsplit(self.url)
        with psycopg.connect(host=parts.hostname, port=parts.port, user=parts.username,
                             dbname="postgres", autocommit=True) as conn:
            while not self._done.wait(0.05):
                n = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s",
                                 (parts.path.lstrip("/"),)).fetchone()[0]
                self.most = max(self.most, n)

    def __enter__(self):
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._done.set()
        self._thread.join()


def test_every_board_is_measured_into_one_connection_and_a_hung_one_is_one_line(fleet, tmp_path, db_url):
    """16 boards and one whose sshd never answers, on SQLite and on PostgreSQL: every board's
    run complete with its results, the hung board given up with one line naming it, and the
    database used through one connection whatever the number of boards."""
    require_probe()
    servers, hung, _ = fleet
    names = [f"b{i + 1}" for i in range(BOARDS)]
    config = fleet_config(tmp_path / "ssh_config", [*zip(names, servers), ("hung", hung)])
    (tmp_path / "tiny.toml").write_text(TINY)
    args = ("run", "--suite", "tiny.toml", "--target", targets([*names[:8], "hung", *names[8:]]),
            "--cpus", "0", "--db", db_url, "--repeat", "1", "--json")
    if db_url.startswith("postgresql"):
        with Backends(db_url) as backends:
            proc = platperf(tmp_path, config, *args)
        assert 1 <= backends.most <= 2       # the store's writer (and its opening), never one a board
    else:
        proc = platperf(tmp_path, config, *args)
    assert proc.returncode == 2, proc.stderr
    rows = {r["target"]: r for r in json.loads(proc.stdout)}
    for name in names:
        row = rows[f"ssh://{name}"]
        assert (row["status"], row["results"]) == ("complete", 2), row
    gone = rows["ssh://hung"]
    assert gone["run_id"] is None and "hung" in gone["error"] and "\n" not in gone["error"]
    assert proc.stderr.strip().splitlines()[-1] == \
        "platperf: error: 1 of 17 boards did not complete: ssh://hung failed"


def test_a_board_that_hangs_mid_run_is_given_up_and_the_others_finish(fleet, tmp_path):
    """One board's sshd stops (SIGSTOP: TCP still up, nothing answers) while its step runs: its
    run is left partial with what arrived, the other boards complete, and the command ends."""
    require_probe()
    servers, _, _ = fleet
    names = [f"b{i + 1}" for i in range(4)]
    config = fleet_config(tmp_path / "ssh_config", list(zip(names, servers)))
    (tmp_path / "long.toml").write_text(LONG_STEP)
    env = dict(os.environ, PLATPERF_SSH_CONFIG=str(config))
    env.pop("PLATPERF_PROBE", None)
    proc = subprocess.Popen([sys.executable, "-m", "platperf", "run", "--suite", "long.toml",
                             "--target", targets(names), "--cpus", "0", "--db", "h.db",
                             "--repeat", "1", "--json", "--quiet"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + 300
        while _running(tmp_path / "h.db") < len(names):    # every board is in its step
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.2)
        signal_tree(servers[1], signal.SIGSTOP)
        out, err = proc.communicate(timeout=600)
    finally:
        signal_tree(servers[1], signal.SIGCONT)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2, err
    rows = {r["target"]: r for r in json.loads(out)}
    assert rows["ssh://b2"]["status"] == "partial" and "b2" in rows["ssh://b2"]["error"]
    for name in ("b1", "b3", "b4"):
        assert rows[f"ssh://{name}"]["status"] == "complete", rows[f"ssh://{name}"]
    with sqlite3.connect(tmp_path / "h.db") as con:
        assert dict(con.execute("SELECT target, status FROM runs")) == {
            "ssh://b1": "complete", "ssh://b2": "partial", "ssh://b3": "complete",
            "ssh://b4": "complete"}


def _running(db) -> int:
    try:
        with sqlite3.connect(db) as con:
            return con.execute("SELECT count(*) FROM runs WHERE status = 'running'").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_boards_behind_one_sshd_past_its_max_startups_all_run(tmp_path):
    """16 boards behind one sshd that drops half the connections beyond 2 not yet logged in (MaxStartups 2:50:100; past its full count
    sshd only stops accepting): with 16
    connecting at once (--max-connect 16) the server drops some (its log says so), and they
    are tried again with back-off until every board has run."""
    require_probe()
    why = missing_parts()
    if why:
        missing(why)
    # Each login spends a second unauthenticated (a keys command that sleeps), so that 16 at
    # once are well past 2.
    gateway = Sshd(tmp_path / "gateway", f"MaxStartups 2:50:100\nLogLevel VERBOSE\n"
                   f"AuthorizedKeysCommand /bin/sleep 1\n"
                   f"AuthorizedKeysCommandUser {getpass.getuser()}").start()
    try:
        names = [f"g{i + 1}" for i in range(BOARDS)]
        config = fleet_config(tmp_path / "ssh_config", [(n, gateway) for n in names])
        (tmp_path / "tiny.toml").write_text(TINY)
        proc = platperf(tmp_path, config, "run", "--suite", "tiny.toml", "--target", targets(names),
                        "--cpus", "0", "--db", "g.db", "--repeat", "1", "--json", "--quiet",
                        "--max-connect", str(BOARDS))
        log = (gateway.dir / "sshd.log").read_text()
    finally:
        gateway.stop()
    assert proc.returncode == 0, proc.stderr
    assert [r["status"] for r in json.loads(proc.stdout)] == ["complete"] * BOARDS
    assert "past MaxStartups" in log        # the server did drop connections


def _limited(soft: int, hard: int):
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_descriptor_limit_below_the_fleet_is_raised_to_the_hard_limit(fleet, tmp_path):
    require_probe()
    servers, _, _ = fleet
    names = [f"b{i + 1}" for i in range(BOARDS)]
    config = fleet_config(tmp_path / "ssh_config", list(zip(names, servers)))
    (tmp_path / "tiny.toml").write_text(TINY)
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 1024:
        missing(f"the hard descriptor limit here is {hard}: the test needs 1024")
    proc = platperf(tmp_path, config, "run", "--suite", "tiny.toml", "--target", targets(names),
                    "--cpus", "0", "--db", "n.db", "--repeat", "1", "--json", "--quiet",
                    preexec_fn=_limited(100, hard))
    assert proc.returncode == 0, proc.stderr
    assert [r["status"] for r in json.loads(proc.stdout)] == ["complete"] * BOARDS


def test_a_fleet_the_hard_limit_cannot_hold_is_one_line_before_any_board(fleet, tmp_path):
    servers, _, _ = fleet
    names = [f"b{i + 1}" for i in range(BOARDS)]
    config = fleet_config(tmp_path / "ssh_config", list(zip(names, servers)))
    proc = platperf(tmp_path, config, "run", "--suite", "quick", "--target", targets(names),
                    "--db", "n.db", preexec_fn=_limited(100, 100))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "16 boards" in lines[0] and "open files" in lines[0], proc.stderr
    assert "ulimit" in lines[0] and "Traceback" not in proc.stderr
    assert not (tmp_path / "n.db").exists()
