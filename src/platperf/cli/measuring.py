"""What the commands that measure (run, interference) or store a run (ingest, lava) share: the
target options, the findings printed before a run, the progress displays, the lines of boards
that could not be measured, the summary of several boards and the line of a stored stream."""
from __future__ import annotations

import sys
from typing import Optional

import typer

def _target_forms() -> str:
    from ..targets.schemes import TARGETS
    return ", ".join(TARGETS)


TargetOption = typer.Option(
    "local", "--target",
    help=f"Where the probe runs: {_target_forms()}, or an inventory name (platperf targets list).")
RemoteDirOption = typer.Option(
    None, "--remote-dir", help="Directory on the board in which platperf makes its private platperf-UID directory "
         "for the probe (default: $TMPDIR or /tmp).")
MaxConnectOption = typer.Option(
    8, "--max-connect", min=1, metavar="N",
    help="Boards connecting and describing themselves at once at most (measuring has no bound): "
         "a gateway's sshd drops logins beyond its MaxStartups (10 by default); a dropped one is "
         "tried again.")
KeepProbeOption = typer.Option(
    None, "--keep-probe/--remove-probe",
    help="Leave the probe on the board for the next run, which checks its sha256 before it runs "
         "it (default, unless the inventory entry says keep_probe = false), or remove it at the end.")


def suite_help() -> str:
    """The built-in suites as the suites directory has them, for --suite's help."""
    from ..runner.suite import builtin_suites
    return (f"A built-in suite: {', '.join(builtin_suites())} (psci as root: hotplug and idle "
            "states, docs/psci.md); or a path to a suite .toml file.")


SuiteOption = typer.Option("quick", "--suite", help=suite_help())


def print_stored(run, origin: str, source: str):
    """The line a stored probe stream (measure.streams.StoredRun) gets; exit 2 when the run is
    partial or failed (it is stored all the same)."""
    from .common import fail_exit
    extra = f", {run.histograms} histograms" if run.histograms else ""
    print(f"run {run.run_id} ({run.label}): {run.results} results{extra} from {origin} "
          f"[{source}], {run.status}")
    if run.status != "complete":
        fail_exit(f"run {run.run_id} is {run.status}: {run.error}")


def exit_if_none_measured(session, several: bool):
    """After measure.boards.Session.run: one line and exit 2 when the store could not be opened,
    or one line per board when none could be measured (then no database was opened, none
    created); 128 + N after signal N."""
    from .common import fail_exit
    if session.store_error is not None:
        fail_exit(session.store_error)
    if session.store is None:
        for board in session.boards:
            print(f"platperf: error: {board.name + ': ' if several else ''}{board.error}", file=sys.stderr)
        signum = session.stop.signal
        raise SystemExit(128 + signum if signum is not None else 2)


def print_findings(findings, prefix: str = ""):
    """The findings that matter, one line each (a repeated one once, findings.collapse); effects
    and fixes are in 'platperf show'."""
    from ..findings import collapse
    shown = [f for f in collapse(findings) if f.get("level") not in ("ok", "info")]
    for f in shown:
        print(f"{prefix}{f.get('level')}: {f.get('message', '')}", file=sys.stderr)
    if shown and not prefix:
        print("(what each does to results and how to fix it: platperf doctor)", file=sys.stderr)


class RichProgress:
    """One bar over the suite's probe invocations, naming the one running."""

    def __init__(self, bar=None, board: Optional[str] = None):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        self.bar = bar or Progress(TextColumn("{task.description}", markup=False), BarColumn(),
                                   MofNCompleteColumn(), TextColumn("{task.fields[records]} records"),
                                   TimeElapsedColumn(), console=Console(stderr=True))
        self.prefix = f"{board}: " if board else ""
        self.task = None
        self.records = 0

    def step_started(self, step, index, total):
        if self.task is None:
            self.task = self.bar.add_task(self.prefix + step.title, total=total, records=0)
        self.bar.update(self.task, description=self.prefix + step.title)

    def record(self, rec):
        if rec["type"] in ("result", "histogram"):
            self.records += 1
            self.bar.update(self.task, records=self.records)

    def step_finished(self, step):
        self.bar.advance(self.task)


class LineProgress:
    """Progress of one board as plain lines on stderr, for logs that are not a terminal."""

    def __init__(self, board: str):
        self.board = board
        self.records = 0

    def step_started(self, step, index, total):
        print(f"{self.board}: [{index + 1}/{total}] {step.title}", file=sys.stderr, flush=True)

    def record(self, rec):
        if rec["type"] in ("result", "histogram"):
            self.records += 1

    def step_finished(self, step):
        print(f"{self.board}: done {step.title} ({self.records} records so far)", file=sys.stderr,
              flush=True)


def print_summary(boards, db: str):
    """The table a person reads after measuring several boards: one row per board."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text
    table = Table(title=f"runs in {db}")
    for column in ("board", "run ids", "status", "results", "error"):
        table.add_column(column, overflow="fold")
    for board in boards:
        row = board.as_dict()
        table.add_row(Text(board.name), ", ".join(map(str, row["run_ids"])) or "-", row["status"],
                      str(row["results"]),
                      Text(row["error"] or ""), style=None if row["status"] == "complete" else "red")
    Console(soft_wrap=False, highlight=False).print(table)
