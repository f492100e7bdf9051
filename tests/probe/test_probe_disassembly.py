"""The probe's timed loops are what docs/probe.md says they are, read back from the built
binaries with each architecture's objdump (the micro-benchmarks-what-can-go-wrong lesson:
a compiler or assembler must not be able to change them unnoticed).

For each loop head symbol <name>_loop: the address is 64-byte aligned (.p2align 6), and
the body, up to the first branch back to the head, holds exactly the expected memory
instructions, of the expected width, and nothing else that touches memory.
Builds: `make probe probe-cross`. Missing build or objdump: skipped, except under CI=true.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OBJDUMP = {"native": "objdump", "aarch64": "aarch64-linux-gnu-objdump", "armv7": "arm-linux-gnueabihf-objdump"}


from conftest import missing as _missing


_cache: dict[str, dict] = {}


def loops(build: str) -> dict[str, dict]:
    """{symbol: {"address": int, "body": [instruction, ...]}} for every *_loop symbol."""
    if build in _cache:
        return _cache[build]
    binary = ROOT / "build" / "probe" / build / "platperf-probe"
    if not binary.exists():
        _missing(f"{binary} is not built (make probe probe-cross)")
    if not shutil.which(OBJDUMP[build]):
        _missing(f"{OBJDUMP[build]} is not installed (make deps)")
    text = subprocess.run([OBJDUMP[build], "-d", "--no-show-raw-insn", str(binary)],
                          check=True, capture_output=True, text=True).stdout
    found, current = {}, None
    for line in text.splitlines():
        head = re.match(r"^([0-9a-f]+) <(pp_\w+_loop)>:$", line)
        if head:
            current = head.group(2)
            found[current] = {"address": int(head.group(1), 16), "body": [], "closed": False}
            continue
        if re.match(r"^[0-9a-f]+ <", line):
            current = None
            continue
        insn = re.match(r"^\s+[0-9a-f]+:\s+(.*?)\s*$", line)
        if current and insn and not found[current]["closed"]:
            text_insn = re.sub(r"\s+", " ", insn.group(1))
            text_insn = re.sub(r"\s*[;@].*$", "", text_insn)   # objdump's comments
            found[current]["body"].append(text_insn)
            if f"<{current}>" in text_insn:                      # the branch back to the head
                found[current]["closed"] = True
    _cache[build] = found
    return found


def body(build: str, symbol: str) -> list[str]:
    table = loops(build)
    assert symbol in table, f"{symbol} not found in the {build} probe"
    loop = table[symbol]
    assert loop["closed"], f"{symbol}: no branch back to the loop head"
    assert loop["address"] % 64 == 0, f"{symbol} at {loop['address']:#x} is not 64-byte aligned"
    return [i for i in loop["body"] if not i.startswith("nop")]


def memory_ops(build: str, instructions: list[str]) -> list[str]:
    if build == "native":
        return [i for i in instructions if "(" in i and not i.startswith(("lea", "nop"))]
    return [i for i in instructions if "[" in i]


def test_x86_chase_body_is_sixteen_plain_loads():
    insns = body("native", "pp_chase_loop")
    assert memory_ops("native", insns) == ["mov (%rax),%rax"] * 16
    assert insns[16:] == ["dec %rsi", f"jne {insns[-1].split()[1]} <pp_chase_loop>"]


def test_aarch64_chase_body_is_sixteen_plain_loads():
    insns = body("aarch64", "pp_chase_loop")
    assert memory_ops("aarch64", insns) == ["ldr x0, [x0]"] * 16
    assert not any(i.startswith(("str", "stp")) for i in insns)
    assert len(insns) == 18


def test_armv7_chase_body_is_sixteen_plain_loads():
    insns = body("armv7", "pp_chase_loop")
    assert memory_ops("armv7", insns) == ["ldr r0, [r0]"] * 16
    assert not any(i.startswith(("str", "vst", "push")) for i in insns)
    assert len(insns) == 20   # 16 loads, 64-bit count: subs, sbc, orrs, bne


@pytest.mark.parametrize("build,add", [("native", "add %rcx,%rax"), ("aarch64", "add x0, x0, x2"),
                                       ("armv7", "add r3, r3, r2")])
def test_add_chain_is_64_dependent_register_adds(build, add):
    insns = body(build, "pp_addchain_loop")
    assert insns[:64] == [add] * 64
    assert not memory_ops(build, insns)
    assert len(insns) <= 64 + 4


@pytest.mark.parametrize("width,register,count,copied", [("avx512", "zmm", 8, 8), ("avx2", "ymm", 16, 16),
                                                          ("sse2", "xmm", 32, 16)])
def test_x86_peak_loops_use_their_vector_width(width, register, count, copied):
    read = memory_ops("native", body("native", f"pp_peak_read_{width}_loop"))
    assert len(read) == count and all(re.search(rf"\),%{register}\d+$", i) for i in read), read
    write = memory_ops("native", body("native", f"pp_peak_write_{width}_loop"))
    assert len(write) == count and all(re.match(rf"v?movdqa(64)? %{register}0,", i) for i in write), write
    copy = memory_ops("native", body("native", f"pp_peak_copy_{width}_loop"))
    loads = [i for i in copy if re.search(rf"\),%{register}\d+$", i)]
    stores = [i for i in copy if re.search(rf"^v?movdqa(64)? %{register}\d+,", i)]
    assert len(loads) == len(stores) == copied and len(copy) == 2 * copied, copy


def test_aarch64_peak_loops_use_q_register_pairs():
    read = memory_ops("aarch64", body("aarch64", "pp_peak_read_neon_loop"))
    assert len(read) == 16 and all(re.match(r"ldp q\d+, q\d+, \[x4", i) for i in read), read
    write = memory_ops("aarch64", body("aarch64", "pp_peak_write_neon_loop"))
    assert len(write) == 16 and all(re.match(r"stp q0, q1, \[x4", i) for i in write), write
    copy = memory_ops("aarch64", body("aarch64", "pp_peak_copy_neon_loop"))
    assert [i.split()[0] for i in copy] == ["ldp"] * 8 + ["stp"] * 8
    assert all(re.match(r"(ldp|stp) q\d+, q\d+, ", i) for i in copy)


def sve_vectors(insns: list[str], op: str, register: str, base: str) -> list[str]:
    """The whole-vector accesses of a loop, in order: ``ld1b {z3.b}, p0/z, [x4, #3, mul vl]``."""
    pattern = rf"{op} \{{z(\d+)\.b\}}, p0(/z)?, \[{base}(, #(\d+), mul vl)?\]"
    return [f"{m.group(1)}@{m.group(4) or 0}" for m in (re.match(pattern, i) for i in insns) if m]


def test_aarch64_sve_peak_loops_move_eight_whole_vectors_per_iteration():
    """Vector-length agnostic: each access is a whole vector at [base, #k, mul vl] under the
    all-true predicate p0, k = 0..7, and the pointer moves by rdvl #8 (a register, never a
    constant byte count)."""
    eight = [f"{k}@{k}" for k in range(8)]
    read = body("aarch64", "pp_peak_read_sve_loop")
    assert sve_vectors(memory_ops("aarch64", read), "ld1b", "z", "x4") == eight, read
    assert len(memory_ops("aarch64", read)) == 8 and read[8:10] == ["add x4, x4, x5", "cmp x4, x6"]
    write = body("aarch64", "pp_peak_write_sve_loop")
    assert sve_vectors(memory_ops("aarch64", write), "st1b", "z", "x4") == [f"0@{k}" for k in range(8)], write
    assert len(memory_ops("aarch64", write)) == 8
    copy = memory_ops("aarch64", body("aarch64", "pp_peak_copy_sve_loop"))
    assert sve_vectors(copy[:8], "ld1b", "z", "x4") == eight and sve_vectors(copy[8:], "st1b", "z", "x6") == eight
    assert len(copy) == 16
    setup = [i for i in _function("aarch64", "pp_peak_read_sve") if i.startswith("rdvl")]
    assert setup == ["rdvl x5, #8"]


def _function(build: str, symbol: str) -> list[str]:
    """The instructions of ``symbol`` from its entry up to its loop head."""
    binary = ROOT / "build" / "probe" / build / "platperf-probe"
    loops(build)   # skips without a build or objdump
    text = subprocess.run([OBJDUMP[build], "-d", "--no-show-raw-insn", str(binary)],
                          check=True, capture_output=True, text=True).stdout
    start = text.index(f"<{symbol}>:\n")
    return [re.sub(r"\s+", " ", line.split(":", 1)[1]).strip()
            for line in text[start:text.index(f"<{symbol}_loop>:", start)].splitlines()[1:] if ":" in line]


def test_armv7_peak_loops_use_neon_quad_transfers():
    read = memory_ops("armv7", body("armv7", "pp_peak_read_loop"))
    assert len(read) == 16 and all(re.match(r"vld1\.64 \{d\d+-d\d+\}, \[ip :128\]!", i) for i in read), read
    write = memory_ops("armv7", body("armv7", "pp_peak_write_loop"))
    assert len(write) == 16 and all(re.match(r"vst1\.64 \{d0-d3\}, \[ip :128\]!", i) for i in write), write
    copy = memory_ops("armv7", body("armv7", "pp_peak_copy_loop"))
    assert [i.split()[0] for i in copy] == ["vld1.64"] * 4 + ["vst1.64"] * 4


def test_lmbench_rd_keeps_bw_mem_4_byte_loads():
    """bw_mem's rd is 32 int loads per 512-byte chunk; the build flags must keep them
    4-byte scalar loads (no vectorising, no merging)."""
    binary = ROOT / "build" / "probe" / "native" / "platperf-probe"
    if not binary.exists() or not shutil.which("objdump"):
        _missing("native probe or objdump missing")
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--disassemble=lmb_rd", str(binary)],
                          check=True, capture_output=True, text=True).stdout
    loads = [l for l in text.splitlines() if re.search(r"\t(add|mov)\s+-?(0x[0-9a-f]+)?\(%r\w+\),%e\w+", l)]
    assert len(loads) == 32, "\n".join(loads)
    assert "xmm" not in text and "ymm" not in text
