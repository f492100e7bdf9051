"""Several boards at once: `platperf run --target a,b` / `--targets all`. The boards are
inventory entries that are all this machine, with the fake probe; a board's probe is told
which board it is (PLATPERF_TARGET), so one of them can be made to fail."""
import json
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import fake_probe
from platperf.targets.inventory import Entry, Inventory

SUITE = '[[bench]]\nkernel = "mem-latency"\nsize = ["4k", "64k"]\nsamples = 3\nmode = "both"\n'


def platperf(*args, **kw):
    return subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True, text=True,
                          timeout=60, **kw)


@pytest.fixture
def boards(tmp_path, monkeypatch):
    fake_probe.install(tmp_path, monkeypatch)
    monkeypatch.setenv("PLATPERF_TARGETS", str(tmp_path / "targets.toml"))
    for name in ("a", "b"):
        Inventory.load().add(Entry(name, "local"))
    (tmp_path / "tiny.toml").write_text(SUITE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def runs_in(db):
    with sqlite3.connect(db) as c:
        return c.execute("SELECT r.target, r.status, count(x.id) FROM runs r LEFT JOIN results x "
                         "ON x.run_id = r.id GROUP BY r.id ORDER BY r.target").fetchall()


def test_every_board_gets_its_run_in_one_database(boards):
    proc = platperf("run", "--suite", "tiny.toml", "--target", "a,b", "--cpus", "0", "--db", "r.db",
                    "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [(r["target"], r["status"], r["results"]) for r in rows] == [("a", "complete", 4),
                                                                        ("b", "complete", 4)]
    assert len({r["run_id"] for r in rows}) == 2
    assert runs_in("r.db") == [("a", "complete", 4), ("b", "complete", 4)]
    # not a terminal: one plain progress line per board and step
    assert "a: [1/2] mem-latency (serial)" in proc.stderr
    assert "b: [2/2] mem-latency (parallel)" in proc.stderr


def test_targets_all_measures_every_inventory_board_and_prints_a_summary(boards):
    proc = platperf("run", "--suite", "tiny.toml", "--targets", "all", "--cpus", "0", "--db", "r.db")
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if "complete" in line]
    assert len(lines) == 2 and lines[0].split()[1] == "a" and lines[1].split()[1] == "b"
    assert "board" in proc.stdout and "run id" in proc.stdout


def test_one_board_failing_does_not_stop_the_other(boards, monkeypatch):
    monkeypatch.setenv("FAKE_PROBE_BEHAVIOUR_b", "die-after=1")
    proc = platperf("run", "--suite", "tiny.toml", "--target", "a,b,nope", "--cpus", "0",
                    "--db", "r.db", "--json")
    assert proc.returncode == 2
    rows = {r["target"]: r for r in json.loads(proc.stdout)}
    assert (rows["a"]["status"], rows["a"]["results"]) == ("complete", 4)
    assert (rows["b"]["status"], rows["b"]["results"]) == ("partial", 1)
    assert "without an 'end' record" in rows["b"]["error"]
    assert rows["nope"]["run_id"] is None and "unknown target 'nope'" in rows["nope"]["error"]
    assert runs_in("r.db") == [("a", "complete", 4), ("b", "partial", 1)]
    assert proc.stderr.strip().splitlines()[-1] == \
        "platperf: error: 2 of 3 boards did not complete: b partial, nope failed"


def test_when_no_board_can_be_measured_no_database_is_created(boards):
    proc = platperf("run", "--suite", "tiny.toml", "--target", "a,b", "--cpus", "0,99", "--db", "r.db")
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert [line.split(": CPU 99 not online")[0] for line in lines] == \
        ["platperf: error: a", "platperf: error: b"]
    assert not (boards / "r.db").exists()


def test_ctrl_c_interrupts_every_board_and_keeps_what_each_measured(boards, monkeypatch):
    monkeypatch.setenv("FAKE_PROBE_BEHAVIOUR", "slow")
    proc = subprocess.Popen([sys.executable, "-m", "platperf", "run", "--suite", "tiny.toml",
                             "--target", "a,b", "--cpus", "0", "--db", "r.db", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # both boards have stored results while both probes still run: they run at once
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            stored = {t: n for t, _, n in runs_in(boards / "r.db")}
        except sqlite3.Error:
            stored = {}
        if stored.get("a", 0) >= 2 and stored.get("b", 0) >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    rows = json.loads(stdout)
    assert [(r["target"], r["status"]) for r in rows] == [("a", "partial"), ("b", "partial")]
    assert all(r["results"] >= 2 for r in rows)
    assert [(t, s) for t, s, _ in runs_in(boards / "r.db")] == [("a", "partial"), ("b", "partial")]
    assert [n for *_, n in runs_in(boards / "r.db")] == [r["results"] for r in rows]


def test_interference_takes_one_board(boards):
    proc = platperf("interference", "--victim", "1", "--target", "a,b", "--db", "r.db")
    assert proc.returncode == 2 and "one board at a time" in proc.stderr
    assert not (boards / "r.db").exists()


def test_repeat_gives_every_board_its_runs(boards):
    proc = platperf("run", "--suite", "tiny.toml", "--target", "a,b", "--cpus", "0", "--db", "r.db",
                    "--json", "--repeat", "2")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert [(r["target"], r["status"], r["results"], len(r["run_ids"])) for r in rows] == \
        [("a", "complete", 8, 2), ("b", "complete", 8, 2)]
    assert sorted(runs_in("r.db")) == [("a", "complete", 4)] * 2 + [("b", "complete", 4)] * 2
    assert "a: [1/4] mem-latency (serial) [run 1/2]" in proc.stderr


def test_a_local_run_loads_no_ssh_module(boards):
    """Measuring this machine needs none of the SSH target's modules (its master connection, its
    step sessions): they are loaded for an ssh:// board only."""
    code = ("import sys\nfrom platperf.cli import app\n"
            "try:\n    app(['run', '--suite', 'tiny.toml', '--cpus', '0', '--db', 'r.db', '--quiet'])\n"
            "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
            "print(sorted(m for m in sys.modules if m.startswith('platperf.targets.ssh')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "[]"
    assert runs_in("r.db") == [("local", "complete", 4)]
