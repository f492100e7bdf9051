"""Statistics, in one place (pyperf _utils / asv _stats style).

Reports and comparisons call these; they never re-derive a median or a threshold inline.
"""
from __future__ import annotations

import functools
import math
import random
from typing import NamedTuple, Sequence


def median(values: Sequence[float], low: bool = False) -> float:
    """The sample median (mean of the two middle values for an even count; ``low``: the lower
    of the two, a median that is one of the values, as of counts -- Python's median_low)."""
    s = sorted(values)
    n = len(s)
    if n == 0:
        raise ValueError("median of no values")
    mid = n // 2
    return s[mid] if n % 2 else s[mid - 1] if low else (s[mid - 1] + s[mid]) / 2.0


def geometric_mean(values: Sequence[float]) -> float:
    """The geometric mean, exp of the mean of the natural logs (summed with fsum, so many
    small ratios neither underflow nor lose digits). Of positive values only: a zero or
    negative figure has no place in a mean of ratios (ValueError). EEMBC's CoreMark-PRO mark
    is one (util/perl/cert_mark.pl: the product of the terms to the power 1/n)."""
    if not values:
        raise ValueError("geometric mean of no values")
    if any(not v > 0 for v in values):
        raise ValueError("geometric mean of a value that is not positive")
    return math.exp(math.fsum(math.log(v) for v in values) / len(values))


def summary(values: Sequence[float]) -> dict:
    """n, min, median, mean, max and sample standard deviation (n-1; 0 for one value)."""
    n = len(values)
    if n == 0:
        raise ValueError("summary of no values")
    mean = math.fsum(values) / n
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return {"n": n, "min": min(values), "median": median(values), "mean": mean,
            "max": max(values), "stdev": math.sqrt(var)}


# -- significance of a difference between two sets of samples ---------------------------

def _ranks(values: Sequence[float]) -> tuple[list[float], list[int]]:
    """Mid-ranks (1-based, ties share their average rank) and the sizes of the tie groups."""
    n = len(values)
    order = sorted(range(n), key=values.__getitem__)
    ranks = [0.0] * n
    ties = []
    i = 0
    while i < n:
        v = values[order[i]]
        j = i + 1
        while j < n and values[order[j]] == v:
            j += 1
        if j - i == 1:
            ranks[order[i]] = i + 1.0
        else:
            mid = (i + j + 1) / 2.0          # the mean of ranks i+1 .. j
            for k in range(i, j):
                ranks[order[k]] = mid
            ties.append(j - i)
        i = j
    return ranks, ties


@functools.lru_cache(maxsize=256)
def _mwu_counts(n1: int, n2: int) -> tuple[int, ...]:
    """How many of the C(n1+n2, n1) orderings give U = 0, 1, ..., n1*n2.

    The coefficients of the Gaussian binomial [n1+n2 choose n1]_q (Mann & Whitney 1947),
    built as prod_{i=1..n1} (1 - q^(n2+i)) / (1 - q^i) with exact integer arithmetic.
    """
    size = n1 * n2 + 1
    poly = [0] * size
    poly[0] = 1
    for i in range(1, n1 + 1):
        k = n2 + i
        for u in range(size - 1, k - 1, -1):      # multiply by (1 - q^k)
            poly[u] -= poly[u - k]
        for u in range(i, size):                  # divide by (1 - q^i)
            poly[u] += poly[u - i]
    return tuple(poly)


# Above this many (n1 * n2) cells the exact null distribution is not worth building.
_MWU_EXACT_MAX_CELLS = 10_000


def mann_whitney_u(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Two-sided Mann-Whitney U test: returns (U of x, p-value).

    Method (Mann & Whitney 1947; as scipy.stats.mannwhitneyu with method="auto",
    alternative="two-sided", use_continuity=True): U1 = R1 - n1(n1+1)/2 from the mid-ranks
    of the pooled samples. Without ties and with min(n1, n2) <= 8 (and n1*n2 <= 10,000)
    the p-value is exact, 2 * P(U >= max(U1, U2)) from the null distribution of U.
    Otherwise it is the normal approximation with the tie correction of the variance,
    sigma^2 = n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1))), and a 0.5 continuity
    correction. Identical samples (sigma = 0) give p = 1.
    """
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        raise ValueError("Mann-Whitney U needs samples on both sides")
    ranks, ties = _ranks(list(x) + list(y))
    u1 = math.fsum(ranks[:n1]) - n1 * (n1 + 1) / 2.0
    u_big = max(u1, n1 * n2 - u1)
    if not ties and min(n1, n2) <= 8 and n1 * n2 <= _MWU_EXACT_MAX_CELLS:
        counts = _mwu_counts(min(n1, n2), max(n1, n2))
        tail = sum(counts[int(round(u_big)):])
        p = 2.0 * tail / math.comb(n1 + n2, n1)
        return u1, min(p, 1.0)
    n = n1 + n2
    tie_term = sum(t ** 3 - t for t in ties) / (n * (n - 1))
    var = n1 * n2 / 12.0 * ((n + 1) - tie_term)
    if var <= 0:
        return u1, 1.0
    z = (u_big - n1 * n2 / 2.0 - 0.5) / math.sqrt(var)
    return u1, min(1.0, math.erfc(z / math.sqrt(2.0)))


def mwu_min_p(n1: int, n2: int) -> float:
    """The smallest two-sided p-value the exact Mann-Whitney U test can reach: 2 / C(n1+n2, n1).

    With 2 + 2 or 3 + 3 samples it is 0.33 or 0.1: no difference can ever be significant
    at 0.05, so callers fall back to the tolerance alone and say so.
    """
    return min(1.0, 2.0 / math.comb(n1 + n2, n1))


def mwu_min_runs(alpha: float = 0.05) -> int:
    """The fewest samples a side (as many on each) with which :func:`mwu_min_p` is under
    ``alpha``: 4 at 0.05 (2 / C(8, 4) = 0.029)."""
    n = 1
    while mwu_min_p(n, n) >= alpha:
        n += 1
    return n


def bootstrap_median_ratio(base: Sequence[float], new: Sequence[float], *, level: float = 0.95,
                           resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of median(new) / median(base).

    Method: Efron & Tibshirani, "An Introduction to the Bootstrap" (1993), ch. 13: draw
    ``resamples`` resamples with replacement from each side independently, take the ratio
    of their medians, and return the (1-level)/2 and (1+level)/2 quantiles (nearest rank)
    of those ratios. Seeded with ``seed``, so the same samples always give the same interval.
    A base median of 0 in a resample gives an infinite ratio, which sorts last.
    """
    if not base or not new:
        raise ValueError("bootstrap needs samples on both sides")
    rng = random.Random(seed)
    nb, nn = len(base), len(new)
    ratios = []
    for _ in range(resamples):
        mb = median([base[rng.randrange(nb)] for _ in range(nb)])
        mn = median([new[rng.randrange(nn)] for _ in range(nn)])
        ratios.append(mn / mb if mb else math.inf)
    ratios.sort()
    lo = ratios[max(0, int(math.floor((1 - level) / 2 * resamples)))]
    hi = ratios[min(resamples - 1, int(math.ceil((1 + level) / 2 * resamples)) - 1)]
    return lo, hi


class PlacementTest(NamedTuple):
    spread: float   # (largest - smallest placement mean) / smallest
    noise: float    # residual standard deviation / grand mean: one measurement's run-to-run noise
    f: float        # placements' mean square / residual mean square
    p: float        # P(F >= f) with no placement effect


def placement_spread(rounds: Sequence[Sequence[float]]) -> PlacementTest:
    """Does code placement move a figure more than measuring it again does?

    ``rounds[i][r]`` is the figure (a median) of placement i in round r; each round
    measured every placement once, the rounds one after the other (align-sweep). Method:
    two-way analysis of variance without replication, placements x rounds (Montgomery,
    "Design and Analysis of Experiments", 8th ed., section 5.3, one observation per cell):
    the round means absorb drift of the whole machine between rounds, and what is left
    after the placement and round means — the residual — is the run-to-run noise of one
    measurement. F = MS_placement / MS_residual with (P-1, (P-1)(R-1)) degrees of freedom;
    p = I_{d2/(d2+d1 F)}(d2/2, d1/2), the F tail from the regularised incomplete beta.
    No residual at all (every measurement exactly additive) gives p = 0 when the
    placements differ, 1 when they do not. Needs two placements, two rounds, positive figures.
    """
    p = len(rounds)
    if p < 2:
        raise ValueError("a placement spread needs at least two placements")
    r = len(rounds[0])
    if r < 2 or any(len(row) != r for row in rounds):
        raise ValueError("run-to-run noise needs the same number (at least two) of rounds per placement")
    if min(min(row) for row in rounds) <= 0:
        raise ValueError("placement figures must be positive")
    grand = math.fsum(math.fsum(row) for row in rounds) / (p * r)
    row_means = [math.fsum(row) / r for row in rounds]
    col_means = [math.fsum(row[j] for row in rounds) / p for j in range(r)]
    ss_rows = r * math.fsum((m - grand) ** 2 for m in row_means)
    ss_error = math.fsum((rounds[i][j] - row_means[i] - col_means[j] + grand) ** 2
                         for i in range(p) for j in range(r))
    df_rows, df_error = p - 1, (p - 1) * (r - 1)
    ms_rows, ms_error = ss_rows / df_rows, ss_error / df_error
    spread = (max(row_means) - min(row_means)) / min(row_means)
    noise = math.sqrt(ms_error) / grand
    if ms_error <= ms_rows * 1e-24:
        return PlacementTest(spread, noise, math.inf if ms_rows > 0 else 0.0, 0.0 if ms_rows > 0 else 1.0)
    f = ms_rows / ms_error
    tail = _betainc(df_error / 2.0, df_rows / 2.0, df_error / (df_error + df_rows * f))
    return PlacementTest(spread, noise, f, min(1.0, tail))


def welch_t_test(x: Sequence[float], y: Sequence[float]) -> float:
    """Two-sided p-value of Welch's unequal-variance t test (Welch 1947).

    t = (mean(x) - mean(y)) / sqrt(sx^2/nx + sy^2/ny) with the Welch-Satterthwaite degrees
    of freedom; the Student t tail comes from the regularised incomplete beta function,
    P(|T| > t) = I_{df/(df+t^2)}(df/2, 1/2). Two samples with no variance at all give
    p = 0 when their means differ and 1 when they are equal.
    Needs at least two values a side.
    """
    mx, my, se2, df = welch_parts(x, y, "Welch's t test")
    if se2 == 0:
        return 1.0 if mx == my else 0.0
    t = (mx - my) / math.sqrt(se2)
    return min(1.0, _betainc(df / 2.0, 0.5, df / (df + t * t)))


def welch_parts(x: Sequence[float], y: Sequence[float], what: str) -> tuple[float, float, float, float]:
    """(mean x, mean y, the squared standard error of their difference, Welch-Satterthwaite's
    degrees of freedom; 0 when there is no variance) for :func:`welch_t_test` and
    :func:`platperf.stats.sequential.welch_interval`. ``what`` names the caller in the error
    raised with fewer than two values a side."""
    nx, ny = len(x), len(y)
    if nx < 2 or ny < 2:
        raise ValueError(f"{what} needs at least two values a side")
    mx, my = math.fsum(x) / nx, math.fsum(y) / ny
    vx = math.fsum((v - mx) ** 2 for v in x) / (nx - 1)
    vy = math.fsum((v - my) ** 2 for v in y) / (ny - 1)
    se2 = vx / nx + vy / ny
    df = se2 ** 2 / ((vx / nx) ** 2 / (nx - 1) + (vy / ny) ** 2 / (ny - 1)) if se2 else 0.0
    return mx, my, se2, df


def _betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b), by the continued fraction evaluated with
    the modified Lentz method (Press et al., Numerical Recipes, 3rd ed., section 6.4)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    if x > (a + 1.0) / (a + b + 2.0):   # the fraction converges fast only on this side
        return 1.0 - _betainc(b, a, 1.0 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return math.exp(log_front) * h / a


# -- runs as the unit of evidence ---------------------------------------------------------

def binomial_sf(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), as the regularised incomplete beta I_p(k, n - k + 1)
    (Abramowitz & Stegun 26.5.24)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return _betainc(k, n - k + 1, p)


def bootstrap_median_ci(values: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the median, from the exact bootstrap distribution
    (as if with infinitely many resamples: no seed, no resampling cost).

    Method (Efron, "The Jackknife, the Bootstrap and Other Resampling Plans", 1982, ch. 10;
    Maritz & Jarrett, JASA 73, 1978): in a resample of n values drawn with replacement, the
    number drawn at or below the sample's k-th smallest value x_(k) is Binomial(n, F_k), F_k
    the share of values <= x_(k); so the resample's m-th order statistic is <= x_(k) with
    probability P(Binomial(n, F_k) >= m). The low end is the (1-level)/2 quantile (nearest
    rank) of the resample's lower middle order statistic (m = ceil(n/2)), the high end the
    (1+level)/2 quantile of its upper one (m = floor(n/2) + 1). For odd n both are the
    median and the interval is the percentile interval itself; for even n the resample's
    median lies between the two, so the interval holds at least ``level`` of it.
    """
    s = sorted(values)
    n = len(s)
    if n == 0:
        raise ValueError("interval of no values")
    if len(set(s)) == n:       # no ties: F_k = k/n, the ranks depend on n alone
        lo, hi = _median_ci_ranks(n, level)
        return s[lo], s[hi]
    # ties: F_k for the last copy of each value, so that tied values move together
    last = {v: i + 1 for i, v in enumerate(s)}
    return (s[_order_stat_quantile(n, (n + 1) // 2, (1 - level) / 2, lambda k: last[s[k]])],
            s[_order_stat_quantile(n, n // 2 + 1, (1 + level) / 2, lambda k: last[s[k]])])


@functools.lru_cache(maxsize=1024)
def _median_ci_ranks(n: int, level: float) -> tuple[int, int]:
    return (_order_stat_quantile(n, (n + 1) // 2, (1 - level) / 2, lambda k: k + 1),
            _order_stat_quantile(n, n // 2 + 1, (1 + level) / 2, lambda k: k + 1))


def _order_stat_quantile(n: int, m: int, p: float, at_or_below) -> int:
    """The smallest rank k (0-based) with P(m-th order statistic of a resample <= x_(k)) >= p,
    ``at_or_below(k)`` being how many of the n values are <= x_(k)."""
    lo, hi = 0, n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if binomial_sf(m, n, at_or_below(mid) / n) >= p:
            hi = mid
        else:
            lo = mid + 1
    return lo


def relative_spread(values: Sequence[float]) -> float | None:
    """Sample standard deviation as a percentage of |median| (None below two values or for
    a median of 0): the run-to-run spread of a key, from its run medians."""
    if len(values) < 2:
        return None
    m = median(values)
    return None if m == 0 else summary(values)["stdev"] / abs(m) * 100.0


def student_t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` degrees of freedom, by the incomplete beta:
    P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2)."""
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


@functools.lru_cache(maxsize=4096)
def student_t_ppf(p: float, df: float) -> float:
    """The p-quantile of Student's t (inverse of :func:`student_t_cdf`, by bisection;
    cached: a comparison asks for the same few degrees of freedom for every key)."""
    if not 0.0 < p < 1.0:
        raise ValueError("a quantile needs 0 < p < 1")
    lo, hi = -1.0, 1.0
    while student_t_cdf(lo, df) > p:
        lo *= 2.0
    while student_t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if student_t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, abs(mid)):
            break
    return (lo + hi) / 2.0


POWER = 0.8


def minimum_detectable_effect(spread_pct: float, n_base: int, n_new: int, *, alpha: float = 0.05,
                              power: float = POWER) -> float:
    """The smallest change, in %, that a two-sided two-sample t test on ``n_base`` and
    ``n_new`` runs finds at significance ``alpha`` with probability ``power``, when the run
    medians spread by ``spread_pct`` (standard deviation, % of the median).

    Method: the normal-theory power formula with Student t quantiles (Cohen, "Statistical
    Power Analysis for the Behavioral Sciences", 2nd ed. 1988, ch. 2; van Belle,
    "Statistical Rules of Thumb", 2nd ed. 2008, §2.4): MDE = (t_{1-alpha/2,df} +
    t_{power,df}) * s * sqrt(1/n_base + 1/n_new), df = n_base + n_new - 2. Infinite when
    a side has one run (no degree of freedom for the spread).
    """
    df = n_base + n_new - 2
    if n_base < 2 or n_new < 2 or df < 1:
        return math.inf
    t = student_t_ppf(1 - alpha / 2, df) + student_t_ppf(power, df)
    return t * spread_pct * math.sqrt(1.0 / n_base + 1.0 / n_new)


def runs_needed(effect_pct: float, spread_pct: float, *, alpha: float = 0.05, power: float = POWER,
                most: int = 1000) -> int | None:
    """Runs a side for :func:`minimum_detectable_effect` to reach ``effect_pct`` (at least 2;
    None beyond ``most``, or for no effect at all)."""
    if effect_pct <= 0:
        return None
    if spread_pct <= 0:
        return 2
    # t quantiles exceed the normal ones, so the normal formula's n is a lower bound to
    # start the search from: a few steps instead of hundreds of quantiles per key.
    z = _normal_ppf(1 - alpha / 2) + _normal_ppf(power)
    start = max(2, int(2 * (z * spread_pct / effect_pct) ** 2))
    for n in range(start, most + 1):
        if minimum_detectable_effect(spread_pct, n, n, alpha=alpha, power=power) <= effect_pct:
            return n
    return None


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Adjusted p-values (q-values) controlling the false discovery rate over many tests.

    Method: Benjamini & Hochberg, "Controlling the False Discovery Rate", JRSS B 57(1),
    1995, step-up form: with the m p-values ranked p_(1) <= ... <= p_(m), q_(i) =
    min_{j >= i} min(1, p_(j) m / j), returned in the input order. Rejecting q < alpha keeps
    the expected share of false discoveries among the discoveries under alpha; when nothing
    changed at all it keeps the chance of any false discovery under alpha (a comparison of
    10,000 keys of identical code then flags none, not 500).
    """
    m = len(p_values)
    order = sorted(range(m), key=p_values.__getitem__)
    out = [1.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p_values[i] * m / rank)
        out[i] = min(1.0, running)
    return out


def _normal_ppf(p: float) -> float:
    from statistics import NormalDist
    return NormalDist().inv_cdf(p)


def run_medians_test(base_runs: Sequence[Sequence[float]],
                     new_runs: Sequence[Sequence[float]]) -> float:
    """Two-sided p-value of a change between two sets of runs, each run one observation.

    Method: summary measures (Matthews, Altman, Campbell & Royston, "Analysis of serial
    measurements in medical research", BMJ 300, 1990): each run is reduced to the median of
    its samples, and Welch's t test (:func:`welch_t_test`) compares the run medians. Samples
    of one run share that run's conditions (buffer placement, a neighbour, the boot): tested
    as independent they find differences between identical builds. Needs two runs a side.
    """
    return welch_t_test([median(r) for r in base_runs], [median(r) for r in new_runs])

