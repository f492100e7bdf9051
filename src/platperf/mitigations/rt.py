"""``rt``: the measuring thread runs SCHED_FIFO with its memory locked (the probe does this
with ``--rt 1`` and reports whether it could), and the host keeps /dev/cpu_dma_latency at 0
while the cell runs: the PM QoS request holds every CPU out of deep C-states only as long as
the file stays open."""
from __future__ import annotations

import contextlib
import os
import struct

from ..machine.sysroot import SysRoot
from .applied import Applied

PROBE_ARGS = ["--rt", "1"]


def throttling(root: SysRoot | str | os.PathLike = "/") -> str:
    """RT throttling stops every SCHED_FIFO task for (period - runtime) of each period: a
    busy real-time loop then sees that stall as its maximum. '' when it is off (or unreadable).
    ``root`` is the target machine: a SysRoot (a remote target's snapshot) or a path."""
    sysroot = SysRoot.of(root)
    runtime = sysroot.read_int("proc/sys/kernel/sched_rt_runtime_us")
    period = sysroot.read_int("proc/sys/kernel/sched_rt_period_us")
    if runtime is None or period is None or runtime < 0 or runtime >= period:
        return ""
    return (f"RT throttling is on (sched_rt_runtime_us {runtime} of {period}): the loop is stopped "
            f"up to {(period - runtime) / 1000:g} ms each {period / 1000:g} ms; "
            "echo -1 > /proc/sys/kernel/sched_rt_runtime_us to measure without it")


def not_held_remotely(root: SysRoot | str | os.PathLike) -> Applied:
    """On a remote target the host's /dev/cpu_dma_latency would hold the wrong machine: the
    request is left out, while the probe's own SCHED_FIFO/mlockall (``--rt 1``) still applies."""
    return Applied("rt", False, "not applied on a remote target (/dev/cpu_dma_latency can only be "
                   "held on this machine); SCHED_FIFO/mlockall asked of the probe", throttling(root))


@contextlib.contextmanager
def dma_latency_held(root: SysRoot | str | os.PathLike = "/"):
    """Holds this machine's PM QoS request while the block runs. It WRITES, so it only ever
    acts on the local machine (``root`` is "/" but for the tests' fake tree)."""
    sysroot = SysRoot.of(root)
    path = sysroot.path("dev/cpu_dma_latency")
    caveat = throttling(sysroot)
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as exc:
        why = "needs root" if isinstance(exc, PermissionError) else exc.strerror
        yield Applied("rt", False, f"cannot open {path} ({why}); SCHED_FIFO/mlockall asked of the probe",
                      caveat)
        return
    try:
        os.write(fd, struct.pack("i", 0))     # the kernel reads a binary s32 in microseconds
        yield Applied("rt", True, f"SCHED_FIFO/mlockall asked of the probe; {path} held at 0", caveat)
    finally:
        os.close(fd)                          # closing the file drops the request
