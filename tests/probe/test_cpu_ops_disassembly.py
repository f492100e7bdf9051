"""The cpu-ops chains (arch/<arch>/ops.S) are what docs/probe.md "cpu-ops" says, read back
from the built binaries: each loop body is one LMBench operation group repeated, every
instruction of it on the dependency chain, nothing touching memory (armv7's int64 division
is the one call: a 32-bit Arm has no 64-bit divide instruction), and the number of
operations per iteration is the OPS_*_UNROLL the kernel divides by.
Builds: `make probe probe-cross`. Missing build or objdump: skipped, except under CI=true.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from test_probe_disassembly import body, memory_ops

ROOT = Path(__file__).resolve().parents[2]
UNROLL = {m.group(1): int(m.group(2)) for m in re.finditer(
    r"#define OPS_(\w+)_UNROLL (\d+)", (ROOT / "probe/src/arch/timed_loops.h").read_text())}
# loop control after the chain: count down and branch back
TAIL = {"native": 2, "aarch64": 2, "armv7": 4}

# (chain, unroll name, operations in one group, the group per build)
CHAINS = [
    ("int_add", "ADD", 2, {"native": ["add %ecx,%eax", "sub %eax,%ecx"],
                           "aarch64": ["add w1, w1, w2", "sub w2, w2, w1"],
                           "armv7": ["add r2, r2, r3", "sub r3, r3, r2"]}),
    ("int64_add", "ADD", 2, {"native": ["add %rcx,%rax", "sub %rax,%rcx"],
                             "aarch64": ["add x1, x1, x2", "sub x2, x2, x1"],
                             "armv7": ["adds r2, r2, r4", "adc r3, r3, r5", "subs r4, r4, r2", "sbc r5, r5, r3"]}),
    ("int_bit", "BIT", 3, {"native": ["xor %edi,%eax", "xor %eax,%ecx", "or %ecx,%eax"],
                           "aarch64": ["eor w1, w1, w9", "eor w2, w2, w1", "orr w1, w1, w2"],
                           "armv7": ["eor r2, r2, r0", "eor r3, r3, r2", "orr r2, r2, r3"]}),
    ("int64_bit", "BIT", 3, {"native": ["xor %rdi,%rax", "xor %rax,%rcx", "or %rcx,%rax"],
                             "aarch64": ["eor x1, x1, x9", "eor x2, x2, x1", "orr x1, x1, x2"],
                             "armv7": ["eor r2, r2, r0", "eor r3, r3, r1", "eor r4, r4, r2", "eor r5, r5, r3",
                                       "orr r2, r2, r4", "orr r3, r3, r5"]}),
    # ten multiplications, then the sub that brings r back (not counted: OPS_MUL_EXTRA)
    ("int_mul", "MUL", 10, {"native": ["imul %ecx,%eax"] * 10 + ["sub %edx,%eax"],
                            "aarch64": ["mul w1, w1, w2"] * 10 + ["sub w1, w1, w3"],
                            "armv7": ["mul r2, r2, r3"] * 10 + ["sub r2, r2, r4"]}),
    ("int64_mul", "MUL", 10, {"native": ["imul %rcx,%rax"] * 10 + ["sub %rdx,%rax"],
                              "aarch64": ["mul x1, x1, x2"] * 10 + ["sub x1, x1, x3"],
                              "armv7": ["mul ip, r2, r5", "mla ip, r3, r4, ip", "umull r2, r3, r2, r4",
                                        "add r3, r3, ip"] * 10 + ["subs r2, r2, r6", "sbc r3, r3, r7"]}),
    ("int_div", "DIV", 1, {"native": ["mov %esi,%eax", "cltd", "idiv %ecx", "mov %eax,%ecx"],
                           "aarch64": ["sdiv w1, w2, w1"], "armv7": ["sdiv r2, r3, r2"]}),
    ("int64_div", "DIV", 1, {"native": ["mov %rsi,%rax", "cqto", "idiv %rcx", "mov %rax,%rcx"],
                             "aarch64": ["sdiv x1, x2, x1"],
                             "armv7": ["mov r0, r6", "mov r1, r7", "mov r2, r8", "mov r3, r9",
                                       "CALL __aeabi_ldivmod", "mov r8, r0", "mov r9, r1"]}),
    ("int_mod", "MOD", 1, {"native": ["cltd", "idiv %esi", "or %esi,%edx", "mov %edx,%eax"],
                           "aarch64": ["sdiv w3, w1, w2", "msub w1, w3, w2, w1", "orr w1, w1, w2"],
                           "armv7": ["sdiv ip, r2, r3", "mls r2, ip, r3, r2", "orr r2, r2, r3"]}),
    ("int64_mod", "MOD", 1, {"native": ["cqto", "idiv %rsi", "or %rsi,%rdx", "mov %rdx,%rax"],
                             "aarch64": ["sdiv x3, x1, x2", "msub x1, x3, x2, x1", "orr x1, x1, x2"],
                             "armv7": ["mov r0, r8", "mov r1, r9", "mov r2, r6", "mov r3, r7",
                                       "CALL __aeabi_ldivmod", "orr r8, r2, r6", "orr r9, r3, r7"]}),
    ("float_add", "FADD", 11, {"native": ["addss %xmm0,%xmm0"] * 10 + ["addss %xmm1,%xmm0"],
                               "aarch64": ["fadd s0, s0, s0"] * 10 + ["fadd s0, s0, s1"],
                               "armv7": ["vadd.f32 s0, s0, s0"] * 10 + ["vadd.f32 s0, s0, s1"]}),
    ("double_add", "FADD", 11, {"native": ["addsd %xmm0,%xmm0"] * 10 + ["addsd %xmm1,%xmm0"],
                                "aarch64": ["fadd d0, d0, d0"] * 10 + ["fadd d0, d0, d1"],
                                "armv7": ["vadd.f64 d0, d0, d0"] * 10 + ["vadd.f64 d0, d0, d1"]}),
    ("float_mul", "FMUL", 2, {"native": ["mulss %xmm0,%xmm0", "mulss %xmm1,%xmm0"],
                              "aarch64": ["fmul s0, s0, s0", "fmul s0, s0, s1"],
                              "armv7": ["vmul.f32 s0, s0, s0", "vmul.f32 s0, s0, s1"]}),
    ("double_mul", "FMUL", 2, {"native": ["mulsd %xmm0,%xmm0", "mulsd %xmm1,%xmm0"],
                               "aarch64": ["fmul d0, d0, d0", "fmul d0, d0, d1"],
                               "armv7": ["vmul.f64 d0, d0, d0", "vmul.f64 d0, d0, d1"]}),
    # ten f = g / f, ten g = f / g; SSE divides in place: the new value goes to xmm2 and back,
    # each after a copy of the other operand that does not wait for the chain
    ("float_div", "FDIV", 20, {"native": ["movaps %xmm1,%xmm2", "divss %xmm0,%xmm2", "movaps %xmm1,%xmm0",
                                          "divss %xmm2,%xmm0"] * 5
                                         + ["movaps %xmm0,%xmm2", "divss %xmm1,%xmm2", "movaps %xmm0,%xmm1",
                                            "divss %xmm2,%xmm1"] * 5,
                               "aarch64": ["fdiv s0, s1, s0"] * 10 + ["fdiv s1, s0, s1"] * 10,
                               "armv7": ["vdiv.f32 s0, s1, s0"] * 10 + ["vdiv.f32 s1, s0, s1"] * 10}),
    ("double_div", "FDIV", 20, {"native": ["movapd %xmm1,%xmm2", "divsd %xmm0,%xmm2", "movapd %xmm1,%xmm0",
                                           "divsd %xmm2,%xmm0"] * 5
                                          + ["movapd %xmm0,%xmm2", "divsd %xmm1,%xmm2", "movapd %xmm0,%xmm1",
                                             "divsd %xmm2,%xmm1"] * 5,
                                "aarch64": ["fdiv d0, d1, d0"] * 10 + ["fdiv d1, d0, d1"] * 10,
                                "armv7": ["vdiv.f64 d0, d1, d0"] * 10 + ["vdiv.f64 d1, d0, d1"] * 10}),
]


def _normalise(insn: str) -> str:
    """A call as CALL <target>: the linker writes bl or blx (libgcc's routine may be Thumb)."""
    call = re.match(r"^blx? [0-9a-f]+ <(\w+)>$", insn)
    return f"CALL {call.group(1)}" if call else insn


def test_every_chain_is_checked():
    text = (ROOT / "probe/src/arch/timed_loops.h").read_text()
    declared = set(re.findall(r"pp_ops_(\w+)\(uint64_t n\)", text))
    declared |= {f"{t}_{op}" for t in ("int", "int64", "float", "double") for op in ("add", "mul", "div")
                 if "OPS_CHAINS(" + t + ")" in text}
    assert declared == {c[0] for c in CHAINS}


@pytest.mark.parametrize("build", ["native", "aarch64", "armv7"])
@pytest.mark.parametrize("chain,unroll,ops,groups", CHAINS, ids=[c[0] for c in CHAINS])
def test_chain_is_the_lmbench_operation_repeated(build, chain, unroll, ops, groups):
    insns = [_normalise(i) for i in body(build, f"pp_ops_{chain}_loop")]
    chain_part, tail = insns[:-TAIL[build]], insns[-TAIL[build]:]
    group = groups[build]
    assert UNROLL[unroll] % ops == 0
    repeats = UNROLL[unroll] // ops
    assert chain_part == group * repeats, f"{chain} on {build}: {chain_part[:len(group) + 2]}..."
    assert tail[-1].endswith(f"<pp_ops_{chain}_loop>") or f"<pp_ops_{chain}_loop>" in tail[-1]
    assert not memory_ops(build, insns), "a chain must not touch memory"
