"""Where the probe runs. A target starts ``platperf-probe ARGV...`` somewhere and hands
back its output line by line, reads its own /sys and /proc, runs the board's own tools
(``command``, for the adapters of ``platperf.adapters``), and is closed when the run is over. ``local`` is this machine, ``ssh://[user@]host[:port]`` a board reached over SSH
(``targets/ssh.py``), and any other name an entry of the inventory (``targets/inventory.py``).
"""
from __future__ import annotations

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
    name: str
    local: bool      # the machine platperf runs on (its /dev and /sys are platperf's to write)

    def run(self, argv: list[str]) -> ProbeProcess: ...
    def sysroot(self) -> "SysRoot": ...      # the target's /sys and /proc
    def command(self, argv: list[str], *, timeout: float | None = None,
                stdin: bytes = b"") -> CommandResult: ...   # a tool of the board, run to its end
    def which(self, name: str) -> str | None: ...           # a tool's path on the board, if any
    def close(self) -> None: ...             # remove the uploaded probe (unless kept), disconnect


TARGETS = ("local", "ssh://[user@]host[:port]")


class UnknownTarget(ValueError):
    """A --target that is neither local, an ssh:// URL nor an inventory name: exit 2."""


class TargetError(RuntimeError):
    """A target that cannot be reached or used (one line saying why): exit 2."""


def get_target(name: str, *, remote_dir: str | None = None, keep_probe: bool = False,
               root: str = "/") -> Target:
    """The target called ``name``: ``local`` (this machine, described from ``root``), an
    ``ssh://`` URL, or an inventory name (its entry's URL and options, unless given here)."""
    if name == "local":
        from .local import LocalTarget
        return LocalTarget(root=root)
    if name.startswith("ssh://"):
        from .ssh import SshTarget
        return SshTarget(name, remote_dir=remote_dir, keep_probe=keep_probe)
    from .inventory import Inventory, InventoryError
    try:
        inventory = Inventory.load()
    except InventoryError as exc:
        raise UnknownTarget(str(exc)) from None
    entry = inventory.entries.get(name)
    if entry is None:
        names = ", ".join(sorted(inventory.entries)) or "none yet: platperf targets add NAME URL"
        raise UnknownTarget(f"unknown target '{name}' (valid: {', '.join(TARGETS)}, or an "
                            f"inventory name: {names})")
    target = get_target(entry.url, remote_dir=remote_dir or entry.remote_dir,
                        keep_probe=keep_probe or entry.keep_probe, root=root)
    target.name = name   # runs are stored under the board's name, not its address
    target.tools = entry.tools   # the binaries its [[tool]] adapters run (platperf.adapters)
    return target


def target_names(text: str, *, every: bool = False) -> list[str]:
    """The targets of ``--target a,b,c`` (or every inventory entry with ``--targets all``),
    in order, each once."""
    if every:
        from .inventory import Inventory, InventoryError
        try:
            names = sorted(Inventory.load().entries)
        except InventoryError as exc:
            raise UnknownTarget(str(exc)) from None
        if not names:
            raise UnknownTarget("--targets all: the inventory is empty "
                                "(add boards with: platperf targets add NAME URL)")
        return names
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise UnknownTarget(f"no target given (valid: {', '.join(TARGETS)}, or inventory names)")
    return list(dict.fromkeys(names))
