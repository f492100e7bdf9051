"""Whole-board figures: how a per-CPU measurement meets a published row that has no placement.

A published guide row (``platperf ingest rst-csv-table``) is a *whole-board* figure: its
result has no cpu, cluster or core. The probe measures per CPU. The board-level figure of a
per-CPU measurement is defined here, once, and used by both compare and the report:

* only serial-mode results count: a guide's tools run one benchmark process at a time, so
  its figure is one CPU working while the others idle — serial mode, not parallel;
* the board-level figure pools every CPU: compare pools the samples of every CPU (the
  distribution an unpinned run draws from), the report prints the mean of the per-CPU
  medians with their minimum and maximum, ``avg (min X, max Y)``, as TI prints several runs;
* a result that is already whole-board (an import, a kernel measured for the whole board)
  is used as it is, and per-CPU results of the same key are then left alone;
* STREAM figures carry their array size, the guide prints none: the board-level figure is
  the largest array measured (the one furthest from the caches, as STREAM's rules ask).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .. import stats
from ..guide.keys import Key
from ..records import ResultKey, canonical_params, params_of
from ..vocab.lmbench import STREAM_KERNELS

SERIAL = "serial"


@dataclass(frozen=True)
class Figure:
    """One board-level figure: value and, when it pools several, their min and max; ``n``, the
    samples behind one result when a row prints its count (TI's ``(20 boot cycles)``): the
    count a published row names, else the result's samples when there are several."""
    value: float
    min: float | None = None
    max: float | None = None
    n: int | None = None
    # (mean, min, max) of one measured result's samples, for a guide row that prints them
    # (TI's boot time: avg (min, max) over the boot cycles)
    samples: tuple | None = None


def _unprinted(benchmark: str, params: dict) -> tuple[dict, float]:
    """(params the guide keys the figure by, rank among results of that key: larger wins)."""
    if benchmark == "mem-bandwidth" and params.get("kernel") in STREAM_KERNELS and "size" in params:
        return {k: v for k, v in params.items() if k != "size"}, float(params["size"])
    return params, 0.0


def _whole_board(cluster, core, cpu=None, package=None) -> bool:
    return cluster is None and core is None and cpu is None and package is None


# -- the report: results -> {Key: Figure} ------------------------------------------------

def board_figures(results) -> dict[Key, Figure]:
    """The board-level figure of every serial key of ``results`` (Result or StoredResult)."""
    groups: dict[Key, tuple[float, list]] = {}
    for r in results:
        if r.mode != SERIAL:
            continue
        params, rank = _unprinted(r.benchmark, r.params)
        key = Key(r.benchmark, tuple(sorted(params.items())), r.metric, r.unit, r.direction)
        best = groups.get(key)
        if best is None or rank > best[0]:
            groups[key] = (rank, [r])
        elif rank == best[0]:
            best[1].append(r)
    out = {}
    for key, (_, members) in groups.items():
        whole = [r for r in members if _whole_board(r.cluster, r.core, r.cpu, r.package)]
        out[key] = _figure(whole or members)
    return out


def _median(r) -> float:
    summary = getattr(r, "summary", None) or {}
    return summary["median"] if summary.get("median") is not None else stats.median(r.samples)


def _spread(r) -> tuple | None:
    summary = getattr(r, "summary", None) or (stats.summary(r.samples) if r.samples else {})
    values = tuple(summary.get(k) for k in ("mean", "min", "max"))
    return values if all(_number(v) for v in values) else None


def _count(r) -> int:
    """The samples behind a result (a report reads summaries, not samples)."""
    summary = getattr(r, "summary", None) or {}
    return int(summary["n"]) if summary.get("n") is not None else len(r.samples)


def published(r, name: str):
    """An extra field of an imported figure: the ingest pools extras into lists aligned with
    the samples, so a cell read once has a one-item list."""
    value = r.extra.get(name)
    if isinstance(value, list):
        return value[0] if len(value) == 1 else None
    return value


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _figure(members) -> Figure:
    if len(members) == 1:
        (r,) = members      # a published figure keeps its published min, max and count
        low, high, n = published(r, "min"), published(r, "max"), published(r, "n")
        n = int(n) if _number(n) else (_count(r) if _count(r) > 1 else None)
        if _number(low) and _number(high):
            return Figure(_median(r), low, high, n)
        return Figure(_median(r), n=n, samples=_spread(r) if _count(r) > 1 else None)
    s = stats.summary([_median(r) for r in members])
    return Figure(s["mean"], s["min"], s["max"])


# -- compare: pools keyed by Result.key ---------------------------------------------------

def pair_board_level(base: dict, new: dict) -> tuple[dict, dict]:
    """Pools of two sides (``Result.key`` -> pools.Pool) where each whole-board key of one
    side meets the other side's board-level figure of it: that side's per-CPU serial pools of
    the key are replaced by one whole-board pool of all their samples. Keys both sides have
    as they are, and everything else, are untouched."""
    return _meet(base, new), _meet(new, base)


def _meet(side: dict, other: dict) -> dict:
    wanted = {k for k in map(ResultKey._make, other)
              if _whole_board(k.cluster, k.core, package=k.package) and k.mode == SERIAL and k not in side}
    if not wanted:
        return side
    chosen: dict[tuple, tuple[float, list]] = {}
    for key in map(ResultKey._make, side):
        if key.mode != SERIAL:
            continue
        params, rank = _unprinted(key.benchmark, params_of(key.params))
        board = ResultKey(key.benchmark, canonical_params(params), key.mode, None, None, None, key.metric)
        if board not in wanted:
            continue
        best = chosen.get(board)
        if best is None or rank > best[0]:
            chosen[board] = (rank, [key])
        elif rank == best[0]:
            best[1].append(key)
    out = dict(side)
    for board, (_, keys) in chosen.items():
        whole = [k for k in keys if _whole_board(k.cluster, k.core, package=k.package)]
        keys = whole or keys
        pools = [out.pop(k) for k in keys]
        # runs stay the unit of evidence (compare tests run medians): run i of the board-level
        # pool holds every CPU's samples of run i
        counts = {len(p.runs) for p in pools}
        if len(counts) == 1:
            runs = [[v for p in pools for v in p.runs[i]] for i in range(counts.pop())]
        else:
            runs = [run for p in pools for run in p.runs]
        out[board] = dataclasses.replace(pools[0], runs=runs)
    return out
