"""``systemd-analyze`` (``systemd-analyze time``) output, one ``Startup finished in ...`` line
per boot: boot time over several boots, one sample per boot.

``boot_time`` is the guide's figure, from "Starting kernel" to the login prompt: kernel +
initrd + userspace (firmware and loader are before the kernel starts); each phase is also
kept as its own metric. Durations are systemd's (``1min 2.345s``, ``850ms``, ``2.1s``), in
seconds. The boots are keyed as booted from ``media`` (SD, the guide's one boot table, unless
the ``boot_time`` adapter's suite entry says otherwise).
"""
from __future__ import annotations

import re
from typing import Iterable, Iterator

from ..records import Result
from .errors import IngestError

BENCHMARK = "boot-time"
MEDIA = "sd"
PHASE = re.compile(r"([0-9][0-9a-z. ]*?)\s*\((firmware|loader|kernel|initrd|userspace)\)")
PART = re.compile(r"(\d+(?:\.\d+)?)\s*(h|min|ms|us|s)(?![a-z])")
SECONDS = {"h": 3600.0, "min": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6}
FROM_KERNEL = ("kernel", "initrd", "userspace")


def duration(text: str) -> float | None:
    """Seconds of a systemd time span (``1min 2.345s``); None if it is not one."""
    parts = PART.findall(text)
    if not parts or PART.sub("", text).strip():
        return None
    return sum(float(value) * SECONDS[unit] for value, unit in parts)


def boot(line: str, where: str) -> dict[str, float]:
    """{phase: seconds, boot_time: seconds from the kernel's start} of one Startup line."""
    phases = {}
    for span, phase in PHASE.findall(line.split("Startup finished in", 1)[1]):
        seconds = duration(span)
        if seconds is None:
            raise IngestError(where, f"'{span}' is not a systemd duration (e.g. 1min 2.345s, 850ms)")
        phases[phase] = seconds
    if "kernel" not in phases or "userspace" not in phases:
        raise IngestError(where, "expected 'Startup finished in X (kernel) + Y (userspace) = Z'")
    phases["boot_time"] = sum(phases.get(p, 0.0) for p in FROM_KERNEL)
    return phases


def read(lines: Iterable[str], name: str, media: str = MEDIA) -> Iterator[Result]:
    boots: dict[str, list[float]] = {}
    for number, line in enumerate(lines, 1):
        if "Startup finished in" in line:
            for metric, seconds in boot(line, f"{name}:{number}").items():
                boots.setdefault(metric, []).append(seconds)
    if not boots:
        raise IngestError(f"{name}:1", "no 'Startup finished in ...' line: expected "
                                       "systemd-analyze output, one per boot")
    for metric, samples in boots.items():
        # Phases a boot did not have (an initrd) are not zeros: each metric keeps its own boots.
        yield Result(BENCHMARK, {"media": media}, metric, "s", "lower", samples)


def parse(text: str, name: str, media: str = MEDIA) -> list[Result]:
    return list(read(text.splitlines(), name, media))
