"""The kernels whose results are not one exec_sample loop's count events too (issue 37;
docs/events.md, "How a count is stored"): os-fs per file, each figure (create, delete) with its
own pass's counts; align-sweep per access or op, its rounds pooled; cpu-idle and cpu-hotplug
say once that they store none. Run for real on this machine with a software event it has (task-clock);
functional only: no figure is held to a threshold.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from test_probe_events import SMALL, counters, probe, results, warnings
from test_probe_functional import records

from platperf.events.counted import Counted
from platperf.records import check_record, result_from_record


def test_os_fs_counts_each_pass_per_file(tmp_path):
    """Two sizes x (create, delete): four records, each with its own pass's counts per file
    (iterations: the N files of a pass). Which pass a record's counts are from shows in the
    thread's CPU time (task_clock): creating a 10 KiB file (open, allocate, copy 10 KiB, close)
    takes this machine some 30 times the CPU time of unlinking it, so a create record holding
    its delete pass's counts, or the other way round, reads the wrong way round.
    task_clock alone: as a sibling in a software group this kernel's task-clock may read short
    in a group's first read (seen here: 1.2 ms of a 4.6 ms pass, page_faults leading)."""
    recs = records(probe("run", "os-fs", "--size", "0,10k", "--cpus", "0", *SMALL, "--min-time", "0.005",
                         "--dir", str(tmp_path), "--events", "task_clock").stdout)
    got = results(recs)
    assert [(r["params"]["size"], r["metric"]) for r in got] == [(0, "create"), (0, "delete"),
                                                                  (10240, "create"), (10240, "delete")]
    assert not warnings(recs, "events-not-written")
    for r in got:
        assert r["events"]["per"] == "file" and r["iterations"] > 0
        c = counters(r)
        assert list(c) == ["task_clock"]
        assert all(len(c[name]["counts"]) == len(c[name]["enabled_ns"]) == len(r["samples"]) == 3 for name in c)
    for create, delete in (got[0:2], got[2:4]):
        assert create["iterations"] == delete["iterations"]      # one N for both passes of a sample
        cpu_create, cpu_delete = (sorted(counters(r)["task_clock"]["counts"]) for r in (create, delete))
        assert cpu_create[1] > cpu_delete[1], (cpu_create, cpu_delete)     # the medians of 3


def test_os_fs_without_events_is_unchanged(tmp_path):
    recs = records(probe("run", "os-fs", "--size", "0", "--cpus", "0", *SMALL, "--dir", str(tmp_path)).stdout)
    assert all("events" not in r for r in results(recs)) and len(results(recs)) == 2
    assert "events" not in recs[0]


def test_align_sweep_pools_its_rounds_counts_each_sample_per_its_own_operations():
    """align-sweep pools the samples of its rounds (each round calibrates its own repetitions)
    into one record per placement: the counts come pooled the same way, sample for sample, with
    each sample's operation count in events.iterations (the record's `iterations` exists only
    when every round ran as many). task_clock (the thread's ns) covers the timed loop, so per
    operation it is at least what the figure says one operation took: a count divided by the
    wrong round's operations (add-chain's rounds differ by 2x and more) reads the wrong way.
    page_faults beside it leads the software group: task_clock still counts (events.c)."""
    recs = records(probe("run", "align-sweep", "--kernel", "l1-chase,add-chain", "--span", "32", "--rounds", "2",
                         "--cpus", "0", *SMALL, "--events", "page_faults,task_clock").stdout)
    got = [r for r in results(recs) if r["metric"] == "latency"]
    assert [(r["params"]["kernel"], r["params"]["offset"]) for r in got] == [
        ("l1-chase", 0), ("l1-chase", 16), ("add-chain", 0), ("add-chain", 16)]
    assert not warnings(recs, "events-not-written")
    for r in got:
        e = r["events"]
        assert e["per"] == ("access" if r["params"]["kernel"] == "l1-chase" else "op")
        assert len(e["iterations"]) == len(r["samples"]) == 6          # 2 rounds x 3 samples
        assert len(set(e["iterations"][:3])) == len(set(e["iterations"][3:])) == 1   # one count a round
        if "iterations" in r:
            assert set(e["iterations"]) == {r["iterations"]}
        c = counters(r)
        assert list(c) == ["page_faults", "task_clock"]
        per_op_ns = [n / ops for n, ops in zip(c["task_clock"]["counts"], e["iterations"])]
        # a sample kept although the thread was preempted ran for less than its wall time
        preempted = {3 * j + k for j, rnd in enumerate(r["rounds"]) for k in rnd["preempted"]}
        assert all(ns >= figure for i, (ns, figure) in enumerate(zip(per_op_ns, r["samples"]))
                   if i not in preempted), (per_op_ns, r["samples"], preempted)
        # the host reads them as it reads any counter: sample i over its own operations
        (_, clock), _ = Counted().expand(result_from_record(check_record(r, "probe:1"), "probe:1"))
        assert clock.metric == f"task_clock_per_{e['per']}" and clock.samples == per_op_ns


def test_the_idle_and_hotplug_kernels_say_once_that_they_store_no_counts(tmp_path):
    """cpu-idle's figure is an idle state's exit and the kernel's wake-up path, which the
    sleeping thread's user-space counters do not count (docs/events.md): one warning, and no
    result that silently lacks them. On a writable copy of the Juno tree."""
    root = tmp_path / "juno"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "sysfs" / "juno", root)
    recs = records(probe("run", "cpu-idle", "--root", str(root), "--cpus", "0", "--samples", "2", "--sleep", "100",
                         "--events", "page_faults").stdout)
    assert results(recs) and not [r for r in results(recs) if "events" in r]
    (said,) = warnings(recs, "events-not-written")
    assert said["message"] == ("cpu-idle writes no counts: its figure is the kernel's and the firmware's work, "
                               "which the measuring thread's counters do not count (docs/events.md); nothing "
                               "counted is stored")
