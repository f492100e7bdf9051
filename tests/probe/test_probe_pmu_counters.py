"""``platperf-probe info``'s meta.pmu_counters (issue 37; probe/src/event_count.c): how many
hardware events each core PMU counts at once, measured with pinned groups of a cycles leader
and instruction counters grown until the kernel cannot schedule one, or why it could not be
measured. This x86_64 KVM guest has no virtual PMU: every group fails with ENOENT, which is
what is said. The known answer on a PMU (QEMU's Cortex-A57: the kernel's "7 counters
available") is tests/test_vboard_events.py's. Functional only.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from test_probe_events import arm_sources, deny_perf_event_open, no_pmu, probe
from test_probe_functional import records

NO_PMU = "no hardware events here (no core PMU: perf_event_open gives ENOENT)"


def pmu_counters(env: dict | None = None, preexec=None) -> list[dict]:
    recs = records(probe("info", env=env, preexec=preexec).stdout)
    assert recs[0]["type"] == "meta" and recs[-1]["type"] == "end"   # warnings of the counter between
    return recs[0]["pmu_counters"]


@no_pmu
def test_without_a_pmu_info_says_why_nothing_was_measured():
    """One entry (x86 names no core PMU per CPU: the first online CPU's), no count."""
    assert pmu_counters() == [{"cpu": 0, "why": NO_PMU}]


@no_pmu
def test_counting_refused_is_said_with_its_fix():
    """perf_event_open refused (EACCES, as perf_event_paranoid 3 refuses a user on Debian's
    kernels; here through a seccomp filter): the fix, not a count."""
    (entry,) = pmu_counters(preexec=deny_perf_event_open)
    assert entry == {"cpu": 0, "why": "counting is not allowed: perf_event_paranoid too high for this user (as "
                                      "root: sysctl kernel.perf_event_paranoid=1, or run as root, or give the "
                                      "probe CAP_PERFMON)"}


@no_pmu
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="two CPUs, one per PMU")
def test_each_core_pmu_of_a_big_little_tree_is_measured_on_its_own_cpu(tmp_path):
    """A big.LITTLE machine's sysfs (two Arm core PMUs, CPU 0's and CPU 1's; their types are no
    PMU of this kernel): one entry per PMU, measured on its first CPU, named as sysfs names it;
    the software source is no core PMU."""
    root = arm_sources(tmp_path / "sources", cpus="0")
    big = root / "armv8_cortex_a57"
    (big / "events").mkdir(parents=True)
    (big / "type").write_text("11\n")
    (big / "cpus").write_text("1\n")
    (big / "events" / "cpu_cycles").write_text("event=0x11\n")
    got = pmu_counters(env={"PLATPERF_EVENT_SOURCES": str(root)})
    assert got == [{"pmu": "armv8_pmuv3_0", "cpu": 0, "why": NO_PMU},
                   {"pmu": "armv8_cortex_a57", "cpu": 1, "why": NO_PMU}]


@no_pmu
def test_a_pmu_serving_every_cpu_is_measured_once(tmp_path):
    root = arm_sources(tmp_path / "sources", cpus=f"0-{(os.cpu_count() or 1) - 1}")
    assert pmu_counters(env={"PLATPERF_EVENT_SOURCES": str(root)}) == [{"pmu": "armv8_pmuv3_0", "cpu": 0,
                                                                        "why": NO_PMU}]


def test_run_writes_no_pmu_counters():
    """Measuring takes the PMU for a moment: only ``info`` does it, never a run's meta."""
    recs = records(probe("run", "first-touch", "--size", "64k", "--cpus", "0", "--samples", "1",
                         "--warmup", "0", "--min-time", "0").stdout)
    assert recs[0]["type"] == "meta" and "pmu_counters" not in recs[0]
