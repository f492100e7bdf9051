"""The store's one writer (store/writer.py): any number of boards' runs through one connection,
a busy database waited out (back-pressure, not failure), a refused record failing only its
own run. Real SQLite files and a real PostgreSQL server; boards are threads handing records."""
from __future__ import annotations

import sqlite3
import threading


import platperf.store as store_module
import platperf.store.url as url_module
import platperf.store.writer as writer_module
from platperf.records import Result
from platperf.runner.sink import RunSink
from platperf.store import Store, StoreError

BOARDS = 20
RESULTS = 40


def place(cpu):
    return 0, 0, cpu


def result(i: int) -> Result:
    return Result("mem-latency", {"size": 4096 * (i + 1)}, "latency", "ns", "lower",
                  [1.0 + i, 2.0 + i], cpu=0)


def measure(store, run_ids, make=result):
    """Each run's records handed over by a thread of its own, as the boards of a fleet do."""
    outcomes, errors = {}, []

    def board(run_id):
        sink = RunSink(store, run_id, place)
        try:
            for i in range(RESULTS):
                sink.result(make(i) if run_id == run_ids[0] else result(i))
                sink.commit_due()
            sink.finish("complete")
        except StoreError as exc:
            errors.append(str(exc))
            sink.finish("failed", str(exc))
        outcomes[run_id] = sink.outcome

    threads = [threading.Thread(target=board, args=(r,)) for r in run_ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes, errors


def test_twenty_boards_share_one_connection(db_url):
    store = Store(db_url)
    run_ids = [store.writer().call(store.begin_run, label="fleet", target=f"b{i}") for i in range(BOARDS)]
    outcomes, errors = measure(store, run_ids)
    assert errors == []
    assert store.writer().connections == 1
    assert {r["id"]: r["status"] for r in store.runs()} == {r: "complete" for r in run_ids}
    assert store.result_counts() == {r: RESULTS for r in run_ids}
    assert all(o.results == RESULTS for o in outcomes.values())


def test_a_database_locked_by_another_process_slows_the_boards_and_loses_nothing(tmp_path, monkeypatch):
    """Another process holds SQLite's write lock well past the busy timeout while 20 boards
    write: the writer's queue fills (10 records here), the boards wait, and once the lock goes
    every record is stored."""
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT_S", 0.05)
    monkeypatch.setattr(url_module, "BUSY_TIMEOUT_S", 0.05)
    monkeypatch.setattr(writer_module, "MAX_PENDING", 10)
    db = tmp_path / "locked.db"
    store = Store(str(db))
    run_ids = [store.begin_run(label="fleet", target=f"b{i}") for i in range(BOARDS)]
    locker = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    locker.execute("BEGIN EXCLUSIVE")
    released = threading.Timer(1.0, locker.rollback)   # not a threshold: how long it is held
    released.start()
    outcomes, errors = measure(store, run_ids)
    released.join()
    assert errors == []
    assert store.writer().busy_retries > 0          # the writer did meet the lock
    assert store.result_counts() == {r: RESULTS for r in run_ids}
    assert {r["status"] for r in store.runs()} == {"complete"}


def test_a_record_the_database_refuses_fails_only_its_own_run(pg_database):
    """PostgreSQL refuses text with a NUL character: the board that sent one has its run failed
    with one line, the runs that shared its batches complete with every record."""
    store = Store(pg_database)
    run_ids = [store.begin_run(label="fleet", target=f"b{i}") for i in range(4)]

    def bad(i):
        res = result(i)
        if i == RESULTS // 2:
            res.metric = "late\0ncy"
        return res

    outcomes, errors = measure(store, run_ids, make=bad)
    failed = outcomes[run_ids[0]]
    assert failed.status == "failed" and "NUL" in failed.error and "\n" not in failed.error
    assert failed.results <= RESULTS // 2
    counts = store.result_counts()
    assert counts.get(run_ids[0], 0) == failed.results    # what it says is what is there
    assert {r: counts[r] for r in run_ids[1:]} == {r: RESULTS for r in run_ids[1:]}
    assert {r["id"]: r["status"] for r in store.runs()} == {run_ids[0]: "failed",
                                                         **{r: "complete" for r in run_ids[1:]}}
