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


class Note(Skipped):
    """What an importer took, and how, where a reader could expect otherwise (a page's table
    that repeats a core, kept row by row): yielded by ``read`` and said by the import."""


@dataclass(frozen=True)
class Words:
    """A cell a published page prints as words, not a figure: ``n/a`` in a power table, a
    board's description in TI's Evaluation Modules table. Yielded by ``read`` among the
    results and kept with the run of its ``column`` (``""``: the document's own columns,
    ``run.meta["published"]``), so that the report prints the page's table again whole.
    ``header`` is the column's header without its platform; ``section`` the headings over the
    table and ``row_header`` the header of its row-name columns, as a result's extra keeps them."""

    where: str
    column: str
    title: str
    row: str
    header: str
    text: str
    section: tuple = ()
    row_header: tuple = ()
    layout: str = ""        # whose report section prints it: "" the guide's, "tfa" TF-A's

    def as_dict(self) -> dict:
        return {"where": self.where, "title": self.title, "row": self.row, "header": self.header,
                "text": self.text, "section": list(self.section), "row_header": list(self.row_header),
                **({"layout": self.layout} if self.layout else {})}
