"""Steal time and context switches per result (issue 10): the probe reads the steal column of
its CPU's line in /proc/stat around each sample ($PLATPERF_PROC_STAT points it at a fixture
here), retakes a sample the hypervisor stole from within the retake budget, and marks the
ones it keeps. These tests change the fixture while the probe runs; they time nothing."""
from __future__ import annotations

import json
import os
import subprocess
import threading
import time

import pytest
from test_probe_cost import PROBE, RETAKES
from test_probe_functional import command

from conftest import missing


def stat_text(steal: int) -> str:
    # user nice system idle iowait irq softirq steal guest guest_nice
    return ("cpu  100 0 50 1000 0 0 0 {s} 0 0\n"
            "cpu0 50 0 25 500 0 0 0 {s} 0 0\n"
            "cpu1 50 0 25 500 0 0 0 {s} 0 0\n"
            "intr 1 2 3\nctxt 42\n").format(s=steal)


def run_probe(stat_path, *args) -> list[dict]:
    if not PROBE.exists():
        missing(f"{PROBE} is not built (make probe)")
    env = {**os.environ, "PLATPERF_PROC_STAT": str(stat_path)}
    proc = subprocess.run([str(PROBE), "run", "mem-latency", "--size", "4k", "--cpus", "0", *args],
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines()]


def results(records):
    return [r for r in records if r["type"] == "result"]


@pytest.mark.parametrize("build", ["native", "aarch64", "armv7"])
def test_a_host_without_steal_records_zero_and_context_switches(tmp_path, build):
    """Functional on each architecture (qemu-user for the cross builds): the fields, not
    any timing."""
    stat = tmp_path / "stat"
    stat.write_text(stat_text(7))
    proc = subprocess.run([*command(build), "run", "mem-latency", "--size", "4k", "--cpus", "0",
                           "--samples", "3", "--min-time", "0.001"], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PLATPERF_PROC_STAT": str(stat)})
    assert proc.returncode == 0, proc.stderr
    found = results([json.loads(line) for line in proc.stdout.splitlines()])
    assert found
    for res in found:
        assert res["steal"] == {"ticks": 0, "retakes": 0, "samples": []}
        csw = res["context_switches"]
        assert csw["voluntary"] >= 0 and csw["involuntary"] >= 0


def test_no_steal_column_means_no_steal_field(tmp_path):
    stat = tmp_path / "stat"
    stat.write_text("cpu  1 2 3 4\ncpu0 1 2 3 4\n")      # a kernel before 2.6.11: four values
    (res, *_) = results(run_probe(stat, "--samples", "2", "--min-time", "0.001"))
    assert "steal" not in res
    (res, *_) = results(run_probe(tmp_path / "absent", "--samples", "2", "--min-time", "0.001"))
    assert "steal" not in res


def test_stolen_samples_are_retaken_then_marked(tmp_path):
    """Steal that grows all the time: every sample sees some, so each is retaken until the
    retakes or their budget run out, then kept and listed in steal.samples."""
    stat = tmp_path / "stat"
    stat.write_text(stat_text(0))
    stop = threading.Event()

    def hypervisor():
        steal = 0
        while not stop.is_set():
            steal += 1
            tmp = tmp_path / "stat.new"
            tmp.write_text(stat_text(steal))
            os.replace(tmp, stat)            # the probe opens the path afresh for each read
            time.sleep(0.0005)

    thread = threading.Thread(target=hypervisor, daemon=True)
    thread.start()
    try:
        records = run_probe(stat, "--samples", "3", "--min-time", "0.05")
    finally:
        stop.set()
        thread.join()
    (res, *_) = results(records)
    steal = res["steal"]
    assert steal["ticks"] > 0
    assert steal["retakes"] <= res["cost"]["retakes"] <= RETAKES * 3
    # every kept sample saw steal (the file changed throughout), or it was retaken
    assert steal["retakes"] + len(steal["samples"]) >= 3
    assert set(steal["samples"]) <= {0, 1, 2}
    if steal["samples"]:
        assert any(r["type"] == "warning" and r["code"] == "sample-steal" for r in records)
