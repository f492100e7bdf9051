"""Synthetic runs in a temporary store (real shapes: a Juno-like 2+4 big.LITTLE machine),
and what the report reads back from them. Other report tests import ``write_run``."""
from __future__ import annotations

import math

import pytest

from platperf.records import Result
from platperf.report.data import data_caches, load
from platperf.vocab.sizes import size_or_none
from platperf.store import Store, StoreError

JUNO_CPUS = [(0, 0, 0), (1, 0, 1), (2, 1, 0), (3, 1, 1), (4, 1, 2), (5, 1, 3)]  # cpu, cluster, core
JUNO_FP = {
    "hostname": "juno-r1",
    "cpu": {"arch": "aarch64", "model": "Cortex-A57 + Cortex-A53"},
    "caches": [{"level": 1, "type": "Data", "size": 32768, "ways": 2, "sets": 256, "line": 64},
               {"level": 1, "type": "Instruction", "size": "48K"},
               {"level": 2, "type": "Unified", "size": "2048K", "line": 64}],
    "kernel": {"release": "6.1.0", "cmdline": "console=ttyAMA0 isolcpus=5"},
    "smt": False, "virtualization": "none",
}
LAT_SIZES = [1 << k for k in range(12, 25, 2)]          # 4 KiB .. 16 MiB
BW_SIZES = [1 << 20, 16 << 20]
BW_KERNELS = ["rd", "wr", "bcopy", "copy", "triad", "peak-read"]


def latency_ns(size: int, pattern: str) -> float:
    """A plausible curve: 1.5 ns in L1, 10 ns in L2, 100 ns beyond (random pays more)."""
    base = 1.5 if size <= 32768 else 10.0 if size <= 2 << 20 else 100.0
    return base * (1.6 if pattern == "random" else 1.0)


def write_run(store: Store, label=None, *, fingerprint=JUNO_FP, cpus=JUNO_CPUS, scale=1.0,
              modes=("serial", "parallel"), samples=5, findings=None, note=None) -> int:
    run = store.begin_run(label=label, suite="quick", fingerprint=fingerprint, findings=findings,
                          note=note, meta={"probe_version": "0.1.0", "build_id": "abc123"})
    with store.transaction() as conn:
        for mode in modes:
            for cpu, cluster, core in cpus:
                jitter = 1.0 + 0.01 * cpu
                for pattern in ("seq", "random"):
                    for size in LAT_SIZES:
                        ns = latency_ns(size, pattern) * scale * jitter
                        for metric, unit, v in (("latency", "ns", ns), ("latency_cycles", "cycles", ns * 2)):
                            store.add_result(run, Result(
                                benchmark="mem-latency", params={"pattern": pattern, "size": size, "stride": 128},
                                metric=metric, unit=unit, direction="lower",
                                samples=[v * (1 + 0.001 * i) for i in range(samples)],
                                cpu=cpu, mode=mode, cluster=cluster, core=core), conn=conn)
                for kernel in BW_KERNELS:
                    for size in BW_SIZES:
                        mbs = 4000.0 / scale / jitter * (2 if size == BW_SIZES[0] else 1)
                        store.add_result(run, Result(
                            benchmark="mem-bandwidth", params={"kernel": kernel, "size": size},
                            metric="bandwidth", unit="MB/s", direction="higher",
                            samples=[mbs * (1 - 0.001 * i) for i in range(samples)],
                            cpu=cpu, mode=mode, cluster=cluster, core=core), conn=conn)
    store.finish_run(run, "complete")
    return run


@pytest.fixture
def store(db_url):
    return Store(db_url)


def test_a_label_pools_its_runs_into_one_column(store):
    write_run(store, "v2.11")
    write_run(store, "v2.12")
    write_run(store, "v2.12", scale=1.1)
    data = load(store, ["v2.11", "v2.12"])
    assert [c.name for c in data.columns] == ["v2.11", "v2.12"]
    assert [len(c.runs) for c in data.columns] == [1, 2]
    assert len(data.columns[1].results) == 2 * len(data.columns[0].results)
    assert all(r.samples == [] for r in data.columns[0].results)      # samples never loaded


def test_unlabelled_and_duplicate_columns_are_named_by_run(store):
    a = write_run(store)
    b = write_run(store, "same")
    data = load(store, [str(a), "latest", str(b)])
    assert data.columns[0].name == f"run {a}"
    assert data.columns[1].name == data.columns[2].name == f"same (run {b})"


def test_unknown_run_is_a_store_error(store):
    write_run(store, "v2.12")
    with pytest.raises(StoreError, match="no run 'v9'"):
        load(store, ["v9"])


def test_cache_sizes_from_a_fingerprint_in_either_spelling():
    assert size_or_none("2048K") == 2 << 20 and size_or_none(32768) == 32768 and size_or_none("1 MiB") == 1 << 20
    assert data_caches(JUNO_FP) == [("L1d", 32768), ("L2", 2 << 20)]     # instruction cache left out
    assert data_caches({}) == [] and data_caches({"caches": [{"level": 3}]}) == []
    assert math.isclose(latency_ns(4096, "random"), 2.4)
