"""A key's spread pooled over groups of its values (the sides of a comparison)."""
from __future__ import annotations

import math
from typing import Sequence

from . import relative_spread


def pooled_spread(groups: Sequence[Sequence[float]]) -> float | None:
    """The relative spread of several groups pooled, in % (None when no group has one).

    Method: the pooled standard deviation (Cohen, "Statistical Power Analysis for the
    Behavioral Sciences", 2nd ed. 1988, ch. 2): each group's variance weighted by its degrees
    of freedom, s = sqrt(sum (n_i - 1) s_i^2 / sum (n_i - 1)), here of each group's
    :func:`platperf.stats.relative_spread` (its standard deviation in % of its median). A
    group of fewer than two values, or whose median is 0, adds nothing."""
    parts = [(len(g) - 1, relative_spread(g)) for g in groups if len(g) >= 2]
    parts = [(df, s) for df, s in parts if s is not None]
    if not parts:
        return None
    dof = sum(df for df, _ in parts)
    return math.sqrt(sum(df * s * s for df, s in parts) / dof)
