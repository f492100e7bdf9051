"""Where the probe runs. A target starts ``platperf-probe ARGV...`` somewhere and hands
back its output line by line; ``local`` is this machine. SSH or LAVA is one more module
here with a class that has the same ``name`` and ``run()``.
"""
from __future__ import annotations

from typing import Iterator, Protocol


class ProbeProcess(Protocol):
    """One running probe: iterate it for its stdout lines, as they are written."""

    def __iter__(self) -> Iterator[str]: ...
    def interrupt(self) -> None: ...        # ask the probe to finish its sample and write `end`
    def kill(self) -> None: ...
    def wait(self, timeout: float | None = None) -> int: ...
    def stderr_tail(self) -> str: ...       # the last stderr line, for error messages


class Target(Protocol):
    name: str

    def run(self, argv: list[str]) -> ProbeProcess: ...


TARGETS = ("local", "ssh://[user@]host[:port]")


class UnknownTarget(ValueError):
    pass


class TargetError(ValueError):
    """A target that cannot be used (unreachable, refused key, no place to run the probe):
    the message is one line that says what to do."""


def get_target(name: str, **options) -> Target:
    if name == "local":
        from .local import LocalTarget
        return LocalTarget()
    if name.startswith("ssh://"):
        from .ssh import SshTarget
        return SshTarget(name, **options)
    raise UnknownTarget(f"unknown target '{name}' (valid: {', '.join(TARGETS)})")
