"""Kernels that prove what they do (issue 37 part 3): each claim checked over counted events, a
contradiction a `bad` finding naming the kernel, the claim and the figure; no counter, no finding.
And the events' way onto every target: the plan's argv (local and SSH run it as it is) and a
LAVA job's script."""
import base64
import gzip
import subprocess
import sys

import pytest
import yaml

from conftest import require_probe

from platperf.events.claims import check
from platperf.events.counted import Counted
from platperf.records import result_from_record
from platperf.runner.suite import count_events, load_suite, plan

KIB, MIB = 1024, 1024 * 1024
# Juno r1's data caches as a fingerprint holds them: its A57s 0-1 share 2 MiB of L2, A53s 2-5 1 MiB
JUNO = {"caches": [
    {"level": 1, "type": "Data", "size": "32K", "cpus": [0, 1, 2, 3, 4, 5]},
    {"level": 1, "type": "Instruction", "size": "48K", "cpus": [0, 1]},
    {"level": 2, "type": "Unified", "size": "2048K", "cpus": [0, 1]},
    {"level": 2, "type": "Unified", "size": "1024K", "cpus": [2, 3, 4, 5]},
]}


def counters(benchmark, params, per, cpu, **per_op):
    """The counter results of one record whose counters count ``per_op`` per operation (events
    named as the probe names them: llc_miss=0.9 ...), over 1000 operations a sample."""
    rec = {"type": "result", "benchmark": benchmark, "params": params, "cpu": cpu, "mode": "serial",
           "metric": "latency", "unit": "ns", "direction": "lower", "samples": [1.0, 1.0, 1.0],
           "iterations": 1000, "events": {"per": per, "counters": []}}
    for name, value in per_op.items():
        expected = None
        if isinstance(value, tuple):
            value, expected = value
        event = {"l1d": "L1D_CACHE", "l1d_refill": "L1D_CACHE_REFILL", "llc_miss": "LL_CACHE_MISS_RD",
                 "l2d_refill": "L2D_CACHE_REFILL", "instructions": "INST_RETIRED"}[name]
        rec["events"]["counters"].append({"name": name, "event": event, "unit": "events",
                                          "counts": [round(value * 1000)] * 3,
                                          **({"expected": expected} if expected is not None else {})})
    return Counted().expand(result_from_record(rec))[0]


def chase(size, cpu=1, **per_op):
    return counters("mem-latency", {"pattern": "random", "size": size, "stride": 64}, "access", cpu, **per_op)


def test_a_random_chase_far_beyond_the_llc_that_misses_it_holds():
    (f,) = check(chase(64 * MIB, llc_miss=0.97), JUNO)
    assert (f["level"], f["code"]) == ("ok", "kernel-claims-hold")
    assert f["message"] == "1 kernel claim checked against counted events: all hold"


def test_a_random_chase_far_beyond_the_llc_that_hits_it_is_a_bad_finding():
    (f,) = check(chase(64 * MIB, cpu=1, llc_miss=0.12), JUNO)
    assert (f["level"], f["code"], f["benchmark"], f["cpu"]) == ("bad", "claim-chase-misses-llc", "mem-latency", 1)
    # the kernel, the claim and the counted figure; on CPU 1 (an A57) the LLC is the 2 MiB L2
    assert f["message"] == ("mem-latency [pattern=random,size=67108864,stride=64] serial on CPU 1: a random chase "
                            "of 64 MiB, 32x the 2 MiB L2, misses it on nearly every load (at least 0.80 per "
                            "load), but counted 0.12 llc_miss per access (LL_CACHE_MISS_RD)")


def test_at_four_times_the_llc_a_quarter_of_the_ring_still_fits():
    # 8 MiB on an A57: 4x its 2 MiB L2, so a perfect chase misses on 0.75 of its loads
    assert check(chase(8 * MIB, l2d_refill=0.74), JUNO)[0]["level"] == "ok"
    (bad,) = check(chase(8 * MIB, l2d_refill=0.5), JUNO)
    assert "at least 0.68 per load" in bad["message"] and "0.5 l2d_refill per access" in bad["message"]


def test_a_chase_inside_l1_refills_it_about_never():
    assert check(chase(8 * KIB, l1d_refill=0.01), JUNO)[0]["code"] == "kernel-claims-hold"
    (bad,) = check(chase(8 * KIB, cpu=3, l1d_refill=0.4), JUNO)
    assert bad["code"] == "claim-chase-in-l1" and "on CPU 3" in bad["message"]
    assert "a chase of 8 KiB inside the 32 KiB L1 data cache refills it ~never" in bad["message"]
    assert bad["message"].endswith("but counted 0.4 l1d_refill per access (L1D_CACHE_REFILL)")


def test_a_peak_kernel_retires_the_instructions_its_disassembly_says():
    peak = {"kernel": "peak-read", "size": 16384}
    good = counters("mem-bandwidth", peak, "byte", 0, instructions=(0.066, 0.0625))    # +5.6%
    assert check(good, JUNO)[0]["level"] == "ok"
    (bad,) = check(counters("mem-bandwidth", peak, "byte", 0, instructions=(0.25, 0.0625)), JUNO)
    assert bad["code"] == "claim-disassembly"
    assert "instructions per byte is the disassembly's 0.0625 (within 10%), but counted 0.25" in bad["message"]


def test_the_latency_loop_touches_no_memory_but_its_histogram():
    loop = {"variant": "plain"}
    assert check(counters("latency-loop", loop, "pass", 2, l1d=2.0, l1d_refill=0.0), JUNO)[0]["level"] == "ok"
    # a loop whose compiler added a load and a store a pass (the Genode note's bogomips loop)
    (bad,) = check(counters("latency-loop", loop, "pass", 2, l1d=4.0, l1d_refill=0.0), JUNO)
    assert bad["code"] == "claim-latency-loop-no-memory"
    assert "but counted 4 l1d per pass (L1D_CACHE)" in bad["message"]


def test_no_counter_no_cache_no_finding():
    assert check(chase(64 * MIB, l1d=1.0), JUNO) == []                 # no miss or refill counted
    assert check(chase(64 * MIB, llc_miss=0.1), None) == []           # no cache sizes known
    assert check(chase(512 * KIB, llc_miss=0.1), JUNO) == []          # within 4x the LLC: no claim
    assert check([], JUNO) == []


def test_a_contradiction_among_held_claims_says_both():
    found = check(chase(64 * MIB, llc_miss=0.1) + chase(8 * KIB, l1d_refill=0.0), JUNO)
    assert [(f["level"], f["code"]) for f in found] == [("bad", "claim-chase-misses-llc"),
                                                         ("ok", "kernel-claims-hold")]
    assert found[1]["message"] == "1 other kernel claim checked against counted events hold"


# -- every target ------------------------------------------------------------------------------
def test_the_plan_gives_every_probe_step_the_events(tmp_path):
    suite_file = tmp_path / "s.toml"
    suite_file.write_text('events = ["cycles", "l2d"]\n[[bench]]\nkernel = "mem-latency"\nmode = "both"\n'
                          '[[bench]]\nkernel = "os-syscall"\nevents = "page_faults"\n')
    steps = plan(load_suite(str(suite_file)), [0, 1])
    assert [s.argv[s.argv.index("--events") + 1] for s in steps] == ["cycles,l2d", "cycles,l2d", "page_faults"]
    assert all("cycles" not in s.title for s in steps)
    suite = load_suite(str(suite_file))
    count_events(suite, "instructions")            # --events: every step, the suite's lists replaced
    assert [s.argv[-1] for s in plan(suite, [0])] == ["instructions"] * 3


def test_a_lava_jobs_probe_commands_carry_the_events():
    require_probe()
    done = subprocess.run([sys.executable, "-m", "platperf", "lava", "job", "--suite", "quick", "--device-type",
                           "juno-r1", "--events", "cycles,l2d"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    data = yaml.load(done.stdout, Loader=yaml.CSafeLoader)
    script = gzip.decompress(base64.b64decode("".join(
        v for k, v in sorted(data["secrets"].items()) if k.startswith("PLATPERF_SCRIPT_")))).decode()
    steps = [line for line in script.splitlines() if line.startswith("platperf_step ")]
    assert steps and all(line.endswith(" --events cycles,l2d") for line in steps)


def test_a_bad_event_in_a_suite_is_one_line(tmp_path):
    suite_file = tmp_path / "s.toml"
    suite_file.write_text('events = ["cycles", "l2"]\n[[bench]]\nkernel = "mem-latency"\n')
    with pytest.raises(ValueError, match=r"^suite .*s\.toml: unknown event 'l2' \(valid: cycles"):
        load_suite(str(suite_file))


def test_a_latency_loop_keeping_raw_samples_stores_one_a_pass_on_purpose():
    assert check(counters("latency-loop", {"variant": "plain", "raw": 100000}, "pass", 2, l1d=4.0), JUNO) == []


def test_the_llc_is_the_one_serving_the_cpu():
    # 6 MiB: 6x an A53's 1 MiB L2 (checked), 3x an A57's 2 MiB (no claim there)
    assert check(chase(6 * MIB, cpu=3, llc_miss=0.1), JUNO)[0]["code"] == "claim-chase-misses-llc"
    assert check(chase(6 * MIB, cpu=0, llc_miss=0.1), JUNO) == []
