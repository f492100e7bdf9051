"""What every target is: the interface the runner, the adapters and the doctor use, the
errors a target raises, and a command's bound on connections being opened (which a command
holds whatever its targets: a local run need not load the SSH modules for it)."""
from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Protocol

if TYPE_CHECKING:
    from ..machine.sysroot import SysRoot


class ProbeProcess(Protocol):
    """One running probe: iterate it for its stdout lines, as they are written."""

    def __iter__(self) -> Iterator[str]: ...
    def interrupt(self) -> None: ...        # ask the probe to finish its sample and write `end`
    def kill(self) -> None: ...
    def wait(self, timeout: float | None = None) -> int: ...
    def stderr_tail(self) -> str: ...       # the last stderr line, for error messages


@dataclass
class CommandResult:
    """A tool run on the target to its end: exit status and its whole output, as text."""

    returncode: int          # 127: not found; 124: stopped at its timeout (as timeout(1) says)
    stdout: str
    stderr: str


# The exit statuses a shell gives to a command it could not find and timeout(1) to one it stopped.
NOT_FOUND, TIMED_OUT = 127, 124


class Target(Protocol):
    name: str        # what its runs are stored under (an inventory entry's name, else its URL)
    local: bool      # the machine platperf runs on (its /dev and /sys are platperf's to write)
    tools: dict      # adapter -> the binary's path on the board (the inventory's tools table)

    def run(self, argv: list[str]) -> ProbeProcess: ...
    def sysroot(self) -> "SysRoot": ...      # the target's /sys and /proc
    def command(self, argv: list[str], *, timeout: float | None = None,
                stdin: bytes = b"") -> CommandResult: ...   # a tool of the board, run to its end
    def which(self, name: str) -> str | None: ...           # a tool's path on the board, if any
    def close(self) -> None: ...             # remove the uploaded probe (unless kept), disconnect


class UnknownTarget(ValueError):
    """A --target that is neither a URL of :data:`SCHEMES` nor an inventory name: exit 2."""


class TargetError(RuntimeError):
    """A target that cannot be reached or used (one line saying why): exit 2."""


# Connection attempts in flight at once for a whole command (--max-connect): under sshd's
# default MaxStartups (10:30:100), where drops begin (targets/ssh_master.py).
DEFAULT_MAX_CONNECT = 8


class ConnectSlots:
    """At most ``limit`` connection attempts in flight at once, for every board of a command."""

    def __init__(self, limit: int = DEFAULT_MAX_CONNECT):
        if limit < 1:
            raise ValueError(f"--max-connect {limit}: give a number of connections from 1 up")
        self.limit = limit
        self._slots = threading.BoundedSemaphore(limit)

    @contextlib.contextmanager
    def held(self):
        self._slots.acquire()
        try:
            yield
        finally:
            self._slots.release()
