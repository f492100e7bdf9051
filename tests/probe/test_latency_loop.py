"""The latency loops (probe/src/arch/<arch>/latency_loop.S) hold what their names say,
checked on the disassembly of each architecture's object, and run under qemu-user.

Contract (probe/src/kernels/latency_loop.h): between latency_loop_<v>_loop and
latency_loop_<v>_done the only memory access is the histogram fast path exact[delta]++;
there is one counter read per pass; 2ki adds 2048 add instructions, 2kl an inner loop of
2048 increments; the loop head is 64-byte aligned.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import missing

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "probe" / "src"
ARCHES = {
    # arch: (compiler, objdump, extra flags, counter read, fast-path memory instructions)
    "x86_64": ("gcc", "objdump", [], r"\brdtsc\b", [r"^incq\s+\(%r12,%rdx,8\)$"]),
    "aarch64": ("aarch64-linux-gnu-gcc", "aarch64-linux-gnu-objdump", [], r"\bmrs\s+x\d+, cntvct_el0",
                [r"^ldr\s+x2, \[x20, x1, lsl #3\]$", r"^str\s+x2, \[x20, x1, lsl #3\]$"]),
    "armv7": ("arm-linux-gnueabihf-gcc", "arm-linux-gnueabihf-objdump",
              ["-march=armv7-a", "-mfpu=neon", "-mfloat-abi=hard"], r"\bmrrc\s+15, 1, r0, r1, cr14",
              [r"^ldrd\s+r0, \[ip\]$", r"^strd\s+r0, \[ip\]$"]),
}
VARIANTS = ("plain", "2ki", "2kl")


def _memory_access(arch, instruction):
    if arch == "x86_64":
        return "(" in instruction and not instruction.startswith(("nop", "lea", "data16", "cs nop"))
    return "[" in instruction


def disassemble(arch, tmp_path):
    cc, objdump, flags, *_ = ARCHES[arch]
    if not (shutil.which(cc) and shutil.which(objdump)):
        missing(f"{cc} / {objdump} not installed (make deps)")
    obj = tmp_path / f"latency_loop_{arch}.o"
    subprocess.run([cc, *flags, "-c", f"-I{SRC}", f"-I{SRC / 'arch'}", "-o", str(obj),
                    str(SRC / "arch" / arch / "latency_loop.S")], check=True)
    text = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(obj)], check=True,
                          capture_output=True, text=True).stdout
    symbols, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^([0-9a-f]+) <([\w.]+)>:$", line)
        if m:
            current = m.group(2)
            symbols[current] = {"address": int(m.group(1), 16), "body": []}
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(.*?)\s*(?:[@/]{1,2}.*)?$", line)
        if m and current:
            instruction = re.sub(r"\s+", " ", m.group(2)).strip()
            instruction = re.sub(r"^(\S+) ", r"\1 ", instruction)
            symbols[current]["body"].append(instruction)
    return symbols


def loop_body(symbols, variant):
    """Instructions from the loop head to the first one after the loop (both labels of
    the contract), i.e. the loop with its fast path and the variant's work."""
    return symbols[f"latency_loop_{variant}_loop"]["body"] + symbols[f"latency_loop_{variant}_work"]["body"]


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_loop_head_is_aligned_and_reads_the_counter_once(arch, variant, tmp_path):
    symbols = disassemble(arch, tmp_path)
    assert symbols[f"latency_loop_{variant}_loop"]["address"] % 64 == 0
    assert f"latency_loop_{variant}_done" in symbols
    reads = [i for i in loop_body(symbols, variant) if re.search(ARCHES[arch][3], i)]
    assert len(reads) == 1


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_first_pass_does_the_variants_work_too(arch, variant, tmp_path):
    """Entry reads the counter, then jumps to the work block: otherwise the first pass of
    2ki/2kl would be a bare read-to-read and their minimum meaningless."""
    symbols = disassemble(arch, tmp_path)
    entry = [i for i in symbols[f"latency_loop_{variant}"]["body"] if not re.match(r"^(nop|data16|cs nop|xchg)", i)]
    assert re.match(r"^(jmp|b)\s", entry[-1]), entry[-1]
    assert entry[-1].endswith(f"<latency_loop_{variant}_work>")


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_only_memory_access_in_the_loop_is_the_histogram_fast_path(arch, variant, tmp_path):
    symbols = disassemble(arch, tmp_path)
    accesses = [i for i in loop_body(symbols, variant) if _memory_access(arch, i)]
    expected = ARCHES[arch][4]
    assert len(accesses) == len(expected), accesses
    for instruction, pattern in zip(accesses, expected):
        assert re.match(pattern, instruction), instruction


@pytest.mark.parametrize("arch", ARCHES)
def test_2ki_holds_2048_adds_and_plain_none(arch, tmp_path):
    symbols = disassemble(arch, tmp_path)
    work = symbols["latency_loop_2ki_work"]["body"]
    assert len([i for i in work if re.match(r"^add\b", i)]) == 2048
    assert not any(re.match(r"^add\b", i) for i in symbols["latency_loop_plain_work"]["body"])


@pytest.mark.parametrize("arch", ARCHES)
def test_2kl_is_an_inner_loop_of_2048_increments(arch, tmp_path):
    symbols = disassemble(arch, tmp_path)
    work = symbols["latency_loop_2kl_work"]["body"]
    assert len(work) < 12                      # a loop, not 2048 unrolled increments
    assert any(("0x800" in i or "2048" in i) and re.match(r"^cmp\b", i) for i in work)
    start = symbols["latency_loop_2kl_work"]["address"]
    branches = [i for i in work if re.match(r"^(jne|b\.ne|bne)\b", i)]
    assert len(branches) == 1
    target = int(re.search(r"\b([0-9a-f]+) <", branches[0]).group(1), 16)
    assert start <= target < start + 4 * len(work)     # backwards, inside the work block


# -- functional, natively and under qemu-user -------------------------------------------
RUNNERS = {"native": [], "aarch64": ["qemu-aarch64-static"], "armv7": ["qemu-arm-static"]}


def probe_binary(build):
    path = ROOT / "build" / "probe" / build / "platperf-probe"
    if not path.exists():
        missing(f"{path} not built (make probe probe-cross)")
    runner = RUNNERS[build]
    if runner and not shutil.which(runner[0]):
        missing(f"{runner[0]} not installed (make deps)")
    return runner + [str(path)]


def run_probe(build, *args):
    out = subprocess.run([*probe_binary(build), "run", "latency-loop", "--cpus", "0", *args],
                         capture_output=True, text=True, timeout=120)
    return out.returncode, [json.loads(line) for line in out.stdout.splitlines() if line.strip()], out.stderr


@pytest.mark.parametrize("build", RUNNERS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_loop_runs_and_its_histogram_adds_up(build, variant):
    code, records, err = run_probe(build, "--variant", variant, "--duration", "0.05", "--raw", "4")
    assert code == 0, err
    (hist,) = [r for r in records if r["type"] == "histogram"]
    results = {r["metric"]: r["samples"][0] for r in records if r["type"] == "result"}
    assert hist["params"]["variant"] == variant
    assert hist["count"] == sum(b[2] for b in hist["buckets"]) > 0
    assert all(lo < hi for lo, hi, _ in hist["buckets"])
    assert hist["min"] == results["latency_min"] <= results["p99"] <= results["p99_99"]
    assert results["p99_99"] <= hist["max"] == results["latency_max"]
    assert hist["raw"]["values"] and len(hist["raw"]["values"]) <= 4
    assert [t["value"] for t in hist["top"]] == sorted((t["value"] for t in hist["top"]), reverse=True)
    if build == "aarch64":
        assert hist["loop"] == "asm"        # qemu-user lets EL0 read cntvct_el0
    assert records[-1] == {**records[-1], "type": "end", "status": "complete"}


@pytest.mark.parametrize("args, message", [
    (["--aggressor-cpus", "0", "--pattern", "way_hammer"], "both the measured CPU"),
    (["--pattern", "hammer"], "hammer"),
    (["--duration", "0"], "--duration '0' is not valid (valid: a number from 1e-06 to 86400)"),
    (["--raw", "-1"], "--raw '-1' is not valid (valid: an integer from 0 to 1000000)"),
    (["--aggressor-cpus", "1-"], "--aggressor-cpus '1-' is not valid (valid: a list of online CPUs"),
    (["--cache-sets", "0", "--pattern", "way_hammer", "--aggressor-cpus", "1"], "--cache-sets 0 is too small"),
    (["--pattern", "set_crawler"], "needs --aggressor-cpus"),
])
def test_bad_parameters_are_refused_before_anything_is_written(args, message):
    code, records, err = run_probe("native", *args)
    assert code == 2
    assert records == []
    assert message in err
