"""What a run of the probe costs, checked by counting: every result carries the counter
ticks each phase took (`cost`) and the samples it kept although preempted (`preempted`);
these tests do arithmetic on those counter values and never time anything themselves.

The rule (docs/probe.md, "What a run costs"): retaken samples are paid from what is left of
SAMPLE_COST_FACTOR x samples x the sample length once the samples themselves are paid, and
each sample is retaken at most SAMPLE_RETAKES times; after that it is kept and marked.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import missing

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "build" / "probe" / "native" / "platperf-probe"
EXEC_H = (ROOT / "probe" / "src" / "exec.h").read_text()


def constant(name: str) -> float:
    return float(re.search(rf"#define {name} ([0-9.]+)", EXEC_H).group(1))


RETAKES = int(constant("SAMPLE_RETAKES"))
COST_FACTOR = constant("SAMPLE_COST_FACTOR")
FLOOR_STEPS = constant("SAMPLE_MIN_STEPS")


def probe_records(*args: str) -> list[dict]:
    if not PROBE.exists():
        missing(f"{PROBE} is not built (make probe)")
    proc = subprocess.run([str(PROBE), *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    import json
    return [json.loads(line) for line in proc.stdout.splitlines()]


def check_cost(result: dict, samples: int, min_time: float, counter: dict) -> None:
    cost, ticks = result["cost"], result["ticks"]
    target = cost["target_ticks"]
    estimate = cost["sample_estimate_ticks"]
    # the floor is 1000 counter steps, half as much again (meta step_ticks has 3 decimals)
    floor = 1.5 * FLOOR_STEPS * counter["step_ticks"]
    assert target == pytest.approx(max(min_time * counter["freq_hz"], floor), rel=1e-6, abs=2)
    # the calibration aims 5% over the sample length asked
    assert target <= estimate <= 1.06 * target
    assert len(ticks) == samples and all(t >= FLOOR_STEPS * counter["step_ticks"] - 1 for t in ticks)
    discarded = cost["sample_ticks"] - sum(ticks)
    assert discarded >= 0
    assert (discarded > 0) == (cost["retakes"] > 0)
    assert cost["retakes"] <= RETAKES * samples
    # retakes are paid from what the budget leaves once the samples are paid for ...
    assert discarded <= COST_FACTOR * samples * target - samples * estimate + 1
    # ... so the samples cost at most the budget, plus what the scheduler took from kept
    # samples (a kept sample longer than calibrated)
    overrun = sum(max(0, t - estimate) for t in ticks)
    assert cost["sample_ticks"] <= COST_FACTOR * samples * target + overrun + 1
    assert cost["calibration_ticks"] > 0
    assert all(0 <= i < samples for i in result["preempted"])
    assert result["preempted"] == sorted(set(result["preempted"]))


@pytest.mark.parametrize("kernel", [["mem-latency", "--size", "16k"],
                                    ["mem-bandwidth", "--kernel", "rd", "--size", "64k"]])
def test_samples_cost_at_most_the_budget_plus_what_the_scheduler_took(kernel):
    recs = probe_records("run", *kernel, "--samples", "3", "--min-time", "0.05")
    results = [r for r in recs if r["type"] == "result"]
    assert results and recs[-1]["status"] == "complete"
    for r in results:
        check_cost(r, 3, 0.05, recs[0]["counter"])
    warned = {w["cpu"] for w in recs if w["type"] == "warning" and w["code"] == "sample-preempted"}
    assert warned == {r["cpu"] for r in results if r["preempted"]}


def test_a_busy_cpu_gives_marked_samples_not_endless_retakes():
    """A CPU-bound process on the measured CPU preempts every long sample: the probe must
    stop retaking within its budget, keep the samples, list them and warn."""
    cpu = sorted(os.sched_getaffinity(0))[0]
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                           preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
    try:
        recs = probe_records("run", "mem-latency", "--size", "16k", "--cpus", str(cpu),
                             "--samples", "5", "--min-time", "0.02")
    finally:
        hog.kill()
        hog.wait()
    result = next(r for r in recs if r["type"] == "result" and r["metric"] == "latency")
    check_cost(result, 5, 0.02, recs[0]["counter"])
    assert result["cost"]["retakes"] + len(result["preempted"]) >= 1   # it did see the hog
    warnings = [w for w in recs if w["type"] == "warning" and w["code"] == "sample-preempted"]
    if result["preempted"]:
        assert len(warnings) == 1 and warnings[0]["cpu"] == cpu
        assert warnings[0]["message"].startswith(f"{len(result['preempted'])} of 5 samples are kept")
    else:
        assert warnings == []
