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
    probe's counter (its frequency and the step it really advances by), a neighbour sharing the
    cores (the L1 hit time of each CPU over 0.1 s, with the probe), a last-level cache shared with
    other tenants (a chase inside it flipping between its figure and DRAM's, with the probe),
    resctrl, the PMU (its event sources, the core PMU of each CPU and the events it counts at
    once, measured by the probe, perf_event_paranoid and the fix, the suites' events it cannot
    count). Each finding says what it does to results and
    how to fix it.

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
    from ..measure.diagnosis import diagnose, meta_of_file
    from ..targets import TargetError, UnknownTarget, get_target
    from ..topology import TopologyError

    if root != "/" and target_name != "local":
        fail_exit(f"--root reads a tree on this machine; it cannot be combined with --target {target_name}")
    if not Path(root).is_dir():
        fail_exit(f"--root {root} is not a directory (give / or a copy of a machine's /sys and /proc)")
    try:
        given = meta_of_file(meta) if meta is not None else None
        target = get_target(target_name)
    except (ValueError, UnknownTarget) as exc:
        fail_exit(str(exc))
    try:
        found = diagnose(target, root=None if root == "/" else root, meta=given, probe=probe)
    except (TargetError, TopologyError) as exc:
        fail_exit(str(exc))
    finally:
        target.close()
    fingerprint, findings = found.fingerprint, found.findings
    if json_out:
        print(json.dumps({"findings": [dataclasses.asdict(f) for f in findings],
                          "fingerprint": fingerprint}, indent=1))
        return
    _print(fingerprint, findings, found.note)


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
