"""The kernel's command line, and what it isolates from the scheduler, the tick and RCU.

``isolcpus=[flags,]cpus`` (flags ``nohz``, ``domain``, ``managed_irq``; a bare list means
``domain``), ``nohz_full=cpus``, ``rcu_nocbs[=cpus]`` — Documentation/admin-guide/kernel-parameters.txt.
What the running kernel applied is also in /sys/devices/system/cpu/{isolated,nohz_full}; the
sysfs value wins when both exist, because a parameter can be misspelt or unsupported.
"""
from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field

from ..machine.sysroot import SysRoot, parse_cpu_list

ISOLCPUS_FLAGS = ("nohz", "domain", "managed_irq")


@dataclass
class Isolation:
    isolcpus: list[int] = field(default_factory=list)
    isolcpus_flags: list[str] = field(default_factory=list)
    nohz_full: list[int] = field(default_factory=list)
    rcu_nocbs: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)   # parameters present but unreadable

    def missing_for(self, cpu: int) -> list[str]:
        """Which of isolcpus / nohz_full / rcu_nocbs do not cover ``cpu``."""
        return [name for name in ("isolcpus", "nohz_full", "rcu_nocbs") if cpu not in getattr(self, name)]

    @property
    def any(self) -> bool:
        return bool(self.isolcpus or self.nohz_full or self.rcu_nocbs)


def cmdline_params(cmdline: str) -> dict[str, str | None]:
    """``{'isolcpus': '1-3', 'quiet': None}``; the last occurrence wins, as in the kernel.
    Arguments after ``--`` belong to init and are left out."""
    params: dict[str, str | None] = {}
    try:
        words = shlex.split(cmdline)
    except ValueError:  # an unbalanced quote: the kernel splits on spaces regardless
        words = cmdline.split()
    for word in words:
        if word == "--":
            break
        key, sep, value = word.partition("=")
        params[key] = value if sep else None
    return params


def parse_isolation(cmdline: str, ncpus: int | None = None) -> Isolation:
    params = cmdline_params(cmdline)
    iso = Isolation()
    if params.get("isolcpus"):
        parts = params["isolcpus"].split(",")
        flags = [p for p in parts if p in ISOLCPUS_FLAGS]
        cpus = ",".join(p for p in parts if p not in ISOLCPUS_FLAGS)
        iso.isolcpus_flags = flags or ["domain"]
        iso.isolcpus = _cpus("isolcpus", cpus, ncpus, iso)
    if params.get("nohz_full"):
        iso.nohz_full = _cpus("nohz_full", params["nohz_full"], ncpus, iso)
    if params.get("rcu_nocbs"):
        iso.rcu_nocbs = _cpus("rcu_nocbs", params["rcu_nocbs"], ncpus, iso)
    return iso


def _cpus(name: str, text: str, ncpus: int | None, iso: Isolation) -> list[int]:
    try:
        return parse_cpu_list(text, ncpus)
    except ValueError as exc:
        iso.errors.append(f"{name}: {exc}")
        return []


def read_isolation(root: SysRoot | str | os.PathLike = "/", ncpus: int | None = None) -> Isolation:
    """Isolation of the running kernel: the cmdline, corrected by what sysfs says was applied."""
    sysroot = SysRoot.of(root)
    iso = parse_isolation(sysroot.read("proc/cmdline") or "", ncpus)
    for name, rel in (("isolcpus", "sys/devices/system/cpu/isolated"),
                      ("nohz_full", "sys/devices/system/cpu/nohz_full")):
        applied = sysroot.read(rel)
        if applied is not None:
            try:
                setattr(iso, name, parse_cpu_list(applied, ncpus))
            except ValueError:
                pass
    return iso
