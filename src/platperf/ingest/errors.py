"""The one error an importer may raise."""
from __future__ import annotations

from ..records import RecordError


class IngestError(RecordError):
    """A foreign file that does not have the expected shape; ``where`` is ``file:line``.

    The message says what was expected on that line, so a person can fix the file
    (or pick the right FORMAT) without reading the parser.
    """
