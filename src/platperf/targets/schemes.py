"""The kinds of target, one row each: how a person writes one, and how it is opened.
A new kind of target = its module + one row of :data:`SCHEMES`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .base import Target


@dataclass(frozen=True)
class Scheme:
    """One kind of target: how a person writes it, and how it is opened."""

    form: str                          # for help texts and errors
    matches: Callable[[str], bool]     # the target's name or URL is of this kind
    open: Callable[..., "Target"]      # (url, remote_dir=, keep_probe=, root=, connect_slots=) -> Target


def _local(url, *, root, **_):
    from .local import LocalTarget
    return LocalTarget(root=root)


def _ssh(url, *, remote_dir, keep_probe, connect_slots=None, **_):
    from .ssh import SshTarget
    return SshTarget(url, remote_dir=remote_dir, keep_probe=keep_probe, connect_slots=connect_slots)


SCHEMES = (
    Scheme("local", lambda url: url == "local", _local),
    Scheme("ssh://[user@]host[:port]", lambda url: url.startswith("ssh://"), _ssh),
)
TARGETS = tuple(s.form for s in SCHEMES)


def scheme_of(url: str) -> Scheme | None:
    return next((s for s in SCHEMES if s.matches(url)), None)
