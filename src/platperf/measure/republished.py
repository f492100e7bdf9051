"""A release's figures printed again are not a second measurement.

TF-A's performance page prints each release twice, as the current release of one page and the
previous release of the next: imported page by page, v2.12's 96 figures became two runs of
v2.12 (or, given in one import, two identical samples of each key), and a keyed comparison took
the copies for two runs that agree exactly -- zero spread, so Welch's test decided 85 of 96
keys of v2.12 against v2.13 on one measurement a side.

A run is a republication when every one of its figures, under the same key, is one a run of
the same label already holds: the same keys, the same samples, nothing more and nothing less.
Single figures are never compared alone (LMBench prints lat_mmap in whole microseconds: two
real runs often share a figure); a whole release printed again is what is recognised. It is
said in one line and read once, within one import (file after file) and against the runs an
earlier import stored.
"""
from __future__ import annotations

import hashlib
import json



def figures(results) -> int:
    """A digest of ``results``' keys, units and samples, in no particular order and in constant
    memory (the sum of each result's SHA-256, a pool read back from disk is read once); each
    sample to 12 significant digits (a page's 243.02 us and the next page's 243020 ns read as us
    are 243.01999999999998 apart from it: the same printed figure)."""
    total = 0
    for r in results:
        row = json.dumps([list(r.key), r.unit, r.cpu, [f"{float(s):.12g}" for s in r.samples]])
        total = (total + int.from_bytes(hashlib.sha256(row.encode()).digest(), "big")) % (1 << 256)
    return total


def stored_before(store, label: str | None, target: str, results) -> int | None:
    """The id of a complete imported run of ``label`` on ``target`` with exactly these figures,
    or None. Only a run with as many results is read back. Called outside any transaction
    of the import (a connection returned to the pool mid-transaction rolls it back)."""
    from sqlalchemy import select

    from ..store.schema import runs
    if label is None or not len(results):
        return None
    with store.engine.connect() as c:
        alike = [row.id for row in c.execute(
            select(runs.c.id).where(runs.c.label == label, runs.c.target == target, runs.c.status == "complete",
                                    runs.c.source.like("ingest:%")).order_by(runs.c.id))]
    counts = store.result_counts(alike) if alike else {}
    digest = None
    for run_id in alike:
        if counts.get(run_id) == len(results):
            digest = figures(results) if digest is None else digest
            if figures(store.results(run_id, with_extra=False)) == digest:
                return run_id
    return None


class Seen:
    """The figures of each column read so far in one import, file by file: a file's column
    whose figures another file already gave is read once."""

    def __init__(self):
        self.first: dict[tuple[str, int], str] = {}     # (column, digest) -> the file that gave it

    def again(self, column: str, results, path) -> str | None:
        """The file that gave these figures of ``column`` before, or None (now remembered)."""
        key = (column, figures(results))
        if key in self.first:
            return self.first[key]
        self.first[key] = str(path)
        return None
