"""Sizes as tools and guides write them: ``4k``, ``1m``, ``1G``, ``102400`` (powers of 1024)."""
from __future__ import annotations

SUFFIXES = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3, "t": 1024 ** 4}


def parse_size(value) -> int:
    """Bytes of ``value``; ValueError for what is not a size."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip().lower().removesuffix("b").removesuffix("i")
    digits = text.rstrip("kmgt")
    suffix = text[len(digits):]
    if not digits.isdigit() or suffix not in SUFFIXES:
        raise ValueError(f"'{value}' is not a size (examples: 4k, 1m, 1g, 102400)")
    return int(digits) * SUFFIXES[suffix]


def size_text(size: int) -> str:
    """The shortest exact ``4k`` / ``1m`` / ``1g`` form of ``size`` bytes, as fio and the guide
    write them."""
    for suffix in ("g", "m", "k"):
        if size % SUFFIXES[suffix] == 0 and size >= SUFFIXES[suffix]:
            return f"{size // SUFFIXES[suffix]}{suffix}"
    return str(size)
