"""``openssl speed``: the guide's OpenSSL Performance table (algorithm x buffer size, in kB/s)
and its CPU load table (per algorithm, as ``time -v`` reports it there).

Each algorithm is one ``openssl speed -mr -elapsed -evp ALG`` run, as the guide does it; ``-mr``
is OpenSSL's machine-readable output (``+F:n:ALG:bytes/s at each size``, ``+R:count:ALG:seconds``
per size). The CPU load is the CPU time the run used (the shell's ``times``, children) over
the seconds OpenSSL itself timed; ``runs`` repeats everything, one sample per run.
"""
from __future__ import annotations

import re

from . import ToolFailed, number, result, run

TOOL = "openssl"
BENCHMARK = "openssl-speed"
# The guide's algorithms; OpenSSL's default buffer sizes (16 ... 16384 bytes) are the guide's.
PARAMS = {"algorithms": ["aes-128-cbc", "aes-128-ecb", "aes-192-cbc", "aes-192-ecb", "aes-256-cbc",
                         "aes-256-ecb", "sha256", "sha512"],
          "bytes": None,        # one buffer size instead of OpenSSL's six (short test runs)
          "seconds": 3, "runs": 1, "binary": None}
# Runs the tool (its +R lines go to stderr, merged), then prints the CPU time its children
# used (POSIX `times`: its second line).
TIMED = 'tool=$1; shift; "$tool" "$@" 2>&1; s=$?; times; exit $s'
TIMES = re.compile(r"(\d+)m\s*([\d.]+)s")


def title(entry: dict) -> str:
    return f"openssl speed {','.join(entry['algorithms'])}"


def measure(target, entry: dict, path: str) -> list:
    through: dict[tuple, list] = {}
    load: dict[str, list] = {}
    for _ in range(int(entry["runs"])):
        for algorithm in entry["algorithms"]:
            argv = ["sh", "-c", TIMED, "sh", path, "speed", "-mr", "-elapsed",
                    "-seconds", str(entry["seconds"])]
            if entry["bytes"]:
                argv += ["-bytes", str(entry["bytes"])]
            out = run(target, argv + ["-evp", algorithm], entry)
            rates, seconds, cpu = parse(out, algorithm)
            for size, rate in rates.items():
                through.setdefault((algorithm, size), []).append(rate / 1000)
            if seconds > 0 and cpu is not None:
                load.setdefault(algorithm, []).append(100 * cpu / seconds)
    out = [result(BENCHMARK, {"algorithm": a, "size": s}, "throughput", "kB/s", "higher", v)
           for (a, s), v in through.items()]
    out += [result(BENCHMARK, {"algorithm": a}, "cpu_load", "%", "lower", v) for a, v in load.items()]
    return out


def parse(text: str, algorithm: str) -> tuple[dict[int, float], float, float | None]:
    """({size: bytes/s}, seconds timed, CPU seconds used or None) of one ``-mr`` run."""
    sizes, rates, seconds = [], [], 0.0
    for line in text.splitlines():
        fields = line.strip().split(":")
        if fields[0] == "+H":
            sizes = [int(number(f, "a buffer size")) for f in fields[1:]]
        elif fields[0] == "+F" and len(fields) >= 3:
            rates = [number(f, f"{algorithm}'s rate") for f in fields[3:]]
        elif fields[0] == "+R" and len(fields) >= 4:
            seconds += number(fields[3], f"{algorithm}'s time")
    if not sizes or len(rates) != len(sizes):
        raise ToolFailed(f"openssl speed printed no +H/+F lines for {algorithm} "
                         "(is it OpenSSL 1.1 or later, with -mr?)")
    times = TIMES.findall(text.rsplit("+F", 1)[-1])
    cpu = sum(int(m) * 60 + float(s) for m, s in times[2:4]) if len(times) >= 4 else None
    return dict(zip(sizes, rates)), seconds, cpu
