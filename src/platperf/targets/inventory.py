"""The inventory of boards: names a person gives to targets, kept in a TOML file.

The file is ``$PLATPERF_TARGETS``, else ``$XDG_CONFIG_HOME/platperf/targets.toml`` (by
default ``~/.config/platperf/targets.toml``)::

    [targets.am62x]
    url = "ssh://root@am62x.lab"
    remote_dir = "/data/tmp"      # optional: the probe goes to /data/tmp/platperf-UID/
    keep_probe = true             # optional: leave the probe there after a run
    tools = { dhrystone = "/opt/bench/dhry" }   # optional: binaries of the suite's [[tool]] adapters
"""
from __future__ import annotations

import json
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
    keep_probe: bool = False
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
                                  bool(values.get("keep_probe", False)), dict(tools))
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
        # JSON strings are valid TOML basic strings: the escapes are the same.
        lines = ["# platperf target inventory: platperf targets add|list|check|remove", ""]
        for entry in self.entries.values():
            lines.append(f"[targets.{json.dumps(entry.name)}]")
            lines.append(f"url = {json.dumps(entry.url)}")
            if entry.remote_dir:
                lines.append(f"remote_dir = {json.dumps(entry.remote_dir)}")
            if entry.keep_probe:
                lines.append("keep_probe = true")
            if entry.tools:
                pairs = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in sorted(entry.tools.items()))
                lines.append(f"tools = {{ {pairs} }}")
            lines.append("")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".toml.tmp")
        partial.write_text("\n".join(lines))
        partial.replace(self.path)   # a crash mid-write never leaves half an inventory
