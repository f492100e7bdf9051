"""The inventory of boards: names a person gives to targets, kept in a TOML file.

The file is ``$PLATPERF_TARGETS``, else ``$XDG_CONFIG_HOME/platperf/targets.toml`` (by
default ``~/.config/platperf/targets.toml``)::

    [targets.am62x]
    url = "ssh://root@am62x.lab"
    remote_dir = "/data/tmp"      # optional: the probe goes to /data/tmp/platperf-UID/
    keep_probe = false            # optional: remove the probe after a run (default: kept)
    tools = { dhrystone = "/opt/bench/dhry" }   # optional: binaries of the suite's [[tool]] adapters
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import toml as tomllib

NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class InventoryError(ValueError):
    """A bad name, URL or inventory file: one line, exit 2."""


@dataclass
class Entry:
    name: str
    url: str
    remote_dir: str | None = None
    keep_probe: bool = True
    tools: dict = field(default_factory=dict)    # adapter name -> the binary's path on the board

    def as_dict(self) -> dict:
        return {"name": self.name, "url": self.url, "remote_dir": self.remote_dir,
                "keep_probe": self.keep_probe, "tools": self.tools}


def inventory_path() -> Path:
    if os.environ.get("PLATPERF_TARGETS"):
        return Path(os.environ["PLATPERF_TARGETS"])
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(config) / "platperf" / "targets.toml"


def check_name(name: str):
    if name == "local" or "://" in name:
        raise InventoryError(f"'{name}' is reserved for a target itself; choose another name")
    if not NAME.match(name):
        raise InventoryError(f"target name '{name}' may hold only letters, digits and -_. "
                             "(e.g. am62x-sk, juno_r2)")


def check_url(url: str):
    from .schemes import TARGETS, scheme_of
    if scheme_of(url) is None:
        raise InventoryError(f"target URL '{url}' is neither {' nor '.join(TARGETS)}")


class Inventory:
    def __init__(self, path: Path, entries: dict[str, Entry]):
        self.path, self.entries = path, entries

    @classmethod
    def load(cls, path: Path | None = None) -> "Inventory":
        path = path or inventory_path()
        try:
            data = tomllib.loads(path.read_text())
        except FileNotFoundError:
            return cls(path, {})
        except (OSError, UnicodeDecodeError) as exc:
            raise InventoryError(f"cannot read the target inventory {path}: {exc}") from None
        except tomllib.TOMLDecodeError as exc:
            raise InventoryError(f"target inventory {path} is not valid TOML: {exc}") from None
        entries = {}
        for name, values in (data.get("targets") or {}).items():
            if not isinstance(values, dict) or not isinstance(values.get("url"), str):
                raise InventoryError(f"target inventory {path}: [targets.{name}] has no url = \"...\"")
            tools = values.get("tools", {})
            if not isinstance(tools, dict) or not all(isinstance(v, str) for v in tools.values()):
                raise InventoryError(f"target inventory {path}: [targets.{name}] tools must be a table "
                                     "of paths: tools = { dhrystone = \"/opt/bench/dhry\" }")
            entries[name] = Entry(name, values["url"], values.get("remote_dir"),
                                  bool(values.get("keep_probe", True)), dict(tools))
        return cls(path, entries)

    def add(self, entry: Entry):
        check_name(entry.name)
        check_url(entry.url)
        self.entries[entry.name] = entry
        self.save()

    def remove(self, name: str):
        if name not in self.entries:
            raise InventoryError(f"no target '{name}' in {self.path} "
                                 f"(names: {', '.join(sorted(self.entries)) or 'none'})")
        del self.entries[name]
        self.save()

    def save(self):
        """Write the entries back into the file as a person left it: comments, order, blank
        lines and keys platperf does not know stay (tomlkit edits the parsed document);
        only the entries added, changed or removed change."""
        import tomlkit
        try:
            doc = tomlkit.parse(self.path.read_text())
        except FileNotFoundError:
            doc = tomlkit.document()
            doc.add(tomlkit.comment("platperf target inventory: platperf targets add|list|check|remove"))
        if "targets" not in doc:
            doc["targets"] = tomlkit.table(is_super_table=True)
        tables = doc["targets"]
        for name in [n for n in tables if n not in self.entries]:
            del tables[name]
        for entry in self.entries.values():
            table = tables.get(entry.name)
            if table is None:
                table = tables[entry.name] = tomlkit.table()
            _set(table, "url", entry.url)
            _set(table, "remote_dir", entry.remote_dir or None)
            _set(table, "keep_probe", None if entry.keep_probe else False)
            _set(table, "tools", _inline(entry.tools) if entry.tools else None)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".toml.tmp")
        partial.write_text(tomlkit.dumps(doc).rstrip("\n") + "\n")
        partial.replace(self.path)   # a crash mid-write never leaves half an inventory


def _inline(values: dict):
    import tomlkit
    table = tomlkit.inline_table()
    table.update(dict(sorted(values.items())))
    return table


def _set(table, key: str, value):
    """``key = value`` in a tomlkit table, left as written when equal (its comment stays);
    None removes it."""
    if value is None:
        if key in table:
            del table[key]
    elif table.get(key) != value:
        table[key] = value
