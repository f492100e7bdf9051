"""Reading sysfs and procfs beneath a root directory.

Everything platperf learns about a machine comes through :class:`SysRoot`, so that tests can
point it at a fixture tree (``tests/fixtures/sysfs/juno``) instead of ``/``, and a remote
target can hand over a snapshot of a board's /sys and /proc. Missing or unreadable files are
normal (old kernels, VMs, boards without a driver) and read as ``None``.

This module is the one place that opens machine files: readers elsewhere take a SysRoot (or a
path, through :meth:`SysRoot.of`) and never build paths beneath the root themselves.
"""
from __future__ import annotations

import os
import time
from pathlib import Path


class SysRoot:
    """One machine's file system, read-only: ``read``, ``read_int``, ``exists``, ``listdir``,
    and ``later`` for a second look at the changing files (/proc/<pid>/stat, /proc/uptime).

    A remote target subclasses it over a local copy of the board's files; its ``later`` returns
    the second /proc sample taken on the board, because the board, not this host, must wait."""

    def __init__(self, root: str | os.PathLike = "/"):
        self.root = Path(root)

    @classmethod
    def of(cls, machine: "SysRoot | str | os.PathLike") -> "SysRoot":
        """A SysRoot as it is, or a SysRoot over a path (``"/"``, a fixture tree)."""
        if isinstance(machine, SysRoot):
            return machine
        if isinstance(machine, (str, os.PathLike)):
            return cls(machine)
        raise TypeError(f"expected a SysRoot or a path, not {type(machine).__name__}")

    def later(self, seconds: float) -> "SysRoot":
        """The same machine ``seconds`` from now. A live tree simply is that machine after a
        sleep; a snapshot subclass returns its second sample instead."""
        time.sleep(seconds)
        return self

    def __str__(self) -> str:
        return str(self.root)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.root)!r})"

    def path(self, rel: str) -> Path:
        return self.root / rel.lstrip("/")

    def read(self, rel: str) -> str | None:
        """The file's text without the trailing newline (device-tree strings lose their NULs), or None."""
        try:
            text = self.path(rel).read_bytes().decode("utf-8", "replace")
        except OSError:
            return None
        return text.rstrip("\n\0 ")

    def read_binary(self, rel: str) -> bytes | None:
        """A binary file as it is (an SMBIOS entry), or None."""
        try:
            return self.path(rel).read_bytes()
        except (OSError, NotImplementedError):
            return None

    def read_int(self, rel: str) -> int | None:
        text = self.read(rel)
        try:
            return int(text, 0) if text is not None else None
        except ValueError:
            return None

    def exists(self, rel: str) -> bool:
        return self.path(rel).exists()

    def listdir(self, rel: str) -> list[str]:
        try:
            return sorted(os.listdir(self.path(rel)))
        except OSError:
            return []

    def read_once(self) -> "SysRoot":
        """This machine as one description reads it: each file read once however many
        readers ask (the topology, the fingerprint and the doctor all read /proc/cpuinfo);
        ``later`` still gives the machine's second look."""
        return _ReadOnce(self)


class _ReadOnce(SysRoot):
    def __init__(self, machine: SysRoot):
        super().__init__(machine.root)
        self.machine = machine
        self._read: dict[str, str | None] = {}
        self._exists: dict[str, bool] = {}
        self._listdir: dict[str, list[str]] = {}

    def later(self, seconds: float) -> SysRoot:
        return self.machine.later(seconds)

    def path(self, rel: str) -> Path:
        return self.machine.path(rel)

    def read(self, rel: str) -> str | None:
        if rel not in self._read:
            self._read[rel] = self.machine.read(rel)
        return self._read[rel]

    def exists(self, rel: str) -> bool:
        if rel not in self._exists:
            self._exists[rel] = self.machine.exists(rel)
        return self._exists[rel]

    def listdir(self, rel: str) -> list[str]:
        if rel not in self._listdir:
            self._listdir[rel] = self.machine.listdir(rel)
        return list(self._listdir[rel])

    def read_once(self) -> SysRoot:
        return self

    def __repr__(self) -> str:
        return f"{self.machine!r}.read_once()"

    def __str__(self) -> str:
        return str(self.machine)


def parse_cpu_list(text: str | None, ncpus: int | None = None) -> list[int]:
    """Parse the kernel's cpu-list syntax: ``0-3,8``, ``0-7:2/4`` (2 of every 4), ``all``, ``N``
    (the last CPU). ``all``/``N`` need ``ncpus``. Empty or ``(null)`` (nohz_full unset) is [].
    Raises ValueError naming the bad part."""
    if text is None:
        return []
    text = text.strip()
    if text in ("", "(null)"):
        return []
    cpus: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if ncpus is not None:
            part = part.replace("all", f"0-{ncpus - 1}").replace("N", str(ncpus - 1))
        group = None
        if ":" in part:
            part, group = part.split(":", 1)
        try:
            lo, _, hi = part.partition("-")
            first, last = int(lo), int(hi) if hi else int(lo)
            used, size = (int(x) for x in group.split("/")) if group else (1, 1)
        except ValueError:
            raise ValueError(f"not a cpu list: {text!r} (at {part!r}; expected e.g. 0-3,8 or 0-7:2/4)") from None
        if last < first or size <= 0:
            raise ValueError(f"not a cpu list: {text!r} (bad range {part!r})")
        cpus.update(c for c in range(first, last + 1) if (c - first) % size < used)
    return sorted(cpus)


def format_cpu_list(cpus) -> str:
    """The inverse of :func:`parse_cpu_list` for plain ranges: [0, 1, 2, 5] -> '0-2,5'."""
    cpus = sorted(set(cpus))
    parts, i = [], 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(parts)
