"""os-proc op=proccall (LMBench's lat_proc procedure) is one real call and return per
iteration, read back from the three builds with their objdump (docs/probe.md, lat_proc-proccall).

A "procedure call" of 0.30 ns, 0.77 of a 2.6 GHz Xeon's cycle, was not a call: in C the
compiler decides whether a call stays a call. The loop is assembly (arch/<arch>/proccall.S):
its body is the argument moved to the first argument register, one call (call / bl) of
pp_proccall_use_int, and the loop counter; the callee is LMBench's use_int() as a compiler
writes it, a load, an add and a store of one 64-bit variable, then a return. Nothing else
in either. Builds: `make probe probe-cross`.
"""
from __future__ import annotations

import re
import subprocess

import pytest
from test_probe_disassembly import OBJDUMP, ROOT, body, loops

# Loop bodies, instruction by instruction: {call} is the call of the callee, {head} the branch
# back to the loop head (objdump prints each with the address and <symbol>).
LOOP = {
    "native": ["mov %esi,%edi", "{call}", "sub $0x1,%rcx", "{head}"],
    "aarch64": ["mov w0, w1", "{call}", "subs x2, x2, #0x1", "{head}"],
    "armv7": ["mov r0, r6", "{call}", "subs r4, r4, #1", "sbc r5, r5, #0", "orrs ip, r4, r5", "{head}"],
}
CALL = {"native": "call", "aarch64": "bl", "armv7": "bl"}
HEAD = {"native": "jne", "aarch64": "b.ne", "armv7": "bne"}
# The callee: what touches memory, in order, and how it returns.
CALLEE_MEMORY = {
    "native": [r"mov 0x[0-9a-f]+\(%rip\),%rax", r"mov %rdi,0x[0-9a-f]+\(%rip\)"],
    "aarch64": [r"ldr x4, \[x3, #\d+\]", r"str x4, \[x3, #\d+\]"],
    "armv7": [r"ldr r1, \[r3\]", r"ldr ip, \[r3, #4\]", r"str r1, \[r3\]", r"str ip, \[r3, #4\]"],
}
CALLEE_ADD = {"native": ["add %rax,%rdi"], "aarch64": ["add x4, x4, w0, sxtw"],
              "armv7": ["adds r1, r1, r0", "adc ip, ip, r0, asr #31"]}
RETURN = {"native": "ret", "aarch64": "ret", "armv7": "bx lr"}


def callee(build: str) -> tuple[int, list[str]]:
    """The address and the instructions of pp_proccall_use_int up to its return."""
    loops(build)   # skips without a build or objdump
    binary = ROOT / "build" / "probe" / build / "platperf-probe"
    text = subprocess.run([OBJDUMP[build], "-d", "--no-show-raw-insn", str(binary)],
                          check=True, capture_output=True, text=True).stdout
    m = re.search(r"^([0-9a-f]+) <pp_proccall_use_int>:\n", text, re.MULTILINE)
    assert m, f"pp_proccall_use_int not found in the {build} probe"
    insns = []
    for line in text[m.end():].splitlines():
        insn = re.match(r"^\s+[0-9a-f]+:\s+(.*?)\s*$", line)
        if not insn:
            break
        text_insn = re.sub(r"\s+", " ", insn.group(1))
        if build == "native" and "(%rip)" in text_insn:   # the variable must be LMBench's one
            assert text_insn.endswith("<pp_proccall_sink>"), text_insn
        insns.append(re.sub(r"\s*(//|@|# ).*$", "", text_insn))
        if insns[-1] == RETURN[build]:
            break
    return int(m.group(1), 16), insns


@pytest.mark.parametrize("build", ["native", "aarch64", "armv7"])
def test_the_loop_makes_one_real_call_per_iteration(build):
    # 64-byte aligned, closed by a branch to the head; aarch64's objdump adds "// b.any"
    insns = [re.sub(r"\s*//.*$", "", i) for i in body(build, "pp_proccall_loop")]
    address, _ = callee(build)
    call = f"{CALL[build]} {address:x} <pp_proccall_use_int>"
    head = f"{HEAD[build]} {insns[-1].split()[1]} <pp_proccall_loop>"
    assert insns == [call if i == "{call}" else head if i == "{head}" else i for i in LOOP[build]]


@pytest.mark.parametrize("build", ["native", "aarch64", "armv7"])
def test_the_callee_is_lmbench_use_int_and_returns(build):
    _, insns = callee(build)
    assert insns[-1] == RETURN[build]
    memory = [i for i in insns if ("(" in i if build == "native" else "[" in i)]
    assert len(memory) == len(CALLEE_MEMORY[build])
    assert all(re.fullmatch(p, i) for p, i in zip(CALLEE_MEMORY[build], memory)), memory
    # loads before the add, stores after it: one read-modify-write of the variable
    adds = [insns.index(a) for a in CALLEE_ADD[build]]
    loads, stores = len(memory) // 2, memory[len(memory) // 2:]
    assert all(insns.index(m) < min(adds) for m in memory[:loads])
    assert all(insns.index(m) > max(adds) for m in stores)
    # no call, jump or second return inside: the one call of the loop is the only one
    assert not [i for i in insns[:-1] if re.match(r"(call|jmp|j[a-z]+|bl|b|b\.\w+|bx|ret)\b", i)], insns
