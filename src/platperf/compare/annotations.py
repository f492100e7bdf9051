"""A published page's own annotations beside platperf's: TF-A prints a release's figure as
``242.66 (+132.03%)``, its change from the previous release, and imports keep that delta
(``extra["published_delta_pct"]``). platperf computes the change of the same key (benchmark,
params, mode, cluster, core, metric) itself; where the two disagree, the page's delta does
not follow from its own previous release: TF-A's script pairs rows by their position, and a
release that lists its cores in another order gets another core's change, or none.

:func:`judge` says, for one key, what the page claims beside what platperf finds:

* ``agrees``: the page's delta is platperf's, to the page's two decimals;
* ``differs``: the page prints another change than the same key's;
* ``no change``: the page annotates a change where the same key changed less than the
  tolerance;
* ``not annotated``: the page prints no change where the same key changed by the tolerance
  or more, in a column where it annotates changes (its silence there says "unchanged"; a
  column it never annotates says nothing).
"""
from __future__ import annotations

from dataclasses import dataclass

VERDICTS = ("agrees", "differs", "no change", "not annotated")


@dataclass(frozen=True)
class Annotation:
    page: float | None          # the page's delta in %, None where it prints none
    own: float | None           # platperf's delta of the same key, None without a base
    verdict: str                # one of VERDICTS

    @property
    def disagrees(self) -> bool:
        return self.verdict != "agrees"

    @property
    def page_text(self) -> str:
        return "none" if self.page is None else f"{self.page:+.2f}%"

    @property
    def own_text(self) -> str:
        return "no base" if self.own is None else f"{self.own:+.2f}%"

    @property
    def said(self) -> str:
        """One line: what the page says against platperf."""
        if self.verdict == "agrees":
            return f"the page's {self.page_text} is this key's change"
        if self.verdict == "not annotated":
            return f"the page annotates no change; this key changed {self.own_text}"
        if self.verdict == "no change":
            return f"the page annotates {self.page_text}; this key changed {self.own_text}"
        return f"the page annotates {self.page_text}; this key changed {self.own_text}"


def delta(base: float | None, new: float | None) -> float | None:
    """platperf's change in %, as compare computes it."""
    if base is None or new is None or not base:
        return None
    return (new - base) / abs(base) * 100.0


def judge(page: float | None, own: float | None, annotated_column: bool,
          tolerance: float) -> Annotation | None:
    """The page's delta ``page`` against platperf's ``own`` for one key; None when there is
    nothing to say (the page prints none and the key did not change, or the page never
    annotates this column)."""
    if page is None:
        if annotated_column and own is not None and abs(own) >= tolerance:
            return Annotation(None, own, "not annotated")
        return None
    if own is None:
        return Annotation(page, None, "differs")
    if abs(own) < tolerance <= abs(page):
        return Annotation(page, own, "no change")
    # the page prints two decimals: a delta rounded there is the same delta
    return Annotation(page, own, "agrees" if abs(round(own, 2) - page) <= 0.0051 else "differs")


def published_delta(extra) -> float | None:
    """The page's delta kept with an imported figure (one cell: a one-item list once pooled)."""
    value = extra.get("published_delta_pct") if isinstance(extra, dict) else None
    if isinstance(value, list):
        value = value[0] if len(value) == 1 else None
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
