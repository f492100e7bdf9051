"""Statistics, in one place (pyperf _utils / asv _stats style).

Reports and comparisons call these; they never re-derive a median or a threshold inline.
"""
from __future__ import annotations

import math
from typing import Sequence


def median(values: Sequence[float]) -> float:
    """The sample median (mean of the two middle values for an even count)."""
    s = sorted(values)
    n = len(s)
    if n == 0:
        raise ValueError("median of no values")
    mid = n // 2
    return s[mid] if n % 2 else (s[mid - 1] + s[mid]) / 2.0


def summary(values: Sequence[float]) -> dict:
    """n, min, median, mean, max and sample standard deviation (n-1; 0 for one value)."""
    n = len(values)
    if n == 0:
        raise ValueError("summary of no values")
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return {"n": n, "min": min(values), "median": median(values), "mean": mean,
            "max": max(values), "stdev": math.sqrt(var)}
