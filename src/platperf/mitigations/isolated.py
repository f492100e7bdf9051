"""``isolated``: whether the victim CPU is kept free of other tasks (isolcpus), of the
scheduler tick (nohz_full) and of RCU callbacks (rcu_nocbs). A check of the boot
configuration under ``root``; it changes nothing and says what is missing."""
from __future__ import annotations

from pathlib import Path

from . import Applied

# isolcpus may carry flags before the list: isolcpus=nohz,domain,managed_irq,2-3
_ISOLCPUS_FLAGS = {"nohz", "domain", "managed_irq"}


def cpu_list(text: str) -> set[int]:
    """``2-3,6`` -> {2, 3, 6}; items that are not numbers or ranges are skipped."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        first, _, last = part.strip().partition("-")
        if first.isdigit() and (not last or last.isdigit()):
            cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def _cmdline(root: Path) -> dict[str, str]:
    try:
        words = (root / "proc/cmdline").read_text().split()
    except OSError:
        return {}
    return dict(w.split("=", 1) for w in words if "=" in w)


def _sysfs(root: Path, name: str) -> set[int] | None:
    try:
        return cpu_list((root / "sys/devices/system/cpu" / name).read_text())
    except OSError:
        return None


def check(victim: int, root: str = "/") -> Applied:
    root = Path(root)
    cmdline = _cmdline(root)
    isol = _sysfs(root, "isolated")
    if isol is None:
        isol = cpu_list(",".join(p for p in cmdline.get("isolcpus", "").split(",")
                                 if p not in _ISOLCPUS_FLAGS))
    nohz = _sysfs(root, "nohz_full")
    if nohz is None:
        nohz = cpu_list(cmdline.get("nohz_full", ""))
    nocbs = cpu_list(cmdline.get("rcu_nocbs", ""))
    missing = [name for name, cpus in (("isolcpus", isol), ("nohz_full", nohz), ("rcu_nocbs", nocbs))
               if victim not in cpus]
    if missing:
        return Applied("isolated", False, f"CPU {victim} is not in {', '.join(missing)}; boot with "
                       + " ".join(f"{m}={victim}" for m in missing))
    return Applied("isolated", True, f"CPU {victim} is in isolcpus, nohz_full and rcu_nocbs")
