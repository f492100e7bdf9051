"""``platperf run``: measure this machine with a suite, storing records as they arrive."""
from __future__ import annotations

import json
import sys
from typing import Optional

import typer

from .common import DbOption, app, fail_exit, open_store
from .measuring import RichProgress, describe, placer, print_findings


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
    from ..targets import TargetError, UnknownTarget, get_target

    try:
        the_suite = load_suite(suite)
        the_target = get_target(target)
    except (SuiteError, UnknownTarget, TargetError) as exc:
        fail_exit(str(exc))
    store = open_store(db)
    from ..topology import read_topology
    try:
        if hasattr(the_target, "sysroot") and root == "/":
            root = str(the_target.sysroot().root)   # a board describes itself, not the host
        topology = read_topology(root)
        online = topology.online()
        chosen = choose_cpus(cpus, online)
        steps = plan(the_suite, chosen, mode)
        check_suite(the_suite, probe_kernels(the_target))
        meta = probe_meta(the_target)
    except (SuiteError, ProbeNotFound, ValueError) as exc:  # TopologyError is a ValueError
        fail_exit(str(exc))

    fingerprint, findings = describe(root, meta)
    if not quiet:
        print_findings(findings)
    run_id = store.begin_run(label=label, target=the_target.name, suite=the_suite.name,
                             fingerprint=fingerprint, findings=findings, note=note, meta=meta)
    progress = None if quiet or not sys.stderr.isatty() else RichProgress()  # stderr: --json stays clean
    try:
        if progress:
            progress.bar.start()
        out = execute(store, run_id, the_target, steps, placer(topology), progress)
    finally:
        if progress:
            progress.bar.stop()
        if hasattr(the_target, "close"):
            the_target.close()

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
