"""``platperf interference``: the latency loop on one CPU against cache aggressors on others,
under each set of mitigations, stored as one run."""
from __future__ import annotations

import contextlib
import json
import sys
from typing import Optional

import typer

from .common import DbOption, DbRetryOption, app, fail_exit, FormatOption, JsonOption, output_format
from .measuring import KeepProbeOption, RemoteDirOption, TargetOption, exit_if_none_measured


@app.command()
def interference(
    victim: int = typer.Option(..., "--victim", help="The CPU whose latency is measured."),
    aggressors: str = typer.Option("", "--aggressors", help="CPUs running the aggressor patterns, e.g. 0,2-3."),
    patterns: str = typer.Option("none,way_hammer", "--patterns",
                                 help="Comma list of: none, way_hammer, set_crawler, bw-read, bw-write, memcpy."),
    loops: str = typer.Option("plain", "--loops", help="Comma list of latency loop variants: plain, 2ki, 2kl."),
    duration: float = typer.Option(10.0, "--duration", help="Seconds each cell's loop runs."),
    mitigations: str = typer.Option("none", "--mitigations",
                                    help="Comma list of mitigation sets: none, rt, isolated, resctrl, "
                                         "or '+' combinations such as rt+resctrl."),
    threshold: float = typer.Option(1000.0, "--threshold", help="ns: passes longer than this count as excursions."),
    raw: int = typer.Option(0, "--raw", help="Keep the first N pass times of each cell verbatim."),
    cache_sets: Optional[int] = typer.Option(None, "--cache-sets", help="Last-level cache sets, for a board "
                                             "that does not describe its caches (default: its sysfs)."),
    cache_ways: Optional[int] = typer.Option(None, "--cache-ways", help="Last-level cache ways (default: sysfs)."),
    line_size: Optional[int] = typer.Option(None, "--line-size", help="Cache line bytes (default: sysfs)."),
    events: str = typer.Option("", "--events", help="Events the probe counts on the victim around its loop, "
                               "stored per pass: l2d,llc (L2 and last-level refills), cycles, instructions... "
                               "(docs/events.md)."),
    label: Optional[str] = typer.Option(None, "--label", help="Name of what is measured, e.g. a release: v2.12."),
    target: str = TargetOption,
    remote_dir: Optional[str] = RemoteDirOption,
    keep_probe: Optional[bool] = KeepProbeOption,
    db: str = DbOption,
    db_retry: float = DbRetryOption,
    root: str = typer.Option("/", "--root", help="Root of the sysfs/procfs/dev tree (isolation, "
                                                 "/dev/cpu_dma_latency, /sys/fs/resctrl)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    fmt: str = FormatOption(("text", "json"), "text", " (json: the run id and status)"),
    json_flag: bool = JsonOption,
):
    """Measure one CPU's latency loop while other CPUs hammer the shared cache, for every
    loop variant x aggressor pattern x mitigation set, and store it all as one run.

    Each cell stores latency_min/mean/max, p99, p99_99 and excursions (ns, count) and the
    histogram; 'platperf report' shows the mitigation table, histograms and CDFs. A
    mitigation that cannot be applied is said in one line and recorded, never pretended.
    With --events each cell also stores the victim's counts per pass (l2d_refill_per_pass...),
    shown as columns of the mitigation table; an event the PMU lacks is said, not invented.

    \b
    Examples:
      platperf interference --victim 1 --aggressors 2-3 --patterns none,way_hammer,set_crawler --loops plain,2ki,2kl --duration 30 --mitigations none,rt,rt+resctrl --label v2.12
      platperf interference --target ssh://root@agilex5 --victim 1 --aggressors 0,2,3 --label sdk-24.3
      platperf interference --victim 1 --aggressors 2-3 --patterns none,way_hammer --events l2d,llc --label v2.12

    Exit codes: 0 complete; 2 bad input or a run left partial/failed; 130 interrupted by
    Ctrl-C, 143 by SIGTERM.
    """
    json_out = output_format(fmt, json_flag, ("text", "json"), "text") == "json"
    from ..interference import InterferenceError, MatrixRequest
    from ..measure.boards import Session

    if "," in target:
        fail_exit(f"--target {target}: interference measures one board at a time")
    try:   # the matrix's own checks first: they need no board
        request = MatrixRequest(label, victim=victim, aggressors=aggressors, patterns=patterns,
                                loops=loops, mitigation_sets=mitigations, duration=duration,
                                threshold=threshold, raw=raw, events=events,
                                cache={"cache-sets": cache_sets, "cache-ways": cache_ways,
                                       "line-size": line_size})
    except InterferenceError as exc:
        fail_exit(str(exc))
    if db_retry < 0:
        fail_exit(f"--db-retry {db_retry:g}: expected seconds, 0 or more")
    session = Session([target], request, remote_dir=remote_dir, keep_probe=keep_probe, root=root)
    progress = None if quiet or json_out or not sys.stderr.isatty() else _progress()
    with progress.bar if progress else contextlib.nullcontext():
        session.run(db, db_retry=db_retry, progress_for=lambda board: progress)
    # unreachable, a --root without the machine's description, a CPU not online: said, exit 2
    exit_if_none_measured(session, several=False)
    (board,) = session.boards
    if not board.outcomes:            # the store failed under the run
        fail_exit(board.error)
    _print(request.outcome(board.outcomes[0]), len(request.plan.cells), db=db, label=label,
           quiet=quiet, json_out=json_out)


def _print(out, cells: int, *, db, label, quiet: bool, json_out: bool):
    """The run's summary line (or JSON), and the exit its status gives."""
    for note in out.notes:
        print(f"platperf: {note}", file=sys.stderr)
    if json_out:
        print(json.dumps({"run_id": out.run_id, "status": out.status, "cells": out.cells,
                          "results": out.results, "histograms": out.histograms,
                          "notes": out.notes, "error": out.error}))
    elif not quiet or out.status != "complete":
        print(f"run {out.run_id} {out.status}: {out.cells} of {cells} cells, {out.results} results, "
              f"{out.histograms} histograms in {db}" + (f" (label {label})" if label else ""),
              file=sys.stderr)
    if out.signal is not None:
        raise SystemExit(128 + out.signal)
    if out.status != "complete":
        fail_exit(f"run {out.run_id} is {out.status}: {out.error}")


def _progress():
    from .measuring import RichProgress
    return RichProgress()
