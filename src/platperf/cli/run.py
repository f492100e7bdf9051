"""``platperf run``: measure this machine with a suite, storing records as they arrive."""
from __future__ import annotations

import dataclasses
import json
import sys
from typing import Optional

import typer

from .common import DbOption, app, fail_exit, open_store


@app.command()
def run(
    suite: str = typer.Option("quick", "--suite", help="quick, memory, full, or a path to a suite .toml file."),
    cpus: Optional[str] = typer.Option(None, "--cpus", help="CPUs to measure, e.g. 0-3,6 (default: all online)."),
    mode: Optional[str] = typer.Option(None, "--mode", help="serial, parallel or both (default: as each suite entry says)."),
    label: Optional[str] = typer.Option(None, "--label", help="Name of what is measured, e.g. a release: v2.12."),
    target: str = typer.Option("local", "--target", help="Where the probe runs (local)."),
    db: str = DbOption,
    note: Optional[str] = typer.Option(None, "--note", help="Free text kept with the run."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or findings (CI)."),
    json_out: bool = typer.Option(False, "--json", help="Print the run id and status as JSON."),
    root: str = typer.Option("/", "--root", help="Root of the sysfs/procfs tree to describe the machine from."),
):
    """Run a suite on a target and store every result in the database.

    A Ctrl-C stops the probe after its current sample and leaves the run 'partial' with
    everything measured so far.

    \b
    Examples:
      platperf run --suite quick --label v2.12 --note "BSP 9.1, new DDR timings"
      platperf run --suite full --cpus 0-3 --mode both --db boards.db --label v2.12
      platperf run --suite my-suite.toml --quiet --json

    \b
    Exit codes: 0 complete; 2 bad input, or a run left partial/failed (what
    arrived is kept); 130 interrupted by Ctrl-C (partial, what arrived is kept).
    """
    from ..probe_path import ProbeNotFound
    from ..runner import (SuiteError, check_suite, choose_cpus, execute, load_suite, plan,
                          probe_kernels, probe_meta)
    from ..targets import UnknownTarget, get_target

    try:
        the_suite = load_suite(suite)
        the_target = get_target(target)
    except (SuiteError, UnknownTarget) as exc:
        fail_exit(str(exc))
    store = open_store(db)
    from ..topology import read_topology
    try:
        topology = read_topology(root)
        online = topology.online()
        chosen = choose_cpus(cpus, online)
        steps = plan(the_suite, chosen, mode)
        check_suite(the_suite, probe_kernels(the_target))
        meta = probe_meta(the_target)
    except (SuiteError, ProbeNotFound, ValueError) as exc:  # TopologyError is a ValueError
        fail_exit(str(exc))

    fingerprint, findings = _describe(root, meta)
    if not quiet:
        _print_findings(findings)
    run_id = store.begin_run(label=label, target=the_target.name, suite=the_suite.name,
                             fingerprint=fingerprint, findings=findings, note=note, meta=meta)
    progress = None if quiet or not sys.stderr.isatty() else _RichProgress()  # stderr: --json stays clean
    try:
        if progress:
            progress.bar.start()
        out = execute(store, run_id, the_target, steps, _placer(topology), progress)
    finally:
        if progress:
            progress.bar.stop()

    if json_out:
        print(json.dumps({"run_id": run_id, "status": out.status, "results": out.results,
                          "histograms": out.histograms, "error": out.error}))
    kept = f"{out.results} results, {out.histograms} histograms in {db}"
    if out.signal is not None:
        if not json_out:
            print(f"run {run_id} {out.status}: {kept} ({out.error})", file=sys.stderr)
        raise SystemExit(128 + out.signal)
    if out.status != "complete":
        fail_exit(f"run {run_id} is {out.status} ({kept} kept): {out.error}")
    if not quiet and not json_out:
        print(f"run {run_id} complete: {kept}" + (f" (label {label})" if label else ""), file=sys.stderr)


def _placer(topology):
    def place(cpu):
        try:
            return topology.place(cpu)
        except ValueError:  # a CPU the topology does not list: the result is kept unplaced
            return None, None
    return place


def _describe(root, meta):
    """The fingerprint and the doctor's findings, both stored with the run."""
    from ..doctor import check
    from ..fingerprint import collect
    fingerprint = collect(root=root, probe_meta=meta)
    findings = [dataclasses.asdict(f) for f in check(root=root, fingerprint=fingerprint, probe_meta=meta)]
    return fingerprint, findings


def _print_findings(findings):
    """The findings that matter, one line each; effects and fixes are in 'platperf show'."""
    shown = [f for f in findings if f.get("level") not in ("ok", "info")]
    for f in shown:
        print(f"{f.get('level')}: {f.get('message', '')}", file=sys.stderr)
    if shown:
        print("(what each does to results and how to fix it: platperf doctor)", file=sys.stderr)


class _RichProgress:
    """One bar over the suite's probe invocations, naming the one running."""

    def __init__(self):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        self.bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(),
                            MofNCompleteColumn(), TextColumn("{task.fields[records]} records"),
                            TimeElapsedColumn(), console=Console(stderr=True))
        self.task = None
        self.records = 0

    def step_started(self, step, index, total):
        if self.task is None:
            self.task = self.bar.add_task(step.title, total=total, records=0)
        self.bar.update(self.task, description=step.title)

    def record(self, rec):
        if rec["type"] in ("result", "histogram"):
            self.records += 1
            self.bar.update(self.task, records=self.records)

    def step_finished(self, step):
        self.bar.advance(self.task)
