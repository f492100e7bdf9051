"""Events counted with every sample, on the host (issue 37): `--events` and a suite's `events`
reach the probe on every step, each counter of a record is stored as one more result beside its
figure (metric <name>_per_<per>, unit <unit>/<per>, samples counts / iterations), and the probe's
event warnings are findings said once. The fake probe writes the record format by hand
(tests/fake_probe.py, events_of)."""
import json
import subprocess
import sys

import pytest

import fake_probe

from platperf.events import check_list, is_counter, split_list, spoken
from platperf.events.counted import Counted
from platperf.records import RecordError, check_record, result_from_record

SUITE = """
name = "tiny-events"
events = ["cycles", "l2d"]
[[bench]]
kernel = "mem-latency"
pattern = "random"
size = ["4k", "64k"]
samples = 3
"""


def platperf(*args, **kw):
    return subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True, text=True,
                          timeout=120, **kw)


@pytest.fixture
def setup(tmp_path, monkeypatch):
    log = fake_probe.install(tmp_path, monkeypatch)
    (tmp_path / "tiny.toml").write_text(SUITE)
    monkeypatch.chdir(tmp_path)
    return log


def shown(db="r.db", ref="latest"):
    proc = platperf("show", ref, "--db", db, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_suites_events_reach_every_step_and_each_counter_is_stored_beside_its_figure(setup):
    proc = platperf("run", "--suite", "tiny.toml", "--cpus", "0", "--repeat", "1", "--db", "r.db", "--json")
    assert proc.returncode == 0, proc.stderr
    argvs = [json.loads(line) for line in setup.read_text().splitlines()]
    runs = [a for a in argvs if a[:1] == ["run"]]
    assert len(runs) == 1 and runs[0][runs[0].index("--events") + 1] == "cycles,l2d"
    # 2 sizes x (latency + cycles + l2d + l2d_refill): 8 results, each counter after its figure
    doc = shown()
    rows = [(r["params"]["size"], r["metric"], r["unit"], r["median"], r["n"]) for r in doc["results"]]
    assert rows == [
        (4096, "latency", "ns", 1.1, 3),
        (4096, "cycles_per_access", "events/access", 0.251, 3),     # (250, 251, 252) / 1000
        (4096, "l2d_per_access", "events/access", 0.501, 3),
        (4096, "l2d_refill_per_access", "events/access", 0.751, 3),
        (65536, "latency", "ns", 1.1, 3),
        (65536, "cycles_per_access", "events/access", 0.251, 3),
        (65536, "l2d_per_access", "events/access", 0.501, 3),
        (65536, "l2d_refill_per_access", "events/access", 0.751, 3),
    ]
    assert all(r["direction"] == "lower" and r["cpu"] == 0 for r in doc["results"])


def test_the_command_lines_events_replace_the_suites(setup):
    proc = platperf("run", "--suite", "tiny.toml", "--cpus", "0", "--repeat", "1", "--db", "r.db",
                    "--events", "page_faults", "--quiet")
    assert proc.returncode == 0, proc.stderr
    run = [json.loads(line) for line in setup.read_text().splitlines() if '"run"' in line][0]
    assert run[run.index("--events") + 1] == "page_faults"
    assert [r["metric"] for r in shown()["results"]] == ["latency", "page_faults_per_access"] * 2


def test_no_hardware_events_is_one_finding_and_the_software_ones_are_stored(setup, monkeypatch):
    monkeypatch.setenv("FAKE_PROBE_NO_PMU", "1")
    setup.parent.joinpath("tiny.toml").write_text(SUITE.replace("samples = 3", "samples = 3\nmode = \"both\""))
    proc = platperf("run", "--suite", "tiny.toml", "--cpus", "0", "--repeat", "1", "--db", "r.db",
                    "--events", "cycles,page_faults")
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if "hardware events are not available" in line]
    assert len(said) == 1, proc.stderr        # two probe steps (serial, parallel), said once
    doc = shown()
    assert [r["metric"] for r in doc["results"]] == ["latency", "page_faults_per_access"] * 4
    codes = [f["code"] for f in doc["findings"]]
    assert codes.count("events-unavailable") == 1
    text = platperf("show", "latest", "--db", "r.db").stdout
    assert text.count("hardware events are not available") == 1


def test_bad_event_names_are_one_line_before_anything_runs(setup):
    proc = platperf("run", "--suite", "tiny.toml", "--db", "r.db", "--events", "cycles,l9d")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "unknown event 'l9d'" in proc.stderr
    assert not (setup.parent / "r.db").exists()


# -- the record format, read by hand --------------------------------------------------------------
def record(**events):
    rec = {"type": "result", "benchmark": "mem-latency", "params": {"pattern": "random", "size": 65536},
           "cpu": 1, "mode": "serial", "metric": "latency", "unit": "ns", "direction": "lower",
           "samples": [10.0, 11.0], "iterations": 4000,
           "events": {"per": "access", "counters": [
               {"name": "l2d_refill", "asked": "l2d", "event": "L2D_CACHE_REFILL", "pmu": "armv8_pmuv3_0",
                "code": "0x17", "unit": "events", "counts": [2000, 3000],
                "enabled_ns": [1000, 1000], "running_ns": [1000, 600]}]}}
    rec["events"].update(events)
    return rec


def test_a_counter_is_one_result_per_operation_with_its_running_share_kept():
    res = result_from_record(check_record(record(), "f:1"), "f:1")
    counters, warnings = Counted().expand(res)
    assert "events" not in res.extra and res.extra["events_per"] == "access"
    (c,) = counters
    assert (c.metric, c.unit, c.samples, c.cpu, c.params) == \
        ("l2d_refill_per_access", "events/access", [0.5, 0.75], 1, {"pattern": "random", "size": 65536})
    assert c.extra["running_share"] == [1.0, 0.6] and c.extra["counts"] == [2000, 3000]
    assert c.extra["event"] == "L2D_CACHE_REFILL" and c.extra["pmu"] == "armv8_pmuv3_0"
    # counted for 60% of the second sample: kept as counted (0.75, not 1.25), and said
    (w,) = warnings
    assert w["code"] == "events-partial" and "60%" in w["message"] and "not scaled" in w["message"]


def test_the_same_counts_on_latency_and_latency_cycles_are_stored_once():
    counted = Counted()
    first = counted.expand(result_from_record(record(), "f:1"))[0]
    again = dict(record(), metric="latency_cycles", unit="cycles")
    assert len(first) == 1 and counted.expand(result_from_record(again, "f:2"))[0] == []


@pytest.mark.parametrize("change, needle", [
    ({"iterations": None}, "needs 'iterations' above 0"),
    ({"counts": [1]}, "one number per sample (2)"),
    ({"counts": [1, -1]}, "not a count of 0 or more"),
    ({"name": "L2D refill"}, "must have a 'name'"),
    ({"running_ns": [1]}, "'running_ns' must hold one number per sample"),
])
def test_a_bad_events_field_is_refused_naming_the_line(change, needle):
    rec = record()
    counter = rec["events"]["counters"][0]
    if "iterations" in change:
        del rec["iterations"]
    else:
        counter.update(change)
    with pytest.raises(RecordError) as err:
        check_record(rec, "board.jsonl:7")
    assert str(err.value).startswith("board.jsonl:7: ") and needle in str(err.value)


def test_event_lists_and_metric_names():
    assert split_list("cycles,cpu/event=0x24,umask=0x21/,l2d") == ["cycles", "cpu/event=0x24,umask=0x21/", "l2d"]
    assert check_list(["cycles", "page_faults", "armv8_pmuv3/r17/"]) == "cycles,page_faults,armv8_pmuv3/r17/"
    with pytest.raises(ValueError, match="unknown event 'l9d'"):
        check_list("l9d")
    assert is_counter("l2d_refill_per_access", "events/access")
    assert not is_counter("bits_per_second", "bits/second") and not is_counter("latency", "ns")
    assert spoken("l2d_refill_per_access") == "l2d_refill per access"


# -- with the real probe, on this machine (a VM with no PMU: software, msr, tracepoint) -----------
def test_a_real_run_without_a_pmu_stores_page_faults_and_says_so_once(tmp_path, monkeypatch):
    from conftest import missing, require_probe
    probe = require_probe()
    asks = subprocess.run([probe, "run", "mem-latency", "--cpus", "0", "--size", "4k", "--samples", "1",
                           "--min-time", "0.001", "--events", "page_faults"], capture_output=True, text=True)
    if asks.returncode != 0 or '"events"' not in asks.stdout:
        missing(f"{probe} does not count --events yet (make probe): {asks.stderr.strip()[:120]}")
    monkeypatch.setenv("PLATPERF_PROBE", probe)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "small.toml").write_text('[[bench]]\nkernel = "mem-latency"\npattern = "random"\n'
                                         'size = ["16k", "256k"]\nsamples = 2\nmin_time = 0.002\n')
    proc = platperf("run", "--suite", "small.toml", "--cpus", "0", "--repeat", "1", "--db", "e.db",
                    "--events", "cycles,page_faults")
    assert proc.returncode == 0, proc.stderr
    doc = shown("e.db")
    faults = [r for r in doc["results"] if r["metric"].startswith("page_faults_per_")]
    # one counter a size, stored once though the probe writes latency and latency_cycles
    assert [r["params"]["size"] for r in faults] == [16384, 262144]
    assert all(r["n"] == 2 and r["min"] >= 0 and r["unit"].startswith("events/") for r in faults)
    assert not any(r["metric"].startswith("cycles_per_") for r in doc["results"])     # no PMU: none invented
    said = [f for f in doc["findings"] if "hardware events are not available" in f["message"]]
    assert len(said) == 1


def test_counters_that_took_turns_are_one_finding_however_many(tmp_path):
    meta = {"type": "meta", "schema": 1, "probe_version": "0.1.0", "build_id": "e1", "arch": "aarch64"}
    lines = [meta, {"type": "warning", "code": "events-multiplexed",
                    "message": "8 counters on 6: the groups took turns; each sample's running share is in the record"}]
    for cpu in (0, 1):
        rec = record()
        rec["cpu"] = cpu
        lines.append(rec)
    lines.append({"type": "end", "status": "complete"})
    path = tmp_path / "board.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    proc = platperf("ingest", "probe-jsonl", str(path), "--label", "b1", "--db", str(tmp_path / "r.db"))
    assert proc.returncode == 0, proc.stderr
    doc = shown(str(tmp_path / "r.db"))
    assert [(r["cpu"], r["metric"], r["median"]) for r in doc["results"]] == [
        (0, "latency", 10.5), (0, "l2d_refill_per_access", 0.625),     # (0.5 + 0.75) / 2: as counted
        (1, "latency", 10.5), (1, "l2d_refill_per_access", 0.625)]
    text = platperf("show", "latest", "--db", str(tmp_path / "r.db")).stdout
    said = [line for line in text.splitlines() if "events-partial" in line]
    assert len(said) == 1 and "2 events-partial warnings (CPUs 0-1; mem-latency 2)" in said[0]
    assert text.count("the groups took turns") == 1
