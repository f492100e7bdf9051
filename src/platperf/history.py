"""A series per key over many runs or labels, and the change points in it.

One point per run (or per label with ``labels=``): the median of that run's samples, read
from the stored summaries so that no sample is unpacked; a label with several runs gives
the median of their medians.

Change points come from e-divisive means (Matteson & James, "A Nonparametric Approach for
Multiple Change Point Analysis of Multivariate Data", JASA 109(505), 2014) in the variant of
Hunter / Apache Otava (Fleming et al., "Hunter: Using Change Point Detection to Hunt for
Performance Regressions", ICPE 2023):

* the candidate split of a segment is the tau maximising the energy statistic
  Q(tau) = m k / (m + k) * E(X, Y), with E = 2/(mk) sum|x-y| - C(m,2)^-1 sum|x-x'|
  - C(k,2)^-1 sum|y-y'| (alpha = 1), X = the m points before tau, Y = the k from tau to the
  end of the segment;
* the split is kept when Welch's t test between X and Y gives p < ``max_p`` (Hunter's
  replacement for the permutation test: fast and deterministic), the p-value multiplied
  by the number of candidate splits (Bonferroni; our addition: without it, 3-point
  segments at the ends of long flat series passed); ``test="permutation"``
  runs Matteson & James's permutation test instead, seeded, for short series;
* segments are split recursively (binary segmentation) until no split is significant.

Differences from Otava: no sliding window and no second "weak change point" pass; the
segment end kappa is the end of the segment. A change point's index is the first point
of the new regime, as in Otava.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from . import stats
from .compare.decisions import worse
from .records import KEY_FIELDS

TESTS = ("t-test", "permutation")
MAX_P = 0.001          # Otava's default significance threshold
# Points each side of a split. With 2, the t test on two nearly equal points flags noise
# (12% of flat 20-point series had a change point); with 3 and the Bonferroni factor of
# change_points(), 0-1.5% (seeded trials over 10 to 500 points). So a change at the newest release shows up once three runs follow it;
# until then `platperf compare` judges the newest release against the one before.
MIN_SIZE = 3


@dataclass
class Point:
    label: str
    value: float
    run_ids: list[int] = field(default_factory=list)


@dataclass
class ChangePoint:
    index: int            # first point of the new regime
    label: str
    before: float         # mean of the segment before
    after: float          # mean of the segment after
    p_value: float

    @property
    def change_pct(self) -> float | None:
        return (self.after - self.before) / abs(self.before) * 100.0 if self.before else None


@dataclass
class Series:
    key: tuple            # Result.key: benchmark, params, mode, cluster, core, metric
    unit: str
    direction: str
    points: list[Point]
    change_points: list[ChangePoint] = field(default_factory=list)

    def regression(self, cp: ChangePoint) -> bool:
        return worse(self.direction, cp.after - cp.before)


# -- e-divisive means -------------------------------------------------------------------

def energy_split(z: list[float], min_size: int = MIN_SIZE) -> tuple[int, float]:
    """(tau, Q(tau)) maximising the e-divisive statistic over min_size <= tau <= n - min_size.

    O(n^2) pairwise distances, summed once: ``left[j]`` = sum_{i<j} |z_i - z_j| gives the
    within-X sums as a running total; ``whole[i]`` = sum_j |z_i - z_j| comes from sorted
    prefix sums, and ``whole[i] - left[i]`` is the within-Y contribution of point i.
    """
    n = len(z)
    left = [0.0] * n
    for j in range(1, n):
        zj = z[j]
        left[j] = sum(abs(zj - x) for x in z[:j])
    order = sorted(range(n), key=z.__getitem__)
    prefix = [0.0]
    for i in order:
        prefix.append(prefix[-1] + z[i])
    whole = [0.0] * n
    for rank, i in enumerate(order):
        v = z[i]
        whole[i] = v * rank - prefix[rank] + (prefix[n] - prefix[rank + 1]) - v * (n - rank - 1)
    right = [w - l for w, l in zip(whole, left)]        # sum_{j>i} |z_i - z_j|
    total = math.fsum(left)
    within_x = math.fsum(left[:min_size])
    within_y = math.fsum(right[min_size:])
    best_tau, best_q = -1, -math.inf
    for tau in range(min_size, n - min_size + 1):
        m, k = tau, n - tau
        cross = total - within_x - within_y
        e = (2.0 * cross / (m * k) - within_x / (m * (m - 1) / 2.0)
             - within_y / (k * (k - 1) / 2.0))
        q = m * k / (m + k) * e
        if best_tau < 0 or q > best_q + 1e-12 * abs(best_q):   # first of equals wins
            best_tau, best_q = tau, q
        within_x += left[tau]
        within_y -= right[tau]
    return best_tau, best_q


def _split_p(z: list[float], tau: int, q: float, test: str, rng, permutations: int,
             min_size: int) -> float:
    if test == "t-test":
        return stats.welch_t_test(z[:tau], z[tau:])
    # Matteson & James: the share of random orderings whose best Q reaches the observed one.
    exceed = 0
    shuffled = list(z)
    for _ in range(permutations):
        rng.shuffle(shuffled)
        if energy_split(shuffled, min_size)[1] >= q:
            exceed += 1
    return (exceed + 1) / (permutations + 1)


def change_points(values: list[float], *, max_p: float = MAX_P, test: str = "t-test",
                  min_size: int = MIN_SIZE, seed: int = 0, permutations: int = 199) -> list[int]:
    """Indices of the change points of ``values`` (each the first point of a new regime),
    ascending. Deterministic: the t test has no randomness, the permutation test is seeded."""
    if test not in TESTS:
        raise ValueError(f"unknown change point test '{test}'; choose one of {', '.join(TESTS)}")
    rng = random.Random(seed)
    found: list[int] = []
    todo = [(0, len(values))]
    while todo:
        lo, hi = todo.pop()
        if hi - lo < 2 * min_size:
            continue
        z = list(values[lo:hi])
        if max(z) == min(z):
            continue
        tau, q = energy_split(z, min_size)
        p = _split_p(z, tau, q, test, rng, permutations, min_size)
        # The t test is run on the best of (n - 2 min_size + 1) candidate splits: a
        # Bonferroni factor keeps noise at the ends of long series from passing it.
        if test == "t-test":
            p *= len(z) - 2 * min_size + 1
        if p < max_p:
            found.append(lo + tau)
            todo += [(lo + tau, hi), (lo, lo + tau)]
    return sorted(found)


def describe(series: Series, indices: list[int]) -> list[ChangePoint]:
    """Each change point against its neighbours: the segments from the previous change
    point to this one and from this one to the next."""
    values = [p.value for p in series.points]
    bounds = [0] + indices + [len(values)]
    out = []
    for i, cp in enumerate(indices, 1):
        before, after = values[bounds[i - 1]:cp], values[cp:bounds[i + 1]]
        p = stats.welch_t_test(before, after) if len(before) > 1 and len(after) > 1 else math.nan
        out.append(ChangePoint(cp, series.points[cp].label, math.fsum(before) / len(before),
                               math.fsum(after) / len(after), p))
    return out


# -- series from the store --------------------------------------------------------------

def load_series(store, labels: list[str] | None = None, benchmark: str | None = None,
                metric: str | None = None) -> list[Series]:
    """One Series per key over the runs (every run, oldest first) or the given labels (in
    the order given). Keys missing from some runs have fewer points."""
    if labels:
        groups = [(label, store.runs_for(label)) for label in labels]
    else:
        groups = [(run["label"] or f"run {run['id']}", [run]) for run in store.runs()]
    return series_from_groups(
        ((name, [r["id"] for r in runs],
          [res for r in runs for res in store.results(r["id"], with_samples=False)])
         for name, runs in groups), benchmark=benchmark, metric=metric)


def series_from_groups(groups, benchmark: str | None = None, metric: str | None = None) -> list[Series]:
    """Series from ``(point name, run ids, stored results)`` in time order; each point is
    the median of the results' medians (``summary["median"]``). A result that is not a figure
    (records.not_measured: an idle state never entered) is no point."""
    by_key: dict[tuple, Series] = {}
    for name, run_ids, results in groups:
        medians: dict[tuple, list[float]] = {}
        for res in results:
            if benchmark and res.benchmark != benchmark or metric and res.metric != metric \
                    or res.not_measured:
                continue
            medians.setdefault(res.key, []).append(res.summary["median"])
            if res.key not in by_key:
                by_key[res.key] = Series(res.key, res.unit, res.direction, [])
        for key, values in medians.items():
            by_key[key].points.append(Point(name, stats.median(values), list(run_ids)))
    return list(by_key.values())


def analyse(series_list: list[Series], **options) -> list[Series]:
    for s in series_list:
        s.change_points = describe(s, change_points([p.value for p in s.points], **options))
    return series_list


def to_json(series_list: list[Series], test: str = "t-test") -> dict:
    out = []
    for s in series_list:
        out.append({**dict(zip(KEY_FIELDS, s.key)), "unit": s.unit, "direction": s.direction,
                    "points": [{"label": p.label, "value": p.value, "run_ids": p.run_ids}
                               for p in s.points],
                    "change_points": [{"index": cp.index, "label": cp.label, "before": cp.before,
                                       "after": cp.after, "change_pct": cp.change_pct,
                                       "p_value": None if math.isnan(cp.p_value) else cp.p_value,
                                       "regression": s.regression(cp)}
                                      for cp in s.change_points]})
    method = "Welch t test x candidate splits" if test == "t-test" else "permutation test"
    return {"method": f"e-divisive means (Matteson & James 2014), {method}", "series": out}
