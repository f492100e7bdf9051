"""Sizes as tools, sysfs, fingerprints and guides write them: ``4k``, ``1m``, ``32K``,
``1 MiB``, ``16mb``, ``102400`` (powers of 1024; a trailing ``b``/``ib`` changes nothing)."""
from __future__ import annotations

import re

SUFFIXES = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3, "t": 1024 ** 4}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", re.I)


def parse_size(value) -> int:
    """Bytes of ``value`` (an int, or a text as above); ValueError for what is not a whole
    number of bytes."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    m = _SIZE.fullmatch(str(value))
    if m is not None:
        digits, suffix = m.group(1), m.group(2).lower()
        if "." not in digits:
            return int(digits) * SUFFIXES[suffix]
        size = float(digits) * SUFFIXES[suffix]
        if size.is_integer():
            return int(size)
    raise ValueError(f"'{value}' is not a size (examples: 4k, 1m, 1g, 102400)")


def size_or_none(value) -> int | None:
    """:func:`parse_size`, or None for an empty or unreadable size (a sysfs file, a
    fingerprint's cache)."""
    if value is None or value == "":
        return None
    try:
        return parse_size(value)
    except ValueError:
        return None


def size_text(size: int) -> str:
    """The shortest exact ``4k`` / ``1m`` / ``1g`` form of ``size`` bytes, as fio and the guide
    write them."""
    for suffix in ("g", "m", "k"):
        if size % SUFFIXES[suffix] == 0 and size >= SUFFIXES[suffix]:
            return f"{size // SUFFIXES[suffix]}{suffix}"
    return str(size)


def size_label(nbytes: float) -> str:
    """Byte sizes as a report labels them (plot axes, cache marks): 512B, 32K, 1.5K, 1M, 2G."""
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if nbytes >= scale:
            v = nbytes / scale
            return f"{v:.0f}{unit}" if v == int(v) else f"{v:.3g}{unit}"
    return f"{nbytes:.0f}B"
