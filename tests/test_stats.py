"""platperf.stats: the significance tests against published and scipy values."""
from __future__ import annotations

import math
import random

import pytest
from conftest import require_module

from platperf import stats
from platperf.stats import levels


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


def test_geometric_mean_matches_scipy_and_refuses_what_has_none():
    assert stats.geometric_mean([2.0, 8.0]) == pytest.approx(4.0)
    scipy_stats = require_module("scipy.stats")
    rng = random.Random(13)
    for _ in range(100):
        values = [rng.lognormvariate(0, 3) for _ in range(rng.randint(1, 40))]
        assert stats.geometric_mean(values) == pytest.approx(float(scipy_stats.gmean(values)), rel=1e-12)
    for bad in ([], [1.0, 0.0], [2.0, -1.0], [float("nan")]):
        with pytest.raises(ValueError):
            stats.geometric_mean(bad)


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


# -- runs as the unit: intervals, detectable effects, the run-level test ------------------

def test_median_interval_is_the_exact_bootstrap_distribution():
    """The closed form against many seeded resamples: each end within one rank of the
    Monte Carlo percentile (odd n: the median itself; even n: the interval holds it)."""
    rng = random.Random(3)
    for n in (3, 7, 8, 15):
        values = sorted(rng.gauss(100, 5) for _ in range(n))
        lo, hi = stats.bootstrap_median_ci(values)
        meds = sorted(stats.median([values[rng.randrange(n)] for _ in range(n)]) for _ in range(20000))
        mc_lo, mc_hi = meds[int(0.025 * len(meds))], meds[int(0.975 * len(meds)) - 1]
        assert lo <= mc_lo + 1e-9 and hi >= mc_hi - 1e-9
        if n % 2:
            rank = values.index
            assert abs(rank(lo) - rank(mc_lo)) <= 1 and abs(rank(hi) - rank(mc_hi)) <= 1
    # Ties move together: a value repeated is one step of the distribution.
    tied = [1.0, 1.0, 1.0, 1.0, 2.0, 3.0, 9.0]
    meds = sorted(stats.median([tied[rng.randrange(7)] for _ in range(7)]) for _ in range(20000))
    assert stats.bootstrap_median_ci(tied) == (meds[int(0.025 * 20000)], meds[int(0.975 * 20000) - 1])
    # Three values: each is the resample's median with probability >= 7/27: [min, max].
    assert stats.bootstrap_median_ci([3.0, 1.0, 2.0]) == (1.0, 3.0)
    assert stats.bootstrap_median_ci([5.0]) == (5.0, 5.0)


def test_binomial_tail_and_t_quantiles_match_scipy_when_available():
    ss = require_module("scipy.stats")
    for k, n, p in ((3, 7, 0.4), (1, 1, 0.5), (50, 101, 0.5), (10, 12, 0.9)):
        assert stats.binomial_sf(k, n, p) == pytest.approx(ss.binom.sf(k - 1, n, p), rel=1e-9)
    for q, df in ((0.975, 4), (0.8, 4), (0.975, 1), (0.025, 30), (0.5, 7)):
        assert stats.student_t_ppf(q, df) == pytest.approx(ss.t.ppf(q, df), rel=1e-7, abs=1e-6)


def test_minimum_detectable_effect():
    # 1% run-to-run spread, 3 runs a side: (t_.975,4 + t_.8,4) * 1% * sqrt(2/3) = 3.04%
    assert stats.minimum_detectable_effect(1.0, 3, 3) == pytest.approx((2.7764 + 0.9410) * math.sqrt(2 / 3), rel=1e-3)
    assert stats.minimum_detectable_effect(1.0, 1, 3) == math.inf
    # More runs detect smaller changes; a 2% change at 1% spread needs 6 runs a side.
    assert stats.minimum_detectable_effect(1.0, 10, 10) < stats.minimum_detectable_effect(1.0, 3, 3)
    assert stats.runs_needed(2.0, 1.0) == 6
    assert stats.minimum_detectable_effect(1.0, 6, 6) <= 2.0 < stats.minimum_detectable_effect(1.0, 5, 5)
    assert stats.runs_needed(2.0, 0.0) == 2 and stats.runs_needed(0.0, 1.0) is None


def test_run_medians_test_treats_runs_as_the_unit():
    """Thousands of samples a run do not make two runs of identical code differ: each run's
    shared offset is what the test sees."""
    rng = random.Random(11)
    def run(offset):
        return [100 + offset + rng.gauss(0, 0.1) for _ in range(500)]
    base = [run(o) for o in (0.0, 1.0, -0.5)]
    new = [run(o) for o in (0.5, -1.0, 0.2)]
    pooled = stats.mann_whitney_u(sum(base, []), sum(new, []))[1]
    assert pooled < 1e-6                                    # samples as independent: "significant"
    assert stats.run_medians_test(base, new) > 0.5          # runs as the unit: nothing
    shifted = [run(o + 5) for o in (0.5, -1.0, 0.2)]
    assert stats.run_medians_test(base, shifted) < 0.01


def test_benjamini_hochberg_adjusts_for_the_number_of_keys():
    # Benjamini & Hochberg's step-up: q_(i) = min_{j>=i} p_(j) m / j, in input order.
    assert stats.benjamini_hochberg([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.04 * 4 / 3, 0.04 * 4 / 3, 0.5])
    assert stats.benjamini_hochberg([]) == []
    # 1,000 keys of identical code: about 50 raw p-values under 0.05, no adjusted one.
    rng = random.Random(8)
    ps = [rng.random() for _ in range(1000)]
    assert sum(p < 0.05 for p in ps) > 30 and min(stats.benjamini_hochberg(ps)) >= 0.05


def test_benjamini_hochberg_matches_scipy_when_available():
    ss = require_module("scipy.stats")      # false_discovery_control: scipy >= 1.11
    rng = random.Random(9)
    ps = [rng.random() ** 3 for _ in range(200)]
    assert stats.benjamini_hochberg(ps) == pytest.approx(list(ss.false_discovery_control(ps)), rel=1e-12)


# -- two levels ----------------------------------------------------------------------------------
def _two_means_by_brute_force(values):
    """The split of the sorted logs with the least within-level sum of squares (Fisher 1958),
    computed the long way: what Otsu's between-level maximum must find."""
    xs = sorted(values)
    logs = [math.log(v) for v in xs]

    def ss(part):
        m = sum(part) / len(part)
        return sum((v - m) ** 2 for v in part)
    k = min(range(1, len(xs)), key=lambda k: ss(logs[:k]) + ss(logs[k:]))
    return xs[:k], xs[k:]


def test_two_levels_of_a_cache_shared_with_a_neighbour():
    # an 8 MiB chase inside a shared 32 MiB L3: 12 ns while the neighbour is quiet, DRAM's 100 ns
    # while it sweeps the cache (issue 25's VM)
    values = [12.1, 12.3, 98.0, 12.2, 101.0, 12.0, 99.5, 12.4]
    found = levels.two_levels(values)
    assert found == levels.TwoLevels(low=12.2, high=99.5, n_low=5, n_high=3)
    low, high = _two_means_by_brute_force(values)
    assert (stats.median(low), stats.median(high), len(low), len(high)) == tuple(found)


@pytest.mark.parametrize("seed", range(20))
def test_two_levels_split_is_the_exact_two_means_split(seed):
    rng = random.Random(seed)
    fast, slow = rng.uniform(5, 20), rng.uniform(60, 200)
    values = [fast * rng.uniform(0.9, 1.1) for _ in range(rng.randint(2, 12))] + \
             [slow * rng.uniform(0.8, 1.3) for _ in range(rng.randint(2, 12))]
    rng.shuffle(values)
    low, high = _two_means_by_brute_force(values)
    assert levels.two_levels(values) == (stats.median(low), stats.median(high), len(low), len(high))


@pytest.mark.parametrize("values, why", [
    ([12.1, 12.3, 98.0, 12.2, 12.0, 12.4], "one slow value is an excursion, not a level"),
    ([100, 120, 140, 160, 180, 200], "a spread, not two levels"),
    ([10, 10, 10, 10], "one level"),
    ([10, 12, 13, 16, 19, 22, 26, 30], "the slow half is under twice the fast half"),
    ([12, 100, 13], "too few values to say"),
])
def test_no_two_levels(values, why):
    assert levels.two_levels(values) is None, why
