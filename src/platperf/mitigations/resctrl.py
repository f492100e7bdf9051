"""``resctrl``: L3 cache allocation (Intel RDT CAT, AMD PQoS, Arm MPAM) through the resctrl
file system. Two groups split the L3 capacity bitmask: the victim CPU gets the low quarter
of the ways (at least min_cbm_bits), the aggressor CPUs the rest, so the hammers cannot
evict the victim's lines from L3. Groups are assigned by CPU (cpus_list), which covers the
probe's threads wherever they were created. On the way out the groups are removed, which
gives their CPUs back to the default group: also on Ctrl-C or an error."""
from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from .applied import Applied

GROUPS = ("platperf-victim", "platperf-aggressors")


def masks(cbm_mask: int, min_bits: int) -> tuple[int, int] | None:
    """(victim, aggressors) contiguous bitmasks splitting ``cbm_mask``; None if it is too
    narrow to give both sides ``min_bits``."""
    width = cbm_mask.bit_length()
    victim_bits = max(min_bits, width // 4)
    if width - victim_bits < min_bits:
        return None
    victim = (1 << victim_bits) - 1
    return victim, cbm_mask & ~victim


def _l3_ids(schemata: str) -> list[str]:
    for line in schemata.splitlines():
        name, _, domains = line.strip().partition(":")
        if name.strip() == "L3":
            return [d.split("=")[0].strip() for d in domains.split(";") if "=" in d]
    return []


def _remove(group: Path):
    """rmdir on resctrl returns the group's CPUs and tasks to the default group. A plain
    directory (the tests' fake resctrl) holds the files we wrote: those go first."""
    if not group.exists():
        return
    try:
        os.rmdir(group)
    except OSError as exc:
        if exc.errno != errno.ENOTEMPTY:
            raise
        for f in group.iterdir():
            f.unlink()
        os.rmdir(group)


def _cpus(cpus: list[int]) -> str:
    return ",".join(map(str, cpus))


def not_partitioned_remotely() -> Applied:
    """resctrl groups are made by writing this machine's /sys/fs/resctrl: on a remote target
    they would partition the host's cache, not the board's."""
    return Applied("resctrl", False, "not applied on a remote target (resctrl groups can only be "
                   "created on this machine)")


@contextlib.contextmanager
def partitioned(root, victim: int, aggressors: list[int]):
    root = Path(root)
    if not (root / "schemata").is_file():
        yield Applied("resctrl", False, f"resctrl is not mounted at {root} "
                      "(mount -t resctrl resctrl /sys/fs/resctrl; needs L3 cache allocation)")
        return
    try:
        cbm = int((root / "info/L3/cbm_mask").read_text().strip(), 16)
        min_bits = int((root / "info/L3/min_cbm_bits").read_text().strip() or 1)
        ids = _l3_ids((root / "schemata").read_text())
    except (OSError, ValueError):
        ids = []
    split = masks(cbm, min_bits) if ids else None
    if split is None:
        yield Applied("resctrl", False, f"{root} offers no L3 allocation that can be split "
                      "(info/L3/cbm_mask, min_cbm_bits, an L3 line in schemata)")
        return
    if not os.access(root, os.W_OK):
        yield Applied("resctrl", False, f"cannot create groups in {root} (needs root)")
        return
    victim_mask, aggressor_mask = split
    width = (cbm.bit_length() + 3) // 4
    plan = ((GROUPS[0], victim_mask, [victim]), (GROUPS[1], aggressor_mask, aggressors))
    made = []
    try:
        for name, mask, cpus in plan:
            group = root / name
            _remove(group)        # left by a run that was killed
            group.mkdir()
            made.append(group)
            (group / "schemata").write_text(
                "L3:" + ";".join(f"{i}={mask:0{width}x}" for i in ids) + "\n")
            if cpus:
                (group / "cpus_list").write_text(_cpus(cpus) + "\n")
    except OSError as exc:
        for group in reversed(made):
            _remove(group)
        yield Applied("resctrl", False, f"could not set up resctrl groups in {root}: {exc}")
        return
    try:
        yield Applied("resctrl", True, f"L3 mask {victim_mask:x} for CPU {victim}, "
                      f"{aggressor_mask:x} for CPUs {_cpus(aggressors) or 'none'}")
    finally:
        for group in reversed(made):
            _remove(group)
