"""Keyed comparison of two runs or labels: runs are the unit of evidence.

Every figure is paired by :attr:`platperf.records.Result.key` (benchmark, canonical params,
mode, package, cluster, core, metric) and nothing else: the scripts behind published release tables
pair rows by position, and compare cores with other cores when a release reorders them.

A side's figure for a key is the median of its runs' medians. Samples inside one run share
that run's conditions (buffer placement, a noisy neighbour, the boot), so they are not
independent evidence: two runs of identical code, tested sample against sample, differ
"significantly" on most keys. So:

* **two runs or more a side**: each run's median is one observation and the test is on
  those (``test="welch"``, the default: Welch's t test on the run medians,
  :func:`platperf.stats.run_medians_test`; ``"mwu"``: Mann-Whitney U on them, which needs
  4 runs a side to reach p < 0.05; ``"bootstrap"``: a seeded 95% interval of the ratio of
  the run medians' medians). The p-values of all keys are adjusted for their number
  (Benjamini-Hochberg: a comparison tests dozens to thousands of keys, and 5% of them pass
  p < 0.05 by chance). A change is *confirmed* when it is significant (adjusted p < alpha,
  0.05) **and** at least the tolerance; a confirmed change in the worse direction of the
  metric is a regression;
* **one run on a side** (a single ``platperf run``, a TF-A log): a change at least the
  tolerance is *unconfirmed*: shown, never a regression, with the runs a side that would
  settle it.

Every key on both sides then gets one of the words of :mod:`platperf.compare.decisions`, with the
tolerance named: *regressed* or *improved* (a confirmed change, as above), *equivalent*
(shown within the tolerance by the two one-sided tests on the run medians,
:func:`platperf.compare.decisions.equivalence`: evidence, not the mere absence of a significant
change), else *undecided*. ``platperf run --against`` decides the same four words while it
measures, with intervals that allow its repeated looks (:func:`platperf.compare.decisions.decide`).
As there, a side whose runs come from two or more sessions (``platperf run`` invocations,
:func:`platperf.compare.pools.session_of`) has the drift between them counted, in the Welch test
and the equivalence interval (:func:`platperf.stats.sequential.session_parts`); and on a
virtual machine the keys of the cache it shares with the host's other tenants are
undecided whatever their change (:mod:`platperf.compare.shared_cache`). One rule sets every key's
decision, for one look and for the gate's many (:func:`platperf.compare.decisions.rule`).

From the run-to-run spread of a key (the standard deviation of its run medians, pooled over
the sides with two runs or more; with one run a side only the spread of that run's samples,
a lower bound), each row states the smallest change its runs can detect
(:func:`platperf.stats.minimum_detectable_effect`, power 0.8) and the runs a side a change
of the tolerance needs. Each side's figure carries a 95% bootstrap interval
(:func:`platperf.stats.bootstrap_median_ci`, over the run medians, or over the samples of a
single run); a figure whose interval is wider than the tolerance is *unstable*.

The memory kernels record the pages that backed their buffers (``pages.backing`` of a
result: huge, 4k, mixed); a key whose two sides were backed differently is noted
(:attr:`Row.pages_differ`): below the last-level cache the backing changes which cache
sets a buffer fills, at DRAM sizes 4 KiB pages add TLB misses (docs/probe.md).

A result that is not a figure of its key (:func:`platperf.records.not_measured`: an idle
state the firmware rejected or the CPU never entered) is left out of its pool; a side with no
run left is *not measured* (:attr:`Row.base_not_measured`, :attr:`Row.new_not_measured`): the
row has no figure on that side, no change and no verdict.

Presentation (tables, the TF-A layout) lives in :mod:`platperf.report.sections.compare`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .. import stats
from ..events import is_counter_metric
from ..fingerprint import Difference, diff
from ..records import ResultKey, key_order
from ..stats import sequential
from ..stats.spread import pooled_spread
from . import annotations, board_level, decisions, shared_cache
from .pools import Pool, Side, load_runs, pool_sessions, session_of

TESTS = ("welch", "mwu", "bootstrap")
ALPHA = 0.05
TOLERANCE = 2.0     # % : the smallest change shown, unless the caller says otherwise


@dataclass
class Row:
    """One key compared: figures, change, test, and its decision (one value, :attr:`decided`,
    that every verdict flag below is read from)."""

    key: tuple
    unit: str
    direction: str
    base: float | None
    new: float | None
    n_base: int = 0          # samples
    n_new: int = 0
    runs_base: int = 0
    runs_new: int = 0
    delta_pct: float | None = None
    p_value: float | None = None      # adjusted for the number of keys tested (Benjamini-Hochberg)
    ratio_ci: tuple | None = None
    basis: str = ""          # runs (the run-level test) | single-run | too-few-runs | "" (one side only)
    spread_pct: float | None = None   # run-to-run spread (stdev, % of the figure)
    spread_basis: str = ""   # runs | samples (one run a side: a lower bound) | "" (unknown)
    mde_pct: float | None = None      # smallest change these runs detect (None: one run a side)
    runs_needed: int | None = None    # runs a side for a change of the tolerance
    base_ci: tuple | None = None      # 95% interval of each figure
    new_ci: tuple | None = None
    unstable: bool = False   # an interval wider than the tolerance
    status: str = "both"     # both | added | removed | not measured (a side with no figure)
    raw_p: float | None = None   # the test's own p-value; p_value is it adjusted over the keys
    pages_base: str = ""     # page backing of each side's buffers: "huge", "4k", "4k+huge", ...
    pages_new: str = ""      # ("" where the results do not say)
    sessions: tuple | None = None   # (base, new) sessions the test counted; None: drift not counted
    base_not_measured: str = ""   # why a side has no figure: "rejected", "not entered" (records.not_measured)
    new_not_measured: str = ""
    page: object = None      # a published new side's own delta beside this one (annotations.Annotation)
    decided: decisions.Decision = field(default_factory=decisions.Decision)   # set by decisions.rule

    @property
    def decision(self) -> str:
        """regressed | improved | equivalent | undecided ("" : not compared, one side only)."""
        return "" if self.decided.word == decisions.NOT_COMPARED else self.decided.word

    @property
    def decision_ci(self) -> tuple | None:
        """The change's interval in % that backs the decision (estimate, low, high)."""
        return self.decided.change

    @property
    def decided_runs(self) -> int | None:
        """New runs a sequential decision rests on (run --against)."""
        return self.decided.runs

    @property
    def decision_why(self) -> str:
        """Why a key that no more runs can decide stays undecided (a shared cache), else ""."""
        return self.decided.why if self.decided.final else ""

    significant = property(lambda self: self.decided.significant)
    big = property(lambda self: self.decided.big)                     # at least the tolerance
    shown = property(lambda self: self.decided.shown)                 # the cell carries its delta
    confirmed = property(lambda self: self.decided.confirmed)
    unconfirmed = property(lambda self: self.decided.unconfirmed)     # beyond the tolerance, too few runs to test
    regression = property(lambda self: self.decided.regression)
    improvement = property(lambda self: self.decided.improvement)
    equivalent = property(lambda self: self.decided.equivalent)

    @property
    def page_delta_pct(self) -> float | None:
        return getattr(self.page, "page", None)

    @property
    def page_verdict(self) -> str:
        return getattr(self.page, "verdict", "")

    @property
    def pages_differ(self) -> bool:
        return bool(self.pages_base and self.pages_new and self.pages_base != self.pages_new)

    @property
    def benchmark(self):
        return ResultKey(*self.key).benchmark

    @property
    def metric(self):
        return ResultKey(*self.key).metric


@dataclass
class Comparison:
    base_ref: str
    new_ref: str
    tolerance: float
    test: str
    rows: list[Row]
    differences: list[Difference] = field(default_factory=list)
    metric_order: list[str] = field(default_factory=list)
    alpha: float = ALPHA
    sequential: str = ""     # how run --against decided, when it did ("" : one look, as compare)

    def decided(self, word: str) -> list[Row]:
        """The figures on both sides with ``word`` (one of platperf.compare.decisions.DECISIONS):
        what a verdict and a gate's exit rest on. A counted event (``l2d_refill_per_access``)
        has its decision shown beside its figure but explains, never decides: a kernel that
        refills more and runs as fast has not regressed (docs/events.md)."""
        return [r for r in self.rows if r.decision == word and not is_counter_metric(r.metric)]

    @property
    def regressions(self) -> list[Row]:
        """Every key that regressed, counted events among them after their figure's."""
        return [r for r in self.rows if r.regression]

    @property
    def failing(self) -> list[Row]:
        """The figures that regressed: what fails ``--fail-on-regression``."""
        return [r for r in self.regressions if not is_counter_metric(r.metric)]

    @property
    def unconfirmed(self) -> list[Row]:
        return [r for r in self.rows if r.unconfirmed]

    @property
    def improvements(self) -> list[Row]:
        return [r for r in self.rows if r.improvement]

    @property
    def unchanged(self) -> list[Row]:
        """Keys on both sides with no confirmed change and none to confirm: under the
        tolerance, or tested and not significant."""
        return [r for r in self.rows if r.status == "both" and not (r.confirmed or r.unconfirmed)]

    @property
    def refused(self) -> list[Difference]:
        return [d for d in self.differences if d.refuse]

    @property
    def pages_differ(self) -> list[Row]:
        return [r for r in self.rows if r.pages_differ]


# -- the comparison ---------------------------------------------------------------------

def compare_pools(base: dict[tuple, Pool], new: dict[tuple, Pool], *, tolerance: float = TOLERANCE,
                  test: str = "welch", alpha: float = ALPHA, seed: int = 0,
                  sessions: dict | None = None, zone: shared_cache.Zone | None = None,
                  decided: dict | None = None) -> list[Row]:
    """Compare two keyed pools; rows sorted by key, never by position in either input.
    ``sessions`` (stored run id -> :func:`session_of`) lets a side measured in several
    sessions count the drift between them (the Welch test and the equivalence test);
    ``zone``: the keys a VM's shared cache moves (:func:`platperf.compare.shared_cache.zone`), held;
    ``decided``: key -> a decision reached over repeated looks (``platperf run --against``),
    each key's decision in place of one look's (:func:`platperf.compare.decisions.rule`)."""
    if test not in TESTS:
        raise ValueError(f"unknown test '{test}'; choose one of {', '.join(TESTS)}")
    rows, looks = [], []
    for key in sorted(base.keys() | new.keys(), key=key_order):
        b, n = base.get(key), new.get(key)
        why_b, why_n = (p.not_measured if p is not None and not p.runs else "" for p in (b, n))
        if why_b or why_n:
            side = n if n is not None else b
            rows.append(Row(key, side.unit, side.direction, b.figure if b and not why_b else None,
                            n.figure if n and not why_n else None, n_base=len(b.samples) if b else 0,
                            n_new=len(n.samples) if n else 0, runs_base=len(b.runs) if b else 0,
                            runs_new=len(n.runs) if n else 0, status="not measured",
                            base_not_measured=why_b, new_not_measured=why_n))
            continue
        if b is None or n is None:
            side = n if b is None else b
            rows.append(Row(key, side.unit, side.direction,
                            None if b is None else b.figure, None if n is None else n.figure,
                            n_base=len(b.samples) if b else 0, n_new=len(n.samples) if n else 0,
                            runs_base=len(b.runs) if b else 0, runs_new=len(n.runs) if n else 0,
                            status="added" if b is None else "removed"))
            continue
        row, look = _compare_key(key, b, n, tolerance, test, alpha, seed, sessions or {})
        rows.append(row)
        looks.append(look)
    _decide(looks, alpha, zone, decided or {})
    return rows


def run_spread(b: Pool, n: Pool) -> tuple[float | None, str]:
    """(spread %, basis) of a key: the run medians' spread pooled over the sides with two
    runs or more (:func:`platperf.stats.spread.pooled_spread`); else that of the samples of
    the single runs, a lower bound (runs differ more than samples of one run)."""
    for basis, groups in (("runs", [p.run_medians for p in (b, n) if len(p.runs) >= 2]),
                          ("samples", [p.samples for p in (b, n)])):
        spread = pooled_spread(groups)
        if spread is not None:
            return spread, basis
    return None, ""


def figure_interval(p: Pool) -> tuple[float, float]:
    """95% bootstrap interval of a side's figure: over the run medians with two runs or more
    (runs are the unit), else over the one run's samples."""
    return stats.bootstrap_median_ci(p.run_medians if len(p.runs) >= 2 else p.samples)


def is_unstable(ci: tuple, figure: float, tolerance: float = TOLERANCE) -> bool:
    """An interval wider than the tolerance (% of the figure): the figure cannot show a
    change of that size."""
    return width_pct(ci, figure) > tolerance


@dataclass
class _Look:
    """What one look found of a key on both sides, for :func:`platperf.compare.decisions.rule`."""

    row: Row
    big: bool                      # the change is at least the tolerance
    tested: bool = False           # runs enough a side for the test
    significant: bool = False
    equivalent: bool = False       # the two one-sided tests passed (decisions.equivalence)
    interval: tuple | None = None  # their interval of the change, in %


def _compare_key(key, b: Pool, n: Pool, tolerance, test, alpha, seed, sessions: dict) -> tuple[Row, _Look]:
    mb, mn = b.figure, n.figure
    sb, sn = pool_sessions(b, sessions), pool_sessions(n, sessions)
    row = Row(key, n.unit, n.direction, mb, mn, n_base=len(b.samples), n_new=len(n.samples),
              runs_base=len(b.runs), runs_new=len(n.runs), pages_base=b.pages_text, pages_new=n.pages_text)
    row.delta_pct = (mn - mb) / abs(mb) * 100.0 if mb else (0.0 if mn == mb else None)
    look = _Look(row, big=mn != mb and (row.delta_pct is None or abs(row.delta_pct) >= tolerance))
    row.spread_pct, row.spread_basis = run_spread(b, n)
    if row.spread_pct is not None:
        row.runs_needed = stats.runs_needed(tolerance, row.spread_pct, alpha=alpha)
    if test == "mwu" and (row.runs_needed is not None or not row.spread_pct):
        # Mann-Whitney U cannot reach alpha with fewer runs, whatever the spread
        row.runs_needed = max(row.runs_needed or 2, stats.mwu_min_runs(alpha))
    row.base_ci, row.new_ci = figure_interval(b), figure_interval(n)
    if 0 < tolerance < 100 and len(b.runs) >= 2 and len(n.runs) >= 2:
        look.equivalent, look.interval = decisions.equivalence(
            b.run_medians, n.run_medians, tolerance, alpha, base_sessions=sb, new_sessions=sn)
    row.unstable = any(is_unstable(ci, fig, tolerance) for ci, fig in ((row.base_ci, mb), (row.new_ci, mn)))
    rb, rn = len(b.runs), len(n.runs)
    if rb < 2 or rn < 2 or test == "mwu" and stats.mwu_min_p(rb, rn) >= alpha:
        row.basis = "single-run" if min(rb, rn) < 2 else "too-few-runs"
        return row, look
    row.basis, look.tested = "runs", True
    if row.spread_basis == "runs":
        row.mde_pct = stats.minimum_detectable_effect(row.spread_pct, rb, rn, alpha=alpha)
    groups = [sequential.grouped(p.run_medians, keys) for p, keys in ((b, sb), (n, sn))]
    if test == "welch" and groups != [None, None]:
        row.sessions = tuple(len(g) if g else 1 for g in groups)
        row.raw_p = sequential.session_test(groups[0] or [b.run_medians], groups[1] or [n.run_medians])
    elif test == "welch":
        row.raw_p = stats.run_medians_test(b.runs, n.runs)
    elif test == "mwu":
        row.raw_p = stats.mann_whitney_u(b.run_medians, n.run_medians)[1]
    else:
        lo, hi = stats.bootstrap_median_ratio(b.run_medians, n.run_medians, level=1 - alpha, seed=seed)
        row.ratio_ci = (lo, hi)
        look.significant = lo > 1.0 or hi < 1.0
    return row, look


def _decide(looks: list[_Look], alpha: float, zone: shared_cache.Zone | None, decided: dict):
    """Significance over every tested key at once: the p-values adjusted for the number of
    keys (Benjamini-Hochberg, :func:`platperf.stats.benjamini_hochberg`), since a comparison
    tests dozens to thousands of keys and 5% of them would pass p < 0.05 by chance alone;
    then each key's decision, by :func:`platperf.compare.decisions.rule`."""
    tested = [look for look in looks if look.row.raw_p is not None]
    for look, q in zip(tested, stats.benjamini_hochberg([look.row.raw_p for look in tested])):
        look.row.p_value = q
        look.significant = q < alpha
    for look in looks:
        r = look.row
        r.decided = decisions.rule(
            r.direction, r.new - r.base, tested=look.tested, significant=look.significant, big=look.big,
            equivalent=look.equivalent, interval=look.interval,
            held=zone.why() if zone is not None and zone.moves(r.key) else "", sequential=decided.get(r.key))


def width_pct(ci: tuple, figure: float) -> float:
    """An interval's width in % of its figure."""
    return (ci[1] - ci[0]) / abs(figure) * 100.0 if figure else (0.0 if ci[0] == ci[1] else math.inf)


# -- comparability ----------------------------------------------------------------------

def comparability(base_runs: list[dict], new_runs: list[dict]) -> list[Difference]:
    """The fingerprint and probe facts that differ between the two sides (several runs a
    side: every value seen), by platperf.fingerprint.diff."""
    def facts(runs):
        return [{**(r.get("fingerprint") or {}), "meta": r.get("meta") or {}} for r in runs]
    return diff(facts(base_runs), facts(new_runs))


def compare_refs(store, base_ref, new_ref, *, tolerance: float = TOLERANCE, test: str = "welch",
                 seed: int = 0) -> Comparison:
    """Compare two refs (run id, ``latest`` or label) of ``store``."""
    return compare_runs(store, store.runs_for(base_ref), store.runs_for(new_ref), str(base_ref),
                        str(new_ref), tolerance=tolerance, test=test, seed=seed)


def compare_runs(store, base_runs: list[dict], new_runs: list[dict], base_ref: str, new_ref: str,
                 *, tolerance: float = TOLERANCE, test: str = "welch", seed: int = 0) -> Comparison:
    """Both sides loaded, their samples run by run, and compared (:func:`compare_sides`)."""
    return compare_sides(load_runs(store, base_runs, base_ref), load_runs(store, new_runs, new_ref),
                         tolerance=tolerance, test=test, seed=seed)


def compare_sides(base: Side, new: Side, *, tolerance: float = TOLERANCE, test: str = "welch",
                  seed: int = 0, decided: dict | None = None, method: str = "") -> Comparison:
    """The one place two loaded sides are handed to the test (:func:`compare_pools`).
    ``decided`` and ``method``: the decisions a gate reached over repeated looks, and how
    (``platperf run --against``, :mod:`platperf.compare.gate`)."""
    # published whole-board rows meet measured ones
    base_pools, new_pools = board_level.pair_board_level(base.pools, new.pools)
    order = list(dict.fromkeys(new.metrics + base.metrics))
    runs = base.runs + new.runs
    sessions = {r["id"]: session_of(r) for r in runs}
    # keys in the cache a VM shares with the host's other tenants are held undecided, whatever
    # their change (shared_cache): the words platperf run --against says of them
    zone = shared_cache.zone([r.get("fingerprint") for r in runs])
    rows = compare_pools(base_pools, new_pools, tolerance=tolerance, test=test, seed=seed,
                         sessions=sessions, zone=zone, decided=decided)
    annotate(rows, new_pools, tolerance)
    return Comparison(base.ref, new.ref, tolerance, test, rows, comparability(base.runs, new.runs), order,
                      sequential=method)


def annotate(rows: list[Row], new: dict[tuple, Pool], tolerance: float = TOLERANCE):
    """A published new side's own deltas (TF-A's ``(+x.xx%)``) beside each row's, judged by
    :func:`platperf.compare.annotations.judge`: where the page annotates a column, its silence on a
    key that changed disagrees too."""
    annotated = {key[:3] + key[-1:] for key, p in new.items() if p.page_delta is not None}
    if not annotated:
        return
    for r in rows:
        p = new.get(r.key)
        if p is not None and r.status == "both":
            r.page = annotations.judge(p.page_delta, r.delta_pct, r.key[:3] + r.key[-1:] in annotated, tolerance)
