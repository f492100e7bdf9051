"""The counter's step (docs/probe.md, "The counter's step"), with a counter coarse on purpose:
PLATPERF_COUNTER_QUANTUM=N makes every read a multiple of N ticks, on the three architectures:
x86_64 (natively, and under qemu-x86_64-static), aarch64 and armv7 under qemu-user. The quantum is far above any natural step of these
counters (a VM's TSC: ~25 ticks; qemu-user's cntvct_el0: 62.5 ticks; the armv7 build's
clock_gettime fallback: a few ns), so the step the probe finds is the quantum; and what the
step sets follows it: the meta, the warning, the shortest sample, the marks of figures near
it, the doctor's finding. No timing is asserted: the quantities are multiples of N.
"""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from conftest import missing
from test_probe_functional import SMALL, command, records

from platperf.doctor import check_counter

# Ticks: 0.4 us of a 2.4 GHz TSC, 16 us of qemu-user's 62.5 MHz cntvct_el0, 20 us of the armv7
# build's clock_gettime fallback (in ns; an emulated read takes up to a few us on a busy machine,
# and the quantum must stay well above it)
QUANTA = {"native": 1000, "x86_64-qemu": 1000, "aarch64": 1000, "armv7": 20000}
BUILDS = list(QUANTA)


def probe_command(build: str) -> list[str]:
    """The probe of a build; x86_64-qemu: the native x86_64 probe under qemu-x86_64-static."""
    if build != "x86_64-qemu":
        return command(build)
    if os.uname().machine != "x86_64":
        pytest.skip("the native build is not x86_64 here")
    if not shutil.which("qemu-x86_64-static"):
        missing("qemu-x86_64-static is not installed (make deps)")
    return ["qemu-x86_64-static", *command("native")]


def run(build: str, *args: str, quantum: bool = True) -> list[dict]:
    env = {k: v for k, v in os.environ.items() if k != "PLATPERF_COUNTER_QUANTUM"}
    if quantum:
        env["PLATPERF_COUNTER_QUANTUM"] = str(QUANTA[build])
    proc = subprocess.run([*probe_command(build), *args], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    return records(proc.stdout)


@pytest.mark.parametrize("build", BUILDS)
def test_the_meta_gives_the_step_not_the_tick(build):
    recs = run(build, "info")
    counter = recs[0]["counter"]
    quantum = QUANTA[build]
    assert counter["quantum_ticks"] == quantum
    assert counter["step_ticks"] == pytest.approx(quantum, rel=0.01)
    assert counter["resolution_ns"] == pytest.approx(counter["step_ticks"] * 1e9 / counter["freq_hz"], rel=1e-3)
    b2b = counter["back_to_back"]
    assert b2b["pairs"] > 0
    assert b2b["min_nonzero_ticks"] % quantum == 0 and b2b["mode_nonzero_ticks"] % quantum == 0
    assert counter["read_overhead_ticks"] % quantum == 0
    (warning,) = [r for r in recs if r["type"] == "warning" and r["code"] == "counter-coarse-step"]
    assert f"steps of {quantum} ticks" in warning["message"]


@pytest.mark.parametrize("build", BUILDS)
def test_without_the_switch_the_step_is_measured_and_consistent(build):
    counter = run(build, "info", quantum=False)[0]["counter"]
    assert "quantum_ticks" not in counter
    assert counter["step_ticks"] >= 1
    assert counter["resolution_ns"] >= counter["step_ticks"] * 1e9 / counter["freq_hz"] * 0.999
    assert counter["read_mean_ns"] > 0
    # the read overhead is the floor of back-to-back reads: their minimum over the histogram's
    # pairs and more, batch after batch until one finds nothing lower (issue 40)
    b2b = counter["back_to_back"]
    assert b2b["overhead_pairs"] >= b2b["pairs"] > 0
    assert counter["read_overhead_ticks"] <= b2b["min_nonzero_ticks"]


@pytest.mark.parametrize("build", BUILDS)
def test_the_shortest_sample_is_1000_steps(build):
    recs = run(build, "run", "mem-latency", "--size", "4k", *SMALL)
    quantum = QUANTA[build]
    results = [r for r in recs if r["type"] == "result"]
    assert results
    for rec in results:
        assert all(t >= 1000 * quantum and t % quantum == 0 for t in rec["ticks"])
        assert rec["cost"]["target_ticks"] >= 1500 * quantum
        assert "resolution_steps" not in rec


@pytest.mark.parametrize("build", BUILDS)
def test_the_latency_loop_minimum_says_it_is_at_the_resolution(build):
    recs = run(build, "run", "latency-loop", "--duration", "0.05")
    meta = recs[0]
    (hist,) = [r for r in recs if r["type"] == "histogram"]
    results = {r["metric"]: r for r in recs if r["type"] == "result"}
    assert hist["loop"] == "c"      # the assembly loops read the counter themselves, unquantised
    step_ns = meta["counter"]["resolution_ns"]
    least = results["latency_min"]
    assert least["samples"][0] / step_ns == pytest.approx(round(least["samples"][0] / step_ns), abs=1e-6)
    assert least["resolution_steps"] == pytest.approx(least["samples"][0] / step_ns, abs=0.01)
    assert least["resolution_steps"] < 4
    assert "resolution_steps" not in results["latency_mean"]     # an average of every pass
    assert "resolution_steps" not in results["excursions"]


@pytest.mark.parametrize("build", BUILDS)
def test_the_doctor_reports_a_counter_coarser_than_its_frequency(build):
    meta = run(build, "info")[0]
    quantum = QUANTA[build]
    (found,) = [f for f in check_counter(meta) if f.code == "counter-coarse-step"]
    assert found.level == "warn"
    assert f"steps of {quantum} ticks" in found.message
    assert "resolution_steps" in found.effect
