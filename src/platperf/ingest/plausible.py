"""A unit is a fact to check: what an imported figure's size says about the unit it was read in.

Published files get their units wrong: TF-A's Juno page of late 2025 printed nanoseconds under
titles that say µs, which read as written make a CPU_SUSPEND power-down of a third of a second.
Stored, such a page makes every key +99,900% against the release read from the page before.
So every imported figure is held against the range of sizes the thing it measures can have,
on any board from a Cortex-A7 to a server, in the unit it was read in. A figure outside its
range refuses the import in one line that names the unit it is likely in (the one that would
put it inside); the file's unit is one fact, so the line counts every figure of the import
that is out of range, not only the first.

The ranges are deliberately wide (a decade or more beyond the slowest and fastest boards
measured): they catch a factor of 1000, not a slow board. A key that has no row here is not
checked. Adding a check = one row of :data:`RANGES`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..records import Result
from .errors import IngestError

TIME = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
_SPELT = {"us": "µs"}


@dataclass(frozen=True)
class Range:
    """Sizes a figure of ``benchmark``/``metrics`` (whose params match the regexes of ``match``,
    (name, regex) pairs) can have, in ``unit``; ``what`` names the thing measured in the refusal."""

    benchmark: str
    metrics: tuple
    low: float
    high: float
    unit: str
    what: str
    match: tuple = ()

    def holds(self, res: Result) -> bool:
        if res.benchmark != self.benchmark or res.metric not in self.metrics or res.unit not in TIME:
            return False
        return all(re.search(regex, str(res.params.get(name, "")), re.I) for name, regex in self.match)

    def inside(self, value: float, unit: str) -> bool:
        seconds = value * TIME[unit]
        return self.low * TIME[self.unit] <= seconds <= self.high * TIME[self.unit]


# Real figures, for scale: a PSCI_VERSION call 0.12 µs (N1SDP), a Juno CPU_OFF with its cache
# flush 1.1 ms; a syscall 0.03-2 µs; an L1 hit 0.6 ns at 4 GHz, DRAM 300 ns on a slow board;
# a Linux boot 2 s (a server's firmware aside) to a few minutes.
RANGES: tuple[Range, ...] = (
    Range("tftf-rt-instr", ("latency",), 0.005, 200.0, "us", "a PSCI_VERSION call"),
    Range("tftf-rt-instr", ("powerdown", "wakeup", "cache_flush", "psci_entry", "psci_exit",
                            "cflush_overhead"), 0.005, 50_000.0, "us", "a PSCI power-down, wake-up or cache flush"),
    # a system call that walks no path (open and stat do: 225 µs on TI's AM62x)
    Range("os-syscall", ("latency",), 0.001, 200.0, "us", "a system call", (("op", r"^(null|read|write|fstat)$"),)),
    Range("mem-latency", ("latency",), 0.05, 50_000.0, "ns", "a memory load"),
    Range("boot-time", ("boot_time", "kernel", "userspace", "initrd"), 0.01, 7200.0, "s", "a boot phase"),
)


def _likely(rule: Range, value: float, unit: str) -> str | None:
    """The time unit that puts ``value`` inside ``rule``'s range, if one does."""
    for other in ("ns", "us", "ms", "s"):
        if other != unit and rule.inside(value, other):
            return other
    return None


class Check:
    """The figures of one import held against their ranges as they are read (one pass, however
    many figures): :meth:`see` each result, then :meth:`verdict`."""

    def __init__(self):
        self.first, self.out, self.checked = None, 0, 0

    def see(self, res: Result):
        rule = next((r for r in RANGES if r.holds(res)), None)
        if rule is None:
            return
        for i, value in enumerate(res.samples):
            self.checked += 1
            if not rule.inside(value, res.unit):
                self.out += 1
                if self.first is None:
                    self.first = (res.samples[i], res.unit, rule, _where(res, i))

    def verdict(self, remedy: str = ""):
        """IngestError for the first figure out of its range, counting all of them. ``remedy``
        ends the line where a unit is likely, its ``{unit}`` that unit (``if so, import with
        --unit {unit}``)."""
        if self.first is None:
            return
        value, unit, rule, where = self.first
        likely = _likely(rule, value, unit)
        guess = ""
        if likely:
            guess = f"; read as {_SPELT.get(likely, likely)} it is plausible: the file's figures look like " \
                    f"{_SPELT.get(likely, likely)}" + (f"; {remedy.format(unit=likely)}" if remedy else "")
        raise IngestError(where, f"{value:g} {_SPELT.get(unit, unit)} is implausible for {rule.what} (expected "
                                 f"{rule.low:g} to {rule.high:g} {_SPELT.get(rule.unit, rule.unit)}; {self.out} of "
                                 f"{self.checked} such figures of the import are out of range){guess}")


def _where(res: Result, i: int) -> str:
    """The file:line of sample ``i`` (a pooled result's extras are lists aligned with its samples)."""
    source = res.extra.get("source")
    where = source[i] if isinstance(source, list) and i < len(source) else source
    return where if isinstance(where, str) else "import"
