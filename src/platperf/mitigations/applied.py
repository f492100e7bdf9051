"""What became of one requested mitigation: the record every mitigation module returns."""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class Applied:
    """What became of one requested mitigation."""

    name: str
    applied: bool
    detail: str       # one line: what was done, or why it could not be
    caveat: str = ""  # applied, but something still undermines it (one line)

    def as_dict(self) -> dict:
        return asdict(self)
