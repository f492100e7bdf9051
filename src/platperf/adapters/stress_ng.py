"""``stress-ng``: a CPU stressor's bogo-operations per second (``--metrics-brief``).

The figure is stress-ng's "bogo ops/s (real time)" of the stressor's line (on stderr); ``runs`` repeats
the run, one sample each. Bogo-ops compare one stressor and method across boards and
releases, never two stressors.
"""
from __future__ import annotations

import re

from . import ToolFailed, number, result, run

TOOL = "stress-ng"
BENCHMARK = "stress-ng"
PARAMS = {"stressor": "cpu", "method": "all", "workers": 1, "seconds": 10, "runs": 1, "binary": None}
# "stress-ng: metrc: [123] cpu   1721   2.01   1.80   0.00   858.09   953.11" (older: "info:")
LINE = re.compile(r"\]\s+(\S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")


def title(entry: dict) -> str:
    return f"stress-ng --{entry['stressor']} {entry['workers']} ({entry['method']})"


def measure(target, entry: dict, path: str) -> list:
    samples = []
    for _ in range(int(entry["runs"])):
        argv = [path, f"--{entry['stressor']}", str(entry["workers"]), "-t", f"{entry['seconds']}s",
                "--metrics-brief"]
        if entry["method"]:
            argv += [f"--{entry['stressor']}-method", str(entry["method"])]
        samples.append(parse(run(target, argv, entry, stderr=True), entry["stressor"]))
    params = {"stressor": entry["stressor"], "method": entry["method"], "workers": int(entry["workers"])}
    return [result(BENCHMARK, params, "bogo_ops_rate", "bogo-ops/s", "higher", samples,
                   seconds=entry["seconds"])]


def parse(text: str, stressor: str) -> float:
    """The stressor's bogo ops/s (real time) in stress-ng's metrics lines."""
    for line in text.splitlines():
        match = LINE.search(line)
        if match and match.group(1) == stressor:
            return number(match.group(6), "bogo ops/s")
    raise ToolFailed(f"stress-ng printed no metrics line for the {stressor} stressor")
