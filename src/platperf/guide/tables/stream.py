"""TI's "Stream Benchmarks" table: ``copy (MB/s)`` -> ``mem-bandwidth`` kernel ``copy``,
metric ``bandwidth`` MB/s (STREAM counts bytes read and written, 10^6 bytes per MB).

The guide prints no array size, so its key has none: a measured run's STREAM figures meet
it at the largest array they ran (``platperf.compare.board_level``). The unit is read in any case
(``add (mb/s)`` since 2025)."""
from __future__ import annotations

from ...vocab.lmbench import STREAM_KERNELS
from ..keys import Cell, Key

TITLE = "Stream Benchmarks"
TITLES = (TITLE,)
SECTIONS = {TITLE: ("System Benchmarks", "Stream")}
SORTED = {TITLE}
ROW_HEADER = {TITLE: "Benchmarks"}
COLUMN = "perf"


def to_key(title: str, row: str, column: str) -> Key | None:
    kernel, unit = row[:-len(" (MB/s)")], row[-len(" (MB/s)"):]
    if title != TITLE or column != COLUMN or unit.lower() != " (mb/s)" or kernel not in STREAM_KERNELS:
        return None
    return Key("mem-bandwidth", (("kernel", kernel),), "bandwidth", "MB/s", "higher")


def to_cell(key: Key) -> Cell | None:
    if (key.benchmark == "mem-bandwidth" and len(key.params) == 1 and key.params[0][0] == "kernel"
            and key.params[0][1] in STREAM_KERNELS
            and (key.metric, key.unit, key.direction) == ("bandwidth", "MB/s", "higher")):
        return Cell(TITLE, f"{key.params[0][1]} (MB/s)", COLUMN)
    return None
