"""`platperf doctor` lists the PMU (issue 37): the event sources read through the target's /sys
(fixture trees: a Juno r1 under Debian, an Agilex 5 with its DSU, this x86 VM with none), the core
PMU of each CPU, perf_event_paranoid with its fix, and the suites' events a PMU cannot count."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from typer.testing import CliRunner

from conftest import require_executable

from platperf.cli import app
from platperf.doctor.pmu import check_pmu
from platperf.targets.remote_sysroot import SNAPSHOT_SCRIPT, snapshot_sysroot

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"


def found(tree, asked=None):
    return [(f.level, f.code, f.message) for f in check_pmu(SYSFS / tree, asked)]


def test_juno_two_core_pmus_paranoid_3_and_no_llc_events():
    assert found("juno", ["cycles", "instructions", "l1d", "l2d", "llc", "bus"]) == [
        ("info", "perf-paranoid", "perf_event_paranoid is 3: no counting without CAP_PERFMON (Debian's kernels)"),
        ("ok", "pmu-core", "core PMU armv8_cortex_a53 on CPUs 2-5: 17 events listed"),
        ("info", "pmu-events-missing", "armv8_cortex_a53 cannot count llc (LL_CACHE_RD, LL_CACHE_MISS_RD) of the "
                                       "suites' events"),
        ("ok", "pmu-core", "core PMU armv8_cortex_a57 on CPUs 0-1: 16 events listed"),
        ("info", "pmu-events-missing", "armv8_cortex_a57 cannot count llc (LL_CACHE_RD, LL_CACHE_MISS_RD) of the "
                                       "suites' events"),
        ("info", "pmu-uncore", "other PMUs: CCI_400_r1 (uncore, interconnect: counted for the cluster, not a CPU)"),
    ]
    (paranoid,) = [f for f in check_pmu(SYSFS / "juno", []) if f.code == "perf-paranoid"]
    assert paranoid.fix == ("as root: sysctl kernel.perf_event_paranoid=1 (or run as root, or give the probe "
                            "CAP_PERFMON)")


def test_agilex5_counts_the_l3_and_has_its_dsu():
    assert found("agilex5", ["cycles", "l2d", "l3d", "llc", "bus", "page_faults", "armv8_pmuv3/r17/"]) == [
        ("info", "perf-paranoid", "perf_event_paranoid is 2: user-space counting only without CAP_PERFMON"),
        ("ok", "pmu-core", "core PMU armv8_cortex_a55 on CPUs 0-1: 20 events listed"),
        ("ok", "pmu-core", "core PMU armv8_cortex_a76 on CPUs 2-3: 21 events listed"),
        ("info", "pmu-uncore", "other PMUs: arm_dsu_0 (uncore, interconnect: counted for the cluster, not a CPU)"),
    ]


def test_a_vm_without_a_pmu_says_so_once_with_what_is_counted():
    ((_, _, paranoid), (level, code, message)) = found("x86vm")
    assert (level, code) == ("info", "pmu-none")
    assert message == ("no hardware events: the event sources are breakpoint, msr, software, tracepoint, uprobe "
                       "(no core PMU, as in a VM without a virtual PMU)")
    (none,) = [f for f in check_pmu(SYSFS / "x86vm") if f.code == "pmu-none"]
    assert "counts only the software events (page_faults" in none.effect


def test_a_tree_without_event_sources_claims_nothing():
    assert found("am62x") == [("info", "pmu-unknown", "no event sources readable (/sys/bus/event_source): what "
                                                      "--events can count is not known here")]


def test_x86_names_without_a_generic_event_need_a_raw_one(tmp_path):
    cpu = tmp_path / "sys/bus/event_source/devices/cpu"
    (cpu / "events").mkdir(parents=True)
    (cpu / "type").write_text("4\n")
    (cpu / "events/cpu-cycles").write_text("event=0x3c\n")
    assert found(tmp_path, ["cycles", "l1d", "l2d", "bus"]) == [
        ("ok", "pmu-core", "core PMU cpu on every CPU: 1 event listed"),
        ("info", "pmu-events-missing", "cpu cannot count l2d (l2d, l2d_refill), bus (bus_access) of the suites' "
                                       "events"),
    ]


def test_a_board_read_over_ssh_gives_the_same_pmu(tmp_path):
    sh = require_executable("sh")
    data = subprocess.run([sh, "-s", "--", str(SYSFS / "agilex5"), "0"], input=SNAPSHOT_SCRIPT.encode(),
                          env={"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)}, capture_output=True,
                          check=True).stdout
    assert check_pmu(snapshot_sysroot(data, 0.0)) == check_pmu(SYSFS / "agilex5")


def test_the_doctor_command_lists_the_pmu():
    result = CliRunner().invoke(app, ["doctor", "--root", str(SYSFS / "juno"), "--no-probe", "--json"])
    assert result.exit_code == 0, result.output
    codes = [f["code"] for f in json.loads(result.stdout)["findings"]]
    assert codes.count("pmu-core") == 2 and codes.count("perf-paranoid") == 1


def test_the_probes_measured_events_at_once_are_said_beside_each_core_pmu():
    """probe info's meta.pmu_counters (probe/src/event_count.c) as a Juno's probe would write
    it: each core PMU with what it counted at once, or why that was not measured."""
    meta = {"pmu_counters": [{"pmu": "armv8_cortex_a57", "cpu": 0, "at_once": 7},
                             {"pmu": "armv8_cortex_a53", "cpu": 2, "why": "counting is not allowed"}]}
    cores = [f.message for f in check_pmu(SYSFS / "juno", [], probe_meta=meta) if f.code == "pmu-core"]
    assert cores == ["core PMU armv8_cortex_a53 on CPUs 2-5: 17 events listed; events at once not measured: "
                     "counting is not allowed",
                     "core PMU armv8_cortex_a57 on CPUs 0-1: 16 events listed; 7 events counted at once "
                     "(measured on CPU 0)"]
    # without the probe's record nothing is said of it
    assert all("at once" not in f.message for f in check_pmu(SYSFS / "juno", []))


def test_this_machines_probe_says_why_it_counts_nothing_or_how_many():
    """The probe built here: with no core PMU in /sys (this VM) the reason is ENOENT; with one
    (a machine with a PMU), a count of at least two (cycles and instructions together)."""
    binary = Path(__file__).resolve().parents[1] / "build" / "probe" / "native" / "platperf-probe"
    meta = json.loads(subprocess.run([str(binary), "info"], capture_output=True, text=True,
                                     check=True).stdout.splitlines()[0])
    (first, *_) = meta["pmu_counters"]
    sources = set(p.name for p in Path("/sys/bus/event_source/devices").iterdir())
    if not sources & {"cpu", "cpu_core", "cpu_atom"} and not any(s.startswith("armv") for s in sources):
        assert first == {"cpu": meta["cpus_online"][0],
                         "why": "no hardware events here (no core PMU: perf_event_open gives ENOENT)"}
    else:
        assert first.get("at_once", 0) >= 2 or "not allowed" in first.get("why", ""), first


def test_where_sysfs_has_no_core_pmu_the_probes_reason_is_said_with_it():
    meta = {"pmu_counters": [{"cpu": 0, "why": "no hardware events here (no core PMU: perf_event_open gives ENOENT)"}]}
    (none,) = [f for f in check_pmu(SYSFS / "x86vm", [], probe_meta=meta) if f.code == "pmu-none"]
    assert none.message == ("no hardware events: the event sources are breakpoint, msr, software, tracepoint, "
                            "uprobe (no core PMU, as in a VM without a virtual PMU); the probe: no hardware events "
                            "here (no core PMU: perf_event_open gives ENOENT)")


def test_an_x86_core_pmu_takes_the_probes_one_unnamed_entry(tmp_path):
    """x86's ``cpu`` PMU lists no CPUs: the probe measures it once, on the first CPU, and names no
    PMU (probe/src/event_count.c); a second core PMU (cpu_core and cpu_atom of a hybrid) would
    not be given another's count."""
    cpu = tmp_path / "sys/bus/event_source/devices/cpu"
    (cpu / "events").mkdir(parents=True)
    (cpu / "events/cpu-cycles").write_text("event=0x3c\n")
    meta = {"pmu_counters": [{"cpu": 0, "at_once": 9}]}
    assert [f.message for f in check_pmu(tmp_path, [], probe_meta=meta)] == [
        "core PMU cpu on every CPU: 1 event listed; 9 events counted at once (measured on CPU 0)"]
    atom = tmp_path / "sys/bus/event_source/devices/cpu_atom"
    (atom / "events").mkdir(parents=True)
    assert [f.message for f in check_pmu(tmp_path, [], probe_meta=meta)] == [
        "core PMU cpu on every CPU: 1 event listed", "core PMU cpu_atom on every CPU: 0 events listed"]


def test_doctor_on_this_machine_says_what_its_probe_found():
    """The doctor command here runs this machine's probe (``info``): on this VM (no core PMU in
    /sys) its ENOENT is said in pmu-none; on a machine with a PMU the pmu-core line carries the
    count or why it was not measured."""
    result = CliRunner().invoke(app, ["doctor", "--json"])
    assert result.exit_code == 0, result.output
    pmu = [f for f in json.loads(result.stdout)["findings"] if f["code"] in ("pmu-none", "pmu-core")]
    assert pmu, result.stdout
    if pmu[0]["code"] == "pmu-none":
        assert pmu[0]["message"].endswith("; the probe: no hardware events here (no core PMU: perf_event_open "
                                          "gives ENOENT)")
    else:
        assert all("counted at once (measured on CPU" in f["message"] or "not measured: " in f["message"]
                   for f in pmu)
