"""What measuring many boards at once costs this process in open files, checked before any
board is reached.

A board costs platperf a pipe to its ssh master's lifeline, three pipes to the session of the
step it runs, and while it is described two requests of three pipes and a selector each: at
most :data:`FILES_PER_BOARD` descriptors (measured: 4.5-5 while measuring). Its ssh processes
have descriptor tables of their own. The soft RLIMIT_NOFILE (often 1,024) is raised as far as
the hard limit allows; a fleet the hard limit cannot hold is one line before anything starts,
instead of "Too many open files" in the middle of 200 runs.
"""
from __future__ import annotations

try:
    import resource
except ImportError:      # not a POSIX system: nothing to raise
    resource = None

FILES_PER_BOARD = 12
# The process itself: the store, Python's own files, the terminal, the connecting boards' logs.
FILES_BASE = 64


class LimitError(Exception):
    """The host cannot hold the fleet (one line, exit 2)."""


def files_needed(boards: int, max_connect: int = 0) -> int:
    return FILES_BASE + FILES_PER_BOARD * boards + max_connect


def hold_fleet(boards: int, max_connect: int = 0) -> int:
    """Raises the soft descriptor limit to the hard one when ``boards`` need more than it
    gives; the limit in force, or LimitError when even the hard limit is too low."""
    if resource is None:
        return -1
    need = files_needed(boards, max_connect)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= need:
        return soft
    raised = hard if hard == resource.RLIM_INFINITY else max(soft, hard)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
        soft = raised
    except (ValueError, OSError):
        pass
    if soft != resource.RLIM_INFINITY and soft < need:
        raise LimitError(f"{boards} boards at once need about {need} open files, and this process "
                         f"may open {soft} (ulimit -n; hard limit {hard}): raise the hard limit "
                         f"(ulimit -Hn as root, or nofile in /etc/security/limits.conf) or "
                         f"measure at most {max(1, (soft - FILES_BASE - max_connect) // FILES_PER_BOARD)} "
                         f"boards at once")
    return soft
