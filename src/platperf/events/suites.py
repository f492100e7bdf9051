"""The events the built-in suites name: their TOML read as package data (not a target's files;
the suites are run a layer above the doctor that asks), or the issue's set where none names any."""
from __future__ import annotations

from pathlib import Path

from .. import toml
from . import split_list

DEFAULT_EVENTS = ("cycles", "instructions", "l1d", "l2d", "llc", "bus")


def suites_events() -> list[str]:
    """Each event a built-in suite names, once, in the order met."""
    asked: list[str] = []
    for path in sorted((Path(__file__).resolve().parent.parent / "suites").glob("*.toml")):
        data = toml.loads(path.read_text())
        for value in [data.get("events")] + [e.get("events") for e in data.get("bench", [])]:
            text = ",".join(value) if isinstance(value, list) else value if isinstance(value, str) else ""
            asked += [item for item in split_list(text) if item and item not in asked]
    return asked or list(DEFAULT_EVENTS)
