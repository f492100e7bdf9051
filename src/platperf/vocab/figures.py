"""How a report writes a figure: two decimals, as TF-A's tables and TI's guide print them;
a small value keeps three significant digits (0.0047 stays 0.0047, not 0.00)."""
from __future__ import annotations

import math


def number(value: float | None) -> str:
    """``value`` as the reports print it; None is an empty cell."""
    if value is None:
        return ""
    if value == 0 or abs(value) >= 0.1 or not math.isfinite(value):
        return f"{value:.2f}"
    text = f"{value:.{2 - math.floor(math.log10(abs(value)))}f}".rstrip("0")
    return text if len(text.partition(".")[2]) >= 2 else f"{value:.2f}"


def spread(value: float, low: float | None, high: float | None) -> str:
    """The TI guide's cell: ``value (min low, max high)``, or the value alone without both."""
    if low is None or high is None:
        return number(value)
    return f"{number(value)} (min {number(low)}, max {number(high)})"
