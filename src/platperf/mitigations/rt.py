"""``rt``: the measuring thread runs SCHED_FIFO with its memory locked (the probe does this
with ``--rt 1`` and reports whether it could), and the host keeps /dev/cpu_dma_latency at 0
while the cell runs: the PM QoS request holds every CPU out of deep C-states only as long as
the file stays open."""
from __future__ import annotations

import contextlib
import os
import struct
from pathlib import Path

from . import Applied

PROBE_ARGS = ["--rt", "1"]


def throttling(root: str = "/") -> str:
    """RT throttling stops every SCHED_FIFO task for (period - runtime) of each period: a
    busy real-time loop then sees that stall as its maximum. '' when it is off."""
    kernel = Path(root) / "proc/sys/kernel"
    try:
        runtime = int((kernel / "sched_rt_runtime_us").read_text())
        period = int((kernel / "sched_rt_period_us").read_text())
    except (OSError, ValueError):
        return ""
    if runtime < 0 or runtime >= period:
        return ""
    return (f"RT throttling is on (sched_rt_runtime_us {runtime} of {period}): the loop is stopped "
            f"up to {(period - runtime) / 1000:g} ms each {period / 1000:g} ms; "
            "echo -1 > /proc/sys/kernel/sched_rt_runtime_us to measure without it")


@contextlib.contextmanager
def dma_latency_held(root: str = "/"):
    path = Path(root) / "dev/cpu_dma_latency"
    caveat = throttling(root)
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
