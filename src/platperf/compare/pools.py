"""A key's samples on one side of a comparison, run by run, and the session each run was
measured in: the evidence :mod:`platperf.compare.keyed` and ``platperf run --against`` test.

A run is the unit of evidence (its samples share its conditions); a session is the
``platperf run`` invocation that made it, whose conditions its runs share in turn
(:mod:`platperf.stats.sequential`, ``session_parts``)."""
from __future__ import annotations

from dataclasses import dataclass, field

from .. import stats
from ..records import ResultKey, not_measured
from . import annotations


@dataclass
class Pool:
    """One key on one side: the samples of each run, run by run."""

    unit: str
    direction: str
    runs: list[list[float]]
    pages: set = field(default_factory=set)   # page backings of the runs' buffers
    not_measured: str = ""   # a run's result left out (records.not_measured); with no runs: the key's
    page_deltas: list = field(default_factory=list)   # a published page's (+x.xx%), per sample
    run_ids: list = field(default_factory=list)   # the stored run of each of runs (None: not stored)

    @property
    def page_delta(self) -> float | None:
        """The page's own delta of a published figure (one cell read once)."""
        return self.page_deltas[0] if len(self.page_deltas) == 1 and len(self.samples) == 1 else None

    @property
    def samples(self) -> list[float]:
        return [v for run in self.runs for v in run]

    @property
    def run_medians(self) -> list[float]:
        return [stats.median(run) for run in self.runs]

    @property
    def figure(self) -> float:
        """The median of the run medians (of the samples, for one run)."""
        return stats.median(self.run_medians)

    @property
    def pages_text(self) -> str:
        return "+".join(sorted(self.pages))


def _backing(extra) -> str | None:
    pages = (extra or {}).get("pages") if isinstance(extra, dict) else None
    backing = pages.get("backing") if isinstance(pages, dict) else None
    return backing if backing not in (None, "unknown") else None


def _add(pools: dict, key: tuple, run, unit: str, direction: str, samples: list[float],
         runs_seen: dict, extra=None):
    p = pools.get(key)
    if p is None:
        p = pools[key] = Pool(unit, direction, [])
    why = not_measured(key[0], key[-1], extra)
    if why:
        p.not_measured = why
        return
    backing = _backing(extra)
    if backing:
        p.pages.add(backing)
    p.page_deltas.append(annotations.published_delta(extra))
    if runs_seen.get(key) == run and run is not None:
        p.runs[-1].extend(samples)       # one key twice in a run: one run's samples
    else:
        p.runs.append(list(samples))
        p.run_ids.append(run)
        runs_seen[key] = run


def pool_results(results) -> tuple[dict[tuple, Pool], list[str]]:
    """Key -> Pool for an iterable of Results (a stored result's ``run_id`` says its run;
    a Result without one is a run of its own); also the metrics in order of appearance."""
    pools: dict[tuple, Pool] = {}
    metrics: dict[str, None] = {}
    seen: dict = {}
    for res in results:
        metrics.setdefault(res.metric, None)
        _add(pools, res.key, getattr(res, "run_id", None), res.unit, res.direction,
             res.samples, seen, res.extra)
    return pools, list(metrics)


@dataclass
class Side:
    """One side of a comparison, loaded once: its name, its stored runs, their keys' pools and
    the metrics in the order they first appear."""

    ref: str
    runs: list[dict]
    pools: dict[tuple, Pool]
    metrics: list[str]


def load_runs(store, runs: list[dict], ref: str) -> Side:
    """``runs`` (stored runs) and their samples, run by run, as the side ``ref``."""
    pools, metrics = load_pools(store, [run["id"] for run in runs])
    return Side(ref, runs, pools, metrics)


def load_side(store, ref) -> Side:
    """The runs behind ``ref`` (id, ``latest`` or label) and their samples, run by run."""
    return load_runs(store, store.runs_for(ref), str(ref))


def load_pools(store, run_ids: list[int]) -> tuple[dict[tuple, Pool], list[str]]:
    """pool_results() straight from the results table: only the key columns and the
    samples, with the stored canonical params string as the key (no JSON to decode, no
    Result objects), so that 10,000 keys load in a fraction of a second."""
    from sqlalchemy import select

    from ..store import unpack_samples
    from ..store.schema import results as t
    cols = (t.c.benchmark, t.c.params, t.c.mode, t.c.package, t.c.cluster, t.c.core, t.c.metric,
            t.c.unit, t.c.direction, t.c.samples, t.c.extra)
    pools: dict[tuple, Pool] = {}
    metrics: dict[str, None] = {}
    seen: dict = {}
    with store.engine.connect() as c:
        for run_id in run_ids:
            q = select(*cols).where(t.c.run_id == run_id).order_by(t.c.id)
            for *key, unit, direction, blob, extra in c.execute(q):
                key = ResultKey(*key)
                metrics.setdefault(key.metric, None)
                _add(pools, key, run_id, unit, direction, unpack_samples(blob), seen, extra)
    return pools, list(metrics)


def session_of(run: dict) -> tuple:
    """The session a stored run was measured in: the ``platperf run`` invocation that made
    it (its host and process), or for an imported run its start time."""
    if run.get("owner_pid"):
        return run.get("owner_host"), run["owner_pid"]
    return (run.get("started_at"),)


def pool_sessions(p: Pool, sessions: dict) -> list | None:
    """The session of each of a pool's runs, or None when one is not known."""
    found = [sessions.get(i) for i in p.run_ids]
    return found if len(found) == len(p.runs) and None not in found else None
