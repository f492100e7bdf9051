#!/usr/bin/env python3
"""How often `platperf history` flags a step "far beyond the key's known spread" when nothing
changed, and how often it flags one that did (issue 38): the step test of a series with one
figure a release (platperf.compare.steps.judge, the code the history view runs).

Series are simulated, seeded: a key's figure a release is its level times exp(noise), the
noise independent from release to release -- normal with sigma 0.5, 2 and 5 %, and Student's
t with 3 degrees of freedom scaled to the same sigma (heavy tails: a published page's
occasional outlier run). For each sigma and series length (3 to 20 releases):

* false flags: the share of steps of unchanged series that are flagged, and the share of
  series with at least one flagged step (what a release manager sees on a page of keys);
* detection: one real step of +10, +30 and +100 % at the middle release, the share of such
  series whose step is flagged.

A flag needs the step to be at least the tolerance (2 %) and its modified z-score against
the key's other steps above platperf.stats.steps.threshold(others): Iglewicz & Hoaglin's 3.5
from 20 other steps on, and below that the 99.5th percentile of the scores of unchanged
normal series, which this script derives again first (seed 7, 200,000 / (others + 2) series a
length) and prints beside the table platperf uses. Before those thresholds (3.5 at every
length) an unchanged key was flagged on 1-11 % of its steps. No timing: the figures depend on
the seed only. Usage: python3 bench/history_flags.py [--series 4000] [--seed 1]
"""
from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from platperf.compare.steps import judge  # noqa: E402
from platperf.stats.steps import OUTLIER_Z, THRESHOLD_BY_OTHERS, log_steps, step_scores  # noqa: E402

SIGMAS = (0.005, 0.02, 0.05)
LENGTHS = (3, 4, 6, 10, 20)
STEPS = (0.10, 0.30, 1.00)


def noise(rng: random.Random, sigma: float, heavy: bool) -> float:
    if not heavy:
        return rng.gauss(0.0, sigma)
    # Student's t, 3 degrees of freedom, scaled to standard deviation sigma (var of t3 = 3)
    t = rng.gauss(0.0, 1.0) / math.sqrt(sum(rng.gauss(0.0, 1.0) ** 2 for _ in range(3)) / 3)
    return sigma * t / math.sqrt(3.0)


def series(rng, n: int, sigma: float, heavy: bool, step: float = 0.0) -> list[float]:
    return [100.0 * (1 + step * (i >= n // 2)) * math.exp(noise(rng, sigma, heavy)) for i in range(n)]


def rates(rng, n: int, sigma: float, heavy: bool, count: int) -> tuple[float, float, list[float]]:
    """(flagged steps / steps, series with a flag / series, [detected share per STEPS])."""
    flagged = with_flag = 0
    for _ in range(count):
        far = [s.far for s in judge(series(rng, n, sigma, heavy), "lower", [1] * n)]
        flagged += sum(far)
        with_flag += any(far)
    detected = []
    for size in STEPS:
        hit = 0
        for _ in range(count):
            steps = judge(series(rng, n, sigma, heavy, size), "lower", [1] * n)
            hit += steps[n // 2 - 1].far
        detected.append(hit / count)
    return flagged / (count * (n - 1)), with_flag / count, detected


def derive(others: int) -> float:
    """The 99.5th percentile of the step scores of unchanged series with ``others`` other steps."""
    rng, n = random.Random(7), others + 2
    scores = sorted(s for _ in range(200_000 // n)
                    for s in step_scores(log_steps([math.exp(rng.gauss(0, 0.02)) for _ in range(n)])))
    return scores[int(0.995 * len(scores))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--series", type=int, default=4000, help="simulated series per cell")
    ap.add_argument("--seed", type=int, default=1)
    opts = ap.parse_args()
    print("score a step must pass, by the key's other steps: platperf's table / derived again here")
    print("  " + "  ".join(f"{k}: {THRESHOLD_BY_OTHERS.get(k, OUTLIER_Z):g}/{derive(k):.2f}" for k in range(1, 21)))
    rng = random.Random(opts.seed)
    print(f"step test of platperf history, one figure a release; {opts.series} series a cell, seed {opts.seed}")
    print(f"{'noise':>14} {'releases':>8} {'false/step':>10} {'series w/ flag':>14}  "
          + "  ".join(f"{'found +' + format(s * 100, '.0f') + '%':>10}" for s in STEPS))
    for heavy in (False, True):
        for sigma in SIGMAS:
            for n in LENGTHS:
                per_step, per_series, found = rates(rng, n, sigma, heavy, opts.series)
                kind = f"{'t3' if heavy else 'normal'} {sigma * 100:.1f}%"
                print(f"{kind:>14} {n:>8} {per_step:>10.2%} {per_series:>14.2%}  "
                      + "  ".join(f"{f:>10.1%}" for f in found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
