"""The core PMU on a real kernel (issue 37): QEMU's Cortex-A57 PMUv3 under Debian's arm64 kernel
on ``vboard_aarch64_events``, and QEMU's Cortex-A15 PMU under Debian's armmp kernel on
``vboard_armv7_events`` (one core each, ``-icount shift=0``: INST_RETIRED counts exactly).

* ``platperf doctor --target`` runs the board's probe (``info``) and says beside the PMU how
  many events it counts at once, measured: the kernel's own "7 counters available";
* on the A15, the armv7 peak loops retire the instructions per byte their code says (the
  probe's ``expected``, checked against objdump in tests/probe/test_peak_shape.py); cycles go
  on the dedicated cycle counter (the armv7 driver's 0xFF), so 7 events count at once; L1D_CACHE
  opens (the armv7 driver lists every A15 event without asking the core) and reads 0, which
  QEMU does not model: said as an event counting nothing, not as three kernels failing;
* align-sweep's pooled rounds (each with its own repetitions) counted per op: INST_RETIRED
  over each sample's own operations is the add chain's disassembly at every placement.

Functional only: under emulation no figure is a timing.
"""
from __future__ import annotations

import json
import re
import subprocess

from conftest import require_executable
from test_vboard import platperf
from test_vboard_events import OBJDUMP, OVERHEAD_MAX, _instructions, peak_run

ADDCHAIN_UNROLL = 64     # timed_loops.h: dependent adds per iteration of pp_addchain


def test_doctor_says_how_many_events_the_boards_pmu_counts_at_once(vboard_aarch64_events, tmp_path):
    board = vboard_aarch64_events
    announced = int(re.search(r"PMU driver, (\d+) counters available", board.ssh("dmesg").stdout).group(1))
    done = platperf(board, "doctor", "--target", f"ssh://{board.alias}", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (core,) = [f for f in json.loads(done.stdout)["findings"] if f["code"] == "pmu-core"]
    # the PMU's caps/ (zeros on QEMU's PMUv3) come between the events and the count
    assert core["message"].startswith("core PMU armv8_pmuv3 on CPUs 0: 2 events listed; caps: "), core
    assert core["message"].endswith(f"; {announced} events counted at once (measured on CPU 0)"), core
    assert announced == 7


def test_align_sweeps_pooled_rounds_count_the_add_chains_instructions_at_every_placement(vboard_aarch64_events):
    """Each placement's record pools two rounds of three samples; each sample's INST_RETIRED,
    less the add chain's iterations x its body (objdump of the probe the board runs), is the
    counting's own few instructions around the loop: never below 0, never above OVERHEAD_MAX.
    Divided by another round's operations it would be off by the rounds' ratio."""
    from platperf.probe_path import find_probe
    board = vboard_aarch64_events
    text = subprocess.run([require_executable(OBJDUMP, "Debian binutils-aarch64-linux-gnu; make deps"), "-d",
                           "--no-show-raw-insn", str(find_probe("aarch64"))], check=True, capture_output=True,
                          text=True).stdout
    body = _instructions(text, "pp_addchain_loop", re.compile(r"^b\S* [0-9a-f]+ <pp_addchain_loop>$").match)
    assert sum(1 for i in body if i.startswith("add x0")) == ADDCHAIN_UNROLL
    done = board.ssh("platperf-probe run align-sweep --kernel add-chain --span 32 --rounds 2 --cpus 0 "
                     "--samples 3 --warmup 0 --min-time 0.002 --events instructions", timeout=600)
    assert done.returncode == 0, done.stderr
    got = [json.loads(line) for line in done.stdout.splitlines()]
    results = [r for r in got if r["type"] == "result" and r["metric"] == "latency"]
    assert [r["params"]["offset"] for r in results] == [0, 16]
    for r in results:
        e = r["events"]
        (counter,) = e["counters"]
        assert (e["per"], counter["event"], len(e["iterations"])) == ("op", "INST_RETIRED", 6)
        for count, ops in zip(counter["counts"], e["iterations"]):
            retired = ops // ADDCHAIN_UNROLL * len(body)
            assert 0 <= count - retired <= OVERHEAD_MAX, (r["params"], count, retired, ops)



def test_the_a15_counts_seven_at_once_and_its_peak_loops_retire_what_their_code_says(vboard_armv7_events,
                                                                                     tmp_path):
    board = vboard_armv7_events
    announced = int(re.search(r"armv7_cortex_a15 PMU driver, (\d+) counters available", board.ssh("dmesg").stdout)
                    .group(1))
    done = platperf(board, "doctor", "--target", f"ssh://{board.alias}", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (core,) = [f for f in json.loads(done.stdout)["findings"] if f["code"] == "pmu-core"]
    assert core["message"].startswith("core PMU armv7_cortex_a15 on CPUs 0: "), core
    assert core["message"].endswith(f"; {announced} events counted at once (measured on CPU 0)"), core
    store, run = peak_run(board, tmp_path, "cycles,instructions,l1d", "a15")
    by = {(r.params["kernel"], r.metric): r for r in store.results(run["id"])}
    assert {r.extra["code"] for (_, m), r in by.items() if m == "cycles_per_byte"} == {"0xff"}
    for kernel in ("peak-read", "peak-write", "peak-copy"):
        r = by[kernel, "instructions_per_byte"]
        expected = r.extra["expected"]
        for per_byte in r.samples:     # the loop's own, and what counting adds: a few hundred a sample
            assert 0 <= per_byte - expected <= OVERHEAD_MAX / r.extra["iterations"] + 1e-6, (kernel, per_byte)
        print(f"a15 | {kernel} | expected {expected:.6g} | counted {r.samples[0]:.6g} | "
              f"{r.samples[0] / expected - 1:+.4%}")
    codes = [(f["level"], f["code"]) for f in run["findings"] if "claim" in f["code"] or "counts-nothing" in f["code"]]
    assert codes == [("warn", "event-counts-nothing"), ("ok", "kernel-claims-hold")], codes
    (dead,) = [f for f in run["findings"] if f["code"] == "event-counts-nothing"]
    assert dead["message"].startswith("L1D_CACHE (l1d) read 0 in every sample of the 3 results"), dead
