"""One cell of a published guide's csv-table, as TI prints it: a number, optionally its unit
and its spread over the runs.

* ``1249.56``, ``1249.56 (min 731.40, max 1767.72)``: the figure, with the min and max of
  the runs it is the mean of;
* ``38%``, ``16 bytes`` (TI's 2026 crypto tables): the number followed by its unit, which must
  be the unit the column's header (or the row's name) names -- ``(%)``, ``(bytes)``, ``(in
  bytes)`` -- so that a cell in another unit is refused rather than stored in the wrong one;
* an empty mark (``n/a``, ``-``) or a note of several words (``Full normal boot time
  (~seconds)``, TI's AM62L resume latency from RTC-only): not a figure; the importer keeps it
  as the page prints it (:class:`platperf.ingest.Words`), as it keeps a whole column of words
  beside a board's figures (a sensor's name beside its frame rate).

One word where a figure belongs (``fast``) and anything that starts like a number but is none
(``12.5.1``, ``1249.56 (min``) is a figure misread or cut, and refused.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ._numbers import number
from .errors import IngestError

_DECIMAL = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_CELL = re.compile(rf"^\s*(?P<value>{_DECIMAL})\s*(?P<unit>%|[A-Za-zµ][A-Za-zµ/]{{0,15}})?"
                   r"\s*(?:\(\s*min\s+(?P<min>\S+?)\s*,\s*max\s+(?P<max>\S+?)\s*\))?\s*$")
# a figure starts with a digit, a sign or a point; a cell that starts otherwise is words
_FIGURE_START = re.compile(r"^\s*[-+]?\.?\d")
_EMPTY = {"", "-", "n/a", "na", "none"}
SHAPE = "a number, optionally its unit and `(min X, max Y)`"
# units one guide writes several ways
_SAME = {"byte": "bytes", "b": "bytes", "in bytes": "bytes", "percent": "%", "usec": "us", "microsec": "us"}


@dataclass(frozen=True)
class Figure:
    value: float
    unit: str = ""                  # the unit the cell itself printed ("" when it printed none)
    min: float | None = None
    max: float | None = None


def is_empty(cell: str) -> bool:
    """``n/a``, ``-``: the page says it has no figure there."""
    return cell.strip().lower() in _EMPTY


def is_words(cell: str) -> bool:
    """An empty mark (``n/a``, ``-``) or a note of several words: printed again, no figure."""
    text = cell.strip()
    return is_empty(text) or (is_text(text) and len(text.split()) > 1)


def is_text(cell: str) -> bool:
    """A cell that does not start like a number (words, or one word)."""
    return not _FIGURE_START.match(cell)


def is_figure(cell: str) -> bool:
    return bool(_CELL.match(cell))


def read(cell: str, where: str, column: str, units: tuple[str, ...]) -> Figure:
    """The figure of ``cell`` in ``column``, whose header or row names ``units`` (those
    that are not empty): a unit the cell prints must be one of them."""
    shape = _CELL.match(cell)
    if not shape:
        raise IngestError(where, f"column {column!r:.40}: expected {SHAPE} in each cell, "
                                 f"got {cell.strip()!r:.40}")
    value = number(shape.group("value"), where, f"{SHAPE} in column {column!r:.40}", signed=True)
    unit = shape.group("unit") or ""
    if unit:
        named = [u for u in units if u]
        if not named:
            raise IngestError(where, f"cell {cell!r:.40} prints the unit {unit!r} but column {column!r:.40} "
                                     f"names none; expected the header to name it, as `{column} ({unit})`")
        if not any(same_unit(unit, u) for u in named):
            raise IngestError(where, f"cell {cell!r:.40} is in {unit!r}, not in the {named[0]!r} of column "
                                     f"{column!r:.40}; expected the column's unit")
    low = high = None
    if shape.group("min") is not None:
        low = number(shape.group("min"), where, "a number after `min`", signed=True)
        high = number(shape.group("max"), where, "a number after `max`", signed=True)
    return Figure(value, unit, low, high)


def same_unit(one: str, other: str) -> bool:
    """``bytes`` is ``(in bytes)`` is ``byte``; ``%`` is ``%``; case aside."""
    def norm(unit: str) -> str:
        unit = " ".join(unit.lower().split())
        return _SAME.get(unit, unit)
    return norm(one) == norm(other)
