"""CoreMark-Pro (EEMBC): the guide's CoreMarkPro tables, workloads per second of each
workload and the CoreMark-PRO mark. ``binary`` names ``core.exe`` in the directory of the built
workloads (``builds/<target>/<toolchain>/bin`` of a CoreMark-Pro tree, with ``sha-test.exe``,
...); each runs as ``WORKLOAD.exe -cN -w1 -v0`` (``contexts`` = N: 1 for the guide's
CoreMarkPro table, 2 for CoreMarkProTwoCore; ``iterations`` = I adds ``-iI``, a short run's
iteration count, otherwise each workload's own) and prints ``-- NAME:workloads/sec= X``.

The mark (the guide's ``coremark-pro ()`` row) is EEMBC's: 1000 times the geometric mean of
each workload's rate over the rate of EEMBC's reference platform (:data:`REFERENCE`), from the
median rate of each workload over ``runs`` (EEMBC's certification takes the median of its
runs). It needs all nine workloads: with one missing, the workloads measured are stored and
one finding names what the mark lacks.
"""
from __future__ import annotations

import posixpath
import re

from .. import stats
from . import Missing, ToolFailed, resolve, result, run

TOOL = "core.exe"
BENCHMARK = "coremark-pro"
MARK = "coremark-pro"
# Workloads/s of EEMBC's reference platform (CoreMark-PRO's README, "Computing the Overall
# Score", and util/perl/cert_mark.pl): the mark divides each rate by these. core's is given as
# scale factor 10000 over reference 2855, i.e. a reference of 0.2855 workloads/s.
REFERENCE = {"cjpeg-rose7-preset": 40.3438, "core": 2855 / 10000, "linear_alg-mid-100x100-sp": 38.5624,
             "loops-all-mid-10k-sp": 0.87959, "nnet_test": 1.45853, "parser-125k": 4.81116,
             "radix2-big-64k": 99.6587, "sha-test": 48.5201, "zip-test": 21.3618}
MARK_SCALE = 1000.0
WORKLOADS = tuple(sorted(REFERENCE))
PARAMS = {"contexts": 1, "workloads": list(WORKLOADS), "runs": 1, "iterations": 0, "binary": None}
RATE = re.compile(r"^--\s*(\S+?):workloads/sec=\s*([\d.eE+-]+)", re.M)


def title(entry: dict) -> str:
    return f"CoreMark-Pro -c{entry['contexts']} ({len(entry['workloads'])} workloads)"


def measure(target, entry: dict, path: str) -> list:
    directory = posixpath.dirname(resolve(target, path))   # every workload is built beside core.exe
    present, absent = [], []
    for workload in entry["workloads"]:
        exe = posixpath.join(directory, f"{workload}.exe")
        (absent if target.which(exe) is None else present).append(workload)
    rates: dict[str, list] = {}
    for _ in range(int(entry["runs"])):
        for workload in present:
            argv = [posixpath.join(directory, f"{workload}.exe"), f"-c{entry['contexts']}", "-w1", "-v0"]
            if int(entry["iterations"]):
                argv.append(f"-i{int(entry['iterations'])}")
            rate = parse(run(target, argv, entry)).get(workload)
            if rate is None:
                raise ToolFailed(f"{workload}.exe printed no '-- {workload}:workloads/sec= X' line")
            rates.setdefault(workload, []).append(rate)
    contexts = int(entry["contexts"])
    out = [result(BENCHMARK, {"contexts": contexts}, workload, "workloads/s", "higher", samples)
           for workload, samples in rates.items()]
    medians = {workload: stats.median(samples) for workload, samples in rates.items()}
    lacking = [w for w in WORKLOADS if not medians.get(w, 0) > 0]
    if not lacking:
        out.append(result(BENCHMARK, {"contexts": contexts}, MARK, "score", "higher", [mark(medians)]))
    if absent or lacking:
        where = f"{', '.join(absent)} not found in {directory} on {target.name}" if absent else ""
        why = (f"no CoreMark-PRO mark: it needs the rates of all nine workloads, without "
               f"{', '.join(lacking)}" if lacking else "")
        raise Missing("tool-missing" if absent else "mark-missing",
                      f"coremark_pro -c{contexts}: " + "; ".join(filter(None, [where, why])),
                      "build every CoreMark-Pro workload for the board and name its core.exe: "
                      "binary = \"/path/builds/<target>/<toolchain>/bin/core.exe\", with the "
                      "suite's workloads left at all nine", measured=out)
    return out


def mark(rates: dict[str, float]) -> float:
    """EEMBC's CoreMark-PRO mark of {workload: workloads/s}: 1000 x the geometric mean of each
    rate over :data:`REFERENCE`'s. KeyError names a workload it lacks."""
    return MARK_SCALE * stats.geometric_mean([rates[w] / REFERENCE[w] for w in REFERENCE])


def parse(text: str) -> dict[str, float]:
    """{workload: workloads per second} of CoreMark-Pro workload output."""
    out = {name: float(value) for name, value in RATE.findall(text)}
    if not out:
        raise ToolFailed("the program printed no '-- NAME:workloads/sec= X' line (is it a "
                         "CoreMark-Pro workload?)")
    return out
