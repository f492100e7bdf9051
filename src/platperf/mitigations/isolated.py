"""``isolated``: whether the victim CPU is kept free of other tasks (isolcpus), of the
scheduler tick (nohz_full) and of RCU callbacks (rcu_nocbs). A check of the boot
configuration of the target machine; it changes nothing and says what is missing."""
from __future__ import annotations

import os

from ..fingerprint.kernel import read_isolation
from ..machine.sysroot import SysRoot
from .applied import Applied


def check(victim: int, root: SysRoot | str | os.PathLike = "/") -> Applied:
    """Whether isolcpus, nohz_full and rcu_nocbs all cover ``victim`` on the machine at ``root``
    (a SysRoot, e.g. a remote target's snapshot, or a path); sysfs wins over the cmdline."""
    missing = read_isolation(SysRoot.of(root)).missing_for(victim)
    if missing:
        return Applied("isolated", False, f"CPU {victim} is not in {', '.join(missing)}; boot with "
                       + " ".join(f"{m}={victim}" for m in missing))
    return Applied("isolated", True, f"CPU {victim} is in isolcpus, nohz_full and rcu_nocbs")
