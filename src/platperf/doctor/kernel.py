"""What the kernel offers to tame the noise: resctrl (cache allocation) and cpuidle states."""
from __future__ import annotations

import os

from ..machine.sysroot import SysRoot
from .finding import Finding


def check_resctrl(root: SysRoot | str | os.PathLike = "/") -> list[Finding]:
    sysroot = SysRoot.of(root)
    if sysroot.exists("sys/fs/resctrl/info"):
        return [Finding("info", "resctrl-available",
                        "resctrl is mounted: the rt+resctrl interference mitigation can partition the "
                        "last-level cache")]
    return [Finding(
        "info", "resctrl-unavailable", "resctrl is not mounted: last-level cache partitioning is not available",
        "the resctrl interference mitigation cannot be applied (the others can)",
        "if the CPU supports it (x86 RDT/CAT, Arm MPAM): sudo mount -t resctrl resctrl /sys/fs/resctrl")]


def check_cpuidle(root: SysRoot | str | os.PathLike = "/") -> list[Finding]:
    """Idle states the kernel can put a CPU in (on Arm: PSCI CPU_SUSPEND), which the psci
    suite measures one by one."""
    sysroot = SysRoot.of(root)
    driver = (sysroot.read("sys/devices/system/cpu/cpuidle/current_driver") or "none").strip()
    cpu = next((c for c in sorted(sysroot.listdir("sys/devices/system/cpu"))
                if c[3:].isdigit() and c.startswith("cpu")
                and sysroot.exists(f"sys/devices/system/cpu/{c}/cpuidle/state0")), None)
    if cpu is None:
        return [Finding(
            "info", "no-cpuidle", f"no cpuidle states (driver: {driver}): the CPUs idle only in the "
            "architecture's default way (WFI, HLT)",
            "the psci suite measures no idle-state wake-up latency (PSCI CPU_SUSPEND); it reports "
            "this and measures the rest",
            "on an Arm board: describe the idle states in the device tree (arm,idle-state nodes with "
            "their PSCI suspend parameters) and enable CONFIG_ARM_PSCI_CPUIDLE; in a VM the host "
            "idles the CPUs and there is nothing to enable")]
    names = []
    for i in range(64):
        name = sysroot.read(f"sys/devices/system/cpu/{cpu}/cpuidle/state{i}/name")
        if name is None:
            break
        names.append(name.strip())
    return [Finding("ok", "cpuidle-states", f"cpuidle driver {driver}: {len(names)} idle states on "
                                            f"{cpu} ({', '.join(names)})")]
