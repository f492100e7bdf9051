"""Events counted with every sample (issue 37), on a real kernel's PMU: Debian's arm64 kernel
drives QEMU's emulated Cortex-A57 PMUv3 (``armv8_pmuv3``, 6 event counters and the cycle
counter) on ``vboard_aarch64_events``, a 1-core board started with ``-icount shift=0``
(tests/vboard.py). There each guest instruction is one tick of QEMU's virtual clock, so
INST_RETIRED counts exactly and a known answer exists: the instructions per iteration the
probe counts around each timed loop are the instructions the loop's disassembly holds.

Functional tests only: under emulation no figure is a timing.
"""
from __future__ import annotations

import re

import pytest

PMU = "/sys/bus/event_source/devices/armv8_pmuv3"


# -- the board's PMU, as the kernel shows it ------------------------------------------------------
def test_the_icount_board_has_a_pmuv3_that_counts_instructions(vboard_aarch64_events):
    """QEMU lists INST_RETIRED in PMCEID0 only with a precise icount: the kernel's events
    directory then names it beside cpu_cycles; the driver found 7 counters (6 + the cycle
    counter). Debian's kernel forbids counting to unprivileged users (paranoid 3); the probe
    runs as root over ssh, which may count."""
    board = vboard_aarch64_events
    events = board.ssh(f"ls {PMU}/events").stdout.split()
    assert events == ["cpu_cycles", "inst_retired"]
    assert board.ssh(f"cat {PMU}/cpus").stdout.strip() == "0"
    boot = board.ssh("dmesg").stdout
    assert re.search(r"enabled with armv8_pmuv3 PMU driver, 7 counters available", boot), boot[-2000:]
    assert board.ssh("cat /proc/sys/kernel/perf_event_paranoid").stdout.strip() == "3"
    assert board.ssh("id -u").stdout.strip() == "0"
    # icount: the guest's virtual clock is the instruction count, not this machine's time.
    assert "-icount" in open(f"/proc/{board.proc.pid}/cmdline").read().split("\0")
