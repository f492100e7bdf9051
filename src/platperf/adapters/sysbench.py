"""``sysbench cpu``: prime-number verification events per second (``events per second:``)."""
from __future__ import annotations

import re

from . import ToolFailed, number, result, run

TOOL = "sysbench"
BENCHMARK = "sysbench-cpu"
PARAMS = {"max_prime": 20000, "threads": 1, "seconds": 10, "runs": 1, "binary": None}
RATE = re.compile(r"events per second:\s*([\d.]+)")


def title(entry: dict) -> str:
    return f"sysbench cpu --cpu-max-prime={entry['max_prime']} --threads={entry['threads']}"


def measure(target, entry: dict, path: str) -> list:
    samples = []
    for _ in range(int(entry["runs"])):
        text = run(target, [path, "cpu", f"--cpu-max-prime={entry['max_prime']}",
                            f"--threads={entry['threads']}", f"--time={entry['seconds']}", "run"], entry)
        samples.append(parse(text))
    params = {"max_prime": int(entry["max_prime"]), "threads": int(entry["threads"])}
    return [result(BENCHMARK, params, "events_rate", "events/s", "higher", samples,
                   seconds=entry["seconds"])]


def parse(text: str) -> float:
    match = RATE.search(text)
    if not match:
        raise ToolFailed("sysbench printed no 'events per second:' line")
    return number(match.group(1), "events per second")
