"""Dhrystone 2.1 (``dhry_1.c``/``dhry_2.c``, the binary the user names): the guide's
Dhrystone table -- Dhrystones per second, DMIPS/MHz and the CPU clock they are divided by.

The program asks for its number of runs on stdin and prints ``Dhrystones per Second: N``.
DMIPS is Dhrystones per second / 1757 (the VAX 11/780's score, the customary 1 MIPS); the
clock is the board's ``cpuinfo_max_freq`` (cpufreq), else ``cpu MHz`` of /proc/cpuinfo, and
without either the per-MHz figure is left out.
"""
from __future__ import annotations

import re

from . import ToolFailed, number, result, run

TOOL = "dhrystone"
BENCHMARK = "dhrystone"
VAX_DHRYSTONES = 1757.0
PARAMS = {"loops": 50000000, "runs": 1, "binary": None}
RATE = re.compile(r"Dhrystones per Second:\s*([\d.]+)")
# The clock the guide divides by, in MHz: cpufreq's maximum (kHz), else /proc/cpuinfo's.
CLOCK = ("f=/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq; "
         "if [ -r $f ]; then echo khz $(cat $f); "
         "else sed -n 's/^cpu MHz[[:space:]]*: */mhz /p' /proc/cpuinfo | head -n 1; fi")


def title(entry: dict) -> str:
    return f"dhrystone {entry['loops']} runs"


def measure(target, entry: dict, path: str) -> list:
    # Dhrystone 2.1's main() ends without a return: its exit status means nothing.
    rates = [parse(run(target, [path], entry, stdin=f"{entry['loops']}\n".encode(), ok=None))
             for _ in range(int(entry["runs"]))]
    out = [result(BENCHMARK, {}, "dhrystone_per_second", "Dhrystones/s", "higher", rates,
                  loops=entry["loops"])]
    mhz = clock_mhz(target)
    if mhz:
        out.append(result(BENCHMARK, {}, "cpu_clock", "MHz", "higher", [mhz]))
        out.append(result(BENCHMARK, {}, "dhrystone_per_mhz", "DMIPS/MHz", "higher",
                          [r / VAX_DHRYSTONES / mhz for r in rates]))
    return out


def parse(text: str) -> float:
    match = RATE.search(text)
    if not match:
        last = (text.strip().splitlines() or ["no output"])[-1].strip()
        raise ToolFailed(f"the program printed no 'Dhrystones per Second:' line ({last}; "
                         "raise loops, or is it not Dhrystone 2.1?)")
    return number(match.group(1), "Dhrystones per second")


def clock_mhz(target) -> float | None:
    done = target.command(["sh", "-c", CLOCK], timeout=30)
    fields = done.stdout.split()
    try:
        value = float(fields[1])
    except (IndexError, ValueError):
        return None
    return value / 1000 if fields[0] == "khz" else value
