"""``platperf report``: the performance guide of one run, a label, or several side by side."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from ..report import ALL_FORMATS, FORMATS, RENDERERS, format_notes
from .common import DbOption, FormatOption, JsonOption, app, fail_exit, note_incomplete, open_store, output_format

ALL_HELP = f"{format_notes()}, or all ({', '.join(RENDERERS[f].file for f in ALL_FORMATS)} into -o DIR)"


@app.command()
def report(
    runs: List[str] = typer.Argument(..., metavar="RUN",
                                     help="Run id, label (pools all its runs) or 'latest'; "
                                          "several give one column each."),
    fmt: str = FormatOption(FORMATS, "md", ALL_HELP),
    json_flag: bool = JsonOption,
    output: Optional[Path] = typer.Option(None, "--output", "-o",
                                          help="Directory to write into (required for all); "
                                               "without it one format goes to stdout."),
    ci: bool = typer.Option(False, "--ci", help="Show each figure's 95% bootstrap interval in the "
                                                "tables, and a table of every figure with its "
                                                "interval; wider than 2% is marked unstable."),
    db: str = DbOption,
):
    """Write the performance report of stored runs.

    \b
    Examples:
      platperf report v2.11 v2.12 --format all -o platperf-report
      platperf report v2.12 --ci --format rst-grid
      platperf report v2.12 -f table | less -S
    """
    from ..report import render
    from ..report.data import load
    from ..report.sections import build_document
    from ..store import StoreError

    if json_flag:
        fmt = output_format(fmt, json_flag, FORMATS, "md")
    if fmt != "all" and fmt not in FORMATS:
        fail_exit(f"unknown format '{fmt}'; choose one of {', '.join(FORMATS)}, all")
    if output is None and fmt == "all":
        fail_exit(f"--format {fmt} writes files: give a directory with -o DIR")
    if output is not None and output.exists() and not output.is_dir():
        fail_exit(f"-o {output} is a file; give a directory")
    store = open_store(db, write=False)
    try:
        data = load(store, runs, ci=ci)
    except StoreError as exc:
        fail_exit(str(exc))
    note_incomplete(r for col in data.columns for r in col.runs)
    doc = build_document(data)
    formats = ALL_FORMATS if fmt == "all" else (fmt,)
    if output is None:
        typer.echo(render(doc, fmt), nl=False)
        return
    from .. import atomic
    try:
        output.mkdir(parents=True, exist_ok=True)
        for f in formats:
            path = output / RENDERERS[f].file
            atomic.write_text(path, render(doc, f))     # a full disk keeps the old file
            typer.echo(str(path))
    except OSError as exc:
        fail_exit(f"cannot write the report to {output}: {exc.strerror}")
