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
# 0.6745 = the 0.75 quantile of the standard normal: MAD / 0.6745 estimates sigma.
_MAD_TO_SIGMA = 0.6745


def log_steps(values: Sequence[float]) -> list[float] | None:
    """log(v[i] / v[i-1]) of each step, or None when a value is not positive (no ratio): a
    change of x% is a step of log(1 + x/100) whatever the figure's size."""
    if any(not v > 0 for v in values):
        return None
    return [math.log(b / a) for a, b in zip(values, values[1:])]


def step_scores(steps: Sequence[float]) -> list[float | None]:
    """Each step's modified z-score against the others (leave one out).

    Method: the modified z-score of Iglewicz & Hoaglin ("How to Detect and Handle
    Outliers", ASQC Basic References in Quality Control 16, 1993, §3.2): M = 0.6745 (x -
    x~) / MAD, MAD the median absolute deviation about the median x~, with |M| > 3.5 an
    outlier. Here x is a step (a log ratio) and the centre is 0 -- a key's expected step from
    one release to the next is no change -- so MAD is the median |step| of the key's *other*
    steps: the step judged does not widen its own yardstick (with four releases it would
    otherwise be one of three). None where no other step is known (one step: two releases);
    inf where the others are all exactly 0 and this one is not."""
    out: list[float | None] = []
    for i, step in enumerate(steps):
        others = [abs(s) for j, s in enumerate(steps) if j != i]
        if not others:
            out.append(None)
            continue
        mad = median(others)
        out.append(_MAD_TO_SIGMA * abs(step) / mad if mad > 0 else (math.inf if step else 0.0))
    return out


def typical_step_pct(steps: Sequence[float], i: int) -> float | None:
    """The key's usual step in %, the one :func:`step_scores` measures step ``i`` against:
    the median |step| of the others, as a change (None without others)."""
    others = [abs(s) for j, s in enumerate(steps) if j != i]
    return math.expm1(median(others)) * 100.0 if others else None
