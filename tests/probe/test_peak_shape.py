"""The aarch64 peak loops' shape the probe writes as the `expected` instructions of a counted
run (issue 37: "a peak kernel retires the loads per byte its disassembly says") is the
disassembly's: peak.S's table pp_peak_neon_shape -- per kernel, the instructions of an inner
iteration, of the end of a pass, and the bytes an iteration advances -- is assembled from the
loops' own addresses; here it is read out of the built probe and set against objdump's count
of the same loops. The board test (tests/test_vboard_events.py) then checks that INST_RETIRED
agrees with it. Builds: `make probe-cross`."""
from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from conftest import missing

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / "build" / "probe" / "aarch64" / "platperf-probe"
OBJDUMP, NM = "aarch64-linux-gnu-objdump", "aarch64-linux-gnu-nm"


@pytest.fixture(scope="module")
def disassembly() -> str:
    if not BINARY.exists():
        missing(f"{BINARY} is not built (make probe-cross)")
    for tool in (OBJDUMP, NM):
        if not shutil.which(tool):
            missing(f"{tool} is not installed (make deps)")
    return subprocess.run([OBJDUMP, "-d", "--no-show-raw-insn", str(BINARY)], check=True, capture_output=True,
                          text=True).stdout


def shape_table() -> list[tuple[int, int, int]]:
    """pp_peak_neon_shape's nine 32-bit words, as the probe reads them."""
    sym = subprocess.run([NM, str(BINARY)], check=True, capture_output=True, text=True).stdout
    address = int(re.search(r"^([0-9a-f]+) R pp_peak_neon_shape$", sym, re.M).group(1), 16)
    dump = subprocess.run([OBJDUMP, "-s", "-j", ".rodata", f"--start-address={address:#x}",
                           f"--stop-address={address + 36:#x}", str(BINARY)], check=True, capture_output=True,
                          text=True).stdout
    words = []
    for line in dump.splitlines():
        if re.match(r"^ [0-9a-f]+ ", line):
            for token in line.split()[1:5]:
                if not re.fullmatch(r"[0-9a-f]{2,8}", token):
                    break
                words.append(token)
    raw = bytes.fromhex("".join(words))[:36]
    words = struct.unpack("<9I", raw)
    return [tuple(words[i:i + 3]) for i in range(0, 9, 3)]


def counted(text: str, kernel: str) -> tuple[int, int, int]:
    """(inner iteration's instructions up to its b.lo back, the pass end's up to its b.ne back,
    the bytes its first add advances x4 by) from objdump's listing of the loop."""
    loop = f"pp_peak_{kernel}_neon_loop"
    at = text.index(f"<{loop}>:\n")
    insns = []
    for line in text[at:].splitlines()[1:200]:
        m = re.match(r"^\s+[0-9a-f]+:\s+(.*?)\s*$", line)
        if m:
            insns.append(re.sub(r"\s*//.*$", "", re.sub(r"\s+", " ", m.group(1))))
            if re.match(rf"b\.ne [0-9a-f]+ <{loop}>", insns[-1]):
                break
    inner = next(i for i, insn in enumerate(insns) if re.match(rf"b\.(lo|cc) [0-9a-f]+ <{loop}>", insn)) + 1
    step = int(re.search(r"add x4, x4, #(0x[0-9a-f]+)", " ".join(insns)).group(1), 16)
    return inner, len(insns) - inner, step


def test_the_shape_table_is_the_disassemblys(disassembly):
    table = shape_table()
    found = [counted(disassembly, k) for k in ("read", "write", "copy")]
    assert table == found
    # the loops as docs/events.md states them: 16 ldp or stp q pairs of 32 bytes and 3 more
    assert found == [(19, 3, 512), (19, 3, 512), (20, 4, 256)]


def test_the_table_catches_a_loop_it_does_not_describe(disassembly):
    """A loop with one instruction more than the table says: the comparison above fails."""
    edited = re.sub(r"(<pp_peak_read_neon_loop>:\n(?:.*\n){16})", r"\1  0:\tnop\n", disassembly, count=1)
    assert counted(edited, "read") == (20, 3, 512) != shape_table()[0]
