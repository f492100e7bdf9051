"""The one error an importer may raise, and what it says it left out."""
from __future__ import annotations

from dataclasses import dataclass

from ..records import RecordError


class IngestError(RecordError):
    """A foreign file that does not have the expected shape; ``where`` is ``file:line``.

    The message says what was expected on that line, so a person can fix the file
    (or pick the right FORMAT) without reading the parser.
    """


@dataclass(frozen=True)
class Skipped:
    """A table an importer saw and did not take because it is not a table of its format (a
    page's method table, its historic tables that name no release): yielded by a module's
    ``read`` among its results, so that the import says what it left out instead of losing
    it in silence. ``where`` is ``file:line``, ``what`` one line about it."""

    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"
