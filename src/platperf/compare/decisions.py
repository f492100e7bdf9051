"""What a key's runs decide, in the words every command uses (issue 24).

Against a baseline a key is **regressed**, **improved** (a change beyond the tolerance,
confirmed), **equivalent** (shown to lie within the tolerance: evidence, never the mere
absence of a significant change) or **undecided**. A label alone (``platperf run --repeat
auto``) is **settled** on a key when its runs can detect a change of the tolerance.

A change is the ratio new/base of a key's figures. It is tested on the logs of the run
medians: a change of x% is a shift of log(1 + x/100) whatever the figure's size, and the
run-to-run noise of a figure is a share of it. The tolerance is the same in both directions
in percent: equivalent means a ratio within 1 - t .. 1 + t.

Two ways to decide, one vocabulary:

* :func:`equivalence` -- one look at fixed runs (``platperf compare``): the two one-sided
  tests (TOST) at alpha, i.e. the (1 - 2 alpha) interval of the log ratio inside the
  margins (Welch's, or counting the drift between a side's sessions); compare's own rule
  decides regressed and improved;
* :func:`decide` -- repeated looks while runs are added (``platperf run --against``):
  repeated confidence intervals (:func:`platperf.stats.sequential.repeated_interval`), whose error
  rates hold however often the data are looked at and whenever measuring stops.

Whichever way, a key's decision is one value, :class:`Decision`, set by one rule
(:func:`rule`) for one look and for many; what a reader asks of it (regression, shown,
unconfirmed ...) is read from it, as pyperf's ``CompareResult`` holds a comparison once and
derives its verdicts. Whether a change is for the worse is asked in one place, :func:`worse`.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Sequence

from .. import stats
from ..stats import sequential

DECISIONS = ("regressed", "improved", "equivalent", "undecided")
NOT_COMPARED = "not compared"      # a key on one side only, or a side with no figure


def worse(direction: str, change: float) -> bool:
    """Is a change (new minus base: a difference of figures or a percentage) for the worse of
    a metric whose ``direction`` ("lower" or "higher") is better?"""
    return change > 0 if direction == "lower" else change < 0


@dataclass(frozen=True)
class Decision:
    """What a key's runs decide against its base, and everything a reader asks of it.

    ``word`` is one of :data:`DECISIONS`, or :data:`NOT_COMPARED`. A comparison of one look
    (``platperf compare``) keeps beside it the evidence its rule read (``tested``,
    ``significant``, ``big``); a gate's final comparison keeps that evidence too, for its table
    and JSON, while its word is the sequential one (``sequential``)."""

    word: str = NOT_COMPARED
    change: tuple | None = None    # (estimate, low, high) of the change, % of the base figure
    runs: int | None = None        # the new side's runs a sequential decision rests on
    why: str = ""                  # what an undecided key lacks
    final: bool = False            # undecided, and more runs cannot decide it (shared_cache)
    sequential: bool = False       # reached over repeated looks (run --against), not one look
    tested: bool = False           # one look: runs enough a side for its test (compare's basis "runs")
    significant: bool = False      # one look: the test passed (adjusted p < alpha, or a ratio interval without 1)
    big: bool = False              # one look: the change is at least the tolerance

    @property
    def regression(self) -> bool:
        return self.word == "regressed"

    @property
    def improvement(self) -> bool:
        return self.word == "improved"

    @property
    def equivalent(self) -> bool:
        return self.word == "equivalent"

    @property
    def confirmed(self) -> bool:
        """A change beyond the tolerance, decided: regressed or improved."""
        return self.regression or self.improvement

    @property
    def unconfirmed(self) -> bool:
        """One look: a change of at least the tolerance with too few runs a side to test it
        (never of a key held by a shared cache, nor after repeated looks)."""
        return self.big and not (self.tested or self.sequential or self.final)

    @property
    def shown(self) -> bool:
        """Whether a table's cell carries the change: a confirmed change; at one look, also a
        change of at least the tolerance that was significant or could not be tested (a key
        held by a shared cache keeps its change shown, undecided)."""
        if self.sequential:
            return self.confirmed
        return self.big and (self.significant or not self.tested)


def rule(direction: str, change: float, *, tested: bool, significant: bool, big: bool,
         equivalent: bool, interval: tuple | None, held: str = "",
         sequential: Decision | None = None) -> Decision:
    """The decision of a key measured on both sides, for one look and for many:

    * a decision reached over repeated looks (``platperf run --against``, :func:`decide`) is
      the key's as it stands;
    * else a key held (``held``: why the cache a VM shares with other tenants moves it,
      :mod:`platperf.compare.shared_cache`) is undecided, and more runs cannot decide it;
    * else a change confirmed at one look -- runs enough a side to test it (``tested``),
      ``significant``, at least the tolerance (``big``) -- is regressed or improved as
      :func:`worse` says of ``change`` (new minus base);
    * else it is equivalent when the two one-sided tests passed (:func:`equivalence`), else
      undecided.

    ``interval``: the change's interval one look found (its equivalence interval)."""
    look = dict(tested=tested, significant=significant, big=big)
    if sequential is not None:
        return replace(sequential, sequential=True, **look)
    if held:
        return Decision("undecided", interval, why=held, final=True, **look)
    if tested and significant and big:
        return Decision("regressed" if worse(direction, change) else "improved", interval, **look)
    return Decision("equivalent" if equivalent else "undecided", interval, **look)


def margins(tolerance: float) -> tuple[float, float]:
    """(low, high) of an equivalent log ratio: log(1 - t), log(1 + t), t the tolerance in %."""
    if not 0 < tolerance < 100:
        raise ValueError(f"a tolerance is a percentage above 0 and under 100, got {tolerance}")
    return math.log1p(-tolerance / 100.0), math.log1p(tolerance / 100.0)


def logs(values: Sequence[float]) -> list[float] | None:
    """The natural logs of positive figures (None when one is not: no ratio to test)."""
    if any(not v > 0 for v in values):
        return None
    return [math.log(v) for v in values]


def percent(interval: tuple) -> tuple:
    """An interval of log ratios as changes in %: (estimate, low, high)."""
    return tuple(math.expm1(v) * 100.0 for v in interval)


def equivalence(base: Sequence[float], new: Sequence[float], tolerance: float,
                alpha: float, *, base_sessions: Sequence | None = None,
                new_sessions: Sequence | None = None) -> tuple[bool, tuple | None]:
    """(equivalent, the interval in %) of two sets of run medians, one look: the two
    one-sided tests (Schuirmann, J. Pharmacokinet. Biopharm. 15(6), 1987) at ``alpha``, as
    the (1 - 2 alpha) interval of the log ratio inside the margins -- Welch's, or with a
    side's runs naming two sessions or more (``*_sessions``, a session key per run) the one
    that counts the drift between sessions (:func:`platperf.stats.sequential.interval`).
    Needs two runs a side and positive figures (else (False, None))."""
    lb, ln = logs(base), logs(new)
    if lb is None or ln is None or len(lb) < 2 or len(ln) < 2:
        return False, None
    low, high = margins(tolerance)
    found = sequential.interval(lb, ln, 1 - 2 * alpha, base_sessions, new_sessions)
    return low < found[1] and found[2] < high, percent(found)


def decide(base: Sequence[float], new: Sequence[float], tolerance: float, direction: str,
           *, alpha: float, keys: int = 1, sessions: Sequence | None = None) -> Decision:
    """A key's decision at the latest look its new runs allow (the first g of them, g one of
    :data:`platperf.stats.sequential.LOOKS`): regressed or improved when the change interval lies wholly
    beyond the tolerance, equivalent when the equivalence interval lies wholly within it,
    else undecided.

    Errors: a key truly within the tolerance is called regressed (or improved) with
    probability at most alpha / ``keys`` -- a gate fails on any one key, so its false alarm
    is shared out over the keys it decides (Bonferroni) -- and a key truly beyond it is
    called equivalent with probability at most alpha (a gate passes only when every key is
    equivalent, so that error needs no sharing: Berger, "Multiparameter hypothesis testing
    and acceptance sampling", Technometrics 24(4), 1982, intersection-union tests). Both hold
    over every look together (:func:`platperf.stats.sequential.repeated_interval`).

    ``sessions`` names the session (the ``platperf run`` invocation) of each base value: with
    two or more, the drift between sessions is counted
    (:func:`platperf.stats.sequential.session_interval`), the new runs in blocks of
    :data:`platperf.stats.sequential.BLOCK`, each a session; without, runs of one session
    stand for every session, and a machine that drifts between invocations by more than the
    tolerance is then seen as changed."""
    lb, ln = logs(base), logs(new)
    if lb is None or ln is None:
        return Decision("undecided", why="a figure that is not positive has no ratio", sequential=True)
    if len(lb) < 2:
        return Decision("undecided", why="the baseline has fewer than 2 runs", sequential=True)
    look = sequential.repeated_interval(lb, ln, alpha=alpha, alpha_change=alpha / max(1, keys),
                                        sessions=sessions)
    if look is None:
        return Decision("undecided", runs=len(ln), why=f"fewer than {sequential.LOOKS[0]} runs",
                        sequential=True)
    low, high = margins(tolerance)
    _, c_low, c_high = look.change
    if c_low > high or c_high < low:
        change = percent(look.change)
        return Decision("regressed" if worse(direction, change[0]) else "improved", change, look.runs,
                        sequential=True)
    within = percent(look.within)
    if low < look.within[1] and look.within[2] < high:
        return Decision("equivalent", within, look.runs, sequential=True)
    why = f"interval {within[1]:+.2f}% .. {within[2]:+.2f}% crosses +-{tolerance:g}%"
    if look.sessions > 1:
        why += (f"; the baseline's {look.sessions} sessions differ by {math.expm1(look.drift) * 100:.2f}% "
                f"(sd of their means): its share of the interval only more baseline sessions narrow")
    return Decision("undecided", within, look.runs, why=why, sequential=True)


def simulate(change_pct: float, spread_pct: float, *, tolerance: float, alpha: float,
             base_runs: int, trials: int, seed: int, keys: int = 1, drift_pct: float = 0.0,
             base_sessions: int = 1, count_drift: bool = True, window_pct: float = 0.0) -> dict[str, int]:
    """How often each word is said of one key whose true change is ``change_pct``, its runs'
    figures log-normal with a spread of ``spread_pct``, when new runs are added look after look
    (:data:`platperf.stats.sequential.LOOKS`) and measuring stops at the first decision --
    the optional stopping of ``platperf run --against``. Seeded: the same counts every time.
    At ``change_pct`` = 0 the share called regressed is the gate's false alarm; at the
    tolerance itself, the share called regressed or equivalent is each error's worst case.

    ``drift_pct``: every session is offset by a draw of that spread -- each of the
    ``base_sessions`` the baseline's runs are split into, and each block of
    :data:`platperf.stats.sequential.BLOCK` new runs (the model the gate's blocks rest on);
    ``window_pct``: one more offset, shared by all the new runs (another hour of a shared
    machine, which the blocks cannot see); ``count_drift`` False hides the sessions from
    :func:`decide`, as a gate on a one-session baseline sees them."""
    rng = random.Random(seed)
    shift, sigma = math.log1p(change_pct / 100.0), math.log1p(spread_pct / 100.0)
    between = math.log1p(drift_pct / 100.0)
    sessions = [i * base_sessions // base_runs for i in range(base_runs)]
    counts = dict.fromkeys(DECISIONS, 0)
    for _ in range(trials):
        offsets = [rng.gauss(0.0, between) for _ in range(base_sessions)]
        base = [math.exp(offsets[s] + rng.gauss(0.0, sigma)) for s in sessions]
        here = shift + rng.gauss(0.0, math.log1p(window_pct / 100.0))
        new: list[float] = []
        for g in sequential.LOOKS:
            while len(new) < g:
                block = here + rng.gauss(0.0, between)
                new += [math.exp(rng.gauss(block, sigma)) for _ in range(sequential.BLOCK)]
            decision = decide(base, new, tolerance, "lower", alpha=alpha, keys=keys,
                              sessions=sessions if count_drift else None)
            if decision.word != "undecided":
                break
        counts[decision.word] += 1
    return counts

# -- a label alone: settled (platperf run --repeat auto) ------------------------------------

@dataclass
class Settling:
    runs: int
    spread_pct: float | None       # run medians' standard deviation, % of their median
    detectable_pct: float | None   # smallest change a comparison with as many runs detects
    settled: bool


def settling(run_medians: Sequence[float], tolerance: float, alpha: float = 0.05) -> Settling:
    """Is a key settled: does the smallest change that a comparison of as many runs a side,
    as spread as these, detects (:func:`platperf.stats.minimum_detectable_effect`, power
    0.8) lie within ``tolerance``? A figure of 0 has no relative spread: settled when every
    run gave it, never otherwise."""
    n = len(run_medians)
    spread = stats.relative_spread(run_medians)
    if spread is None:
        same = n >= 2 and len(set(run_medians)) == 1
        return Settling(n, None, 0.0 if same else None, same)
    mde = stats.minimum_detectable_effect(spread, n, n, alpha=alpha)
    return Settling(n, spread, mde, mde <= tolerance)
