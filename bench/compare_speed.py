"""Speed of `platperf compare` and `platperf history` against the issue's budgets.

Builds a temporary store, then times, in this process:
  compare: two runs of 10,000 keys (10 samples each), keyed comparison (one run a side:
           intervals, spread and runs needed per key, no test) and the
           RST-grid document                                       budget 2 s
  history: 500 runs x 50 keys, series from the stored summaries and
           e-divisive change points                                budget 10 s
Peer measured in the same run: scipy.stats.mannwhitneyu over the same 10,000 key pairs
(when scipy is installed), to show what the statistics alone cost elsewhere.
Run: .venv/bin/python bench/compare_speed.py
"""
from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from platperf import history  # noqa: E402
from platperf.compare import keyed as compare, pools  # noqa: E402
from platperf.records import Result  # noqa: E402
from platperf.report import render  # noqa: E402
from platperf.report.sections import compare as presentation  # noqa: E402
from platperf.store import Store  # noqa: E402

KEYS, SAMPLES = 10_000, 10
RUNS, SERIES_KEYS = 500, 50


def fill_compare(store: Store, rng: random.Random):
    for label, shift in (("base", 1.0), ("new", 1.01)):
        run = store.begin_run(label=label, source="bench")
        with store.transaction() as c:
            for i in range(KEYS):
                mu = 10 + i % 97
                store.add_result(run, Result(
                    "mem-latency", {"size": 4096 * (1 + i // 64), "stride": 64}, "latency", "ns",
                    "lower", [rng.gauss(mu * shift, mu * 0.01) for _ in range(SAMPLES)],
                    mode="serial", cluster=(i // 8) % 8, core=i % 8), conn=c)
        store.finish_run(run, "complete")


def fill_history(store: Store, rng: random.Random):
    for r in range(RUNS):
        run = store.begin_run(label=f"r{r}", source="bench")
        with store.transaction() as c:
            for k in range(SERIES_KEYS):
                step = 1.05 if k % 5 == 0 and r >= 300 else 1.0
                store.add_result(run, Result("mem-bandwidth", {"kernel": f"k{k}"}, "bandwidth", "MB/s",
                                             "higher", [rng.gauss(1000 * step, 5) for _ in range(3)],
                                             cluster=0, core=0), conn=c)
        store.finish_run(run, "complete")


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main():
    rng = random.Random(1)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "cmp.db"))
        fill_compare(store, rng)

        def run_compare():
            cmp = compare.compare_refs(store, "base", "new")
            render(presentation.document(cmp), "rst-grid")
            return cmp
        secs, cmp = timed(run_compare)
        rows.append(("compare 2 runs x 10,000 keys (load+compare+rst-grid)", secs, 2.0,
                     f"{sum(r.shown for r in cmp.rows)} shown"))
        _, base = timed(lambda: pools.load_side(store, "base").pools)
        _, new = timed(lambda: pools.load_side(store, "new").pools)
        secs_stats, _ = timed(lambda: compare.compare_pools(base, new))
        rows.append(("  of which keyed comparison only", secs_stats, None, ""))
        try:
            from scipy.stats import mannwhitneyu
            pairs = [(base[k].samples, new[k].samples) for k in base]
            secs_peer, _ = timed(lambda: [mannwhitneyu(a, b, alternative="two-sided") for a, b in pairs])
            rows.append(("  peer: scipy mannwhitneyu, same 10,000 pairs", secs_peer, None,
                         f"platperf/scipy = {secs_stats / secs_peer:.2f}"))
        except ImportError:
            rows.append(("  peer: scipy not installed", float("nan"), None, ""))

        store = Store(str(Path(tmp) / "hist.db"))
        fill_history(store, rng)
        secs, series = timed(lambda: history.analyse(history.load_series(store)))
        found = sum(len(s.change_points) for s in series)
        rows.append(("history 500 runs x 50 keys (load+e-divisive)", secs, 10.0,
                     f"{found} change points (10 steps planted)"))
    print(f"{'case':56} {'seconds':>8} {'budget':>7} {'ratio':>6}  note")
    for name, secs, budget, note in rows:
        ratio = f"{secs / budget:6.2f}" if budget else "      "
        print(f"{name:56} {secs:8.3f} {budget or '':>7} {ratio}  {note}")
    return 0 if all(b is None or s <= b for _, s, b, _ in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
