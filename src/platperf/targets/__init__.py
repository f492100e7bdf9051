"""Where the probe runs. A target starts ``platperf-probe ARGV...`` somewhere and hands
back its output line by line, reads its own /sys and /proc, runs the board's own tools
(``command``, for the adapters of ``platperf.adapters``), and is closed when the run is over.

The kinds of target are the rows of :data:`SCHEMES`: ``local`` is this machine
(``targets/local.py``), ``ssh://[user@]host[:port]`` a board reached over SSH
(``targets/ssh.py``); any other name is an entry of the inventory (``targets/inventory.py``),
which names one of them. A new kind of target = its module + one row.
"""
from __future__ import annotations

from .base import NOT_FOUND, TIMED_OUT, CommandResult, ProbeProcess, Target, TargetError, UnknownTarget
from .schemes import SCHEMES, TARGETS, scheme_of

__all__ = ["NOT_FOUND", "SCHEMES", "TARGETS", "TIMED_OUT", "CommandResult", "ProbeProcess", "Target",
           "TargetError", "UnknownTarget", "get_target", "scheme_of", "target_names"]


def get_target(name: str, *, remote_dir: str | None = None, keep_probe: bool | None = None,
               root: str = "/", connect_slots=None) -> Target:
    """The target called ``name``: a URL of one of the :data:`SCHEMES` (``local`` is described
    from ``root``), or an inventory name (its entry's URL and options, unless given here).
    ``keep_probe``: leave the probe on the board for the next run (None: the inventory's
    choice, else yes: it is checked by its sha256 before it runs again). ``connect_slots``: the
    command's bound on connections being opened at once (targets.base.ConnectSlots)."""
    scheme = scheme_of(name)
    if scheme is not None:
        return scheme.open(name, remote_dir=remote_dir, connect_slots=connect_slots,
                           keep_probe=True if keep_probe is None else keep_probe, root=root)
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
                        keep_probe=entry.keep_probe if keep_probe is None else keep_probe, root=root,
                        connect_slots=connect_slots)
    target.name = name   # runs are stored under the board's name, not its address
    target.tools = dict(entry.tools)
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
