"""/proc/cpuinfo: one block per logical CPU ('processor : N'), plus trailing machine-wide
lines on 32-bit Arm ('Hardware', 'Revision'), which land in the ``machine`` block."""
from __future__ import annotations

from .sysroot import SysRoot


def read_cpuinfo(sysroot: SysRoot) -> tuple[dict[int, dict[str, str]], dict[str, str]]:
    """(per-CPU blocks keyed by processor number, machine-wide fields)."""
    per_cpu: dict[int, dict[str, str]] = {}
    machine: dict[str, str] = {}
    current: dict[str, str] | None = None
    for line in (sysroot.read("proc/cpuinfo") or "").splitlines():
        if not line.strip():
            current = None
            continue
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "processor" and value.isdigit():
            current = per_cpu.setdefault(int(value), {})
        elif current is not None:
            current[key] = value
        else:
            machine[key] = value
    return per_cpu, machine


def arch_from_cpuinfo(per_cpu: dict[int, dict[str, str]]) -> str:
    """'aarch64', 'armv7l', 'x86_64', 'i686' or 'unknown' — from what the kernel prints, so that a
    fixture tree of another machine is read as that machine."""
    block = next(iter(per_cpu.values()), {})
    if "vendor_id" in block:
        return "x86_64" if " lm " in f" {block.get('flags', '')} " else "i686"
    if "CPU implementer" in block:
        model = block.get("model name", "")
        # A 32-bit kernel says 'ARMv7 Processor rev 4 (v7l)' even on an Armv8 core.
        return "armv7l" if "ARMv" in model or "(v7l)" in model else "aarch64"
    return "unknown"
