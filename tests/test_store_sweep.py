"""No run left ``running`` by a dead process: the next writable open marks it abandoned."""
import datetime as dt
import os
import signal
import socket
import subprocess
import sys

import pytest

from platperf.records import Result
from platperf.store import Store
from platperf.store.sweep import STALE_AFTER_S, gone_reason, process_start

# Begins a run, stores 3 results and 1 histogram, says so, then waits to be killed.
OWNER = """
import sys, time
from platperf.records import Result
from platperf.store import Store
store = Store(sys.argv[1])
run_id = store.begin_run(label="killed")
for i in range(3):
    store.add_result(run_id, Result("mem-latency", {"size": 4096 << i}, "latency", "ns", "lower", [1.0]))
store.add_histogram(run_id, {"benchmark": "latency-loop", "params": {}, "unit": "ns", "edges": [0, 1],
                             "counts": [1]})
print(run_id, flush=True)
time.sleep(600)
"""


def _iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_sigkilled_owner_leaves_an_abandoned_run_that_keeps_its_results(db_url):
    owner = subprocess.Popen([sys.executable, "-c", OWNER, db_url], stdout=subprocess.PIPE, text=True,
                             env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    run_id = int(owner.stdout.readline())
    assert Store(db_url).run(run_id)["status"] == "running"   # alive: left alone
    owner.send_signal(signal.SIGKILL)
    owner.wait()
    store = Store(db_url)
    run = store.run(run_id)
    assert store.abandoned == [run_id]
    assert run["status"] == "abandoned" and run["finished_at"]
    assert run["error"] == (f"abandoned: platperf pid {owner.pid} on host {socket.gethostname()} "
                            "is gone; 3 results, 1 histograms kept")
    assert len(store.results(run_id)) == 3


def test_a_live_owner_on_this_host_is_left_running(db_url):
    store = Store(db_url)
    run_id = store.begin_run(label="mine")
    assert Store(db_url).run(run_id)["status"] == "running"


def _foreign_run(store, beat_age_s):
    t = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=beat_age_s)
    run_id = store.begin_run(label="board")
    store.update_run(run_id, owner_host="another-host", owner_pid=4242, started_at=_iso(t),
                     heartbeat_at=_iso(t))
    return run_id, _iso(t)


def test_another_hosts_run_is_abandoned_only_when_its_heartbeat_is_stale(db_url):
    store = Store(db_url)
    fresh, _ = _foreign_run(store, 60)
    stale, beat = _foreign_run(store, STALE_AFTER_S + 60)
    store = Store(db_url)
    assert store.abandoned == [stale]
    assert store.run(fresh)["status"] == "running"
    assert store.run(stale)["error"] == (f"abandoned: platperf pid 4242 on host another-host sent no "
                                         f"heartbeat since {beat} (over 10 min); 0 results, "
                                         "0 histograms kept")


def test_a_reused_pid_does_not_keep_a_run_alive(db_url):
    # The run says this very process owns it, but it started long before this process did:
    # the pid was reused.
    store = Store(db_url)
    run_id = store.begin_run(label="old")
    started = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=3)
    store.update_run(run_id, started_at=_iso(started))
    store = Store(db_url)
    assert store.abandoned == [run_id]
    assert f"pid {os.getpid()} on host {socket.gethostname()} is gone (that pid is now a process " \
           "started at" in store.run(run_id)["error"]


def test_process_start_is_this_process_start():
    me = process_start(os.getpid())
    now = dt.datetime.now(dt.timezone.utc)
    assert me is not None and me <= now
    assert process_start(os.getpid()) == me
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        assert process_start(child.pid) >= me
    finally:
        child.communicate()


def test_a_run_from_before_owners_were_recorded_is_judged_by_its_start():
    when = dt.datetime(2026, 1, 1, 12, 0, tzinfo=dt.timezone.utc)
    assert gone_reason(None, None, None, "2026-01-01T11:59:00Z", when) is None
    assert gone_reason(None, None, None, "2026-01-01T11:00:00Z", when) == (
        "its platperf (owner unknown) sent no heartbeat since 2026-01-01T11:00:00Z (over 10 min)")


def test_sweeping_a_database_with_nothing_running_changes_nothing(db_url):
    store = Store(db_url)
    for status in ("complete", "partial", "failed"):
        run_id = store.begin_run(label=status)
        store.add_result(run_id, Result("b", {}, "m", "ns", "lower", [1.0]))
        store.finish_run(run_id, status)
    before = store.runs()
    again = Store(db_url)
    assert again.abandoned == [] and again.runs() == before


@pytest.mark.parametrize("status", ["partial", "failed", "abandoned", "running"])
def test_show_report_and_compare_say_when_a_run_is_not_complete(tmp_path, status):
    from typer.testing import CliRunner
    from platperf.cli import app
    db = str(tmp_path / "n.db")
    store = Store(db)
    ids = []
    for label in ("base", "new"):
        run_id = store.begin_run(label=label)
        store.add_result(run_id, Result("mem-latency", {"size": 4096}, "latency", "ns", "lower", [1.0, 1.1]))
        ids.append(run_id)
    store.finish_run(ids[0], "complete")
    store.finish_run(ids[1], status, error="probe exited with signal 9" if status != "running" else None)
    if status == "running":
        store.update_run(ids[1], status="running", finished_at=None)
    runner = CliRunner()
    line = f"platperf: note: run {ids[1]} (new) is {status}"
    for args in (["show", "new"], ["report", "new"], ["compare", "base", "new"]):
        out = runner.invoke(app, [*args, "--db", db])
        assert out.exit_code == 0, (args, out.output, out.stderr)
        assert out.stderr.count(line) == 1, (args, out.stderr)
    ok = runner.invoke(app, ["show", "base", "--db", db])
    assert "platperf: note" not in ok.stderr
