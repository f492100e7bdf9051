"""Statistics for decisions under repeated looks: equivalence, and changes beyond a margin,
read from intervals whose error rates hold however often the data are looked at
(``platperf run --against``, :mod:`platperf.compare.decisions`). One function per method, each
citing its source, as in :mod:`platperf.stats`.
"""
from __future__ import annotations

import math
from typing import NamedTuple, Sequence

from . import student_t_cdf, student_t_ppf, welch_parts


def welch_interval(x: Sequence[float], y: Sequence[float], level: float) -> tuple[float, float, float]:
    """(mean(y) - mean(x), low, high): the two-sided ``level`` confidence interval of the
    difference of two means with unequal variances (Welch 1947): d +- t_{(1+level)/2, df} *
    sqrt(sx^2/nx + sy^2/ny), df by Welch-Satterthwaite, as :func:`welch_t_test`. Two samples
    with no variance at all give the point (d, d, d). Needs at least two values a side."""
    mx, my, se2, df = welch_parts(x, y, "Welch's interval")
    d = my - mx
    if se2 == 0:
        return d, d, d
    half = student_t_ppf((1 + level) / 2, df) * math.sqrt(se2)
    return d, d - half, d + half


def session_parts(x_groups: Sequence[Sequence[float]], y_groups: Sequence[Sequence[float]],
                  conservative: bool = False) -> tuple[float, float, float]:
    """(mean(y) - mean(x), the variance of that difference, its degrees of freedom) when
    each side's values are grouped by the session (the ``platperf run`` invocation) that
    measured them, and every session carries an offset of its own -- a machine whose other
    tenants, temperature or page placement move between invocations more than within one.

    Method: the one-way random-effects model x = mu + b_session + e_run (Searle, Casella &
    McCulloch, "Variance Components", 1992, ch. 3). A side of S >= 2 sessions is the mean of
    its session means m_s, whose sample variance v estimates sigma_b^2 + sigma_w^2/n_s, so it
    adds v/S with S - 1 degrees of freedom. A side of one session (n values, variance s^2)
    adds s^2/n, and its one session's own offset when the other side has sessions to
    estimate it from: v (1 + 1/S) + s^2/n in all -- conservative by sigma_w^2/n_s, since v
    holds the other side's run noise too. Two sides of one session each give Welch's
    (1947) parts: drift between sessions cannot be seen, so is not counted. Degrees of
    freedom by Satterthwaite (Biometrics Bulletin 2(6), 1946); ``conservative``: the fewest
    of either side's instead (Hsu 1938; Mickey & Brown, "Bounds on the distribution functions
    of the Behrens-Fisher statistic", Ann. Math. Statist. 37(3), 1966: the level then holds
    whatever the ratio of the variances), for the far tails a gate tests at, where
    Satterthwaite's estimate from a side of few sessions makes the interval too narrow
    (measured: tests/test_decisions.py). However many runs a side of one session adds, the
    offset's share stays: only more sessions narrow it. Needs two values on a side of one
    session."""
    sides = []
    for groups in (x_groups, y_groups):
        groups = [g for g in groups if len(g)]
        values = groups[0] if len(groups) == 1 else [math.fsum(g) / len(g) for g in groups]
        k = len(values)
        if k < 2:
            raise ValueError("a session interval needs two sessions, or two values of one session, a side")
        mean = math.fsum(values) / k
        sides.append((mean, math.fsum((v - mean) ** 2 for v in values) / (k - 1), k, len(groups) > 1))
    (mx, vx, kx, sx), (my, vy, ky, sy) = sides
    if sx and not sy:
        terms = [(vx * (1 + 1 / kx), kx - 1), (vy / ky, ky - 1)]
    elif sy and not sx:
        terms = [(vx / kx, kx - 1), (vy * (1 + 1 / ky), ky - 1)]
    else:
        terms = [(vx / kx, kx - 1), (vy / ky, ky - 1)]
    se2 = math.fsum(t for t, _ in terms)
    if conservative:
        return my - mx, se2, min(f for _, f in terms)
    return my - mx, se2, se2 ** 2 / math.fsum(t * t / f for t, f in terms) if se2 else 0.0


def session_interval(x_groups: Sequence[Sequence[float]], y_groups: Sequence[Sequence[float]],
                     level: float, conservative: bool = False) -> tuple[float, float, float]:
    """(mean(y) - mean(x), low, high): the ``level`` interval of :func:`session_parts`'
    difference, d +- t_{(1+level)/2, df} sqrt(variance)."""
    d, se2, df = session_parts(x_groups, y_groups, conservative)
    if se2 == 0:
        return d, d, d
    half = student_t_ppf((1 + level) / 2, df) * math.sqrt(se2)
    return d, d - half, d + half


def session_test(x_groups: Sequence[Sequence[float]], y_groups: Sequence[Sequence[float]]) -> float:
    """Two-sided p-value of :func:`session_parts`' difference: t = d / sqrt(variance) on
    Satterthwaite's degrees of freedom (``platperf compare`` on a side measured in several
    sessions). No variance at all: 0 when the means differ, 1 when they are equal."""
    d, se2, df = session_parts(x_groups, y_groups)
    if se2 == 0:
        return 1.0 if d == 0 else 0.0
    return min(1.0, 2.0 * (1.0 - student_t_cdf(abs(d) / math.sqrt(se2), df)))


def interval(x: Sequence[float], y: Sequence[float], level: float, x_sessions: Sequence | None = None,
             y_sessions: Sequence | None = None) -> tuple[float, float, float]:
    """(mean(y) - mean(x), low, high) at ``level``: :func:`session_interval` when a side's
    values name two sessions or more (a session key per value), else :func:`welch_interval`."""
    gx, gy = grouped(x, x_sessions), grouped(y, y_sessions)
    if gx is None and gy is None:
        return welch_interval(x, y, level)
    return session_interval(gx or [x], gy or [y], level)


def grouped(values: Sequence[float], sessions: Sequence | None) -> list[list[float]] | None:
    """``values`` split by their ``sessions`` (one key per value, in order of first
    appearance), or None without keys or with fewer than two sessions."""
    if sessions is None or len(sessions) != len(values):
        return None
    groups: dict = {}
    for v, key in zip(values, sessions):
        groups.setdefault(key, []).append(v)
    return list(groups.values()) if len(groups) >= 2 else None


# The run counts at which a sequential decision may look (platperf run --against): doubling,
# so that six looks cover 3 to 96 runs and each keeps a sixth of the error.
LOOKS = (3, 6, 12, 24, 48, 96)
# Against a baseline of several sessions the new runs count in blocks of this many
# consecutive runs, each standing for a session (repeated_interval): every look is whole blocks.
BLOCK = LOOKS[0]


def look_alpha(alpha: float) -> float:
    """The error each look of :data:`LOOKS` may spend: alpha / len(LOOKS).

    Method: alpha spent evenly over the planned looks (an alpha-spending function, Lan &
    DeMets, "Discrete sequential boundaries for clinical trials", Biometrika 70(3), 1983,
    that spends alpha/L at each of L looks), each look's boundary set by the union bound
    (Bonferroni) instead of the looks' joint distribution: conservative, and valid whatever
    the data made of the decision to look again or to stop, and whichever looks are skipped.
    """
    return alpha / len(LOOKS)


class Sequential(NamedTuple):
    runs: int          # the new side's runs the look used (a point of LOOKS)
    look: int          # its number, from 1
    change: tuple      # (estimate, low, high) of mean(new) - mean(base), to test a change
    within: tuple      # (estimate, low, high), to test equivalence
    sessions: int = 1  # the baseline's sessions the intervals counted
    drift: float = 0.0 # the standard deviation of their means (0 with one session)


def repeated_interval(base: Sequence[float], new: Sequence[float], *, alpha: float,
                      alpha_change: float | None = None, sessions: Sequence | None = None) -> Sequential | None:
    """Repeated confidence intervals of mean(new) - mean(base) at the latest look the new
    side's values allow: the first g of them, g the largest of :data:`LOOKS` at most
    len(new); None before the first look (or with fewer than two base values).

    Method: repeated confidence intervals (Jennison & Turnbull, "Interim analyses: the
    repeated confidence interval approach", JRSS B 51(3), 1989; "Group Sequential Methods
    with Applications to Clinical Trials", 2000, ch. 9): the k-th look's interval is
    Welch's (:func:`welch_interval`) at level 1 - 2 alpha_k, alpha_k = :func:`look_alpha`.
    The intervals of every look of LOOKS then hold the true difference together with
    probability >= 1 - 2 alpha, so a decision read from any of them -- at whichever look the
    data made the caller stop -- errs on each side with probability <= alpha: equivalence
    as the two one-sided tests (Schuirmann, J. Pharmacokinet. Biopharm. 15(6), 1987), the
    ``within`` interval inside the margins; a change beyond a margin, the ``change``
    interval (level 1 - 2 alpha_change_k, default alpha) wholly past it. A baseline is
    fixed: only the new side grows, so its runs bound how narrow any interval gets.
    With ``sessions`` (a session key per base value) naming two or more, each look's interval
    is :func:`session_interval`'s instead, so that the drift between sessions is counted, and
    the new side's runs count in blocks of :data:`BLOCK` consecutive runs, each a session of
    its own: g/BLOCK block means against the baseline's session means (Welch's test on both
    sides' means; the first look, one block, carries its own offset, v (1 + 1/S)), on the
    conservative degrees of freedom of :func:`session_parts` (far tails, few blocks). The
    drift a gate's runs see over minutes then narrows with its blocks, where one session's
    offset would stay whatever its runs; an offset shared by every run of the gate and by no
    baseline session (another hour of a shared machine) is not counted -- the baseline's
    sessions taken at different times are what stands for it.
    """
    if len(base) < 2 or len(new) < LOOKS[0]:
        return None
    look = max(i for i, g in enumerate(LOOKS, 1) if g <= len(new))
    g = LOOKS[look - 1]
    first = list(new[:g])
    a_change = alpha if alpha_change is None else alpha_change
    level_change, level = 1 - 2 * look_alpha(a_change), 1 - 2 * look_alpha(alpha)
    groups = grouped(base, sessions)
    if groups is None:
        return Sequential(g, look, welch_interval(base, first, level_change), welch_interval(base, first, level))
    means = [math.fsum(v) / len(v) for v in groups]
    drift = math.sqrt(math.fsum((m - math.fsum(means) / len(means)) ** 2 for m in means) / (len(means) - 1))
    blocks = [first[i:i + BLOCK] for i in range(0, g, BLOCK)]
    return Sequential(g, look, session_interval(groups, blocks, level_change, conservative=True),
                      session_interval(groups, blocks, level, conservative=True), len(groups), drift)
