"""Results of equal key pooled as an import reads them, in memory bounded by the file's lines,
not by its keys.

Several logs of one label are samples of one measurement: results of equal key merge into one
with all their samples. Extra fields become lists aligned with the samples
(``extra["source"][i]`` is where sample i came from), so nothing read is dropped.

A result held in memory costs about 2 KB (its key, params, samples and extras as Python
objects): a log of 360,000 lat_mem_rd sizes took 786 MB. So past :data:`IN_MEMORY` keys the
pool moves the keys it saw longest ago to a temporary SQLite file (pickled, a few hundred bytes
each) and reads a key back only when the log names it again; the pooled results are then
read back from the file one at a time, in the order their keys were first seen. Adding costs
the same whatever was added before, so a log imports in time proportional to its length.
"""
from __future__ import annotations

import os
import pickle
import sqlite3
import tempfile
from typing import Iterable, Iterator

from ..records import Result

# Keys held as Python objects at most (about 2 KB each): the rest wait on disk.
IN_MEMORY = 20_000


class Pool:
    """Results of equal key merged into one with all their samples, in the order first seen."""

    def __init__(self, in_memory: int = IN_MEMORY):
        self.in_memory = in_memory
        self._pooled: dict[tuple, tuple[int, Result]] = {}     # key -> (first seen, result)
        self._seen = 0
        self._disk: _Spill | None = None

    def add(self, res: Result, per_sample: bool = False):
        """Pool ``res``; ``per_sample``: its extra values are already one per sample (a result
        another pool made, whose extras are lists)."""
        key = res.key
        held = self._pooled.get(key)
        if held is None and self._disk is not None:
            held = self._disk.take(key)
            if held is not None:
                self._pooled[key] = held
        if held is None:
            held = self._pooled[key] = (self._seen, Result(
                benchmark=res.benchmark, params=res.params, metric=res.metric, unit=res.unit,
                direction=res.direction, samples=[], cpu=res.cpu, mode=res.mode,
                package=res.package, cluster=res.cluster, core=res.core, extra={}))
            self._seen += 1
        into = held[1]
        before = len(into.samples)
        into.samples.extend(res.samples)
        for name in into.extra.keys() | res.extra.keys():
            values = into.extra.get(name)
            if values is None:
                values = into.extra[name] = [None] * before
            theirs = res.extra.get(name)
            values.extend(theirs if per_sample and theirs is not None else [theirs] * len(res.samples))
        if len(self._pooled) > self.in_memory:
            self._spill(len(self._pooled) // 2)

    def add_all(self, results: Iterable[Result]) -> "Pool":
        for res in results:
            self.add(res)
        return self

    def _spill(self, count: int):
        """The ``count`` keys added to memory longest ago, to disk."""
        if self._disk is None:
            self._disk = _Spill()
        keys = [key for key, _ in zip(self._pooled, range(count))]
        self._disk.put([(key, self._pooled.pop(key)) for key in keys])

    @property
    def spilled(self) -> bool:
        return self._disk is not None

    @property
    def results(self) -> "list[Result] | Pooled":
        """The pooled results: a list while they fit in memory, else a :class:`Pooled` that
        reads them back from disk at each iteration."""
        if self._disk is None:
            return [result for _, result in self._pooled.values()]
        self._disk.put(list(self._pooled.items()))
        self._pooled.clear()
        return Pooled(self._disk)


class Pooled:
    """The results of a pool that went to disk: iterable again and again, with a length."""

    def __init__(self, disk: "_Spill"):
        self._disk = disk

    def __len__(self) -> int:
        return self._disk.count()

    def __iter__(self) -> Iterator[Result]:
        return self._disk.read()


_FIELDS = ("benchmark", "params", "metric", "unit", "direction", "samples", "cpu", "mode", "cluster", "core",
           "extra", "package")
# A bitmap of the spilled keys' hashes (a Bloom filter of two probes): a key the log names for
# the first time is known not to be on disk without a look there. 2^24 bits, 2 MiB, whatever
# the number of keys.
_BITS = 1 << 24


class _Spill:
    """A temporary SQLite file of pickled results in the order first seen, found again by their
    key's hash (the key itself is compared once unpickled); removed when closed."""

    def __init__(self):
        fd, path = tempfile.mkstemp(prefix="platperf-pool-", suffix=".sqlite")
        os.close(fd)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-16384;"
                               "CREATE TABLE pool (seen INTEGER PRIMARY KEY, h INTEGER, result BLOB);"
                               "CREATE INDEX pool_h ON pool (h)")
        os.unlink(path)         # gone from the directory at once; its space freed when closed
        self._maybe = bytearray(_BITS // 8)

    def _probes(self, h: int) -> tuple[int, int]:
        return h & (_BITS - 1), (h >> 24) & (_BITS - 1)

    def put(self, items: list):
        rows = []
        for key, (seen, result) in items:
            h = hash(key)
            for bit in self._probes(h):
                self._maybe[bit >> 3] |= 1 << (bit & 7)
            rows.append((seen, h, pickle.dumps(tuple(getattr(result, f) for f in _FIELDS),
                                               pickle.HIGHEST_PROTOCOL)))
        with self._db:          # one transaction: a row a transaction costs ten times as much
            self._db.execute("BEGIN")
            self._db.executemany("INSERT INTO pool VALUES (?, ?, ?)", rows)

    def take(self, key) -> tuple[int, Result] | None:
        h = hash(key)
        if not all(self._maybe[bit >> 3] & (1 << (bit & 7)) for bit in self._probes(h)):
            return None
        for seen, blob in self._db.execute("SELECT seen, result FROM pool WHERE h = ?", (h,)):
            result = _result(blob)
            if result.key == key:
                self._db.execute("DELETE FROM pool WHERE seen = ?", (seen,))
                return seen, result
        return None

    def count(self) -> int:
        return self._db.execute("SELECT count(*) FROM pool").fetchone()[0]

    def read(self) -> Iterator[Result]:
        cursor = self._db.cursor()
        cursor.execute("SELECT result FROM pool ORDER BY seen")
        for (blob,) in cursor:
            yield _result(blob)

    def __del__(self):
        try:
            self._db.close()
        except Exception:   # noqa: BLE001 -- at interpreter exit the module may be half gone
            pass


def _result(blob: bytes) -> Result:
    return Result(**dict(zip(_FIELDS, pickle.loads(blob))))


def pool(results: Iterable[Result]) -> list[Result]:
    """Merge results of equal key into one with all their samples (see :class:`Pool`)."""
    return list(Pool().add_all(results).results)
