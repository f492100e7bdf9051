"""Many writers: 8 processes that open one NEW database at the same moment and each write
a run all complete (schema creation under a lock, busy_timeout, short transactions)."""
import os
import subprocess
import sys
import time

from platperf.store import Store
from platperf.store.migrations import HEAD

WRITERS = 8
RESULTS = 20

# Each writer waits for the go file, so that all 8 open the new database together rather
# than one after the other as their imports finish.
WRITER = """
import os, sys, time
from platperf.records import Result
from platperf.store import Store
db, go, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
while not os.path.exists(go):
    time.sleep(0.005)
store = Store(db)
run_id = store.begin_run(label="writer", suite=str(os.getpid()))
for i in range(n):
    store.add_result(run_id, Result("mem-latency", {"size": 4096 << i}, "latency", "ns", "lower",
                                    [1.0 + i, 2.0 + i], cpu=0))
    store.heartbeat(run_id)
store.finish_run(run_id, "complete")
print(run_id)
"""


def test_8_writers_into_one_new_database_all_complete(db_url, tmp_path):
    go = tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, db_url, str(go), str(RESULTS)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for _ in range(WRITERS)]
    time.sleep(0.5)  # not a threshold: only lets the interpreters reach their wait loop
    go.touch()
    outcomes = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    assert [(code, err) for code, _, err in outcomes] == [(0, "")] * WRITERS
    store = Store(db_url)
    runs = store.runs()
    assert sorted(int(out) for _, out, _ in outcomes) == sorted(r["id"] for r in runs)
    assert [r["status"] for r in runs] == ["complete"] * WRITERS
    assert len({r["owner_pid"] for r in runs}) == WRITERS
    assert store.result_counts() == {r["id"]: RESULTS for r in runs}
    with store.engine.connect() as c:
        assert c.exec_driver_sql("SELECT version_num FROM alembic_version").all() == [(HEAD,)]
