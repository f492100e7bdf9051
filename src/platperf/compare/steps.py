"""Each release-to-release step of a key's series, and what can be said of it with the
evidence the series has (issue 38).

A change-point test (e-divisive means, :mod:`platperf.history`) needs three points each side
of a split: a page of four releases gives it nothing to test. A step is judged instead with
whatever spread the key has, and says which:

* ``runs`` -- two runs or more on both sides of the step: the releases' run medians are
  evidence, and the keyed comparison of the two labels decides the step
  (:func:`platperf.compare.keyed.compare_runs`, Welch's t test on the run medians; the view
  asks it for the steps it lists);
* ``steps`` -- one figure a release, and other steps of the key to measure this one by: the
  step's modified z-score against them (:func:`platperf.stats.steps.step_scores`); a step of
  at least the tolerance whose score passes :func:`platperf.stats.steps.threshold` for that
  many other steps (3.5 from 20 on, higher below: at most 0.5 % of an unchanged key's steps
  flagged) is *far beyond the key's known spread*;
* ``none`` -- one step and one figure a release: no spread is known; a step of at least the
  tolerance is shown with its size and nothing more is claimed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ..stats import steps as step_stats
from .decisions import worse
from .keyed import TOLERANCE

BASES = ("runs", "steps", "none")


def change_text(pct: float | None) -> str:
    """``+2,407%`` from a hundred per cent on, ``+1.48%`` below; "" for no change known."""
    if pct is None:
        return ""
    return f"{pct:+,.0f}%" if abs(pct) >= 100 else f"{pct:+.2f}%"


@dataclass(slots=True)        # not frozen: a year of nightly keys makes 600,000 of them
class Step:
    index: int                   # the point the step leads to (its release)
    before: float
    after: float
    direction: str               # lower | higher is better
    runs: tuple[int, int]        # runs pooled in the point before and after
    score: float | None = None   # modified z against the key's other steps (None: no others)
    typical_pct: float | None = None   # the key's usual step, that the score measures by
    tolerance: float = TOLERANCE
    others: int = 0              # the key's other steps the score was measured against

    @property
    def change_pct(self) -> float | None:
        return (self.after - self.before) / abs(self.before) * 100.0 if self.before else None

    @property
    def big(self) -> bool:
        """At least the tolerance (a step from 0 is)."""
        pct = self.change_pct
        return self.after != self.before and (pct is None or abs(pct) >= self.tolerance)

    @property
    def basis(self) -> str:
        if min(self.runs) >= 2:
            return "runs"
        return "steps" if self.score is not None else "none"

    @property
    def far(self) -> bool:
        """At least the tolerance and far beyond the key's known spread (``steps``)."""
        return self.big and self.score is not None and self.score > step_stats.threshold(self.others)

    @property
    def worse(self) -> bool:
        return worse(self.direction, self.after - self.before)

    @property
    def size(self) -> float:
        """|log(after / before)|: a halving as large as a doubling (inf from or to 0)."""
        if self.before > 0 and self.after > 0:
            return abs(math.log(self.after / self.before))
        return math.inf if self.after != self.before else 0.0

    def why(self) -> str:
        """What the series lets be said of the step, and by which test, in a few words."""
        change = change_text(self.change_pct)
        if self.basis == "runs":
            return f"{change}; {min(self.runs)}+ runs a release: the keyed comparison's Welch test applies"
        if self.basis == "none":
            return f"one figure a release: no spread known; {change}"
        many = "one figure a release" if max(self.runs) < 2 else "one run on a side"
        said = f"{many}: {change} against the key's usual step of {change_text(self.typical_pct).lstrip('+')}"
        if self.far:
            score = "inf" if math.isinf(self.score) else f"{self.score:,.0f}"
            return said + f", far beyond it (modified z {score} > {step_stats.threshold(self.others):g})"
        return said


def judge(values: Sequence[float], direction: str, runs: Sequence[int],
          tolerance: float = TOLERANCE) -> list[Step]:
    """Every step of a series (``values`` in release order, ``runs`` the runs pooled in each
    point), judged as the module says."""
    logs = step_stats.log_steps(values)
    none = [None] * (len(values) - 1)
    scores, typical = step_stats.scores_and_typical(logs) if logs is not None else (none, none)
    return [Step(i, values[i - 1], values[i], direction, (runs[i - 1], runs[i]), scores[i - 1], typical[i - 1],
                 tolerance, len(values) - 2) for i in range(1, len(values))]
