"""platperf.stats: the significance tests against published and scipy values."""
from __future__ import annotations

import math
import random

import pytest
from conftest import require_module

from platperf import stats


def test_mwu_exact_small_samples():
    # Mann & Whitney's exact null distribution: with 3 + 3 samples completely separated,
    # P(U = 9) = 1 / C(6, 3) = 1/20, two-sided p = 0.1 (as scipy: mannwhitneyu([1,2,3],[4,5,6])).
    u, p = stats.mann_whitney_u([1, 2, 3], [4, 5, 6])
    assert u == 0 and p == pytest.approx(0.1)
    u, p = stats.mann_whitney_u([4, 5, 6], [1, 2, 3])
    assert u == 9 and p == pytest.approx(0.1)


def test_mwu_exact_distribution_counts():
    # U for 2 + 2 samples: 0,1,2,2,3,4 over the 6 orderings.
    assert stats._mwu_counts(2, 2) == (1, 1, 2, 1, 1)
    assert sum(stats._mwu_counts(4, 7)) == math.comb(11, 4)
    assert stats.mwu_min_p(3, 3) == pytest.approx(0.1)
    assert stats.mwu_min_p(4, 4) == pytest.approx(2 / 70)


def test_mwu_textbook_example():
    # The scipy.stats.mannwhitneyu documentation example (after Conover 1980): ages of
    # males and females, U1 = 17, two-sided p = 0.1111.
    males = [19, 22, 16, 29, 24]
    females = [20, 11, 17, 12]
    u, p = stats.mann_whitney_u(males, females)
    assert u == 17.0
    # No ties here: the exact method, p = 0.1111 (scipy "exact").
    assert p == pytest.approx(0.1111, abs=5e-5)


def test_mwu_normal_approximation_with_ties():
    # Values hand-checked with the formula: x = [1,2,2,3], y = [2,3,3,4,4,5,5,6,6,7]:
    # ties force the normal approximation.
    x, y = [1, 2, 2, 3], [2, 3, 3, 4, 4, 5, 5, 6, 6, 7]
    u, p = stats.mann_whitney_u(x, y)
    ranks, ties = stats._ranks(x + y)
    assert u == pytest.approx(sum(ranks[:4]) - 10)
    n = 14
    var = 4 * 10 / 12 * ((n + 1) - sum(t ** 3 - t for t in ties) / (n * (n - 1)))
    z = (max(u, 40 - u) - 20 - 0.5) / math.sqrt(var)
    assert p == pytest.approx(math.erfc(z / math.sqrt(2)))
    assert 0.0 < p < 0.05


def test_mwu_identical_samples_p_is_one():
    assert stats.mann_whitney_u([5, 5, 5], [5, 5, 5])[1] == 1.0


def test_mwu_matches_scipy_when_available():
    scipy_stats = require_module("scipy.stats")
    rng = random.Random(11)
    for _ in range(200):
        n1, n2 = rng.randint(1, 15), rng.randint(1, 15)
        if rng.random() < 0.5:
            x = [rng.gauss(0, 1) for _ in range(n1)]
            y = [rng.gauss(0.7, 1) for _ in range(n2)]
        else:
            x = [rng.randint(0, 4) for _ in range(n1)]
            y = [rng.randint(0, 5) for _ in range(n2)]
        u, p = stats.mann_whitney_u(x, y)
        ref = scipy_stats.mannwhitneyu(x, y, alternative="two-sided")
        assert u == pytest.approx(ref.statistic)
        assert p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-12)


def test_welch_t_known_value():
    # The first example of the "Welch's t-test" Wikipedia article: t = -2.46,
    # df = 24.99, p = 0.021 (scipy.stats.ttest_ind(a, b, equal_var=False): 0.021378).
    a = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
    b = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4]
    assert stats.welch_t_test(a, b) == pytest.approx(0.021378, abs=5e-6)


def test_welch_matches_scipy_when_available():
    scipy_stats = require_module("scipy.stats")
    rng = random.Random(4)
    for _ in range(100):
        x = [rng.gauss(0, 1) for _ in range(rng.randint(2, 30))]
        y = [rng.gauss(rng.uniform(-1, 1), rng.uniform(0.5, 3)) for _ in range(rng.randint(2, 30))]
        ref = scipy_stats.ttest_ind(x, y, equal_var=False).pvalue
        assert stats.welch_t_test(x, y) == pytest.approx(ref, rel=1e-7, abs=1e-12)


def test_bootstrap_interval_is_seeded_and_covers_the_ratio():
    rng = random.Random(1)
    base = [rng.gauss(100, 2) for _ in range(20)]
    new = [rng.gauss(120, 2) for _ in range(20)]
    lo, hi = stats.bootstrap_median_ratio(base, new, seed=3)
    assert (lo, hi) == stats.bootstrap_median_ratio(base, new, seed=3)
    assert lo <= stats.median(new) / stats.median(base) <= hi
    assert 1.1 < lo < hi < 1.3
    lo, hi = stats.bootstrap_median_ratio(base, base, seed=3)
    assert lo <= 1.0 <= hi
