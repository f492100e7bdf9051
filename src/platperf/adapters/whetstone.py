"""Whetstone (the C converted double-precision version, ``whetstone LOOPS``, the binary the
user names): the guide's Whetstone table in MIPS. The program prints ``C Converted Double
Precision Whetstones: N MIPS`` (or ``KIPS`` below 1000, converted here)."""
from __future__ import annotations

import re

from . import ToolFailed, number, result, run

TOOL = "whetstone"
BENCHMARK = "whetstone"
PARAMS = {"loops": 100000, "runs": 1, "binary": None}
RATE = re.compile(r"Whetstones:\s*([\d.]+)\s*(MIPS|KIPS|MWIPS|KWIPS)")


def title(entry: dict) -> str:
    return f"whetstone {entry['loops']} loops"


def measure(target, entry: dict, path: str) -> list:
    samples = [parse(run(target, [path, str(entry["loops"])], entry)) for _ in range(int(entry["runs"]))]
    return [result(BENCHMARK, {}, "whetstone", "MIPS", "higher", samples, loops=entry["loops"])]


def parse(text: str) -> float:
    match = RATE.search(text)
    if not match:
        raise ToolFailed("the program printed no 'Whetstones: N MIPS' line "
                         "(too few loops prints 'Insufficient duration': raise loops)")
    value = number(match.group(1), "Whetstone MIPS")
    return value / 1000 if match.group(2).startswith("K") else value
