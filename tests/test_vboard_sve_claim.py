"""The SVE peak loops retire the instructions the probe expects of them (issue 37 part 3), on a
board whose vectors the test chooses: QEMU's `-cpu max` (SVE, 128 to 2048 bits) under
``-icount shift=0``, one core, where INST_RETIRED counts exactly (tests/vboard.py,
``vboard_aarch64_events`` is the same board with a Cortex-A57, which has no SVE).

The probe's `expected` of an SVE loop is not a constant of the binary: its step is 8 vector
lengths, read at run time, and a buffer that is not a whole number of steps ends one predicated
vector at a time (probe/src/kernels/bw_claim.c; the table it reads is set against objdump in
tests/probe/test_peak_shape.py). Here the kernel's default vector length is set before each run
(/proc/sys/abi/sve_default_vector_length), and for each of 128, 256, 384 and 2048 bits, over
16 KiB and 16.5 KiB, INST_RETIRED per byte is the record's `expected` within what counting adds
to a sample (OVERHEAD_MAX instructions).

Functional tests only: under emulation no figure is a timing.
"""
from __future__ import annotations

import dataclasses
import json

import pytest
from conftest import missing
from test_vboard import platperf
from test_vboard_events import OVERHEAD_MAX, RUN
from vboard import VirtualBoard, build, missing_parts

VL_BYTES = (16, 32, 48, 256)
SIZES = (16384, 16896)           # 16896 = 33 x 512: a rest after whole iterations of 8 x 256 or 8 x 48 bytes


class SveBoard(VirtualBoard):
    """The events board with QEMU's `max` CPU, which has SVE, in place of the Cortex-A57."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.guest = dataclasses.replace(self.guest, cpu="max")


@pytest.fixture(scope="module")
def vboard_sve(tmp_path_factory):
    why = missing_parts("aarch64")
    if why:
        missing(why)
    image = build("aarch64", log=print)
    board = SveBoard(image, tmp_path_factory.mktemp("vboard-sve"), sockets=1, clusters=1, cores=1, caches=True,
                     icount=True, alias="vboard-aarch64-sve").start()
    yield board
    board.stop()


def set_vector_length(board, vl: int):
    board.ssh(f"echo {vl} > /proc/sys/abi/sve_default_vector_length")
    assert board.ssh("cat /proc/sys/abi/sve_default_vector_length").stdout.strip() == str(vl)


@pytest.fixture(scope="module")
def runs(vboard_sve):
    """{vector bytes: the peak records of one probe run at that default vector length}."""
    board = vboard_sve
    out = {}
    for vl in VL_BYTES:
        set_vector_length(board, vl)
        done = board.ssh(" ".join(["platperf-probe", "run", "mem-bandwidth", "--kernel", "peak-read,peak-write,peak-copy",
                                   "--size", ",".join(map(str, SIZES)), "--isa", "sve", *RUN, "--events",
                                   "instructions"]), timeout=900)
        assert done.returncode == 0, done.stderr
        records = [json.loads(line) for line in done.stdout.splitlines()]
        assert f"sve-vl{vl * 8}" in records[0]["features"], records[0]
        out[vl] = [r for r in records if r["type"] == "result"]
    return out


def test_the_board_has_sve_and_counts_instructions(vboard_sve):
    board = vboard_sve
    assert "sve" in board.ssh("grep -m1 Features /proc/cpuinfo").stdout.split()
    assert "inst_retired" in board.ssh("ls /sys/bus/event_source/devices/armv8_pmuv3/events").stdout.split()


@pytest.mark.parametrize("vl", VL_BYTES)
def test_inst_retired_per_byte_is_the_expected_of_each_sve_loop(runs, vl):
    records = runs[vl]
    assert sorted((r["params"]["kernel"], r["params"]["size"]) for r in records) == sorted(
        (k, s) for k in ("peak-read", "peak-write", "peak-copy") for s in SIZES)
    for rec in records:
        (counter,) = rec["events"]["counters"]
        assert counter["name"] == "instructions" and counter["event"] == "INST_RETIRED"
        expected, iterations = counter["expected"], rec["iterations"]
        for count in counter["counts"]:
            # expected is written to 10 digits: its rounding is well under an instruction a sample
            assert -1 <= count - expected * iterations <= OVERHEAD_MAX, (vl, rec["params"], count, expected * iterations)
        print(f"sve | {vl * 8} bits | {rec['params']['kernel']} {rec['params']['size']} | expected {expected:.6g} | "
              f"counted {counter['counts'][0] / iterations:.6g} | {counter['counts'][0] / (expected * iterations) - 1:+.5%}")


# Three of the records' expected, from the table's rows (read: 11 an iteration, 15 a pass, 4 a
# rest vector; copy: 20, 15, 6) and the vector length, by hand.
BY_HAND = {(48, "peak-read", 16384): (42 * 11 + 15 + 6 * 4) / 16384,       # 42 x 384 bytes, 256 left: 6 vectors
           (256, "peak-read", 16896): (8 * 11 + 15 + 2 * 4) / 16896,       # 8 x 2048 bytes, 512 left: 2
           (16, "peak-copy", 16384): (128 * 20 + 15) / (2 * 16384)}        # 128 x 128 bytes, none left


def test_the_records_expected_is_the_by_hand_one(runs):
    for (vl, kernel, size), value in BY_HAND.items():
        rec = next(r for r in runs[vl] if r["params"]["kernel"] == kernel and r["params"]["size"] == size)
        assert rec["events"]["counters"][0]["expected"] == pytest.approx(value, rel=1e-9)


def test_a_run_on_the_board_says_the_sve_claims_hold(vboard_sve, tmp_path):
    """platperf run over ssh at 256-bit vectors: the three loops' claims hold, no bad finding."""
    from platperf.store import Store
    board = vboard_sve
    set_vector_length(board, 32)
    (tmp_path / "sve.toml").write_text('[[bench]]\nkernel = "mem-bandwidth"\nparams = { kernel = ["peak-read", '
                                       '"peak-write", "peak-copy"], isa = "sve" }\nsize = "16k"\nsamples = 3\n'
                                       'warmup = 0\nmin_time = 0.002\n')
    done = platperf(board, "run", "--suite", "sve.toml", "--target", f"ssh://{board.alias}", "--events",
                    "instructions", "--db", "s.db", "--label", "sve", "--json", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run = Store(str(tmp_path / "s.db")).run("sve")
    claims = [f for f in run["findings"] if f["code"].startswith(("claim-", "kernel-claims"))]
    assert [(f["level"], f["code"], f["message"]) for f in claims] == [
        ("ok", "kernel-claims-hold", "3 kernel claims checked against counted events: all hold")], claims
    assert not [f for f in run["findings"] if f["level"] == "bad"]
