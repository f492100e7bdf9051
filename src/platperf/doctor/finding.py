"""What a check finds: one :class:`Finding` per problem (or one ``ok``), a line a person can act
on, and the few words every family of checks writes them with."""
from __future__ import annotations

from dataclasses import dataclass

from ..machine.sysroot import format_cpu_list

LEVELS = ("ok", "info", "warn", "bad")


@dataclass(frozen=True)
class Finding:
    level: str        # ok | info | warn | bad
    code: str         # stable kebab-case id
    message: str      # what was found
    effect: str = ""  # what it does to results
    fix: str = ""     # how to fix it

    def line(self) -> str:
        parts = [f"{self.level}: {self.message}"]
        if self.effect:
            parts.append(f"effect: {self.effect}")
        if self.fix:
            parts.append(f"fix: {self.fix}")
        return " — ".join(parts)


def cpus_text(cpus) -> str:
    return ("CPU " if len(cpus) == 1 else "CPUs ") + format_cpu_list(cpus)


def mhz_text(khz) -> str:
    return f"{khz / 1000:g} MHz" if khz else "?"
