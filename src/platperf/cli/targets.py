"""``platperf targets``: the inventory of boards, by the names a person gives them."""
from __future__ import annotations

import json
import sys
from typing import List, Optional

import typer

from ..targets.schemes import TARGETS
from .common import FormatOption, JsonOption, app, fail_exit, output_format

targets_app = typer.Typer(
    help="The inventory of boards: names for targets, used as --target NAME.\n\n"
         "The file is $PLATPERF_TARGETS, else $XDG_CONFIG_HOME/platperf/targets.toml "
         "(~/.config/platperf/targets.toml); targets add keeps its comments and layout.\n\n"
         "\b\nExamples:\n  platperf targets add am62x ssh://root@am62x.lab\n  platperf targets list\n"
         "  platperf targets check am62x",
    no_args_is_help=True, rich_markup_mode=None)
app.add_typer(targets_app, name="targets")


def _inventory():
    from ..targets.inventory import Inventory, InventoryError
    try:
        return Inventory.load()
    except InventoryError as exc:
        fail_exit(str(exc))


@targets_app.command("add")
def add(
    name: str = typer.Argument(..., help="The board's name: letters, digits and -_."),
    url: str = typer.Argument(..., help=f"The target: {' or '.join(TARGETS)} (a Host of ~/.ssh/config works for ssh)."),
    remote_dir: Optional[str] = typer.Option(None, "--remote-dir", help="Directory on the board in which platperf makes its private platperf-UID directory for the probe."),
    keep_probe: bool = typer.Option(True, "--keep-probe/--remove-probe",
                                    help="Leave the probe on the board for the next run (default), "
                                         "or remove it after each run."),
):
    """Add a board to the inventory, or change its entry.

    \b
    Examples:
      platperf targets add am62x ssh://root@am62x.lab
      platperf targets add juno ssh://juno --remote-dir /data/tmp --remove-probe
    """
    from ..targets.inventory import Entry, InventoryError
    inventory = _inventory()
    try:
        inventory.add(Entry(name, url, remote_dir, keep_probe))
    except (InventoryError, OSError) as exc:
        fail_exit(str(exc))
    print(f"target {name}: {url} (in {inventory.path})", file=sys.stderr)


@targets_app.command("list")
def list_(fmt: str = FormatOption(("table", "json"), "table", " (json: a list of the entries)"),
          json_flag: bool = JsonOption):
    """List the boards of the inventory.

    \b
    Examples:
      platperf targets list
      platperf targets list --json
    """
    json_out = output_format(fmt, json_flag, ("table", "json"), "table") == "json"
    inventory = _inventory()
    entries = [e.as_dict() for e in inventory.entries.values()]
    if json_out:
        print(json.dumps(entries))
        return
    if not entries:
        print(f"no targets in {inventory.path}; add one with: platperf targets add NAME URL",
              file=sys.stderr)
        return
    for e in entries:
        extra = (f"  remote-dir {e['remote_dir']}" if e["remote_dir"] else "") + \
                ("" if e["keep_probe"] else "  remove-probe")
        print(f"{e['name']}\t{e['url']}{extra}")


@targets_app.command("remove")
def remove(name: str = typer.Argument(..., help="The board's name.")):
    """Remove a board from the inventory (its runs stay in the databases).

    \b
    Example:
      platperf targets remove am62x
    """
    from ..targets.inventory import InventoryError
    inventory = _inventory()
    try:
        inventory.remove(name)
    except (InventoryError, OSError) as exc:
        fail_exit(str(exc))


@targets_app.command("check")
def check(
    names: List[str] = typer.Argument(..., help="Board names (or local, ssh://... URLs)."),
    fmt: str = FormatOption(("text", "json"), "text", " (json: a list of what each board is)"),
    json_flag: bool = JsonOption,
):
    """Reach each board, describe it and run its probe's 'info': one line per board with its
    architecture, CPUs, model and probe version; one line per board that fails (exit 2).

    \b
    Examples:
      platperf targets check am62x juno
      platperf targets check ssh://root@192.168.1.20 --json
    """
    json_out = output_format(fmt, json_flag, ("text", "json"), "text") == "json"
    from ..measure.boards import Session
    session = Session(list(dict.fromkeys(names)))
    stop = session.run()                    # described, then closed
    rows = [_checked(b) for b in session.boards]
    if json_out:
        print(json.dumps(rows))
    for row in rows:
        if row["error"]:
            print(f"platperf: error: {row['name']}: {row['error']}", file=sys.stderr)
        elif not json_out:
            print(f"{row['name']}: {row['arch']}, {row['cpus']} CPUs ({row['cpu_model']}), "
                  f"{row['model'] or 'model unknown'}, kernel {row['kernel']}, "
                  f"probe {row['probe_version']} (build {row['probe_build_id']})")
    if stop.signal is not None:
        raise SystemExit(128 + stop.signal)
    if any(row["error"] for row in rows):
        raise SystemExit(2)


def _checked(board) -> dict:
    if board.error is not None:
        return {"name": board.name, "error": board.error}
    fp, meta = board.description.fingerprint, board.description.meta
    return {"name": board.name, "error": None, "arch": meta.get("arch") or fp["cpu"].get("arch"),
            "cpus": fp["cpu"].get("count"), "cpu_model": fp["cpu"].get("model"),
            "model": fp["machine"].get("model"), "kernel": fp["kernel"].get("release"),
            "probe_version": meta.get("probe_version"), "probe_build_id": meta.get("build_id")}
