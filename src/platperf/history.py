"""A series per board and key over many runs or labels, and the change points in it.

One point per run (or per label with ``labels=``): the median of that run's samples, read
from the stored summaries (store/queries.py ``medians``: the run, the key and the median,
nothing else) so that no sample or JSON is decoded; a label with several runs gives the
median of their medians. A series belongs to one target (board): two boards with the same
CPU numbering are two series, each as long as that board's runs, and the store is read one
board at a time (:func:`board_series`), so that the work and the memory follow the series
printed, not the size of the database.

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
from collections.abc import Sequence
from dataclasses import dataclass, field

from . import stats
from .compare.decisions import worse
from .compare.steps import judge
from .records import KEY_FIELDS

TESTS = ("t-test", "permutation")
MAX_P = 0.001          # Otava's default significance threshold
# Points each side of a split. With 2, the t test on two nearly equal points flags noise
# (12% of flat 20-point series had a change point); with 3 and the Bonferroni factor of
# change_points(), 0-1.5% (seeded trials over 10 to 500 points). So a change at the newest release shows up once three runs follow it;
# until then `platperf compare` judges the newest release against the one before.
MIN_SIZE = 3


@dataclass(slots=True)
class Point:
    label: str
    value: float
    run_ids: list[int] = field(default_factory=list)


class Columns(Sequence):
    """A series' points kept as three columns, each :class:`Point` made when it is read: a
    board's year is two thousand series of 400 points, and history prints a line for each
    series, not its points (the JSON and the plots read them)."""

    __slots__ = ("names", "values", "members", "where")

    def __init__(self, names: list[str], values: list[float], members: list[list[int]], where: list[int]):
        self.names, self.values, self.members, self.where = names, values, members, where

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        p = self.where[i]
        return Point(self.names[p], self.values[i], self.members[p])


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
    points: Sequence[Point]       # a list, or Columns read from the store
    change_points: list[ChangePoint] = field(default_factory=list)
    target: str | None = None     # the board; None for a report's series over its own columns

    def regression(self, cp: ChangePoint) -> bool:
        return worse(self.direction, cp.after - cp.before)

    @property
    def values(self) -> list[float]:
        """The points' values, in order."""
        points = self.points
        return points.values if isinstance(points, Columns) else [p.value for p in points]


# -- e-divisive means -------------------------------------------------------------------

def energy_split(z: list[float], min_size: int = MIN_SIZE) -> tuple[int, float]:
    """(tau, Q(tau)) maximising the e-divisive statistic over min_size <= tau <= n - min_size.

    The pairwise distances are summed in O(n log n), never pair by pair: ``left[j]`` =
    sum_{i<j} |z_i - z_j| from a Fenwick tree over the ranks of the values (the count and sum
    of the earlier values below z_j), ``whole[i]`` = sum_j |z_i - z_j| from sorted prefix sums,
    and ``whole[i] - left[i]`` is the within-Y contribution of point i. The values are first
    taken about their mean, so that the running sums cancel no large offset (a bandwidth of
    80,000 MB/s that moves by 10).
    """
    n = len(z)
    if n:
        centre = math.fsum(z) / n
        z = [v - centre for v in z]
    left = _left_sums(z)
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


def _left_sums(z: list[float]) -> list[float]:
    """``left[j]`` = sum_{i<j} |z_j - z_i|: for each value in turn, the count c and sum s of the
    earlier values at or below it (a Fenwick tree indexed by rank, Fenwick 1994) give
    z_j c - s + (S - s) - z_j (j - c), S the sum of every earlier value."""
    n = len(z)
    order = sorted(range(n), key=z.__getitem__)
    rank = [0] * n
    for r, i in enumerate(order, 1):
        rank[i] = r
    counts = [0] * (n + 1)
    sums = [0.0] * (n + 1)
    left = [0.0] * n
    seen = 0.0
    for j, v in enumerate(z):
        c, s, i = 0, 0.0, rank[j]
        while i > 0:
            c += counts[i]
            s += sums[i]
            i -= i & -i
        left[j] = v * c - s + (seen - s) - v * (j - c)
        i = rank[j]
        while i <= n:
            counts[i] += 1
            sums[i] += v
            i += i & -i
        seen += v
    return left


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


def _split_possible(z: list[float], min_size: int, max_p: float) -> bool:
    """Whether any split of ``z`` could pass the t test of :func:`change_points`; when none
    can, the energy statistic need not be computed (a board's year is 2,000 series, most of
    them flat). Exact, never a guess: the test at the chosen split has |t| at most the largest
    |t| of any split (found in O(n) from running sums), and Welch-Satterthwaite's degrees of
    freedom at most n - 2 (Cauchy-Schwarz), and Student's tail P(|T| > t) shrinks as the
    degrees of freedom grow (the t distributions grow more peaked, Birnbaum 1948); so
    P(|T_{n-2}| > max |t|) is a floor of its p-value. Only a floor twice over the threshold
    skips the split, for rounding."""
    n = len(z)
    centre = math.fsum(z) / n
    c = [v - centre for v in z]
    total = math.fsum(c)
    total2 = math.fsum(v * v for v in c)
    sx = sx2 = 0.0
    for v in c[:min_size - 1]:
        sx += v
        sx2 += v * v
    best = 0.0
    for tau in range(min_size, n - min_size + 1):
        v = c[tau - 1]
        sx += v
        sx2 += v * v
        nx, ny = tau, n - tau
        mx, my = sx / nx, (total - sx) / ny
        vx = (sx2 - sx * mx) / (nx - 1)
        vy = (total2 - sx2 - (total - sx) * my) / (ny - 1)
        se2 = vx / nx + vy / ny
        if se2 <= 0 or vx < 0 or vy < 0:
            return True                  # no spread on a side (or rounding below zero): test it
        t2 = (mx - my) ** 2 / se2
        if t2 > best:
            best = t2
    floor = 2.0 * stats.student_t_cdf(-math.sqrt(best), n - 2)
    return floor * (n - 2 * min_size + 1) < 2.0 * max_p


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
        if test == "t-test" and min_size >= 2 and not _split_possible(z, min_size, max_p):
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
    values = series.values
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
                metric: str | None = None, **runs_filter) -> list[Series]:
    """Every board's series (see :func:`board_series`), in one list."""
    return [s for _, series in board_series(store, labels, benchmark, metric, **runs_filter) for s in series]


def board_series(store, labels: list[str] | None = None, benchmark: str | None = None,
                 metric: str | None = None, **runs_filter):
    """(target, its Series) for each target in turn: one Series per key over the target's runs
    (oldest first, each run a point) or over ``labels`` (in the order given, each label's runs
    on the target pooled into a point). ``runs_filter``: ``targets``, ``label`` (a pattern),
    ``since``, ``until`` (store/queries.py). Keys missing from some runs have fewer points.
    StoreError for a label no run has."""
    from .store import StoreError
    from .store.queries import history_runs, keys_of, medians, missing_run, runs_of_labels
    with store.engine.connect() as conn:
        keys = keys_of(conn, benchmark, metric)
        if labels:
            found = runs_of_labels(conn, labels, runs_filter.get("targets"))
            for label in set(labels) - {r["label"] for r in found}:
                raise StoreError(missing_run(conn, store.url, label))
        else:
            found = history_runs(conn, **runs_filter)
        wanted = set(keys) if benchmark or metric else None
        by_target: dict[str, list[dict]] = {}
        for run in found:
            by_target.setdefault(run["target"], []).append(run)
        for target in sorted(by_target):
            runs = by_target[target]
            if labels:
                names = [label for label in labels if any(r["label"] == label for r in runs)]
                place = {label: i for i, label in enumerate(names)}
                position = {r["id"]: place[r["label"]] for r in runs}
                members = [[r["id"] for r in runs if r["label"] == label] for label in names]
            else:
                names = [r["label"] or f"run {r['id']}" for r in runs]
                position = {r["id"]: i for i, r in enumerate(runs)}
                members = [[r["id"]] for r in runs]
            rows = medians(conn, [r["id"] for r in runs], wanted)
            yield target, _series(target, rows, position, names, members, keys)


def _series(target, rows, position: dict, names: list[str], members: list[list[int]], keys: dict) -> list[Series]:
    """Series from (run id, key id, median) rows: a point per position, the median of the
    medians that share it (a key twice in a run, a label's runs)."""
    at: dict[int, tuple[list[int], list[float]]] = {}
    pooled: dict[tuple[int, int], list[float]] = {}
    for run_id, key_id, median in rows:
        if key_id not in keys:        # another --benchmark, or a key newer than this read
            continue
        p = position[run_id]
        entry = at.get(key_id)
        if entry is None:
            entry = at[key_id] = ([], [])
        where, values = entry
        if where and where[-1] == p:
            pooled.setdefault((key_id, p), [values[-1]]).append(median)
        else:
            where.append(p)
            values.append(median)
    out = []
    for key_id, (where, values) in at.items():
        if pooled or any(a >= b for a, b in zip(where, where[1:])):
            merged: dict[int, list[float]] = {}
            for p, v in zip(where, values):
                merged.setdefault(p, []).extend(pooled.pop((key_id, p), [v]))
            where = sorted(merged)
            values = [stats.median(merged[p]) if len(merged[p]) > 1 else merged[p][0] for p in where]
        key, unit, direction = keys[key_id]
        out.append(Series(key, unit, direction, Columns(names, values, members, where), target=target))
    return out


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
        s.change_points = describe(s, change_points(s.values, **options))
    return series_list


def _steps_json(s: Series) -> list[dict]:
    """Each release-to-release step as the views judge it (:mod:`platperf.compare.steps`)."""
    points = list(s.points)
    steps = judge([p.value for p in points], s.direction, [len(p.run_ids) for p in points])
    return [{"from": points[st.index - 1].label, "to": points[st.index].label,
             "before": st.before, "after": st.after, "change_pct": st.change_pct, "basis": st.basis,
             "modified_z": None if st.score is None or math.isinf(st.score) else st.score,
             "beyond_tolerance": st.big, "far_beyond_spread": st.far, "worse": st.worse, "said": st.why()}
            for st in steps]


def to_json(series_list: list[Series], test: str = "t-test") -> dict:
    out = []
    for s in series_list:
        out.append({**({"target": s.target} if s.target is not None else {}),
                    **dict(zip(KEY_FIELDS, s.key)), "unit": s.unit, "direction": s.direction,
                    "points": [{"label": p.label, "value": p.value, "run_ids": p.run_ids}
                               for p in s.points],
                    "change_points": [{"index": cp.index, "label": cp.label, "before": cp.before,
                                       "after": cp.after, "change_pct": cp.change_pct,
                                       "p_value": None if math.isnan(cp.p_value) else cp.p_value,
                                       "regression": s.regression(cp)}
                                      for cp in s.change_points],
                    "steps": _steps_json(s)})
    method = "Welch t test x candidate splits" if test == "t-test" else "permutation test"
    return {"method": f"e-divisive means (Matteson & James 2014), {method}", "series": out}
