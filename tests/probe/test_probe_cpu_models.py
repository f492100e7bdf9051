"""The probe on CPUs other than this machine's, under qemu-user's CPU models: it reads what the
CPU has at run time (CPUID, HWCAP) before it uses an instruction, and says in its records what
it used. Functional only: no figure under emulation is timed.

* x86_64 without RDTSCP (QEMU's qemu64, Nehalem, Westmere: LAVA's qemu device type default):
  the counter's stop read is lfence;rdtsc;lfence, for ``list`` as for every run; meta
  ``counter.stop_read`` says which.
Builds: `make probe probe-cross`. Missing build or qemu: skipped, except under CI=true.
"""
from __future__ import annotations

import json
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
