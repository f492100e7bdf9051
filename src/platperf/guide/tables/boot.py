"""TI's "Linux boot time <MEDIA>" tables and the keys of the ``boot_time`` adapter and the
``systemd-analyze`` importer: benchmark ``boot-time``, param ``media``, metric ``boot_time`` in
seconds, from the kernel's start to the login prompt.

The guide's row ends with its sample count (``(20 boot cycles)``): that is the result's n,
not part of its key. :func:`count` reads it (the importer keeps it as the result's n) and
:func:`counted` prints it again from n, so the row reads back exactly.
"""
from __future__ import annotations

import re

from ..keys import Cell, Key

BENCHMARK = "boot-time"
COLUMN = "Boot time in seconds: avg(min,max)"
# media: (the title's name, the row's name)
MEDIA = {"sd": ("MMCSD", "SD"), "emmc": ("EMMC", "eMMC"), "ospi": ("OSPI NOR", "OSPI NOR"),
         "usb": ("USB", "USB"), "nfs": ("NFS", "NFS")}
TABLES = {f"Linux boot time {title}": media for media, (title, _) in MEDIA.items()}
TITLES = tuple(TABLES)
SECTIONS = {title: ("Boot-time Measurement", f"Boot media: {MEDIA[m][0]}") for title, m in TABLES.items()}
ROW_HEADER = {title: "Boot Configuration" for title in TITLES}
SPREAD = set(TITLES)            # "avg(min,max)" over the boot cycles
CYCLES = re.compile(r" \((\d+) boot cycles\)$")


def _row(media: str) -> str:
    return f"Linux boot time from {MEDIA[media][1]} with default rootfs"


def to_key(title: str, row: str, column: str) -> Key | None:
    media = TABLES.get(title)
    if media is None or column != COLUMN or CYCLES.sub("", row) != _row(media):
        return None
    return Key(BENCHMARK, (("media", media),), "boot_time", "s", "lower")


def count(title: str, row: str) -> int | None:
    """The boot cycles a row of ours names (``(20 boot cycles)``), None if it names none."""
    found = CYCLES.search(row) if title in TABLES else None
    return int(found.group(1)) if found else None


def counted(cell: Cell, n: int) -> Cell:
    """``cell`` with the row naming its ``n`` boot cycles, as the guide prints it."""
    return Cell(cell.title, f"{CYCLES.sub('', cell.row)} ({n} boot cycles)", cell.column)


def to_cell(key: Key) -> Cell | None:
    if (key.benchmark, key.metric, key.unit, key.direction) != (BENCHMARK, "boot_time", "s", "lower") \
            or len(key.params) != 1 or key.params[0][0] != "media" or key.params[0][1] not in MEDIA:
        return None
    media = key.params[0][1]
    return Cell(f"Linux boot time {MEDIA[media][0]}", _row(media), COLUMN)
