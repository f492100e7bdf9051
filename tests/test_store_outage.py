"""A database that goes away and comes back (issue 39): a PostgreSQL server of the test's own on
127.0.0.1, restarted (fast and immediate) and stopped under the store's writer and under
`platperf run`. Nothing handed over is lost while the writer waits, the user hears once when
the store goes and once when it is back, and a run the store could not take in time fails
with its cause, recorded by the next platperf that opens the database."""
from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from conftest import require_module, require_probe
from pg_server import new_database, running_pg
from platperf.records import Result
from platperf.runner.sink import RunSink
from platperf.store import Store, StoreError

RESULTS = 60


@pytest.fixture(scope="module")
def server():
    require_module("psycopg")
    with running_pg(durable=True) as pg:
        yield pg


@pytest.fixture
def database(server):
    with new_database(server, "o_") as url:
        yield url


@pytest.fixture(autouse=True)
def state_home(tmp_path, monkeypatch):
    """The journal of run ends (store/journal.py) in the test's own state directory."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def result(i: int) -> Result:
    return Result("mem-latency", {"size": 4096 * (i + 1)}, "latency", "ns", "lower", [1.0 + i], cpu=0)


def board(store, run_id, pause: float, outcome: dict):
    """One board's records, one every ``pause`` seconds, then its end."""
    sink = RunSink(store, run_id, lambda cpu: (None, 0, cpu))
    try:
        for i in range(RESULTS):
            sink.result(result(i))
            sink.commit_due()
            time.sleep(pause)
        sink.finish("complete")
    except StoreError as exc:
        outcome["error"] = str(exc)
        try:
            sink.finish("failed", str(exc))
        except StoreError:
            outcome["journal"] = getattr(sink, "journal", None)
    outcome["status"] = sink.outcome.status


def boards_through(store, fault, n: int = 3, pause: float = 0.05):
    """``n`` boards writing while ``fault()`` runs once a third of their records are in."""
    run_ids = [store.writer().call(store.begin_run, label="outage", target=f"b{i}") for i in range(n)]
    outcomes = {r: {} for r in run_ids}
    threads = [threading.Thread(target=board, args=(store, r, pause, outcomes[r])) for r in run_ids]
    for t in threads:
        t.start()
    while min(store.result_counts().get(r, 0) for r in run_ids) < RESULTS // 3:
        time.sleep(0.05)
    fault()
    for t in threads:
        t.join(timeout=300)
    return run_ids, outcomes


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_a_restart_under_the_writer_loses_nothing(server, database, mode):
    store = Store(database)
    heard = []
    store.writer().say = heard.append
    run_ids, outcomes = boards_through(store, lambda: server.ctl("restart", "-m", mode))
    assert all("error" not in o for o in outcomes.values()), outcomes
    assert store.result_counts() == {r: RESULTS for r in run_ids}
    assert {r["id"]: r["status"] for r in store.runs()} == {r: "complete" for r in run_ids}
    assert store.writer().gone_retries > 0, "the restart was not met: the test proves nothing"
    assert len(heard) == 2, heard           # one line when it goes, one when it is back
    assert heard[0].startswith("the database went away (") and heard[1].startswith("the database is back after ")


def test_a_stop_longer_than_a_batch_wait_is_waited_out(server, database):
    """The server stopped for 6 s — many batch waits and back-offs — then started again."""
    store = Store(database)
    store.writer().say = lambda line: None

    def stop_a_while():
        server.ctl("stop", "-m", "fast")
        time.sleep(6)
        server.ctl("start")
    run_ids, outcomes = boards_through(store, stop_a_while)
    assert all("error" not in o for o in outcomes.values()), outcomes
    assert store.result_counts() == {r: RESULTS for r in run_ids}


def test_past_the_retry_time_the_runs_fail_and_the_next_platperf_records_why(server, database, tmp_path):
    store = Store(database)
    store.retry_s = 1.0
    store.writer().say = lambda line: None
    run_ids, outcomes = boards_through(store, lambda: server.ctl("stop", "-m", "fast"), n=2)
    try:
        assert all(o["status"] == "failed" and o.get("journal") for o in outcomes.values()), outcomes
        cause = outcomes[run_ids[0]]["error"]
        assert "\n" not in cause
    finally:
        server.ctl("start")
    again = Store(database)                          # the next command
    assert sorted(again.ended) == sorted(run_ids)
    ended = {r["id"]: r for r in again.runs()}
    for run_id in run_ids:
        assert ended[run_id]["status"] == "failed"
        assert ended[run_id]["error"] == outcomes[run_id]["error"]
        assert "abandoned" not in ended[run_id]["error"]
    assert again.result_counts()[run_ids[0]] >= RESULTS // 3


def test_platperf_run_survives_a_restart_with_every_result(server, database, tmp_path):
    """`platperf run` with the real probe: the server restarts while results arrive; the run
    completes with as many results as one the server never left."""
    require_probe()
    suite = ('repeat = 1\n[[bench]]\nkernel = "mem-latency"\npattern = "seq"\n'
             'size = ["4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m", "2m"]\n'
             'samples = 200\nwarmup = 0\nmin_time = 0.002\n')
    (tmp_path / "suite.toml").write_text(suite)
    args = [sys.executable, "-m", "platperf", "run", "--suite", str(tmp_path / "suite.toml"), "--cpus", "0",
            "--db", database, "-q"]

    def run(label):
        return subprocess.Popen([*args, "--label", label], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
    quiet = run("quiet")
    out, err = quiet.communicate(timeout=600)
    assert quiet.returncode == 0, err
    store = Store(database)
    expected = store.result_counts()[store.runs()[0]["id"]]
    proc = run("restarted")
    while True:
        runs = [r for r in Store(database).runs() if r["label"] == "restarted"]
        if runs and Store(database).result_counts().get(runs[0]["id"], 0) > 0:
            break
        assert proc.poll() is None, proc.stderr.read()
        time.sleep(0.02)
    server.ctl("restart", "-m", "fast")
    proc.wait(timeout=600)
    err = proc.stderr.read()
    assert proc.returncode == 0, err
    assert "the database went away" in err and "the database is back" in err, err
    store = Store(database)
    (done,) = [r for r in store.runs() if r["label"] == "restarted"]
    assert done["status"] == "complete"
    assert store.result_counts()[done["id"]] == expected


def test_a_gate_survives_a_restart_and_decides(server, database, tmp_path):
    """`platperf run --against` (issue 39: "same in a gate"): the server restarts while the
    gate's runs arrive; the gate goes on to a decision (exit 0 or 3 on an A/A gate, never 2)
    and every run it made is complete."""
    require_probe()
    suite = ('repeat = 3\n[[bench]]\nkernel = "mem-latency"\npattern = "seq"\nsize = ["4k", "64k"]\n'
             'samples = 60\nwarmup = 0\nmin_time = 0.002\n')
    (tmp_path / "gate.toml").write_text(suite)
    base = [sys.executable, "-m", "platperf", "run", "--suite", str(tmp_path / "gate.toml"), "--cpus", "0",
            "--db", database, "-q"]
    done = subprocess.run([*base, "--label", "base"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    gate = subprocess.Popen([*base, "--label", "rc", "--against", "base", "--budget", "90s"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not [r for r in Store(database).runs() if r["label"] == "rc" and
               Store(database).result_counts().get(r["id"], 0) > 0]:
        assert gate.poll() is None, gate.stderr.read()
        time.sleep(0.02)
    server.ctl("restart", "-m", "fast")
    out, err = gate.communicate(timeout=600)
    assert gate.returncode in (0, 3), out + err
    assert "the database went away" in err and "the database is back" in err, err
    assert {r["status"] for r in Store(database).runs() if r["label"] == "rc"} == {"complete"}


class CommitCutter:
    """A TCP relay on 127.0.0.1 in front of the test's PostgreSQL server that, once armed, passes
    the next COMMIT of the store writer's connection (the one that inserts results) to the server and cuts the connection before the server's answer comes back:
    the commit is made, the client never hears it (an immediate shutdown or a network cut at
    that instant, made certain)."""
    COMMIT = b"Q\x00\x00\x00\x0bCOMMIT\x00"        # the simple query psycopg sends for a commit

    def __init__(self, port: int):
        import socket
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port, self.server_port = self.listener.getsockname()[1], port
        self.armed, self.cuts, self._lock = threading.Event(), 0, threading.Lock()
        self.sent = 0                      # bytes passed from the clients to the server
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        import socket
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.server_port))
            cut = threading.Event()
            threading.Thread(target=self._to_server, args=(client, upstream, cut), daemon=True).start()
            threading.Thread(target=self._to_client, args=(upstream, client, cut), daemon=True).start()

    def _to_server(self, client, upstream, cut):
        tail, writer = b"", False
        while data := _recv(client):
            seen = tail + data
            writer = writer or b"INSERT INTO result_samples" in seen
            self.sent += len(data)
            if self.COMMIT in seen and writer and self._take():
                cut.set()                      # the answer is dropped from now on
                upstream.sendall(data)
                time.sleep(0.5)                # the server commits
                break
            upstream.sendall(data)
            tail = seen[1 - len(self.COMMIT):]     # a COMMIT split over two reads, not one passed
        for s in (client, upstream):
            _close(s)

    def _take(self) -> bool:
        """Whether this COMMIT is the one to cut (the first once armed: one cut an arming)."""
        with self._lock:
            if not self.armed.is_set():
                return False
            self.armed.clear()
            self.cuts += 1
            return True

    def _to_client(self, upstream, client, cut):
        while (data := _recv(upstream)) and not cut.is_set():
            client.sendall(data)
        if cut.is_set():
            _close(client)


def _recv(sock) -> bytes:
    try:
        return sock.recv(65536)
    except OSError:
        return b""


def _close(sock):
    import socket
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sock.close()


def test_a_commit_whose_answer_is_lost_is_not_written_twice(server, database):
    """The relay cuts the connection after the server took a batch's COMMIT: the writer asks the
    server what became of that transaction (txid_status) and counts the batch as written. Written
    again, as it was before, the run held 61 results of 60 (CI, an immediate restart)."""
    cutter = CommitCutter(server.port)
    store = Store(database.replace(f":{server.port}/", f":{cutter.port}/"))
    store.writer().say = lambda line: None
    run_ids, outcomes = boards_through(store, cutter.armed.set, n=1)
    assert all("error" not in o for o in outcomes.values()), outcomes
    assert cutter.cuts == 1
    assert Store(database).result_counts() == {run_ids[0]: RESULTS}
    assert store.writer().lost_answers == 1


def test_an_idle_writer_sends_the_server_nothing(server, database, monkeypatch):
    """Once its runs ended, the writer's empty rounds (each HEARTBEAT_S, here 0.05 s) send no
    byte: no transaction id asked of a batch that writes nothing. (Asked, an idle writer of a
    stopped server waited out --db-retry in the background: "still away after 411 s".)"""
    from platperf.store import writer as writer_module
    monkeypatch.setattr(writer_module, "HEARTBEAT_S", 0.05)
    cutter = CommitCutter(server.port)
    store = Store(database.replace(f":{server.port}/", f":{cutter.port}/"))
    store.writer().say = lambda line: None
    run_ids, outcomes = boards_through(store, lambda: None, n=1, pause=0.0)
    assert all(o["status"] == "complete" for o in outcomes.values()), outcomes
    store.writer().flush()
    before = cutter.sent
    time.sleep(1.0)                        # about 20 empty rounds
    assert cutter.sent == before
