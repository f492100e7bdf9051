"""What an SSH target's master connection leaves behind, and how it is stopped: the master is
a child of platperf whose own session on the board is a lifeline (``cat`` reading platperf's
pipe), its ControlPath in a temp dir ``pp-ssh-PID-*`` of its own."""
from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path

# How long a master whose lifeline closed gets to leave by itself before `ssh -O exit`.
LIFELINE_WAIT_S = 2


def stop_master(exit_argv: list[str], tmp: Path, master: dict):
    """The master's lifeline closed: it leaves once its sessions have ended, in a round trip.
    One that has not within LIFELINE_WAIT_S is told to exit. The temp dir removed."""
    proc = master.get("proc")
    if proc is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(LIFELINE_WAIT_S)
    if (proc is None or proc.poll() is None) and (tmp / "cm").exists():
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run(exit_argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=30)
    if proc is not None:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    shutil.rmtree(tmp, ignore_errors=True)


def sweep(tmp: Path):
    """Remove the temp dirs (pp-ssh-PID-*) of platperf processes that are gone: a SIGKILL
    leaves its directory behind (its master, whose lifeline closed, is gone by then)."""
    for entry in tmp.glob("pp-ssh-*-*"):
        pid = entry.name.split("-")[2]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(entry, ignore_errors=True)
        except PermissionError:
            pass              # another user's platperf, alive
