"""platperf.compare.decisions and platperf.stats.sequential: the four words and their error rates.

The intervals are checked against scipy, the words on stored run medians, and the error rates
of the sequential decision -- measuring stopped at the first look that decides -- by seeded
simulation against their nominal level, beside a naive rule (a fixed-level interval at every
look) that the same simulation catches inflating them.
"""
from __future__ import annotations

import math
import random

import pytest
from conftest import require_module

from platperf.compare import decisions
from platperf.stats import sequential


def test_welch_interval_matches_scipy():
    scipy_stats = require_module("scipy.stats")
    rng = random.Random(5)
    for _ in range(50):
        x = [rng.gauss(0, 1) for _ in range(rng.randint(2, 20))]
        y = [rng.gauss(rng.uniform(-1, 1), rng.uniform(0.5, 3)) for _ in range(rng.randint(2, 20))]
        level = rng.choice((0.9, 0.95, 0.99, 1 - 2 * 0.05 / 6))
        ref = scipy_stats.ttest_ind(y, x, equal_var=False).confidence_interval(level)
        d, low, high = sequential.welch_interval(x, y, level)
        assert d == pytest.approx(sum(y) / len(y) - sum(x) / len(x))
        assert (low, high) == pytest.approx((ref.low, ref.high), rel=1e-7)


def test_each_look_spends_an_equal_share_of_alpha():
    assert sequential.look_alpha(0.05) * len(sequential.LOOKS) == pytest.approx(0.05)
    base = [1.0, 1.1, 0.9]
    assert sequential.repeated_interval(base, [1.0, 1.0], alpha=0.05) is None   # before look 1
    look = sequential.repeated_interval(base, [1.0, 1.02, 0.98, 1.01, 5.0], alpha=0.05)
    # between looks only the first 3 count: the 5.0 waits for the look at 6
    assert (look.runs, look.look) == (3, 1) and look.within[0] == pytest.approx(0.0)
    # a change interval for a stricter alpha (a share over the keys) is wider
    split = sequential.repeated_interval(base, [1.0, 1.02, 0.98], alpha=0.05, alpha_change=0.005)
    assert split.change[2] - split.change[1] > split.within[2] - split.within[1]


# Run medians as a store keeps them: a latency key (lower is better) near 100 ns.
BASE = [100.2, 99.8, 100.1, 99.9, 100.0, 100.3, 99.7, 100.1]


def test_equivalent_needs_evidence_not_just_no_difference():
    same = [100.1, 99.9, 100.0, 100.2, 99.8, 100.0]
    assert decisions.equivalence(BASE, same, 3, 0.05)[0]
    # two wildly spread runs: no significant change, and no evidence of equivalence either
    ok, interval = decisions.equivalence(BASE, [80.0, 120.0], 3, 0.05)
    assert not ok and interval[1] < -3 and interval[2] > 3
    assert decisions.equivalence(BASE, [100.0], 3, 0.05) == (False, None)


def test_decide_says_each_word_on_stored_run_medians():
    slower = [107.1, 106.8, 107.3, 107.0, 106.9, 107.2]
    assert decisions.decide(BASE, slower, 3, "lower", alpha=0.05).word == "regressed"
    # the same figures are an improvement of a metric where higher is better (bandwidth)
    assert decisions.decide(BASE, slower, 3, "higher", alpha=0.05).word == "improved"
    d = decisions.decide(BASE, [100.1, 99.9, 100.0, 100.2, 99.8, 100.0], 3, "lower", alpha=0.05)
    assert d.word == "equivalent" and -3 < d.change[1] < d.change[2] < 3 and d.runs == 6
    # 2% slower against a 3% tolerance, noisy: neither beyond nor shown within
    d = decisions.decide(BASE, [98.0, 106.5, 101.0], 3, "lower", alpha=0.05)
    assert d.word == "undecided" and "crosses" in d.why
    assert decisions.decide(BASE[:1], slower, 3, "lower", alpha=0.05).why == \
        "the baseline has fewer than 2 runs"
    assert decisions.decide(BASE, [0.0, 1.0, 2.0], 3, "lower", alpha=0.05).word == "undecided"
    with pytest.raises(ValueError, match="tolerance"):
        decisions.margins(0)


def naive(change_pct, spread_pct, tolerance, alpha, base_runs, trials, seed):
    """The rule the sequential one replaces: a fixed (1 - 2 alpha) interval at every look."""
    rng = random.Random(seed)
    shift, sigma = math.log1p(change_pct / 100), math.log1p(spread_pct / 100)
    high, regressed = math.log1p(tolerance / 100), 0
    for _ in range(trials):
        base = [rng.gauss(0, sigma) for _ in range(base_runs)]
        new = []
        for g in sequential.LOOKS:
            new += [rng.gauss(shift, sigma) for _ in range(g - len(new))]
            _, low, _ = sequential.welch_interval(base, new, 1 - 2 * alpha)
            if low > high:
                regressed += 1
                break
    return regressed / trials


def test_simulated_error_rates_hold_under_optional_stopping():
    alpha, tolerance, spread, trials = 0.05, 3.0, 3.0, 400
    # A/A: the same code, measuring stops at the first decision; a key half as spread as the
    # tolerance is mostly shown equivalent
    aa = decisions.simulate(0.0, spread / 2, tolerance=tolerance, alpha=alpha, base_runs=10,
                            trials=trials, seed=1)
    assert (aa["regressed"] + aa["improved"]) / trials <= alpha and aa["equivalent"] > trials / 2
    # a true change of exactly the tolerance: the worst case of both errors
    edge = decisions.simulate(tolerance, spread, tolerance=tolerance, alpha=alpha, base_runs=10,
                              trials=trials, seed=2)
    assert edge["regressed"] / trials <= alpha and edge["equivalent"] / trials <= alpha
    # a change of 3 tolerances is found
    big = decisions.simulate(3 * tolerance, spread, tolerance=tolerance, alpha=alpha, base_runs=10,
                             trials=trials, seed=3)
    assert big["regressed"] / trials >= 0.8
    # the simulation is sharp enough to catch the naive rule's inflated false alarm
    assert naive(tolerance, spread, tolerance, alpha, 10, trials, seed=2) > alpha


def test_session_interval_counts_the_drift_between_sessions():
    groups = [[0.0, 0.02, -0.02], [0.10, 0.12, 0.08], [-0.10, -0.08, -0.12]]
    y = [0.01, -0.01, 0.0, 0.02]
    d, low, high = sequential.session_interval(groups, [y], 0.95)
    assert d == pytest.approx(sum(y) / 4 - 0.0)
    # by hand: v = var(0, 0.1, -0.1) = 0.01, a = v (1 + 1/3), b = var(y) / 4
    a, b = 0.01 * 4 / 3, (sum((v - 0.005) ** 2 for v in y) / 3) / 4
    df = (a + b) ** 2 / (a ** 2 / 2 + b ** 2 / 3)
    scipy_stats = require_module("scipy.stats")
    half = scipy_stats.t.ppf(0.975, df) * math.sqrt(a + b)
    assert (low, high) == pytest.approx((d - half, d + half), rel=1e-7)
    # the runs of the sessions pooled make a far narrower (Welch) interval: the drift hidden
    flat = [v for g in groups for v in g]
    _, wl, wh = sequential.welch_interval(flat, y, 0.95)
    assert wh - wl < (high - low) / 3
    assert sequential.grouped(flat, [0, 0, 0, 1, 1, 1, 2, 2, 2]) == groups
    assert sequential.grouped(flat, [7] * 9) is None and sequential.grouped(flat, None) is None


def test_two_sides_of_several_sessions_are_welch_on_their_session_means():
    """compare of two labels each measured in several sessions: each session's mean is one
    observation, Welch's test and interval on them (scipy's as the reference)."""
    scipy_stats = require_module("scipy.stats")
    x = [[1.00, 1.02, 0.98], [1.10, 1.12], [0.90, 0.91, 0.89, 0.90]]
    y = [[1.20, 1.22], [1.05, 1.07, 1.06], [1.30, 1.28]]
    mx, my = [sum(g) / len(g) for g in x], [sum(g) / len(g) for g in y]
    d, low, high = sequential.session_interval(x, y, 0.9)
    ref = scipy_stats.ttest_ind(my, mx, equal_var=False)
    assert d == pytest.approx(sum(my) / 3 - sum(mx) / 3)
    assert sequential.session_test(x, y) == pytest.approx(ref.pvalue, rel=1e-6)
    ci = ref.confidence_interval(0.9)
    assert (low, high) == pytest.approx((ci.low, ci.high), rel=1e-6)
    # a side of one session facing one of several carries its own session's offset too:
    # v (1 + 1/S) either way round, the same interval mirrored
    one = [1.0, 1.01, 0.99, 1.02]
    d1, l1, h1 = sequential.session_interval(x, [one], 0.9)
    d2, l2, h2 = sequential.session_interval([one], x, 0.9)
    assert (d1, l1, h1) == pytest.approx((-d2, -h2, -l2))
    # two sides of one session each: Welch's on the runs, drift not seen
    assert sequential.session_interval([one], [[1.1, 1.12, 1.08]], 0.9) == pytest.approx(
        sequential.welch_interval(one, [1.1, 1.12, 1.08], 0.9))


def test_equivalence_counts_a_sides_sessions():
    """One look (compare): runs of one label in three sessions whose means differ by 10%
    are not shown equivalent to a new side at the same level -- their drift is counted --
    while the same runs taken as one session would be."""
    base = [100.0, 100.5, 99.5, 110.0, 110.5, 109.5, 90.0, 90.5, 89.5] * 2
    keys = [0, 0, 0, 1, 1, 1, 2, 2, 2] * 2
    new = [100.0 + 0.1 * (i % 5) for i in range(30)]
    pooled, _ = decisions.equivalence(base, new, 10, 0.05)
    counted, interval = decisions.equivalence(base, new, 10, 0.05, base_sessions=keys)
    assert pooled and not counted
    assert interval[2] - interval[1] > 20


def test_drift_between_sessions_breaks_a_one_session_gate_and_not_a_counted_one():
    """A/A with each session offset by 5% (a shared machine): runs of one baseline session
    pooled as if they were every session call the same code regressed far above alpha; with
    the baseline's sessions counted the false alarm stays within alpha."""
    alpha, tolerance, trials = 0.05, 3.0, 300
    common = dict(tolerance=tolerance, alpha=alpha, base_runs=40, trials=trials, seed=4,
                  drift_pct=5.0, base_sessions=4)
    hidden = decisions.simulate(0.0, 3.0, **common, count_drift=False)
    counted = decisions.simulate(0.0, 3.0, **common)
    assert hidden["regressed"] / trials > alpha
    assert (counted["regressed"] + counted["improved"]) / trials <= alpha
    # a change far beyond the drift is still found
    big = decisions.simulate(30.0, 3.0, **{**common, "drift_pct": 2.0, "base_sessions": 8, "base_runs": 64})
    assert big["regressed"] / trials >= 0.8


def test_against_several_sessions_the_new_runs_count_in_blocks():
    """The gate's new runs count in blocks of BLOCK consecutive runs, each a session: the
    look's interval is the session interval of the baseline's sessions against those blocks,
    on the fewest degrees of freedom of either side; far narrower at 48 runs than one session
    facing the baseline, whose own offset stays whatever its runs."""
    rng = random.Random(8)
    offsets = [rng.gauss(0, 0.03) for _ in range(16)]
    base = [offsets[i // 10] + rng.gauss(0, 0.06) for i in range(160)]
    keys = [i // 10 for i in range(160)]
    new = [rng.gauss(0, 0.03) + rng.gauss(0, 0.06) for _ in range(48)]
    look = sequential.repeated_interval(base, new, alpha=0.05, sessions=keys)
    groups = [base[s * 10:(s + 1) * 10] for s in range(16)]
    blocks = [new[i:i + sequential.BLOCK] for i in range(0, 48, sequential.BLOCK)]
    level = 1 - 2 * sequential.look_alpha(0.05)
    assert (look.runs, look.sessions) == (48, 16) and len(blocks) == 16
    assert look.within == pytest.approx(sequential.session_interval(groups, blocks, level, conservative=True))
    # the fewest degrees of freedom: 15 here, where Satterthwaite's would be more
    d, se2, df = sequential.session_parts(groups, blocks, conservative=True)
    assert df == 15 and sequential.session_parts(groups, blocks)[2] > 15
    one = sequential.session_interval(groups, [new], level)
    assert look.within[2] - look.within[1] < 0.7 * (one[2] - one[1])
    # the first look is one block: it carries its own offset, as one session does
    first = sequential.repeated_interval(base, new[:3], alpha=0.05, sessions=keys)
    assert first.runs == sequential.BLOCK and first.within == pytest.approx(
        sequential.session_interval(groups, [new[:3]], level, conservative=True))


def test_the_blocks_hold_the_error_rates_where_satterthwaites_degrees_of_freedom_do_not(monkeypatch):
    """A true change of exactly the tolerance, baseline of 16 sessions, every session and
    every block offset by 1%: with the fewest degrees of freedom both errors stay within
    alpha; with Satterthwaite's the looks of 2 and 4 blocks make the interval too narrow (a
    side of 2 sessions estimates its variance on one degree of freedom)."""
    alpha, trials = 0.05, 1500
    common = dict(tolerance=3.0, alpha=alpha, base_runs=160, base_sessions=16, trials=trials,
                  seed=3, drift_pct=1.0)
    edge = decisions.simulate(3.0, 3.0, **common)
    assert edge["regressed"] / trials <= alpha and edge["equivalent"] / trials <= alpha
    real = sequential.session_interval
    monkeypatch.setattr(sequential, "session_interval",
                        lambda x, y, level, conservative=False: real(x, y, level))
    satterthwaite = decisions.simulate(3.0, 3.0, **common)
    assert satterthwaite["regressed"] / trials > alpha and satterthwaite["equivalent"] / trials > alpha
