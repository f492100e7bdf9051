"""Store.add_results: one executemany, the same rows as add_result, inside the caller's
transaction (all or nothing), driver errors reported as the store's."""
import pytest

from platperf.records import Result
from platperf.store import Store, StoreError


def result(i, **extra):
    return Result("mem-latency", {"pattern": "seq", "size": 64 * (i + 1), "stride": 128}, "latency", "ns",
                  "lower", [1.0 + i, 2.0 + i, 4.0 + i], cpu=i % 2, cluster=0, core=i % 2, extra=extra)


def fields(stored):
    return [(r.benchmark, r.params, r.metric, r.samples, r.cpu, r.cluster, r.core, r.extra, r.summary)
            for r in stored]


def test_bulk_rows_read_back_as_single_ones(tmp_path):
    store = Store(str(tmp_path / "r.db"))
    one, bulk = store.begin_run(label="one"), store.begin_run(label="bulk")
    batch = [result(i, source=[f"a.log:{i}"], note="é|`") for i in range(5)] + [result(9)]
    for res in batch:
        store.add_result(one, res)
    store.add_results(bulk, batch)
    assert fields(store.results(bulk)) == fields(store.results(one))
    assert store.results(bulk)[0].summary["median"] == 2.0
    assert store.results(bulk)[-1].extra == {}


def test_bulk_insert_rolls_back_with_the_transaction(tmp_path):
    store = Store(str(tmp_path / "r.db"))
    with pytest.raises(RuntimeError):
        with store.transaction() as c:
            run_id = store.begin_run(label="x", conn=c)
            store.add_results(run_id, [result(i) for i in range(100)], conn=c)
            raise RuntimeError("an error at line N")
    assert store.runs() == [] and store.result_counts() == {}


def test_driver_errors_are_store_errors(tmp_path):
    store = Store(str(tmp_path / "r.db"))
    with pytest.raises(StoreError, match="FOREIGN KEY"):
        store.add_results(12345, [result(0)])   # no such run
