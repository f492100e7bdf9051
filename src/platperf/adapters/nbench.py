"""NBench (BYTEmark, ``nbench``, the binary the user names): the guide's NBench table, each
test's iterations per second (``NUMERIC SORT : 561.61 : 14.40 : 4.73``, the first figure).

NBench reads its data files (NNET.DAT, ...) from the directory it runs in, so it runs in its
own binary's directory (a symbolic link to it resolved).
"""
from __future__ import annotations

from . import ToolFailed, resolve, result, run

TOOL = "nbench"
BENCHMARK = "nbench"
PARAMS = {"runs": 1, "binary": None}
IN_ITS_DIR = 'cd "$(dirname "$0")" && exec "$0"'


def title(entry: dict) -> str:
    return "nbench"


def measure(target, entry: dict, path: str) -> list:
    tests: dict[str, list] = {}
    for _ in range(int(entry["runs"])):
        for test, rate in parse(run(target, ["sh", "-c", IN_ITS_DIR, resolve(target, path)], entry)).items():
            tests.setdefault(test, []).append(rate)
    return [result(BENCHMARK, {}, test, "iterations/s", "higher", samples)
            for test, samples in tests.items()]


def parse(text: str) -> dict[str, float]:
    """{numeric_sort: iterations/s, ...} of NBench's result lines."""
    out = {}
    for line in text.splitlines():
        fields = [f.strip() for f in line.split(":")]
        if len(fields) == 4 and fields[0].isupper() and fields[0] != "TEST":
            try:
                out[fields[0].lower().replace(" ", "_")] = float(fields[1])
            except ValueError:
                continue
    if not out:
        raise ToolFailed("the program printed no 'NUMERIC SORT : N : ...' result lines (is it nbench?)")
    return out


