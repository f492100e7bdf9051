"""The CPU a bench measured on, for the first line of its output: every figure a bench prints is
a figure of one CPU family, and the same commit reads differently on another (issue 40: a Xeon
against the AMD EPYC the benches were first run on). The model name /proc/cpuinfo gives, the
x86 family and model (a KVM guest's "AMD EPYC" names no generation without them), the
hypervisor flag and the CPUs the machine has."""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from platperf.machine.cpuinfo import read_cpuinfo  # noqa: E402
from platperf.machine.sysroot import SysRoot  # noqa: E402


def cpu_line(cpu: int = 0, root: str = "/") -> str:
    """'AMD EPYC (family 25, model 17; a VM), 2 CPUs; measured on CPU 1'."""
    per_cpu, _ = read_cpuinfo(SysRoot(root))
    block = per_cpu.get(cpu) or next(iter(per_cpu.values()), {})
    name = block.get("model name") or block.get("CPU part", "unknown CPU")
    detail = []
    if "cpu family" in block:
        detail.append(f"family {block['cpu family']}, model {block.get('model', '?')}")
    elif "CPU implementer" in block:
        detail.append(f"implementer {block['CPU implementer']}, part {block.get('CPU part', '?')}")
    if " hypervisor " in f" {block.get('flags', '')} ":
        detail.append("a VM")
    where = f" ({'; '.join(detail)})" if detail else ""
    return f"{name}{where}, {len(per_cpu) or os.cpu_count()} CPUs; measured on CPU {cpu}"
