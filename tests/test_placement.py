"""Code placement: the statistic (stats.placement_spread), the finding it gives
(platperf.placement) and that finding in a report of a real align-sweep run."""
from __future__ import annotations

import subprocess

import pytest

from platperf import placement
from platperf.records import Result
from platperf.stats import placement_spread
from test_report_cli import platperf
from conftest import require_probe


def test_spread_is_the_medians_range_and_noise_the_widest_rounds_range():
    spread, noise = placement_spread([(1.0, [1.0, 1.02]), (1.3, [1.29, 1.31]), (1.1, [1.1, 1.1])])
    assert spread == pytest.approx(0.3)
    assert noise == pytest.approx(0.02)          # 1.0 -> 1.02 beats 1.29 -> 1.31 (1.55%)


@pytest.mark.parametrize("placements,message", [
    ([(1.0, [1.0, 1.0])], "at least two placements"),
    ([(1.0, [1.0]), (1.2, [1.2, 1.2])], "at least two rounds"),
    ([(0.0, [1.0, 1.0]), (1.2, [1.2, 1.2])], "positive")])
def test_spread_refuses_what_it_cannot_judge(placements, message):
    with pytest.raises(ValueError, match=message):
        placement_spread(placements)


def sweep(kernel, medians, rounds, metric="latency_cycles", unit="cycles", cpu=0):
    """align-sweep results as the probe writes them: one per offset, its rounds in ns."""
    out = []
    for i, (med, rnd) in enumerate(zip(medians, rounds)):
        out.append(Result(benchmark="align-sweep", params={"kernel": kernel, "offset": 16 * i},
                          metric=metric, unit=unit, direction="lower", samples=[med] * 4, cpu=cpu,
                          extra={"rounds": [{"median_ns": r} for r in rnd], "loop_offset": 64 + 16 * i}))
    return out


def test_a_spread_beyond_the_rounds_noise_is_a_warning_naming_the_offsets():
    # the pitfalls note's case: one placement 30% slower, rounds within 2% of each other
    results = sweep("l1-chase", [4.0, 4.0, 5.2, 4.0], [[1.0, 1.01], [1.0, 1.02], [1.3, 1.31], [1.0, 1.0]])
    (f,) = placement.findings(results)
    assert f.level == "warn" and f.code == "code-placement"
    assert "align-sweep l1-chase on CPU 0: code placement alone moves the median 30.0%" in f.message
    assert "(4 cycles at offset 0 to 5.2 at offset 32, 4 offsets)" in f.message
    assert "(2.0%)" in f.message and f.fix and f.effect


def test_a_spread_within_the_noise_is_information_only():
    results = sweep("add-chain", [1.0, 1.05], [[0.30, 0.36], [0.31, 0.33]])
    (f,) = placement.findings(results)
    assert f.level == "info" and "within what measuring one placement again moves it (20.0%)" in f.message


def test_one_finding_per_kernel_and_cpu_in_cycles_when_the_run_has_them():
    results = (sweep("l1-chase", [4.0, 4.4], [[1, 1], [1.1, 1.1]])
               + sweep("l1-chase", [1.0, 1.1], [[1, 1], [1.1, 1.1]], metric="latency", unit="ns")
               + sweep("l1-chase", [4.0, 4.0], [[1, 1], [1, 1]], cpu=1)
               + [Result("mem-latency", {"size": 4096}, "latency", "ns", "lower", [1.0], cpu=0)])
    found = placement.findings(results)
    assert [f.message.split(":")[0] for f in found] == ["align-sweep l1-chase on CPU 0",
                                                        "align-sweep l1-chase on CPU 1"]
    assert "cycles" in found[0].message and " ns " not in found[0].message


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
    assert all("2 offsets" in line for line in lines)
