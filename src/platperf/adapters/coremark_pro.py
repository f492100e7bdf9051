"""CoreMark-Pro (EEMBC): the guide's CoreMarkPro tables, workloads per second of each
workload. ``binary`` names ``core.exe`` in the directory of the built workloads
(``builds/<target>/<toolchain>/bin`` of a CoreMark-Pro tree, with ``sha-test.exe``, ...); each runs as
``WORKLOAD.exe -cN -w1 -v0`` (``contexts`` = N: 1 for the guide's CoreMarkPro table, 2 for
CoreMarkProTwoCore) and prints ``-- NAME:workloads/sec= X``.

The CoreMark-PRO mark itself (EEMBC's scaled geometric mean, from its results_parser.pl) is
not computed here: a suite that needs it imports the mark from that script's output.
"""
from __future__ import annotations

import posixpath
import re

from . import Missing, ToolFailed, resolve, result, run

TOOL = "core.exe"
BENCHMARK = "coremark-pro"
WORKLOADS = ("cjpeg-rose7-preset", "core", "linear_alg-mid-100x100-sp", "loops-all-mid-10k-sp",
             "nnet_test", "parser-125k", "radix2-big-64k", "sha-test", "zip-test")
PARAMS = {"contexts": 1, "workloads": list(WORKLOADS), "runs": 1, "binary": None}
RATE = re.compile(r"^--\s*(\S+?):workloads/sec=\s*([\d.eE+-]+)", re.M)


def title(entry: dict) -> str:
    return f"CoreMark-Pro -c{entry['contexts']} ({len(entry['workloads'])} workloads)"


def measure(target, entry: dict, path: str) -> list:
    directory = posixpath.dirname(resolve(target, path))   # every workload is built beside core.exe
    rates: dict[str, list] = {}
    for _ in range(int(entry["runs"])):
        for workload in entry["workloads"]:
            exe = posixpath.join(directory, f"{workload}.exe")
            if target.which(exe) is None:
                raise Missing("tool-missing", f"coremark_pro: {exe} not found on {target.name}",
                              "build CoreMark-Pro for the board and name its core.exe: "
                              "binary = \"/path/builds/<target>/<toolchain>/bin/core.exe\"")
            text = run(target, [exe, f"-c{entry['contexts']}", "-w1", "-v0"], entry)
            rates.setdefault(workload, []).append(parse(text)[workload])
    return [result(BENCHMARK, {"contexts": int(entry["contexts"])}, workload, "workloads/s", "higher",
                   samples) for workload, samples in rates.items()]


def parse(text: str) -> dict[str, float]:
    """{workload: workloads per second} of CoreMark-Pro workload output."""
    out = {name: float(value) for name, value in RATE.findall(text)}
    if not out:
        raise ToolFailed("the program printed no '-- NAME:workloads/sec= X' line (is it a "
                         "CoreMark-Pro workload?)")
    return out
