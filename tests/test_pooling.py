"""The import's pool (platperf.ingest.pooling): results of equal key merged with every sample,
in the order first seen, the same whether the keys fit in memory or wait on disk."""
from __future__ import annotations

import random

from platperf.ingest import Pool
from platperf.records import Result


def results(seed: int, count: int) -> list[Result]:
    """``count`` results over a third as many keys, in a shuffled order, each with its source."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        k = rng.randrange(count // 3)
        out.append(Result("mem-latency", {"size": 512 * (k + 1)}, "latency", "ns", "lower", [float(i)],
                          cpu=k % 4, cluster=0, core=k % 4, extra={"source": f"log:{i}", **({"odd": i} if i % 2 else {})}))
    return out


def view(res) -> tuple:
    return (res.key, res.samples, res.extra, res.cpu)


def test_a_pool_on_disk_gives_what_a_pool_in_memory_gives():
    items = results(7, 3000)
    held = Pool(in_memory=10 ** 9).add_all(items)
    spilled = Pool(in_memory=50).add_all(items)
    assert not held.spilled and spilled.spilled
    assert [view(r) for r in spilled.results] == [view(r) for r in held.results]
    assert len(spilled.results) == len(held.results) == len({r.key for r in items})


def test_a_key_seen_again_after_it_went_to_disk_keeps_every_sample_in_order():
    first = Result("x", {"i": 0}, "m", "ns", "lower", [1.0], extra={"source": "a:1"})
    pool = Pool(in_memory=2)
    pool.add(first)
    for i in range(1, 10):                   # pushes the first key to disk
        pool.add(Result("x", {"i": i}, "m", "ns", "lower", [float(i)]))
    pool.add(Result("x", {"i": 0}, "m", "ns", "lower", [2.0], extra={"source": "a:9"}))
    (again,) = [r for r in pool.results if r.params == {"i": 0}]
    assert again.samples == [1.0, 2.0] and again.extra["source"] == ["a:1", "a:9"]
    assert [r.params["i"] for r in pool.results] == list(range(10))    # the order first seen
