"""LINPACK (the C version, ``linpackc``, the binary the user names): the guide's Linpack
table in KFLOPS. The program doubles its repetitions until a pass takes 10 s and prints a
``Reps Time(s) DGEFA DGESL OVERHEAD KFLOPS`` row for each; the figure is the last (longest)
row's, and every row is kept in the result's ``rows``. The array size is given both ways the
versions read it: on stdin (then ``q``) and in ``LINPACK_ARRAY_SIZE``.
"""
from __future__ import annotations

from . import ToolFailed, number, result, run

TOOL = "linpack"
BENCHMARK = "linpack"
PARAMS = {"array_size": 200, "runs": 1, "binary": None}


def title(entry: dict) -> str:
    return f"linpack {entry['array_size']}x{entry['array_size']}"


def measure(target, entry: dict, path: str) -> list:
    size = int(entry["array_size"])
    samples, rows = [], []
    for _ in range(int(entry["runs"])):
        table = parse(run(target, ["env", f"LINPACK_ARRAY_SIZE={size}", path], entry,
                          stdin=f"{size}\nq\n".encode()))
        samples.append(table[-1][-1])
        rows.append(table)
    return [result(BENCHMARK, {"array_size": size}, "linpack", "KFLOPS", "higher", samples, rows=rows)]


def parse(text: str) -> list[list[float]]:
    """The rows of the table: [reps, seconds, DGEFA %, DGESL %, overhead %, KFLOPS]."""
    rows = []
    for line in text.splitlines():
        fields = line.replace("%", "").split()
        if len(fields) == 6 and fields[0].isdigit():
            rows.append([number(f, "a LINPACK table cell") for f in fields])
    if not rows:
        raise ToolFailed("the program printed no 'Reps Time(s) DGEFA DGESL OVERHEAD KFLOPS' rows")
    return rows
