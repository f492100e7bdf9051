"""RST grid tables as pages print them (TF-A's per-core tables, TI's Evaluation Modules)."""
from __future__ import annotations

import re

from .errors import IngestError

RULE = re.compile(r"^\+(?:[-=]+\+)+$")


def is_grid_line(line: str) -> bool:
    return line.strip().startswith(("+", "|"))


def rows(grid: list[tuple[int, str]], name: str, expected: str) -> list[tuple[int, list[str]]]:
    """(line number, cells) per row of a grid (lines stripped); a row's several lines join cell
    by cell, a copy's tabs and runs of spaces read as one space; a row spanning fewer columns
    than the others (a caption row) is kept as it is. ``expected`` ends the error of a line
    that is neither a rule nor a row."""
    out, pending = [], []
    for number_, line in grid + [(0, "+")]:
        if RULE.match(line) or line == "+":
            if pending:
                first = pending[0][0]
                width = max(len(cells) for _, cells in pending)
                joined = [" ".join(" ".join(cells[k].split()) for _, cells in pending if k < len(cells)).strip()
                          for k in range(width)]
                out.append((first, joined))
            pending = []
        elif line.startswith("|") and line.endswith("|") and len(line) > 1:
            pending.append((number_, [c.strip() for c in line[1:-1].split("|")]))
        else:
            raise IngestError(f"{name}:{number_}", f"grid line {line!r:.40} is neither a rule (+---+) "
                                                   f"nor a row (| ... |); {expected}")
    return out
