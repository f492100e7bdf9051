"""align-sweep, run for real: the timed loop's function copied to each code offset of an
executable mapping, natively and under qemu-user (functional only: no timing asserted).

The copies are checked twice: the probe itself refuses a copy that does not give the
original's answer, and here the bytes that ran (the record's `code`) are disassembled and
must be, instruction for instruction, the function the source shows in the built binary —
branch targets relative to the function, so a copy that moved correctly reads the same.
Builds: `make probe probe-cross`. Missing build, objdump or qemu: skipped, except under CI=true.
"""
from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import missing
from test_probe_functional import SMALL, command, records, run_probe

ROOT = Path(__file__).resolve().parents[2]
OBJDUMP = {"native": "objdump", "aarch64": "aarch64-linux-gnu-objdump", "armv7": "arm-linux-gnueabihf-objdump"}
NM = {"native": "nm", "aarch64": "aarch64-linux-gnu-nm", "armv7": "arm-linux-gnueabihf-nm"}
MACHINE = {"native": "i386:x86-64", "aarch64": "aarch64", "armv7": "arm"}
FUNCTION = {"l1-chase": "pp_chase", "add-chain": "pp_addchain"}
BUILDS = ["native", "aarch64", "armv7"]


def tool(table: dict, build: str) -> str:
    if not shutil.which(table[build]):
        missing(f"{table[build]} is not installed (make deps)")
    return table[build]


def sweep(build: str, *args: str) -> list[dict]:
    return records(run_probe(build, "run", "align-sweep", *args, *SMALL).stdout)


def instructions(text: str, start: int) -> list[tuple[int, str]]:
    """(offset from start, instruction) of objdump output, branch targets made relative."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\s+(.*?)\s*$", line)
        if not m:
            continue
        insn = re.sub(r"\s*(//|[;@]).*$", "", re.sub(r"\s+", " ", m.group(2)))   # objdump's comments
        insn = re.sub(r"\b([0-9a-f]+) <[^>]*>$", lambda t: f"{int(t.group(1), 16) - start:#x}", insn)
        out.append((int(m.group(1), 16) - start, insn))
    return out


def source_function(build: str, name: str) -> list[tuple[int, str]]:
    binary = ROOT / "build" / "probe" / build / "platperf-probe"
    if not binary.exists():
        missing(f"{binary} is not built (make probe probe-cross)")
    symbols = {}
    for line in subprocess.run([tool(NM, build), str(binary)], check=True, capture_output=True,
                               text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            symbols[parts[2]] = int(parts[0], 16)
    start, end = symbols[name], symbols[f"{name}_end"]
    text = subprocess.run([tool(OBJDUMP, build), "-d", "--no-show-raw-insn", f"--start-address={start:#x}",
                           f"--stop-address={end:#x}", str(binary)], check=True, capture_output=True,
                          text=True).stdout
    return instructions(text, start)


def copied_code(build: str, code_hex: str, tmp_path: Path) -> list[tuple[int, str]]:
    blob = tmp_path / f"copy-{build}.bin"
    blob.write_bytes(bytes.fromhex(code_hex))
    text = subprocess.run([tool(OBJDUMP, build), "-D", "-b", "binary", "-m", MACHINE[build],
                           "--no-show-raw-insn", str(blob)], check=True, capture_output=True, text=True).stdout
    # objdump -b binary writes absolute targets as 0x..: the copy starts at 0, so they are relative
    return [(at, re.sub(r"\b0x([0-9a-f]+)$", lambda t: f"{int(t.group(1), 16):#x}", insn))
            for at, insn in instructions(text, 0)]


@pytest.mark.parametrize("build", BUILDS)
def test_every_offset_of_both_loops_gives_a_result(build):
    recs = sweep(build, "--span", "48", "--step", "16")
    assert recs[-1]["type"] == "end" and recs[-1]["status"] == "complete"
    results = [r for r in recs if r["type"] == "result"]
    keys = {(r["params"]["kernel"], r["params"]["offset"], r["metric"]) for r in results}
    assert {(k, o) for k, o, _ in keys} == {(k, o) for k in ("l1-chase", "add-chain") for o in (0, 16, 32)}
    assert {m for _, _, m in keys} <= {"latency", "latency_cycles"} and "latency" in {m for *_, m in keys}
    for r in results:
        assert r["benchmark"] == "align-sweep" and r["unit"] in ("ns", "cycles") and r["direction"] == "lower"
        assert set(r["params"]) == {"kernel", "offset"}
        # the functions start 64-byte aligned and their loop head is 64 bytes in (.p2align 6)
        assert r["loop_offset"] == 64 + r["params"]["offset"]
        # three rounds (the default) of --samples 2, each round its own median, cost and retakes
        assert len(r["samples"]) == len(r["ticks"]) == 6 and all(s > 0 for s in r["samples"])
        assert len(r["rounds"]) == 3
        assert all(rnd["median_ns"] > 0 and rnd["cost"]["sample_ticks"] > 0 for rnd in r["rounds"])
        if "iterations" in r:      # written only when every round ran the same repetitions
            assert r["iterations"] % (16 if r["params"]["kernel"] == "l1-chase" else 64) == 0


@pytest.mark.parametrize("build", BUILDS)
@pytest.mark.parametrize("kernel", ["l1-chase", "add-chain"])
def test_the_bytes_that_ran_are_the_loop_the_source_shows(build, kernel, tmp_path):
    recs = sweep(build, "--kernel", kernel, "--span", "8", "--step", "4")
    results = [r for r in recs if r["type"] == "result" and r["metric"] == "latency"]
    assert [r["params"]["offset"] for r in results] == [0, 4]
    original = source_function(build, FUNCTION[kernel])
    assert original, f"{FUNCTION[kernel]} not disassembled"
    loads = [i for _, i in original if re.fullmatch(r"mov \(%rax\),%rax|ldr [xr]0, \[[xr]0\]", i)]
    assert len(loads) == (16 if kernel == "l1-chase" else 0)
    for r in results:
        assert copied_code(build, r["code"], tmp_path) == original


def test_offsets_off_the_instruction_grid_are_refused_on_arm():
    proc = run_probe("armv7", "run", "align-sweep", "--step", "6", check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--step '6' is not valid (valid: a multiple of 4 bytes" in proc.stderr


@pytest.mark.parametrize("args,message", [(["--span", "8192"], "--span '8192' is not valid"),
                                          (["--rounds", "1"], "--rounds '1' is not valid (valid: an integer from 2 to 100)"),
                                          (["--rounds", "x"], "--rounds 'x' is not valid"),
                                          (["--step", "0"], "--step 0 is too small"),
                                          (["--step", "16q"], "--step '16q' is not valid (valid: a size such as 16k"),
                                          (["--kernel", "l2-chase"], "l2-chase")])
def test_bad_sweeps_are_refused_before_anything_is_written(args, message):
    proc = run_probe("native", "run", "align-sweep", *args, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert message in proc.stderr and proc.stderr.count("\n") == 1


def test_sweep_parameters_are_declared_sizes_and_a_count():
    listing = json.loads(run_probe("native", "list", "--json").stdout)
    kinds = {p["name"]: p["kind"] for k in listing["kernels"] if k["name"] == "align-sweep" for p in k["params"]}
    assert kinds == {"kernel": "choice", "step": "size", "span": "size", "rounds": "count"}


def test_an_interrupted_sweep_writes_what_it_measured():
    """The records come after the last round; Ctrl-C ends the sweep early and every
    placement measured so far is still written, with its samples and the rounds it ran."""
    cmd = command("native") + ["run", "align-sweep", "--cpus", "0", "--rounds", "100", "--span", "4096",
                               "--samples", "3", "--min-time", "0.001", "--warmup", "0"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()          # meta: the sweep has started
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=120)
    recs = records(first + rest)
    assert proc.returncode == 130
    assert recs[-1]["type"] == "end" and recs[-1]["status"] == "interrupted"
    results = [r for r in recs if r["type"] == "result"]
    assert results, "a second of sweeping measured nothing"
    for r in results:
        assert len(r["samples"]) == len(r["ticks"]) >= 1 and 1 <= len(r["rounds"]) < 100
