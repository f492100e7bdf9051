"""How far one release-to-release step of a series lies beyond the key's other steps: a test
for a series too short for a change-point test, with one figure a release.

A series of one figure a release (a published page, one run a release) has no spread within
a release; what it does have is its other steps. A key that moves by about 1% from release to
release and then by +2,400% has made a step far beyond that -- whatever the page's release
count, which may be four.
"""
from __future__ import annotations

import math
from typing import Sequence

from . import median

# Iglewicz & Hoaglin's threshold for the modified z-score: |M| above it is an outlier.
OUTLIER_Z = 3.5
# ... when the MAD comes from many values. From one to a score of other steps the MAD is itself
# noisy, and 3.5 flags 1-11 % of the steps of a key whose figure did not change (normal noise,
# independent from release to release: bench/history_flags.py). The score a step must pass by
# how many other steps its key has: the 99.5th percentile of the scores of such unchanged
# series (200,000 / (others + 2) series of each length, seed 7; bench/history_flags.py derives
# them again and prints them beside these), so that an unchanged key is flagged on at most
# 0.5 % of its steps; OUTLIER_Z from 20 others on. Odd counts of others are higher: the median
# of an even count averages two.
THRESHOLD_BY_OTHERS = {1: 73.0, 2: 8.9, 3: 11.7, 4: 6.3, 5: 6.9, 6: 5.1, 7: 5.3, 8: 4.5, 9: 4.6, 10: 4.2,
                       11: 4.2, 12: 3.9, 13: 4.0, 14: 3.8, 15: 3.8, 16: 3.7, 17: 3.7, 18: 3.6, 19: 3.6}


def threshold(others: int) -> float:
    """The modified z-score a step must pass when its key has ``others`` other steps."""
    return THRESHOLD_BY_OTHERS.get(others, OUTLIER_Z)
# 0.6745 = the 0.75 quantile of the standard normal: MAD / 0.6745 estimates sigma.
_MAD_TO_SIGMA = 0.6745


def log_steps(values: Sequence[float]) -> list[float] | None:
    """log(v[i] / v[i-1]) of each step, or None when a value is not positive (no ratio): a
    change of x% is a step of log(1 + x/100) whatever the figure's size."""
    if any(not v > 0 for v in values):
        return None
    return [math.log(b / a) for a, b in zip(values, values[1:])]


def others_medians(values: Sequence[float]) -> list[float | None]:
    """For each value, the median of all the others (None for a single value), in
    O(n log n): the values are sorted once, and leaving out the one of rank r shifts every
    rank at or above r down by one, so the median of the rest is read at its place."""
    n = len(values)
    if n < 2:
        return [None] * n
    order = sorted(range(n), key=values.__getitem__)
    ranked = [values[i] for i in order]
    rank = [0] * n
    for r, i in enumerate(order):
        rank[i] = r
    m = n - 1

    def rest(k: int, r: int) -> float:         # the k-th smallest once rank r is left out
        return ranked[k] if k < r else ranked[k + 1]
    out = []
    for i in range(n):
        r = rank[i]
        lo, hi = rest((m - 1) // 2, r), rest(m // 2, r)
        out.append(lo if m % 2 else (lo + hi) / 2.0)
    return out


def step_scores(steps: Sequence[float]) -> list[float | None]:
    """Each step's modified z-score against the others (leave one out).

    Method: the modified z-score of Iglewicz & Hoaglin ("How to Detect and Handle
    Outliers", ASQC Basic References in Quality Control 16, 1993, §3.2): M = 0.6745 (x -
    x~) / MAD, MAD the median absolute deviation about the median x~, with |M| > 3.5 an
    outlier. Here x is a step (a log ratio) and the centre is 0 -- a key's expected step from
    one release to the next is no change -- so MAD is the median |step| of the key's *other*
    steps (:func:`others_medians`): the step judged does not widen its own yardstick (with
    four releases it would otherwise be one of three). None where no other step is known
    (one step: two releases); inf where the others are all exactly 0 and this one is not."""
    sizes = [abs(s) for s in steps]
    out: list[float | None] = []
    for size, mad in zip(sizes, others_medians(sizes)):
        if mad is None:
            out.append(None)
        else:
            out.append(_MAD_TO_SIGMA * size / mad if mad > 0 else (math.inf if size else 0.0))
    return out


def scores_and_typical(steps: Sequence[float]) -> tuple[list[float | None], list[float | None]]:
    """:func:`step_scores` and :func:`typical_steps_pct` of ``steps``, the others' medians
    computed once for both (a nightly key's year: 364 steps, for each of 1,523 keys)."""
    sizes = [abs(s) for s in steps]
    mads = others_medians(sizes)
    scores = [None if mad is None else (_MAD_TO_SIGMA * size / mad if mad > 0 else (math.inf if size else 0.0))
              for size, mad in zip(sizes, mads)]
    return scores, [None if mad is None else math.expm1(mad) * 100.0 for mad in mads]


def typical_steps_pct(steps: Sequence[float]) -> list[float | None]:
    """Each step's yardstick in :func:`step_scores` as a change in %: the key's usual step,
    the median |step| of the others (None without others)."""
    return [None if mad is None else math.expm1(mad) * 100.0 for mad in others_medians([abs(s) for s in steps])]
