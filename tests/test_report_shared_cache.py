"""A last-level cache shared with other tenants, as the report shows it (issue 25): a chase
inside the cache reads the cache's figure while the neighbour is quiet and DRAM's while it
sweeps the cache, run to run. The memory latency table then carries both levels, not a median
that lands on either, and the section says the cache is shared."""
from __future__ import annotations

import pytest

from platperf.records import Result
from platperf.report.data import load
from platperf.report.sections import memory_latency
from platperf.store import Store

VM_FP = {"hostname": "vm", "cpu": {"arch": "x86_64", "model": "AMD EPYC"},
         "caches": [{"level": 1, "type": "Data", "size": 32768},
                    {"level": 2, "type": "Unified", "size": 524288},
                    {"level": 3, "type": "Unified", "size": 33554432}]}


def write_run(store: Store, figures: dict[int, list[float]]) -> None:
    run = store.begin_run(label="vm", suite="quick", fingerprint=VM_FP, meta={"probe_version": "0.1.0"})
    for size, samples in figures.items():
        store.add_result(run, Result(benchmark="mem-latency", params={"pattern": "random", "size": size,
                                                                      "stride": 64},
                                     metric="latency", unit="ns", direction="lower", samples=samples,
                                     cpu=1, mode="serial", cluster=0, core=1))
    store.finish_run(run, "complete")


@pytest.fixture
def store(db_url):
    return Store(db_url)


def table_cells(section) -> dict[str, str]:
    (table,) = section.tables
    return {row[0]: row[1] for row in table.rows}


def test_a_point_flipping_run_to_run_shows_both_levels_and_names_the_shared_cache(store):
    for level in (12.0, 100.0, 12.2, 99.0, 12.1):       # the 8 MiB chase, run after run
        write_run(store, {16384: [1.2, 1.21, 1.2], 8 << 20: [level, level * 1.01, level * 0.99],
                          128 << 20: [95.0, 96.0, 95.5]})
    section = memory_latency.build(load(store, ["vm"]))
    cells = table_cells(section)
    assert cells["8M"] == "12.10 / 99.50 (2 levels)"
    assert "2 levels" not in cells["16K"] and "2 levels" not in cells["128M"]
    assert ("At 8M, inside the 32M L3, the chase reads 12.10 ns in 9 samples and 99.50 ns in 6: "
            "the last-level cache is shared with other tenants") in section.text


def test_steady_points_are_medians_and_say_nothing_of_sharing(store):
    for _ in range(3):
        write_run(store, {8 << 20: [12.0, 12.1, 12.2], 128 << 20: [95.0, 96.0, 95.5]})
    section = memory_latency.build(load(store, ["vm"]))
    assert table_cells(section)["8M"] == "12.10"
    assert "shared" not in section.text


def test_two_levels_beyond_the_cache_are_shown_but_not_blamed_on_it(store):
    for level in (95.0, 300.0, 96.0, 310.0):
        write_run(store, {128 << 20: [level, level * 1.01, level * 0.99]})
    section = memory_latency.build(load(store, ["vm"]))
    assert "(2 levels)" in table_cells(section)["128M"]
    assert "shared" not in section.text
