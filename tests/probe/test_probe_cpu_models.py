"""The probe on CPUs other than this machine's, under qemu-user's CPU models: it reads what the
CPU has at run time (CPUID, HWCAP) before it uses an instruction, and says in its records what
it used. Functional only: no figure under emulation is timed.

* x86_64 without RDTSCP (QEMU's qemu64, Nehalem, Westmere: LAVA's qemu device type default):
  the counter's stop read is lfence;rdtsc;lfence, for ``list`` as for every run; meta
  ``counter.stop_read`` says which.
* aarch64 with SVE (``-cpu max``, A64FX): the peak kernels use SVE's whole-vector loads and
  stores, of the vector length the CPU runs with (VLA loops: 128 to 2048 bits, 384 too);
  meta ``peak_isa`` and ``features`` say which ran and how long the vectors were. Without SVE
  (Cortex-A57), or with 128-bit vectors, NEON's q-register pairs.
Builds: `make probe probe-cross`. Missing build or qemu: skipped, except under CI=true.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import missing

from platperf.records import read_stream

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--samples", "2", "--warmup", "0", "--min-time", "0", "--cpus", "0"]


def under(qemu: str, build: str, cpu: str, *args: str) -> subprocess.CompletedProcess:
    binary = ROOT / "build" / "probe" / build / "platperf-probe"
    if not binary.exists():
        missing(f"{binary} is not built (make probe probe-cross)")
    if not shutil.which(qemu):
        missing(f"{qemu} is not installed (make deps)")
    return subprocess.run([qemu, "-cpu", cpu, str(binary), *args], capture_output=True, text=True, timeout=300)


def records(proc: subprocess.CompletedProcess) -> list[dict]:
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr}"
    return list(read_stream(proc.stdout.splitlines(), "probe"))


@pytest.mark.parametrize("cpu, stop_read", [("qemu64", "lfence;rdtsc;lfence"), ("Nehalem", "lfence;rdtsc;lfence"),
                                            ("Westmere", "lfence;rdtsc;lfence"), ("max", "rdtscp;lfence")])
def test_x86_counter_reads_without_rdtscp_where_cpuid_lacks_it(cpu, stop_read):
    listed = under("qemu-x86_64-static", "native", cpu, "list", "--json")
    assert listed.returncode == 0, f"list: exit {listed.returncode} {listed.stderr}"   # 132 was SIGILL
    assert "mem-latency" in {k["name"] for k in json.loads(listed.stdout)["kernels"]}
    [meta, end] = records(under("qemu-x86_64-static", "native", cpu, "info"))
    assert meta["counter"]["stop_read"] == stop_read and end["status"] == "complete"
    recs = records(under("qemu-x86_64-static", "native", cpu, "run", "mem-latency", "--size", "16k", *SMALL))
    assert recs[-1]["status"] == "complete"
    assert {r["metric"] for r in recs if r["type"] == "result"} >= {"latency"}


def selfcheck(cpu: str) -> str:
    binary = ROOT / "build" / "probe" / "aarch64" / "probe-selfcheck"
    if not binary.exists():
        missing(f"{binary} is not built (make probe-cross)")
    done = subprocess.run(["qemu-aarch64-static", "-cpu", cpu, str(binary)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("cpu, isa, features", [
    ("cortex-a57", "neon", ["asimd"]),
    ("max", "sve", ["asimd", "sve", "sve2", "sve-vl512"]),      # qemu-user's default: 512 bits
    ("max,sve-default-vector-length=16", "neon", ["asimd", "sve", "sve2", "sve-vl128"]),
    ("max,sve-default-vector-length=32", "sve", ["asimd", "sve", "sve2", "sve-vl256"]),
    ("max,sve-default-vector-length=48", "sve", ["asimd", "sve", "sve2", "sve-vl384"]),
    ("max,sve-default-vector-length=256", "sve", ["asimd", "sve", "sve2", "sve-vl2048"]),
    ("a64fx", "sve", ["asimd", "sve", "sve-vl512"]),
])
def test_aarch64_peak_kernels_use_sve_where_the_cpu_has_it(cpu, isa, features):
    meta = records(under("qemu-aarch64-static", "aarch64", cpu, "info"))[0]
    assert (meta["peak_isa"], meta["features"]) == (isa, features)
    # every peak kernel copies, reads and writes every byte with the loops it picked, at a size
    # that is not a whole number of 8-vector iterations for the longest vectors
    checked = re.fullmatch(rf"selfcheck: (\d+) checks, 0 failed \(cntvct_el0, peak {isa}\)", selfcheck(cpu))
    assert checked, selfcheck(cpu)
    if "sve" in features:    # the SVE loops are checked beside NEON's wherever the CPU has SVE
        assert int(checked.group(1)) > int(re.search(r"(\d+) checks", selfcheck("cortex-a57")).group(1))
    recs = records(under("qemu-aarch64-static", "aarch64", cpu, "run", "mem-bandwidth", "--kernel",
                         "peak-read,peak-write,peak-copy", "--size", "8704", *SMALL))
    assert recs[0]["peak_isa"] == isa and recs[-1]["status"] == "complete"
    assert sorted(r["params"]["kernel"] for r in recs if r["type"] == "result") == [
        "peak-copy", "peak-read", "peak-write"]


def test_aarch64_an_explicit_isa_is_refused_where_the_cpu_lacks_it_and_kept_in_the_params():
    refused = under("qemu-aarch64-static", "aarch64", "cortex-a57", "run", "mem-bandwidth", "--kernel", "peak-read",
                    "--isa", "sve", "--size", "4k", *SMALL)
    assert refused.returncode == 2 and refused.stderr.strip().splitlines() == [
        "platperf-probe: mem-bandwidth: --isa sve is not supported by this CPU (valid: auto or one it has)"]
    for chosen in ("neon", "sve"):
        recs = records(under("qemu-aarch64-static", "aarch64", "max", "run", "mem-bandwidth", "--kernel", "peak-read",
                             "--isa", chosen, "--size", "4k", *SMALL))
        assert [r["params"] for r in recs if r["type"] == "result"] == [
            {"isa": chosen, "kernel": "peak-read", "size": 4096}]
