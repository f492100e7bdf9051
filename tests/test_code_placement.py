"""Code placement: the statistic (stats.placement_spread), the finding it gives
(platperf.code_placement) and that finding in a report of a real align-sweep run."""
from __future__ import annotations

import subprocess

import pytest

from platperf import code_placement as placement
from platperf.records import Result
from platperf.stats import placement_spread
from platperf.store import Store
from test_report_cli import platperf
from conftest import require_module, require_probe


def test_a_placement_effect_beyond_the_rounds_noise_is_significant():
    # 3 placements x 2 rounds; round 2 is 1% slower everywhere (drift: absorbed by the rounds)
    table = [[1.00, 1.01], [1.30, 1.32], [1.10, 1.11]]
    test = placement_spread(table)
    # by hand: grand 1.14; row means 1.005, 1.31, 1.105; column means 1.1333.., 1.1466..
    # SS_rows = 2 * (0.135^2 + 0.17^2 + 0.035^2) = 0.0967; residuals +-0.001667 (x4), +-0.003333 (x2)
    assert test.spread == pytest.approx(1.31 / 1.005 - 1)
    ss_error = 4 * (0.01 / 6) ** 2 + 2 * (0.02 / 6) ** 2
    assert test.f == pytest.approx((0.0967 / 2) / (ss_error / 2), rel=1e-6)
    assert test.noise == pytest.approx((ss_error / 2) ** 0.5 / 1.14, rel=1e-6)
    scipy_stats = require_module("scipy.stats")
    assert test.p == pytest.approx(scipy_stats.f.sf(test.f, 2, 2), rel=1e-6)
    assert test.p < 0.05


def test_placements_within_the_noise_are_not_significant():
    # the "slow" placement is slow in one round only: noise, not placement
    test = placement_spread([[1.0, 1.3, 1.0], [1.0, 1.0, 1.3], [1.3, 1.0, 1.0], [1.0, 1.0, 1.0]])
    assert test.p > 0.5
    scipy_stats = require_module("scipy.stats")
    assert test.p == pytest.approx(scipy_stats.f.sf(test.f, 3, 6), rel=1e-6)


def test_an_exactly_additive_table_is_decided_without_noise():
    assert placement_spread([[1.0, 1.1], [2.0, 2.1]]).p == 0.0
    assert placement_spread([[1.0, 1.1], [1.0, 1.1]]).p == 1.0


@pytest.mark.parametrize("table,message", [
    ([[1.0, 1.0]], "at least two placements"),
    ([[1.0], [1.2]], "at least two"),
    ([[1.0, 1.0], [1.2, 1.2, 1.2]], "same number"),
    ([[0.0, 1.0], [1.2, 1.2]], "positive")])
def test_spread_refuses_what_it_cannot_judge(table, message):
    with pytest.raises(ValueError, match=message):
        placement_spread(table)


def sweep(kernel, rounds, metric="latency", cpu=0):
    """align-sweep results as the probe writes them: one per offset, its rounds' medians in ns."""
    return [Result(benchmark="align-sweep", params={"kernel": kernel, "offset": 16 * i}, metric=metric,
                   unit="ns" if metric == "latency" else "cycles", direction="lower",
                   samples=list(rnd), cpu=cpu,
                   extra={"rounds": [{"median_ns": r} for r in rnd], "loop_offset": 64 + 16 * i})
            for i, rnd in enumerate(rounds)]


def test_a_placement_slow_in_every_round_is_a_warning_naming_the_offsets():
    # the pitfalls note's case: one placement 30% slower, every round
    results = sweep("l1-chase", [[1.0, 1.01, 1.0], [1.0, 1.02, 1.01], [1.3, 1.31, 1.3], [1.0, 1.0, 1.01]])
    (f,) = placement.findings(results)
    assert f.level == "warn" and f.code == "code-placement" and f.fix and f.effect
    assert f.message.startswith("align-sweep l1-chase on CPU 0: code placement alone moves the figure: "
                                "offsets 29.9% apart (1.003 ns at offset 0 to 1.303 ns at offset 32; "
                                "4 offsets x 3 rounds, run-to-run noise ")


def test_a_placement_slow_in_one_round_only_is_information():
    results = sweep("add-chain", [[0.30, 0.36, 0.30], [0.30, 0.30, 0.36], [0.36, 0.30, 0.30]])
    (f,) = placement.findings(results)
    assert f.level == "info" and "no more than its run-to-run noise" in f.message


def test_one_finding_per_kernel_and_cpu_from_the_ns_records():
    results = (sweep("l1-chase", [[1, 1], [1.1, 1.1]])
               + sweep("l1-chase", [[4, 4], [4.4, 4.4]], metric="latency_cycles")
               + sweep("l1-chase", [[1, 1.01], [1, 1]], cpu=1)
               + sweep("add-chain", [[1]], cpu=1)                        # one offset: no verdict
               + [Result("mem-latency", {"size": 4096}, "latency", "ns", "lower", [1.0], cpu=0)])
    found = placement.findings(results)
    assert [f.message.split(":")[0] for f in found] == ["align-sweep l1-chase on CPU 0",
                                                        "align-sweep l1-chase on CPU 1"]
    assert "1 ns at offset 0 to 1.1 ns at offset 16" in found[0].message


def test_a_real_sweep_gets_its_finding_in_the_report(tmp_path):
    probe = require_probe()
    stream = tmp_path / "sweep.jsonl"
    with stream.open("w") as out:
        subprocess.run([probe, "run", "align-sweep", "--span", "32", "--cpus", "0", "--samples", "3",
                        "--warmup", "0", "--min-time", "0"], stdout=out, check=True, timeout=300)
    db = str(tmp_path / "runs.db")
    r = platperf("ingest", "probe-jsonl", str(stream), "--label", "sweep", "--db", db)
    assert r.returncode == 0, r.stderr
    r = platperf("report", "sweep", "--db", db, "-f", "md")
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stdout.splitlines() if "code-placement" in line]
    assert len(lines) == 2
    assert "align-sweep l1-chase on CPU 0" in lines[0] and "align-sweep add-chain on CPU 0" in lines[1]
    # the table cuts long cells; the whole message, from the stored run:
    store = Store(db)
    (run,) = store.runs_for("sweep")
    found = placement.findings(store.results(run["id"], with_samples=False))
    assert len(found) == 2 and all("2 offsets x 3 rounds" in f.message for f in found)
