"""An SSH target's one master connection: opened with a bounded number of attempts in flight
for the whole command, tried again with back-off when the server drops it, and stopped in
bounded time whatever state the board is in.

A lab's boards often sit behind one sshd (a gateway, a terminal server): with stock
``MaxStartups 10:30:100`` it drops 30% of the connections beyond 10 that have not logged in
yet, and all of them beyond 100. So at most ``--max-connect`` boards are between their TCP
connect and their login at any moment (:class:`ConnectSlots`), and a connection the server
closed before the banner is tried again after a pause that doubles, with jitter.
"""
from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .base import ConnectSlots, TargetError

# Attempts at a board whose server drops the connection before its banner (MaxStartups, a
# connection limit): the pauses between them double from CONNECT_PAUSE_S, jittered.
CONNECT_ATTEMPTS = 10
CONNECT_PAUSE_S = 0.5
CONNECT_PAUSE_MAX_S = 8.0
# What ssh says when the server closed the connection before or during the banner exchange.
DROPPED = ("kex_exchange_identification", "Connection reset by", "Connection closed by",
           "banner exchange: Connection to", "ssh_exchange_identification")
# Telling the master to exit, and waiting for it: a hung board gets no longer than this.
STOP_TIMEOUT_S = 5
# How long a master whose lifeline closed gets to leave by itself before `ssh -O exit`.
LIFELINE_WAIT_S = 2


_SHARED = ConnectSlots()


def open_master(target, slots: ConnectSlots | None, argv: list[str], log: Path) -> subprocess.Popen:
    """The master of ``target`` running and its control socket there, or TargetError. Dropped
    connections are tried again (CONNECT_ATTEMPTS), each attempt inside one of ``slots``."""
    slots = slots or _SHARED
    pause = CONNECT_PAUSE_S
    for attempt in range(1, CONNECT_ATTEMPTS + 1):
        with slots.held():
            master, why = _attempt(target, argv, log)
        if master is not None:
            return master
        if attempt == CONNECT_ATTEMPTS or not any(mark in why for mark in DROPPED):
            break
        time.sleep(pause * (0.5 + random.random()))
        pause = min(2 * pause, CONNECT_PAUSE_MAX_S)
    tries = f" (after {attempt} attempts)" if attempt > 1 else ""
    raise TargetError(connect_error(target.host, why) + tries)


def _attempt(target, argv: list[str], log: Path):
    """(the master, None) once its control socket exists, or (None, why it is not there)."""
    with open(log, "w") as err:
        master = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err,
                                  start_new_session=True)
    # A board that answered its banner is alive: the login may take a while on a slow or
    # busy one, but not for ever.
    deadline = time.monotonic() + 4 * target.connect_timeout
    why = None
    while not target._control.exists():
        if master.poll() is not None:
            why = _last_line(log.read_text(errors="replace")) or "ssh failed"
            break
        if time.monotonic() > deadline:
            why = (f"no answer in {4 * target.connect_timeout:g} s "
                   f"(is the board on, and its sshd answering?)")
            break
        time.sleep(0.02)
    if why is None:
        return master, None
    master.kill()
    master.wait()
    with contextlib.suppress(OSError):
        master.stdin.close()
    return None, why


def connect_error(host: str, why: str) -> str:
    if "Host key verification failed" in why or "host key for" in why.lower():
        return (f"{host}: the board's host key is not known or has changed ({why}); "
                f"check it and accept it once with 'ssh {host}'")
    if "Permission denied" in why:
        return (f"{host} refused the key ({why}); install yours with 'ssh-copy-id {host}' "
                f"or name it with IdentityFile in ~/.ssh/config")
    return f"cannot reach {host}: {why or 'ssh failed'}"


def stop_master(exit_argv: list[str], tmp: Path, master: dict):
    """The master's lifeline closed: it leaves once its sessions have ended, in a round trip.
    One that has not within LIFELINE_WAIT_S is told to exit, and killed after STOP_TIMEOUT_S
    (a board that stopped answering cannot hold platperf's shutdown). The temp dir removed."""
    proc = master.get("proc")
    if proc is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(LIFELINE_WAIT_S)
    if (proc is None or proc.poll() is None) and (tmp / "cm").exists():
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run(exit_argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=STOP_TIMEOUT_S)
    if proc is not None:
        try:
            proc.wait(STOP_TIMEOUT_S)
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


def show_connecting(host: str, done: bool = False):
    if sys.stderr.isatty():
        text = " " * (len(host) + 16) if done else f"connecting to {host}..."
        print(text, end="\r", file=sys.stderr, flush=True)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""
