"""The peak loops' shape the probe writes its `expected` counts from (issue 37: "a peak kernel
retires the loads per byte its disassembly says") is the disassembly's, for every peak loop
built here: x86_64 (AVX-512, AVX2, SSE2), aarch64 (NEON, SVE) and armv7 (NEON, in A32).

Each .S file holds a table of its loops (timed_loops.h struct peak_shape, seven 32-bit words per
kernel: the instructions of an inner iteration and of the rest of a pass, the load and store
instructions of an inner iteration, the bytes of each buffer it advances or, for SVE, that step
in vectors, and SVE's rest loop's instructions a vector), assembled from the loops' own labels
(an A64 or A32 instruction is 4 bytes) or, on x86, from the accesses its macro emits. Here each
table is read out of the built probe and set against objdump's count of the same loops, and
the per-byte counts the probe derives from it (kernels/bw_claim.c) are worked out by hand for
the sizes the board runs. The board test (tests/test_vboard_events.py) then checks that
INST_RETIRED agrees with the probe's `expected`. Builds: `make probe probe-cross`.
"""
from __future__ import annotations

import re
import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import missing

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {"native": ("objdump", "nm"), "aarch64": ("aarch64-linux-gnu-objdump", "aarch64-linux-gnu-nm"),
         "armv7": ("arm-linux-gnueabihf-objdump", "arm-linux-gnueabihf-nm")}
KERNELS = ("read", "write", "copy")
FIELDS = ("inner", "pass_", "loads", "stores", "step", "vectors", "rest")


@dataclass(frozen=True)
class Shape:
    """One row of a table: struct peak_shape."""
    inner: int
    pass_: int
    loads: int
    stores: int
    step: int
    vectors: int
    rest: int


# (build, table symbol, loop symbol of each kernel)
TABLES = [("native", f"pp_peak_{w}_shape", f"pp_peak_{{k}}_{w}_loop") for w in ("avx512", "avx2", "sse2")] + [
    ("aarch64", "pp_peak_neon_shape", "pp_peak_{k}_neon_loop"),
    ("aarch64", "pp_peak_sve_shape", "pp_peak_{k}_sve_loop"),
    ("armv7", "pp_peak_neon_shape", "pp_peak_{k}_loop")]

_listings: dict[str, list[tuple[int, str]]] = {}


def _binary(build: str) -> Path:
    binary = ROOT / "build" / "probe" / build / "platperf-probe"
    if not binary.exists():
        missing(f"{binary} is not built (make probe probe-cross)")
    for tool in TOOLS[build]:
        if not shutil.which(tool):
            missing(f"{tool} is not installed (make deps)")
    return binary


def listing(build: str) -> list[tuple[int, str]]:
    """Every instruction of the probe as (address, text), objdump's comments folded away."""
    if build not in _listings:
        text = subprocess.run([TOOLS[build][0], "-d", "--no-show-raw-insn", str(_binary(build))], check=True,
                              capture_output=True, text=True).stdout
        out = []
        for line in text.splitlines():
            m = re.match(r"^\s+([0-9a-f]+):\s+(.*?)\s*$", line)
            if m:
                insn = re.sub(r"\s*(//|;|@).*$", "", re.sub(r"\s+", " ", m.group(2)))
                out.append((int(m.group(1), 16), insn))
        _listings[build] = out
    return _listings[build]


def symbol(build: str, name: str, size: bool = False):
    """``name``'s address (and, with size, its size) in the build's probe."""
    nm = subprocess.run([TOOLS[build][1], "-S", str(_binary(build))], check=True, capture_output=True,
                        text=True).stdout
    m = re.search(rf"^([0-9a-f]+) (?:([0-9a-f]+) )?[A-Za-z] {name}$", nm, re.M)
    assert m, f"{name} not in the {build} probe"
    return (int(m.group(1), 16), int(m.group(2) or "0", 16)) if size else int(m.group(1), 16)


def table(build: str, name: str) -> list[Shape]:
    """The table's 21 words as the probe reads them (little-endian on all three)."""
    at = symbol(build, name)
    dump = subprocess.run([TOOLS[build][0], "-s", "-j", ".rodata", f"--start-address={at:#x}",
                           f"--stop-address={at + 84:#x}", str(_binary(build))], check=True, capture_output=True,
                          text=True).stdout
    raw = ""
    for line in dump.splitlines():
        m = re.match(r"^ [0-9a-f]+ ((?:[0-9a-f]{2,8} ?){1,4})", line)
        if m:
            raw += "".join(m.group(1).split())
    words = struct.unpack("<21I", bytes.fromhex(raw)[:84])
    return [Shape(*words[i:i + 7]) for i in range(0, 21, 7)]


def _branches_to(insn: str, target: int) -> bool:
    m = re.match(r"^(j\w+|b[\w.]*) ([0-9a-f]+) <", insn)
    return bool(m) and int(m.group(2), 16) == target


def _target(insn: str) -> int:
    return int(re.match(r"^\S+ ([0-9a-f]+) <", insn).group(1), 16)


def _from(build: str, address: int) -> list[tuple[int, str]]:
    code = listing(build)
    start = next(i for i, (a, _) in enumerate(code) if a == address)
    return code[start:start + 400]


def _upto(code: list[tuple[int, str]], done) -> list[tuple[int, str]]:
    """``code`` up to and including the first instruction ``done`` accepts."""
    for i, (_, insn) in enumerate(code):
        if done(insn):
            return code[:i + 1]
    raise AssertionError(f"no end found after {code[0]}")


def access(build: str, insn: str) -> tuple[str, int, str] | None:
    """(load or store, bytes it moves, its base register) of a vector access; None otherwise."""
    if build == "native":
        m = re.match(r"^v?movdqa(?:64)? (?:(-?0x[0-9a-f]+)?\((%r\w+)\),%([xyz])mm\d+|%([xyz])mm\d+,(?:-?0x[0-9a-f]+)?"
                     r"\((%r\w+)\))$", insn)
        if not m:
            assert "(" not in insn or insn.startswith(("lea", "nop")), f"an access the test does not know: {insn}"
            return None
        width = {"x": 16, "y": 32, "z": 64}[m.group(3) or m.group(4)]
        return ("load", width, m.group(2)) if m.group(3) else ("store", width, m.group(5))
    if build == "armv7":
        m = re.match(r"^(vld1|vst1)\.64 \{d(\d+)-d(\d+)\}, \[(\w+) :128\]!$", insn)
        if not m:
            assert "[" not in insn, f"an access the test does not know: {insn}"
            return None
        return ("load" if m.group(1) == "vld1" else "store", 8 * (int(m.group(3)) - int(m.group(2)) + 1), m.group(4))
    m = re.match(r"^(ldp|stp) q\d+, q\d+, \[(x\d+)", insn) or re.match(r"^(ld1b|st1b) \{z\d+\.b\}, p0(?:/z)?, \[(x\d+)", insn)
    if not m:
        assert "[" not in insn, f"an access the test does not know: {insn}"
        return None
    vector = 32 if m.group(1) in ("ldp", "stp") else 0      # an SVE vector's bytes: known at run time
    return ("load" if m.group(1).startswith("ld") else "store", vector, m.group(2))


def counted(build: str, loop: str) -> Shape:
    """The loop's shape as objdump shows it: the inner iteration up to its branch back to the
    loop; the rest of a pass (fixed steps: after it, up to the branch back to the loop that ends
    a pass; SVE: the head from the outer branch's target up to the loop, padding included, the
    rest loop's first test, and the end from its exit up to the outer branch); the accesses of
    an iteration and the bytes of each buffer they move (SVE: vectors of each buffer)."""
    head = symbol(build, loop)
    inner = _upto(_from(build, head), lambda insn: _branches_to(insn, head))
    accesses = [a for a in (access(build, insn) for _, insn in inner) if a]
    loads = [a for a in accesses if a[0] == "load"]
    stores = [a for a in accesses if a[0] == "store"]
    buffers = {base for _, _, base in accesses}
    moved = {base: sum(b for _, b, at in accesses if at == base) for base in buffers}
    assert len(set(moved.values())) == 1, f"{loop}: its buffers advance by different bytes: {moved}"
    after = _from(build, inner[-1][0])[1:]
    if loop.endswith("_sve_loop"):
        # b.ls back; whilelo, b.none <end>; the rest loop up to its b.first (b.mi) back; the end
        rest_test = _upto(after, lambda insn: insn.startswith("b.eq "))
        rest = _upto(_from(build, rest_test[-1][0])[1:], lambda insn: insn.startswith("b.mi "))
        assert _target(rest[-1][1]) == rest[0][0], f"{loop}: the rest loop is not where the test expects it"
        end = _upto(_from(build, _target(rest_test[-1][1])), lambda insn: insn.startswith("b.ne "))
        outer = [a for a, _ in listing(build) if _target(end[-1][1]) <= a < head]
        vectors = {base: sum(1 for _, _, at in accesses if at == base) for base in buffers}
        assert len(set(vectors.values())) == 1
        return Shape(len(inner), len(outer) + len(rest_test) + len(end), len(loads), len(stores), 0,
                     vectors.popitem()[1], len(rest))
    pass_end = _upto(after, lambda insn: _branches_to(insn, head))
    instructions = 0 if build == "native" else len(inner)       # an x86 instruction has no one length
    return Shape(instructions, 0 if build == "native" else len(pass_end), len(loads), len(stores),
                 moved.popitem()[1], 0, 0)


@pytest.mark.parametrize("build,name,loop", TABLES, ids=[f"{b}-{n}" for b, n, _ in TABLES])
def test_each_table_is_its_loops_disassembly(build, name, loop):
    assert table(build, name) == [counted(build, loop.format(k=k)) for k in KERNELS]


# The loops as docs/events.md states them, written out by hand from the .S files.
BY_HAND = {
    ("native", "pp_peak_avx512_shape"): [Shape(0, 0, 8, 0, 512, 0, 0), Shape(0, 0, 0, 8, 512, 0, 0),
                                         Shape(0, 0, 8, 8, 512, 0, 0)],
    ("native", "pp_peak_avx2_shape"): [Shape(0, 0, 16, 0, 512, 0, 0), Shape(0, 0, 0, 16, 512, 0, 0),
                                       Shape(0, 0, 16, 16, 512, 0, 0)],
    ("native", "pp_peak_sse2_shape"): [Shape(0, 0, 32, 0, 512, 0, 0), Shape(0, 0, 0, 32, 512, 0, 0),
                                       Shape(0, 0, 16, 16, 256, 0, 0)],
    # 16 ldp or stp q pairs (32 bytes) and add, cmp, b.lo; the pass end mov, subs, b.ne
    ("aarch64", "pp_peak_neon_shape"): [Shape(19, 3, 16, 0, 512, 0, 0), Shape(19, 3, 0, 16, 512, 0, 0),
                                        Shape(20, 4, 8, 8, 256, 0, 0)],
    # 8 vectors and add, cmp, b.ls; a pass's head (mov, cmp, b.hi and the nops up to the
    # aligned loop: 8 for read, 7 after write's mov z0 and copy's second mov), whilelo, b.none,
    # subs, b.ne; the rest loop a vector: ld1b or st1b, incb, whilelo, b.first (copy: both, 2 incb)
    ("aarch64", "pp_peak_sve_shape"): [Shape(11, 15, 8, 0, 0, 8, 4), Shape(11, 14, 0, 8, 0, 8, 4),
                                       Shape(20, 15, 8, 8, 0, 8, 6)],
    # 16 vld1 or vst1 of four d registers (32 bytes) and cmp, blo; the pass end mov, subs, sbc,
    # orrs, bne (copy: two movs, orrs of both words)
    ("armv7", "pp_peak_neon_shape"): [Shape(18, 5, 16, 0, 512, 0, 0), Shape(18, 5, 0, 16, 512, 0, 0),
                                      Shape(10, 6, 4, 4, 128, 0, 0)],
}


@pytest.mark.parametrize("build,name", list(BY_HAND), ids=[f"{b}-{n}" for b, n in BY_HAND])
def test_each_table_is_the_loop_docs_events_states(build, name):
    assert table(build, name) == BY_HAND[build, name]


def per_byte(shape: Shape, size: int, counted_bytes: int, vector: int = 0) -> tuple[float, float, float]:
    """(instructions, loads, stores) per counted byte of a pass over buffers of ``size`` bytes:
    kernels/bw_claim.c's sum, written out again."""
    if shape.step:
        iterations, rest = -(-size // shape.step), 0
    else:
        iterations = size // (shape.vectors * vector)
        rest = -(-(size - iterations * shape.vectors * vector) // vector)
    bytes_ = size * counted_bytes
    instructions = (iterations * shape.inner + shape.pass_ + rest * shape.rest) / bytes_ if shape.inner else 0
    return (instructions, (iterations * shape.loads + rest * (shape.loads > 0)) / bytes_,
            (iterations * shape.stores + rest * (shape.stores > 0)) / bytes_)


def test_the_counts_per_byte_the_tables_give():
    """16 KiB, as the board runs them: NEON read retires 19 + 3/32 instructions an iteration of
    512 bytes (tests/test_vboard_events.py's known answer); a load per 32 bytes moved. L1D_CACHE
    counts a copy's loads and stores over its 2 x 16 KiB counted."""
    neon = BY_HAND["aarch64", "pp_peak_neon_shape"]
    assert per_byte(neon[0], 16384, 1) == ((32 * 19 + 3) / 16384, 1 / 32, 0)
    assert per_byte(neon[2], 16384, 2) == ((64 * 20 + 4) / 32768, 64 * 8 / 32768, 64 * 8 / 32768)
    armv7 = BY_HAND["armv7", "pp_peak_neon_shape"]
    assert per_byte(armv7[1], 16384, 1) == ((32 * 18 + 5) / 16384, 0, 1 / 32)
    sse2 = BY_HAND["native", "pp_peak_sse2_shape"]
    assert per_byte(sse2[0], 16384, 1) == (0, 1 / 16, 0)      # loads only claimed on x86 (Intel)
    # SVE at 256 bits over 16 KiB + 96 bytes: 64 whole iterations of 256 bytes, 3 rest vectors
    sve = BY_HAND["aarch64", "pp_peak_sve_shape"]
    assert per_byte(sve[0], 16384 + 96, 1, vector=32) == ((64 * 11 + 15 + 3 * 4) / 16480, (64 * 8 + 3) / 16480, 0)


def test_the_armv7_loops_are_a32_code():
    """The table's (end - start) / 4 holds for A32 only: the functions' symbols are even (no
    Thumb bit) and every instruction of each is one 32-bit word."""
    binary = _binary("armv7")
    for kernel in KERNELS:
        at, size = symbol("armv7", f"pp_peak_{kernel}", size=True)
        assert at % 2 == 0, f"pp_peak_{kernel} is Thumb code"
        text = subprocess.run([TOOLS["armv7"][0], "-d", f"--start-address={at:#x}", f"--stop-address={at + size:#x}",
                               str(binary)], check=True, capture_output=True, text=True).stdout
        words = re.findall(r"^\s+([0-9a-f]+):\s+(\S+(?: [0-9a-f]{4})?)\s", text, re.M)
        assert len(words) == size // 4 > 20
        assert all(re.fullmatch(r"[0-9a-f]{8}", raw) for _, raw in words), words
        addresses = [int(a, 16) for a, _ in words]
        assert all(b - a == 4 for a, b in zip(addresses, addresses[1:]))


def test_a_loop_the_table_does_not_describe_is_caught():
    """One instruction more in the NEON read loop: the count above is no longer the table's."""
    build, head = "aarch64", symbol("aarch64", "pp_peak_read_neon_loop")
    code = listing(build)
    at = next(i for i, (a, _) in enumerate(code) if a == head)
    _listings[build] = code[:at + 3] + [(head + 10, "nop")] + code[at + 3:]
    try:
        assert counted(build, "pp_peak_read_neon_loop").inner == 20 != table(build, "pp_peak_neon_shape")[0].inner
    finally:
        _listings[build] = code
