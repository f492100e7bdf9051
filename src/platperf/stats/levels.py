"""A figure at two levels: run-to-run samples that flip between a fast and a slow value (a
chase inside a last-level cache that another tenant sweeps), found by Otsu's split."""
from __future__ import annotations

import math
from typing import NamedTuple, Sequence

from . import median


class TwoLevels(NamedTuple):
    low: float          # median of the fast level
    high: float         # median of the slow level
    n_low: int
    n_high: int


LEVELS_RATIO = 2.0        # the slow level's median over the fast one's, at least
LEVELS_SHARE = 0.8        # between-level share of the variance (of the logs), at least


def two_levels(values: Sequence[float], ratio: float = LEVELS_RATIO,
               share: float = LEVELS_SHARE) -> TwoLevels | None:
    """The two levels a set of positive figures flips between, or None when it does not.

    The split is Otsu's threshold (N. Otsu, "A threshold selection method from gray-level
    histograms", IEEE Trans. SMC 9(1), 1979), on the logs of the sorted values: the cut that
    maximises the between-level variance, which in one dimension is also the exact 2-means
    split (W. D. Fisher, "On grouping for maximum homogeneity", JASA 53, 1958). The values
    are at two levels when each side holds at least two of them (one slow value is an
    excursion, not a level), the slow side's median is at least ``ratio`` times the fast
    side's, and the split explains at least ``share`` of the variance (Otsu's separability
    eta). A last-level cache shared with another tenant gives such figures: a chase inside it
    reads 12 ns while the neighbour is quiet and 100 ns (DRAM) while it sweeps the cache."""
    xs = sorted(v for v in values if v > 0)
    n = len(xs)
    if n < 4:
        return None
    logs = [math.log(v) for v in xs]
    log_sum = math.fsum(logs)
    mean = log_sum / n
    total = math.fsum((v - mean) ** 2 for v in logs)
    if total <= 0:
        return None
    best_k, best_between, low_sum = 0, -1.0, 0.0
    for k in range(1, n):
        low_sum += logs[k - 1]
        m_low, m_high = low_sum / k, (log_sum - low_sum) / (n - k)
        between = k * (n - k) / n * (m_high - m_low) ** 2
        if between > best_between:
            best_k, best_between = k, between
    low, high = xs[:best_k], xs[best_k:]
    if len(low) < 2 or len(high) < 2 or best_between / total < share:
        return None
    m_low, m_high = median(low), median(high)
    if m_high < ratio * m_low:
        return None
    return TwoLevels(m_low, m_high, len(low), len(high))
