"""What Linux can do to protect a latency-critical CPU, applied around each cell of
``platperf interference`` and recorded with its results. One module per mitigation:

  rt        SCHED_FIFO + mlockall in the probe (``--rt 1``), /dev/cpu_dma_latency held at 0
            by the host while the cell runs (no deep C-states)
  isolated  a check, not a change: isolcpus / nohz_full / rcu_nocbs for the victim CPU
  resctrl   L3 cache allocation: the victim and the aggressors get disjoint capacity
            bitmasks in two resctrl groups, removed afterwards (also on Ctrl-C)

A mitigation that cannot be applied (not root, no resctrl, no isolation) says so in one
line and is recorded as not applied; the cell still runs, labelled with what was asked.
"""
from __future__ import annotations

import contextlib
from pathlib import Path

from .applied import Applied

NAMES = ("rt", "isolated", "resctrl")


class MitigationError(ValueError):
    """A mitigation list a person must fix: one line, exit 2."""


def parse(spec: str) -> list[str]:
    """``rt+resctrl`` -> ["rt", "resctrl"]: in the order written, the order they are applied
    (the study applies its mitigations cumulatively, each on top of the ones before, and
    prints them so); ``none`` -> []."""
    spec = spec.strip()
    if spec in ("", "none"):
        return []
    names = [n.strip() for n in spec.split("+")]
    for name in names:
        if name not in NAMES:
            raise MitigationError(f"unknown mitigation '{name}' in '{spec}' "
                                  f"(valid: none, {', '.join(NAMES)}, or a '+' combination such as rt+resctrl)")
    if len(set(names)) != len(names):
        raise MitigationError(f"mitigation '{spec}' names one twice")
    return names


def label(names: list[str]) -> str:
    """The key of a set of mitigations, as tables show it: ``none``, ``rt+resctrl``."""
    return "+".join(names) if names else "none"


@contextlib.contextmanager
def applied(names: list[str], *, victim: int, aggressors: list[int], root="/",
            resctrl_root: str | Path | None = None, local: bool = True):
    """Applies ``names`` for the duration of the block; yields (list of Applied, extra
    probe arguments). Everything is undone on the way out, whatever the exit.

    ``root`` is the target machine (a SysRoot, e.g. ``target.sysroot()``, or a path).
    ``local=False`` says it is not this machine: the checks still read it, but what platperf
    would WRITE here (the dma-latency hold, resctrl groups) is recorded as not applied
    rather than done to the wrong machine; the probe's ``--rt 1`` still goes through."""
    from ..machine.sysroot import SysRoot
    from . import isolated, resctrl, rt
    sysroot = SysRoot.of(root)
    results: list[Applied] = []
    argv: list[str] = []
    with contextlib.ExitStack() as stack:
        for name in names:
            if name == "rt":
                results.append(stack.enter_context(rt.dma_latency_held(sysroot)) if local
                               else rt.not_held_remotely(sysroot))
                argv += rt.PROBE_ARGS
            elif name == "isolated":
                results.append(isolated.check(victim, sysroot))
            elif name == "resctrl" and not local:
                results.append(resctrl.not_partitioned_remotely())
            elif name == "resctrl":
                where = resctrl_root if resctrl_root is not None else sysroot.path("sys/fs/resctrl")
                results.append(stack.enter_context(resctrl.partitioned(where, victim, aggressors)))
        yield results, argv
