"""Boot time from ``systemd-analyze`` (``systemd-analyze time``) outputs or a board's journal:
one sample per boot of the system, read from its ``Startup finished in ...`` line.

The system manager (PID 1) logs one ``Startup finished in 2.1s (kernel) + 5.3s (userspace) =
7.4s.`` line per boot, and ``systemd-analyze`` prints the same line (systemd's
src/core/manager.c and src/analyze/analyze-time-data.c); both are read, as many as the file
holds. ``boot_time`` is the guide's figure, from "Starting kernel" to the login prompt: kernel +
initrd + userspace (firmware and loader run before the kernel starts), the line's own ``= total``
where the line has no firmware or loader phase; each phase is also kept as its own metric.
``systemd-analyze``'s ``graphical.target reached after 5.2s in userspace.`` is kept as the metric
named by its target (``graphical.target``, seconds in userspace). Durations are systemd's
(``1min 2.345s``, ``850ms``, ``2.1s``), in seconds.

Not boots, and left out with one line saying how many: a user manager's ``systemd[612]:
Startup finished in 123ms.`` (every login starts one), and any other startup without a
``(kernel)`` phase (a container's PID 1, a soft reboot, ``systemd-analyze --user``), with the
``reached after`` line that follows it. The boots are keyed by the boot ``media`` the import
names (``--media usb-ssd``; ``not-reported`` when it names none: a journal does not say what the
board booted from).

Refused, in one line: a line with a ``(kernel)`` phase that is not ``X (kernel) + Y
(userspace)``, a span that is not a systemd duration, a file with no boot at all.
"""
from __future__ import annotations

import re
from typing import Iterable, Iterator

from ..records import Result
from .errors import IngestError, Skipped

BENCHMARK = "boot-time"
NOT_REPORTED = "not-reported"   # a key without spaces (canonical params), said as it reads
MEDIA = "sd"        # the boot_time adapter's default: its suite entry names the media
OPTIONS = ("media",)    # platperf ingest --media: read's media
PHASE = re.compile(r"([0-9][0-9a-z. ]*?)\s*\((firmware|loader|kernel|initrd|userspace)\)")
PART = re.compile(r"(\d+(?:\.\d+)?)\s*(h|min|ms|us|s)(?![a-z])")
SECONDS = {"h": 3600.0, "min": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6}
FROM_KERNEL = ("kernel", "initrd", "userspace")
MANAGER = re.compile(r"systemd\[(\d+)\]:\s*Startup finished in")
TOTAL = re.compile(r"=\s*([0-9][0-9a-z. ]*?)\s*\.?\s*$")
REACHED = re.compile(r"(\S+) reached after (.+?) in userspace\.?\s*$")

EXAMPLE = """\
Startup finished in 2.107s (firmware) + 1.311s (loader) + 4.151s (kernel) + 11.046s (userspace) = 18.615s
graphical.target reached after 11.012s in userspace.
"""


def duration(text: str) -> float | None:
    """Seconds of a systemd time span (``1min 2.345s``); None if it is not one."""
    parts = PART.findall(text)
    if not parts or PART.sub("", text).strip():
        return None
    return sum(float(value) * SECONDS[unit] for value, unit in parts)


def _span(text: str, where: str) -> float:
    seconds = duration(text)
    if seconds is None:
        raise IngestError(where, f"'{text:.40}' is not a systemd duration (e.g. 1min 2.345s, 850ms)")
    return seconds


def boot(line: str, where: str) -> dict[str, float]:
    """{phase: seconds, boot_time: seconds from the kernel's start} of one Startup line."""
    told = line.split("Startup finished in", 1)[1]
    phases = {phase: _span(span, where) for span, phase in PHASE.findall(told)}
    if "kernel" not in phases or "userspace" not in phases:
        raise IngestError(where, "expected 'Startup finished in X (kernel) + Y (userspace) = Z'")
    total = TOTAL.search(told)
    if total and "firmware" not in phases and "loader" not in phases:
        phases["boot_time"] = _span(total.group(1), where)     # as printed, not a sum of roundings
    else:
        phases["boot_time"] = sum(phases.get(p, 0.0) for p in FROM_KERNEL)
    return phases


class _Boots:
    """The boots read so far, and the startups that were not boots."""

    def __init__(self, name: str):
        self.name = name
        self.samples: dict[str, list[float]] = {}
        self.users: list[int] = []       # [count, first line] of user managers' startups
        self.others: list[int] = []      # the same of other startups without a kernel phase
        self.last_taken = False          # whether the last Startup line was a boot
        self.unfinished = 0              # systemd-analyze's "Bootup is not yet finished"

    def line(self, number: int, line: str):
        """One line of the file: a Startup line, a target reached, or anything else (skipped)."""
        if "Startup finished in" in line:
            self.startup(number, line)
        elif " reached after " in line and "in userspace" in line:
            found = REACHED.search(line)
            if found and self.last_taken:
                self.add(found.group(1), _span(found.group(2), f"{self.name}:{number}"))
        elif "Bootup is not yet finished" in line:
            self.unfinished += 1

    def startup(self, number: int, line: str):
        manager = MANAGER.search(line)
        told = line.split("Startup finished in", 1)[1]
        if manager and manager.group(1) != "1":
            self.last_taken = False
            _count(self.users, number)
        elif "(kernel)" not in told:
            self.last_taken = False
            _count(self.others, number)
        else:
            for metric, seconds in boot(line, f"{self.name}:{number}").items():
                self.add(metric, seconds)
            self.last_taken = True

    def add(self, metric: str, seconds: float):
        self.samples.setdefault(metric, []).append(seconds)

    def why_none(self) -> str:
        if self.unfinished:
            return "systemd-analyze said 'Bootup is not yet finished'"
        if self.users or self.others:
            return (f"{(self.users or [0])[0]} user manager and {(self.others or [0])[0]} other "
                    "'Startup finished' line(s), none with a (kernel) phase")
        return "no 'Startup finished in ...' line"

    def left_out(self) -> Iterator[Skipped]:
        if self.users:
            yield Skipped(f"{self.name}:{self.users[1]}", f"{self.users[0]} user manager 'Startup finished' "
                                                          "line(s) (systemd[PID] other than 1): logins, not boots")
        if self.others:
            yield Skipped(f"{self.name}:{self.others[1]}", f"{self.others[0]} 'Startup finished' line(s) without a "
                                                           "(kernel) phase (a container, a soft reboot or "
                                                           "systemd-analyze --user): not boots of the board")


def _count(seen: list[int], number: int):
    if seen:
        seen[0] += 1
    else:
        seen += [1, number]


def read(lines: Iterable[str], name: str, media: str = NOT_REPORTED) -> Iterator:
    boots = _Boots(name)
    for number, line in enumerate(lines, 1):
        boots.line(number, line)
    if not boots.samples:
        raise IngestError(f"{name}:1", f"no boot: {boots.why_none()}; expected systemd-analyze output or a "
                                       "journal with the system's 'Startup finished in X (kernel) + Y "
                                       "(userspace)' lines")
    yield from boots.left_out()
    for metric, samples in boots.samples.items():
        # Phases a boot did not have (an initrd) are not zeros: each metric keeps its own boots.
        yield Result(BENCHMARK, {"media": media}, metric, "s", "lower", samples)


def parse(text: str, name: str, media: str = NOT_REPORTED) -> list[Result]:
    return [item for item in read(text.splitlines(), name, media) if isinstance(item, Result)]
