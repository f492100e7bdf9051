"""Where a figure sits in a published performance guide, and which platperf key it is."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Key:
    """The measurement a guide cell holds (placement comes from the run, not from here)."""
    benchmark: str
    params: tuple          # sorted ((name, value), ...); numbers as numbers, sizes in bytes
    metric: str
    unit: str
    direction: str         # "lower" or "higher"


@dataclass(frozen=True)
class Cell:
    """Where the guide prints it: table title, row name as printed (unit included), column
    header without the board prefix ("am62xx_sk-fs: ")."""
    title: str
    row: str
    column: str
