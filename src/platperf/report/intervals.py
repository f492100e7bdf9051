"""Each figure of a report column with its 95% bootstrap interval (``platperf report --ci``).

A column's figure for a key is the median of its runs' medians (one run: of its samples), as
``platperf compare`` takes it, and its interval is compare's
(:func:`platperf.compare.keyed.figure_interval`: over the run medians with two runs or more, else
over the one run's samples). A figure whose interval is wider than compare's default
tolerance is *unstable*: a change of that size would not show in it.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..compare import keyed as compare
from .document import cell_text


@dataclass
class Interval:
    figure: float
    low: float
    high: float
    runs: int

    @property
    def width_pct(self) -> float:
        return compare.width_pct((self.low, self.high), self.figure)

    @property
    def unstable(self) -> bool:
        return compare.is_unstable((self.low, self.high), self.figure)


def column_intervals(data) -> dict[tuple, Interval]:
    """(column name, key) -> Interval for every key of every column (samples read once)."""
    out = {}
    for col in data.columns:
        for key, pool in data.pools.get(col.name, {}).items():
            if pool.samples:        # none: every result of the key not measured (pools.Pool)
                low, high = compare.figure_interval(pool)
                out[(col.name, key)] = Interval(pool.figure, low, high, len(pool.runs))
    return out


def interval_text(iv: Interval | None, digits: int = 2) -> str:
    """``[3.78, 3.82]``, with `` unstable`` when wider than the tolerance; "" without one."""
    if iv is None:
        return ""
    return f"[{cell_text(iv.low, digits)}, {cell_text(iv.high, digits)}]" + (" unstable" if iv.unstable else "")


def with_interval(text: str, iv: Interval | None) -> str:
    """A table cell and its interval: ``3.80 [3.78, 3.82]``."""
    return f"{text} {interval_text(iv)}" if iv is not None and text else text
