"""``platperf doctor``: what on this machine will bend the results, and how to fix it."""
from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Optional

import typer

from .common import app, fail_exit, FormatOption, JsonOption, output_format

_STYLE = {"ok": "green", "info": "cyan", "warn": "yellow", "bad": "bold red"}


@app.command()
def doctor(
    target_name: str = typer.Option("local", "--target", help="The machine to check: a target name as "
                                                            "platperf run --target takes (default: this one)."),
    root: str = typer.Option("/", "--root", help="Root of the sysfs/procfs tree to check (a copy of "
                                                 "another machine's /sys and /proc works too; only "
                                                 "with the local target)."),
    fmt: str = FormatOption(("table", "json"), "table", " (json: the findings and the fingerprint)"),
    json_flag: bool = JsonOption,
    meta: Optional[Path] = typer.Option(None, "--meta", help="A results file (JSON Lines) whose meta record "
                                                            "gives the counter to check."),
    probe: bool = typer.Option(True, "--probe/--no-probe", help="Ask the target's probe for its counter "
                                                                "(not with --root)."),
):
    """Check a machine (this one, or --target) for what bends benchmark results: governor and frequency scaling,
    boost, SMT siblings, CPU isolation, load and busy processes, steal time, virtual machine, the
    probe's counter, a neighbour sharing the cores (the L1 hit time of each CPU over 0.1 s, with
    the probe), resctrl. Each finding says what it does to results and how to fix it.

    \b
    Examples:
      platperf doctor                       # this machine, counter from the local probe
      platperf doctor --json > doctor.json  # findings and fingerprint for a script
      platperf doctor --root tests/fixtures/sysfs/juno --no-probe   # a Juno r1 tree
      platperf doctor --target am62x        # a board, read over its target's connection

    Exit codes: 0 whatever was found (warnings are advice, not failures); 2 bad input
    or a target that cannot be read.
    """
    json_out = output_format(fmt, json_flag, ("table", "json"), "table") == "json"
    from ..doctor import check
    from ..fingerprint import collect
    from ..machine.sysroot import SysRoot
    from ..targets import UnknownTarget, get_target
    from ..topology import TopologyError

    if root != "/" and target_name != "local":
        fail_exit(f"--root reads a tree on this machine; it cannot be combined with --target {target_name}")
    if not Path(root).is_dir():
        fail_exit(f"--root {root} is not a directory (give / or a copy of a machine's /sys and /proc)")
    try:
        target = get_target(target_name)
    except UnknownTarget as exc:
        fail_exit(str(exc))
    if root != "/":
        machine = SysRoot(root)
    else:
        try:
            machine = target.sysroot()
        except Exception as exc:  # the transport names its own failure (unreachable, refused key)
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            fail_exit(f"cannot read target {target_name}: {why}")
    probe_meta, probe_note = _probe_meta(meta, target if probe and root == "/" else None)
    try:
        fingerprint = collect(machine, probe_meta)
    except TopologyError as exc:
        fail_exit(str(exc))
    core = _core_records(target, fingerprint) if probe and root == "/" and probe_meta else None
    findings = check(machine, fingerprint=fingerprint, probe_meta=probe_meta, core_records=core)
    if json_out:
        print(json.dumps({"findings": [dataclasses.asdict(f) for f in findings],
                          "fingerprint": fingerprint}, indent=1))
        return
    _print(fingerprint, findings, probe_note)


def _probe_meta(path: Optional[Path], target) -> tuple[dict | None, str | None]:
    """The probe meta record from a results file, or from the target's probe (when ``target`` is
    given); None with a note why not."""
    from ..records import RecordError, read_stream
    if path is not None:
        try:
            with open(path, encoding="utf-8") as stream:
                first = next(iter(read_stream(stream, str(path))), None)
        except OSError as exc:
            fail_exit(f"cannot read --meta {path}: {exc.strerror}")
        except RecordError as exc:
            fail_exit(str(exc))
        if not first or first.get("type") != "meta":
            fail_exit(f"--meta {path}: the first record is not a meta record (expected a probe results file)")
        return first, None
    if target is None:
        return None, None
    try:
        from ..runner import probe_meta
        return probe_meta(target), None
    except Exception as exc:  # no probe built, or it failed: the other checks still stand
        return None, f"counter not checked: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"


def _core_records(target, fp: dict) -> list[dict]:
    """The probe's L1 hit times on each online CPU (doctor.core_probe_args); [] when the probe
    fails (the check then says it was not measured)."""
    from ..doctor import core_probe_args
    from ..records import RecordError
    from ..runner import SuiteError, probe_records
    cpus = [c["cpu"] for c in (fp.get("topology") or {}).get("cpus") or []]
    try:
        return probe_records(target, core_probe_args(cpus)) if cpus else []
    except (SuiteError, RecordError):
        return []


def _print(fp: dict, findings, probe_note: str | None):
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(soft_wrap=False, width=None if sys.stdout.isatty() else 200)
    cpu, kernel = fp.get("cpu") or {}, fp.get("kernel") or {}
    machine = (fp.get("machine") or {}).get("model")
    header = ", ".join(str(p) for p in (fp.get("hostname"), machine, cpu.get("model"),
                                        f"{cpu.get('count')} CPUs", cpu.get("arch"),
                                        f"Linux {kernel.get('release')}") if p)
    console.print(Text(header, style="bold"))
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_lines=False)
    for column in ("level", "check", "finding", "effect on results", "fix"):
        table.add_column(column, overflow="fold")
    for f in findings:
        # Text, never markup: messages quote process names and paths verbatim.
        table.add_row(Text(f.level, style=_STYLE.get(f.level, "")), Text(f.code), Text(f.message),
                      Text(f.effect), Text(f.fix))
    console.print(table)
    if probe_note:
        console.print(Text(probe_note, style="dim"))
    counts = {level: sum(f.level == level for f in findings) for level in ("bad", "warn")}
    console.print(Text(f"{counts['bad']} bad, {counts['warn']} warnings "
                       "(exit status stays 0: warnings are advice)", style="bold"))
