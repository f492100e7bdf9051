"""Reading numbers from other tools' text: finite floats only, never an exception."""
from __future__ import annotations

import math
import re

from .errors import IngestError

# what C's printf("%f") / ("%e") writes; no "inf", "nan", "1_000" that float() would take
_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def number(text: str, where: str, what: str, signed: bool = False) -> float:
    """``text`` as a finite float, or an :class:`IngestError` saying ``what`` was expected.

    Durations, sizes and rates are never negative; ``signed`` allows it (published tables).
    """
    text = text.strip()
    if not _DECIMAL.fullmatch(text):
        raise IngestError(where, f"expected {what}, got {text!r:.40}")
    value = float(text)
    if not math.isfinite(value):
        raise IngestError(where, f"expected {what}, got {text!r:.40} (out of range)")
    if value < 0 and not signed:
        raise IngestError(where, f"expected {what}, got {text!r:.40} (negative)")
    return value
