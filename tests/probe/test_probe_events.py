"""The probe's --events (issue 37; docs/results-format.md, "events"), run for real on this
x86_64 KVM guest: its kernel has no virtual PMU (event sources breakpoint, msr, software,
tracepoint, uprobe: every hardware event fails with ENOENT), so what counts here is the
software events. Functional only: no timing is asserted.

* a hardware event asked is said unavailable once and never invented; page faults count;
* a known answer: the first touch of N fresh 4 KiB pages takes N page faults;
* perf_event_paranoid: refused counting is one line with its fix; as a user, the events that
  count only in the kernel (context switches, migrations) are left out, never stored as 0;
* names resolved against an Arm core PMU's sysfs (a fixture tree, $PLATPERF_EVENT_SOURCES):
  the PMUv3 common event numbers of the Arm ARM (D17.11: L2D_CACHE 0x16, L2D_CACHE_REFILL
  0x17...), raw events as perf spells them, and the list's limits.

Multiplexing (more events than counters) needs a PMU: tests/test_vboard_events.py.
"""
from __future__ import annotations

import ctypes
import json
import os
import platform
import subprocess
from pathlib import Path

import pytest

from test_probe_functional import command, records

SMALL = ["--samples", "3", "--warmup", "1", "--min-time", "0"]
PARANOID = Path("/proc/sys/kernel/perf_event_paranoid")
NOBODY = 65534


def has_hardware_pmu() -> bool:
    devices = Path("/sys/bus/event_source/devices")
    return any((d / "events" / "cpu-cycles").exists() or (d / "events" / "cpu_cycles").exists()
               for d in devices.iterdir()) if devices.exists() else False


def probe(*args: str, env: dict | None = None, preexec=None, check=True) -> subprocess.CompletedProcess:
    proc = subprocess.run([*command("native"), *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})}, preexec_fn=preexec, cwd="/")
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def results(recs):
    return [r for r in recs if r["type"] == "result"]


def warnings(recs, prefix="events-"):
    return [r for r in recs if r["type"] == "warning" and r["code"].startswith(prefix)]


def counters(rec) -> dict:
    return {c["name"]: c for c in rec["events"]["counters"]}


no_pmu = pytest.mark.skipif(has_hardware_pmu() or platform.machine() != "x86_64",
                            reason="for an x86_64 machine without a hardware PMU (this test VM)")


# -- no --events: nothing changes ----------------------------------------------------------------
def test_without_events_no_record_has_a_trace_of_them():
    """The existing tests' streams are unchanged; here: no field, no warning, no meta key."""
    recs = records(probe("run", "mem-latency", "--size", "16k", *SMALL).stdout)
    assert "events" not in recs[0]
    assert not warnings(recs)
    assert len(results(recs)) == 2 and not [r for r in results(recs) if "events" in r]


# -- this machine: no hardware events, page faults counted ---------------------------------------
@no_pmu
def test_hardware_events_are_said_unavailable_once_and_page_faults_counted():
    recs = records(probe("run", "mem-latency", "--size", "16k,64k", *SMALL, "--events", "cycles,page_faults").stdout)
    said = warnings(recs)
    assert [w["code"] for w in said] == ["events-unavailable"]
    sources = ", ".join(sorted(os.listdir("/sys/bus/event_source/devices")))   # breakpoint, msr, software, ...
    assert said[0]["message"] == (f"hardware events are not available here (event sources: {sources}): "
                                  f"counting page_faults only")
    meta = recs[0]
    assert meta["events"]["asked"] == "cycles,page_faults" and meta["events"]["pmu"] == {}
    status = {c["name"]: c["status"] for c in meta["events"]["counters"]}
    assert status == {"cycles": "no-hardware", "page_faults": "counted"}
    res = results(recs)
    assert len(res) == 4     # two sizes, latency and latency_cycles
    for r in res:
        assert r["events"]["per"] == "access" and r["iterations"] > 0
        assert list(counters(r)) == ["page_faults"]      # no cycles invented
        pf = counters(r)["page_faults"]
        assert (pf["event"], pf["pmu"], pf["code"], pf["unit"]) == ("page-faults", "software", "0x2", "events")
        assert len(pf["counts"]) == len(pf["enabled_ns"]) == len(pf["running_ns"]) == len(r["samples"]) == 3
        # a ring mapped and touched before its samples: its chase faults no page
        assert pf["counts"] == [0, 0, 0]
        assert pf["running_ns"] == pf["enabled_ns"] and min(pf["enabled_ns"]) > 0


@no_pmu
def test_first_touch_of_n_pages_takes_n_page_faults():
    """The known answer: each repetition maps 4 MiB (1024 pages of 4 KiB, MADV_NOHUGEPAGE),
    writes one byte of each page and unmaps it, so each page faults once: page faults per page
    is 1.0. The loop's own code and stack are resident after calibration and warm-up (the
    samples count user and kernel faults alike, as root): at most a few more faults a sample
    could come from a page of them reclaimed meanwhile, and the bound allows 4 a sample; the
    counts here are exact."""
    recs = records(probe("run", "first-touch", "--size", "4m", *SMALL, "--events", "page_faults,cs").stdout)
    (r,) = results(recs)
    assert (r["benchmark"], r["params"], r["metric"], r["unit"]) == \
        ("first-touch", {"size": 4194304, "page_size": 4096}, "latency", "ns")
    assert r["events"]["per"] == "page"
    pages = r["iterations"]
    assert pages % 1024 == 0 and pages >= 1024        # repetitions x 1024 pages
    pf = counters(r)["page_faults"]
    for count in pf["counts"]:
        assert pages <= count <= pages + 4
        assert abs(count / pages - 1.0) <= 4 / pages
    if os.geteuid() == 0:
        assert "context_switches" in counters(r)         # as root: counted with the kernel's part


# -- perf_event_paranoid -------------------------------------------------------------------------
def paranoid_set(level: int):
    try:
        before = PARANOID.read_text().strip()
        PARANOID.write_text(f"{level}\n")
    except OSError as exc:
        pytest.skip(f"cannot set {PARANOID} ({exc}): needs root on a machine that allows it")
    return before


def as_nobody(deny_perf: bool = False):
    """preexec_fn: drop to nobody; with deny_perf, perf_event_open fails with EACCES as on
    Debian's kernels at perf_event_paranoid 3 (this kernel, upstream's, reads 3 as 2), through a
    seccomp filter (x86_64: syscall 298)."""
    def drop():
        if deny_perf:
            deny_perf_event_open()
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    return drop


def deny_perf_event_open():
    class Filter(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]

    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Filter))]
    ld, jeq, ret = 0x20, 0x15, 0x06
    prog = (Filter * 6)(Filter(ld, 0, 0, 4), Filter(jeq, 0, 3, 0xC000003E),     # arch: x86_64
                        Filter(ld, 0, 0, 0), Filter(jeq, 0, 1, 298),           # nr: perf_event_open
                        Filter(ret, 0, 0, 0x00050000 | 13),                    # errno EACCES
                        Filter(ret, 0, 0, 0x7FFF0000))                         # allow
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0 or \
            libc.prctl(22, 2, ctypes.byref(Prog(6, ctypes.cast(prog, ctypes.POINTER(Filter)))), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp")


@pytest.fixture
def paranoid():
    if os.geteuid() != 0 or platform.machine() != "x86_64":
        pytest.skip("sets perf_event_paranoid and runs the probe as nobody: root on x86_64")
    saved = []
    yield lambda level: saved.append(paranoid_set(level))
    if saved:
        PARANOID.write_text(saved[0] + "\n")
    assert not saved or PARANOID.read_text().strip() == saved[0]


def test_counting_refused_is_one_line_with_its_fix(paranoid):
    paranoid(3)
    out = probe("run", "first-touch", "--size", "64k", *SMALL, "--events", "page_faults,cs",
                preexec=as_nobody(deny_perf=True)).stdout
    recs = records(out)
    said = warnings(recs)
    assert [(w["code"], w["message"]) for w in said] == [
        ("events-denied", "perf_event_paranoid is 3: no counting without CAP_PERFMON; as root: "
                          "sysctl kernel.perf_event_paranoid=1 (or run as root)")]
    assert {c["status"] for c in recs[0]["events"]["counters"]} == {"denied"}
    assert [r for r in results(recs) if "events" not in r] == results(recs) != []


def test_as_a_user_context_switches_are_not_stored_as_zero(paranoid):
    """perf_event_paranoid 2: a user counts user space only (exclude_kernel), where context
    switches and migrations read 0 on this kernel: they are left out with one warning, page
    faults (taken in user space) still count, N for N pages."""
    paranoid(2)
    recs = records(probe("run", "first-touch", "--size", "1m", *SMALL, "--events", "page_faults,cs,migrations",
                         preexec=as_nobody()).stdout)
    said = warnings(recs)
    assert [w["code"] for w in said] == ["events-kernel-only"]
    assert said[0]["message"].startswith("context_switches, cpu_migrations read 0 in user space only (not root)")
    (r,) = results(recs)
    assert list(counters(r)) == ["page_faults"]
    pages = r["iterations"]
    assert all(pages <= c <= pages + 4 for c in counters(r)["page_faults"]["counts"])
    paranoid(1)
    recs = records(probe("run", "first-touch", "--size", "1m", *SMALL, "--events", "page_faults,cs,migrations",
                         preexec=as_nobody()).stdout)
    assert not warnings(recs)
    assert list(counters(results(recs)[0])) == ["page_faults", "context_switches", "cpu_migrations"]


# -- names resolved against an Arm core PMU (fixture sysfs) --------------------------------------
# The common events of the Arm ARM (D17.11) a Cortex-A57's PMCEID registers list, as the
# kernel's armv8_pmuv3 driver shows them: events/<name> = event=0xNN, format/event = config:0-15.
ARM_EVENTS = {"sw_incr": 0x00, "l1d_cache_refill": 0x03, "l1d_cache": 0x04, "inst_retired": 0x08,
              "cpu_cycles": 0x11, "l2d_cache": 0x16, "l2d_cache_refill": 0x17, "bus_access": 0x19}


def arm_sources(root: Path, cpus: str = "0-1") -> Path:
    pmu = root / "armv8_pmuv3_0"
    (pmu / "events").mkdir(parents=True)
    (pmu / "format").mkdir()
    (pmu / "type").write_text("10\n")      # unused on this machine: opening it gives ENOENT
    (pmu / "cpus").write_text(cpus + "\n")
    (pmu / "format" / "event").write_text("config:0-15\n")
    for name, number in ARM_EVENTS.items():
        (pmu / "events" / name).write_text(f"event=0x{number:02x}\n")
    (root / "software").mkdir()
    (root / "software" / "type").write_text("1\n")
    return root


def resolved(recs) -> dict:
    return {c["name"]: c for c in recs[0]["events"]["counters"]}


def test_arm_names_resolve_to_the_pmuv3_common_event_numbers(tmp_path):
    env = {"PLATPERF_EVENT_SOURCES": str(arm_sources(tmp_path / "sources"))}
    asked = "l2d,armv8_pmuv3/r17/,armv8_pmuv3/l2d_cache/,cycles,instructions,bus,llc,page_faults"
    recs = records(probe("run", "first-touch", "--size", "64k", "--cpus", "0", *SMALL, "--events", asked,
                         env=env).stdout)
    assert recs[0]["events"]["pmu"] == {"cpu0": "armv8_pmuv3_0"}
    got = resolved(recs)
    assert list(got) == ["l2d", "l2d_refill", "armv8_pmuv3_r17", "armv8_pmuv3_l2d_cache", "cycles",
                         "instructions", "bus_access", "llc", "llc_miss", "page_faults"]
    expect = {"l2d": ("L2D_CACHE", "0x16", 0x16), "l2d_refill": ("L2D_CACHE_REFILL", "0x17", 0x17),
              "armv8_pmuv3_r17": ("armv8_pmuv3/r17/", "r17", 0x17),
              "armv8_pmuv3_l2d_cache": ("armv8_pmuv3/l2d_cache/", "l2d_cache", 0x16),
              "cycles": ("CPU_CYCLES", "0x11", 0x11), "instructions": ("INST_RETIRED", "0x08", 0x08),
              "bus_access": ("BUS_ACCESS", "0x19", 0x19)}
    for name, (event, code, config) in expect.items():
        c = got[name]
        assert (c["event"], c["pmu"], c["code"], c["type"], c["config"]) == (event, "armv8_pmuv3_0", code, 10, config)
        assert c["status"] == "no-hardware"      # type 10 is no PMU of this machine's kernel
    # the core does not list LL_CACHE_RD: said, with why, not sent to the kernel
    assert got["llc"]["status"] == "not-here" and "does not list ll_cache_rd" in got["llc"]["why"]
    assert got["page_faults"]["status"] == "counted"
    (said,) = warnings(recs)
    assert said["message"].startswith("hardware events are not available here (event sources: armv8_pmuv3_0, "
                                      "software); not counted either: llc (CPU 0's PMU armv8_pmuv3_0 does not "
                                      "list ll_cache_rd")
    assert said["message"].endswith(": counting page_faults only")


def test_a_raw_term_that_does_not_fit_the_format_is_said(tmp_path):
    env = {"PLATPERF_EVENT_SOURCES": str(arm_sources(tmp_path / "sources"))}
    recs = records(probe("run", "first-touch", "--size", "64k", "--cpus", "0", *SMALL, "--events",
                         "armv8_pmuv3/event=0x10000/,armv8_pmuv3/umask=1/,arm_dsu/r19/", env=env).stdout)
    got = resolved(recs)
    assert got["armv8_pmuv3_event_0x10000"]["why"] == \
        "armv8_pmuv3_0: event=0x10000 does not fit its format (config:0-15)"
    assert got["armv8_pmuv3_umask_1"]["why"].startswith("armv8_pmuv3_0 has no format term or named event 'umask'")
    assert got["arm_dsu_r19"]["why"] == \
        "no event source 'arm_dsu' on this machine (it has: armv8_pmuv3_0, software)"


def one_line_refusal(*args: str) -> str:
    proc = probe("run", "first-touch", "--size", "64k", *args, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_an_unknown_name_lists_the_valid_ones_in_one_line():
    line = one_line_refusal("--events", "cycles,l2_refill")
    assert "unknown event 'l2_refill'" in line
    for name in ("cycles", "instructions", "l1d", "l2d", "l3d", "llc", "bus", "page-faults", "context-switches"):
        assert f"|{name}|" in line or f" {name}|" in line
    assert "armv8_pmuv3/r17/" in line


# 24 counters (EVENTS_MAX): l1d, l2d, l3d and llc are two each
FULL = ("cycles,instructions,branches,branch-misses,l1d,l2d,l3d,llc,bus,page-faults,minor-faults,"
        "major-faults,cs,migrations,task-clock,alignment-faults,r1,r2,r3,r4")


def test_more_counters_than_the_probe_holds_are_refused_never_cut():
    recs = records(probe("run", "first-touch", "--size", "64k", "--cpus", "0", *SMALL, "--events", FULL).stdout)
    assert len(recs[0]["events"]["counters"]) == 24
    line = one_line_refusal("--events", FULL + ",r5")
    assert "more than 24 counters" in line
    assert "asked twice" in one_line_refusal("--events", "l2d,page_faults,page-faults")


def test_an_x86_raw_event_is_read_against_its_format(tmp_path):
    """perf's cpu/event=0x24,umask=0x21/ (a comma inside the terms belongs to the event) with
    the core PMU's format as an x86 kernel shows it: event config:0-7, umask config:8-15."""
    cpu = tmp_path / "sources" / "cpu"
    (cpu / "format").mkdir(parents=True)
    (cpu / "type").write_text("4\n")
    (cpu / "format" / "event").write_text("config:0-7\n")
    (cpu / "format" / "umask").write_text("config:8-15\n")
    recs = records(probe("run", "first-touch", "--size", "64k", "--cpus", "0", *SMALL, "--events",
                         "cpu/event=0x24,umask=0x21/,page_faults,r1a2",
                         env={"PLATPERF_EVENT_SOURCES": str(tmp_path / "sources")}).stdout)
    got = resolved(recs)
    assert list(got) == ["cpu_event_0x24_umask_0x21", "page_faults", "r1a2"]
    raw = got["cpu_event_0x24_umask_0x21"]
    assert (raw["pmu"], raw["type"], raw["config"], raw["code"]) == ("cpu", 4, 0x2124, "event=0x24,umask=0x21")
    assert (got["r1a2"]["pmu"], got["r1a2"]["type"], got["r1a2"]["config"]) == ("raw", 4, 0x1a2)
    assert recs[0]["events"]["pmu"] == {}      # an x86 core PMU is no Arm one
    assert list(counters(results(recs)[0])) == ["page_faults"]


def test_a_dsu_event_is_counted_cpu_wide_on_its_cluster(tmp_path):
    """An uncore PMU (the DSU's arm_dsu_N, its cluster in associated_cpus, the CPU it counts on
    in cpumask) counts for a CPU, not a thread: resolved to that CPU, every task of the
    cluster counted during the sample (L3D_CACHE_REFILL, 0x2A)."""
    root = arm_sources(tmp_path / "sources", cpus="0-1")
    dsu = root / "arm_dsu_0"
    (dsu / "events").mkdir(parents=True)
    (dsu / "format").mkdir()
    (dsu / "type").write_text("11\n")
    (dsu / "cpumask").write_text("1\n")
    (dsu / "associated_cpus").write_text("0-1\n")
    (dsu / "format" / "event").write_text("config:0-31\n")
    (dsu / "events" / "l3d_cache_refill").write_text("event=0x2a\n")
    recs = records(probe("run", "first-touch", "--size", "64k", "--cpus", "0", *SMALL, "--events",
                         "arm_dsu/l3d_cache_refill/,l2d", env={"PLATPERF_EVENT_SOURCES": str(root)}).stdout)
    got = resolved(recs)
    dsu_refill = got["arm_dsu_l3d_cache_refill"]
    assert (dsu_refill["pmu"], dsu_refill["type"], dsu_refill["config"], dsu_refill["cpu"]) == ("arm_dsu_0", 11, 0x2A, 1)
    assert "cpu" not in got["l2d_refill"] and got["l2d_refill"]["pmu"] == "armv8_pmuv3_0"


# -- Debian's kernel on the aarch64 virtual board: perf_event_paranoid 3 for real ---------------
def test_on_debians_kernel_a_user_is_refused_in_one_line_and_counts_user_space_at_2(vboard_aarch64_events):
    """Debian's arm64 kernel (tests/vboard.py) at its default perf_event_paranoid 3 refuses a
    user any counting (EACCES): one events-denied line with the fix. At 2, a user counts user
    space only: CPU_CYCLES and page faults count (first-touch: N faults for N pages), context
    switches are left out. The board's paranoid is put back to 3 and its user removed."""
    board = vboard_aarch64_events
    run = ("su nobody -c '/usr/bin/platperf-probe run first-touch --size 1m --samples 2 --warmup 0 "
           "--min-time 0.01 --events cycles,page_faults,cs'")
    assert board.ssh("cat /proc/sys/kernel/perf_event_paranoid").stdout.strip() == "3"
    added = board.ssh("grep -q ^nobody: /etc/passwd || { echo 'nobody:x:65534:65534::/tmp:/bin/sh' >> /etc/passwd; "
                      "echo added; }").stdout.strip() == "added"
    try:
        denied = records(board.ssh(run).stdout)
        assert [(w["code"], w["message"]) for w in warnings(denied)] == [
            ("events-denied", "perf_event_paranoid is 3: no counting without CAP_PERFMON; as root: "
                              "sysctl kernel.perf_event_paranoid=1 (or run as root)")]
        assert results(denied) and not [r for r in results(denied) if "events" in r]
        board.ssh("echo 2 > /proc/sys/kernel/perf_event_paranoid")
        user = records(board.ssh(run).stdout)
        assert [w["code"] for w in warnings(user)] == ["events-kernel-only"]
        (r,) = results(user)
        assert list(counters(r)) == ["cycles", "page_faults"]
        assert all(c == r["iterations"] for c in counters(r)["page_faults"]["counts"])
        assert min(counters(r)["cycles"]["counts"]) > 0
    finally:
        board.ssh("echo 3 > /proc/sys/kernel/perf_event_paranoid")
        if added:
            board.ssh("sed -i '/^nobody:x:65534/d' /etc/passwd")
    assert board.ssh("cat /proc/sys/kernel/perf_event_paranoid").stdout.strip() == "3"


# align-sweep's pooled rounds, os-fs's passes, and cpu-idle's "no counts": test_probe_events_per.py


def test_more_events_than_counters_take_turns_and_say_so(vboard_aarch64_events):
    """QEMU's Cortex-A57 PMUv3 has 6 event counters and the cycle counter: 10 hardware events
    make two groups (the kernel refuses an eighth in the first), which take turns. Each
    counter keeps its group's time_enabled / time_running per sample, unscaled, and one
    events-multiplexed line says so. Raw events the core does not implement count 0 but
    still take a counter."""
    asked = "cycles,instructions,r3,r4,r16,r17,r19,r1b,r13,armv8_pmuv3/r14/,page_faults"
    out = vboard_aarch64_events.ssh(f"/usr/bin/platperf-probe run mem-latency --size 16k --samples 3 "
                                    f"--warmup 0 --min-time 0.01 --events {asked}").stdout
    recs = records(out)
    assert [(w["code"], w["message"].split(":")[0]) for w in warnings(recs)] == \
        [("events-multiplexed", "10 counters on 7")]
    r = results(recs)[0]
    got = counters(r)
    assert len(got) == 11
    first = [got[n]["running_ns"] for n in ("cycles", "instructions", "r3", "r4", "r16", "r17", "r19")]
    second = [got[n]["running_ns"] for n in ("r1b", "r13", "armv8_pmuv3_r14")]
    assert all(x == first[0] for x in first) and all(x == second[0] for x in second)
    for c in got.values():
        assert all(run <= enabled for run, enabled in zip(c["running_ns"], c["enabled_ns"]))
    assert any(run < enabled for run, enabled in zip(first[0], got["cycles"]["enabled_ns"]))
    assert got["page_faults"]["running_ns"] == got["page_faults"]["enabled_ns"]    # software: always on
    assert min(got["instructions"]["counts"]) > 0
