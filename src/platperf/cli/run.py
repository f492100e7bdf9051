"""``platperf run``: measure one board or several with a suite, storing records as they arrive."""
from __future__ import annotations

import contextlib
import json
import sys
from typing import Optional

import typer

from .common import DbOption, DbRetryOption, app, fail_exit, FormatOption, JsonOption, open_store, output_format
from .measuring import (KeepProbeOption, MaxConnectOption, RemoteDirOption, SuiteOption, TargetOption,
                        exit_if_none_measured, print_findings, print_summary)


@app.command()
def run(
    suite: str = SuiteOption,
    cpus: Optional[str] = typer.Option(None, "--cpus", help="CPUs to measure, e.g. 0-3,6 (default: all online)."),
    mode: Optional[str] = typer.Option(None, "--mode", help="serial, parallel or both (default: as each suite entry says)."),
    label: Optional[str] = typer.Option(None, "--label", help="Name of what is measured, e.g. a release: v2.12."),
    repeat: Optional[str] = typer.Option(None, "--repeat", metavar="N|auto", help="Runs of the suite under one label, steps interleaved (default: the suite's `repeat`, 3 for quick); auto: until every key is settled within --tolerance or --budget ends."),
    against: Optional[str] = typer.Option(None, "--against", metavar="REF", help="Gate: measure until every key is regressed, improved or equivalent to REF's stored runs within --tolerance, or --budget ends (exit 0 / 1 / 3)."),
    tolerance: str = typer.Option("3%", "--tolerance", help="With --repeat auto or --against: the change that matters, in percent."),
    budget: str = typer.Option("10m", "--budget", help="With --repeat auto or --against: how long measuring may take (90s, 15m, 2h)."),
    target: str = TargetOption,
    targets: Optional[str] = typer.Option(None, "--targets", help="all: every board of the inventory, at once."),
    remote_dir: Optional[str] = RemoteDirOption,
    keep_probe: Optional[bool] = KeepProbeOption,
    db: str = DbOption,
    db_retry: float = DbRetryOption,
    note: Optional[str] = typer.Option(None, "--note", help="Free text kept with the run."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or findings (CI)."),
    fmt: str = FormatOption(("text", "json"), "text", " (json: the run id and status, a list for several boards)"), json_flag: bool = JsonOption,
    root: str = typer.Option("/", "--root", help="Root of the sysfs/procfs tree to describe a local target from."),
    guide_dir: Optional[str] = typer.Option(None, "--guide-dir", metavar="DIR", help="Directory on the board's storage for the suite's fio entries (e.g. /mnt/emmc)."),
    peer: Optional[str] = typer.Option(None, "--peer", metavar="HOST", help="Host running `iperf3 -s` (start it there first) for the suite's iperf3 entries: the guide's Ethernet tables, 65-105 min with its 60 s runs."),
    max_connect: int = MaxConnectOption,
    events: Optional[str] = typer.Option(None, "--events", metavar="LIST", help="Events counted with every sample, each stored beside its figure per operation (l2d_refill_per_access): cycles, instructions, l1d, l2d, l3d, llc, bus, page_faults, context_switches, migrations, or raw as perf spells them (armv8_pmuv3/r17/); replaces a suite's `events = [...]`; without a PMU said once, software events counted (docs/events.md)."),
):
    """Run a suite on a target, or on several boards at once, and store every result in the
    database as it arrives.

    Runs are the unit of evidence for `platperf compare`: --repeat N (by default the suite's
    `repeat`) measures the suite N times, each step a probe process into each of N runs in
    turn, so that slow drift touches every run alike, and compare has runs to test, not
    only samples.

    A Ctrl-C stops the probe after its current sample and leaves the run 'partial' with
    everything measured so far. With several boards (--target a,b,c or --targets all), each
    is measured at the same time into its own run; one failing does not stop the others,
    and a table at the end says how each went (a lab from one host: docs/boards.md).

    A suite's [[tool]] entries run tools the board already has (openssl, fio, iperf3, ...)
    into the same run; a tool, directory (--guide-dir) or peer (--peer) the board lacks is
    one finding, not a failure.

    \b
    Examples:
      platperf run --suite quick --label v2.12 --note "BSP 9.1, new DDR timings"
      platperf run --suite full --cpus 0-3 --mode both --db boards.db --label v2.12
      platperf run --suite quick --target ssh://root@am62x --label sdk-11.1
      platperf run --suite quick --targets all --max-connect 4 --label nightly
      sudo platperf run --suite psci --label v2.10
      platperf run --suite my-suite.toml --quiet --json
      platperf run --suite guide --guide-dir /mnt/emmc --peer 192.168.0.1 --label sdk-11.1
      platperf run --suite quick --label rc2 --against v2.12 --tolerance 3% --budget 15m
      platperf run --suite memory --repeat 5 --label v2.12 --events cycles,instructions,l2d,llc

    --repeat auto measures until each key's smallest detectable change is within --tolerance,
    --against REF until each is regressed, improved or equivalent to REF, re-running only the
    open keys' steps, or until --budget ends. A REF measured by several `platperf run`
    invocations (sessions) has the drift between sessions counted (docs/gate.md).

    \b
    Exit codes: 0 complete (--against: every key equivalent or improved); 1 a confirmed
    regression (--against); 2 bad input, or a run left partial/failed (what arrived is kept);
    3 a key undecided (--against); 130 Ctrl-C, 143 SIGTERM (partial, kept).
    """
    json_out = output_format(fmt, json_flag, ("text", "json"), "text") == "json"
    from ..measure.requests import SuiteRequest
    from ..runner.suite import SuiteError
    from ..targets import UnknownTarget, target_names

    if targets is not None and targets != "all":
        fail_exit(f"--targets takes only 'all' (got '{targets}'); name boards with --target a,b,c")
    try:
        request = SuiteRequest.load(suite, cpus=cpus, mode=mode, repeat=_repeat(repeat), label=label,
                                    note=note, tool_params={"dir": guide_dir, "peer": peer}, events=events)
        names = target_names(target, every=targets == "all")
        request.goal = _goal(request, against, tolerance, budget, db)
    except (SuiteError, UnknownTarget, ValueError) as exc:
        fail_exit(str(exc))
    several = len(names) > 1 or targets == "all"
    _measure_and_report(names, request, several, db=db, db_retry=db_retry, label=label, quiet=quiet,
                        json_out=json_out, max_connect=max_connect, remote_dir=remote_dir, keep_probe=keep_probe, root=root)


def _measure_and_report(names, request, several: bool, *, db: str, db_retry: float, label, quiet: bool,
                        json_out: bool, max_connect: int, **options):
    """Every board on its own, all at once, within the descriptor limit (measure.boards.Session);
    with --repeat auto / --against one board, and what its runs reached said at the end (cli.gate)."""
    if db_retry < 0:
        fail_exit(f"--db-retry {db_retry:g}: expected seconds, 0 or more")
    if request.goal is not None and several:
        fail_exit("--repeat auto and --against measure one board at a time (--target NAME)")
    _hold_fleet(len(names), max_connect)
    from ..measure.boards import Session
    session = Session(names, request, max_connect=max_connect, **options)
    stop = _measure(session, db, several, quiet, db_retry)
    _report(session.boards, several, db=db, label=label, quiet=quiet, json_out=json_out, signum=stop.signal)
    if request.goal is not None:
        from .gate import report_verdict
        report_verdict(session.store, session.boards[0], label, json_out=json_out, quiet=quiet)


def _repeat(text: str | None):
    """--repeat: None (the suite's), "auto", or a number of runs."""
    if text is None or text == "auto":
        return text
    if not text.isdigit():
        raise ValueError(f"--repeat '{text}': give a number of runs or auto")
    return int(text)


def _goal(request, against: str | None, tolerance: str, budget: str, db: str):
    """The compare.gate.Goal of --repeat auto or --against (None for a fixed --repeat)."""
    if request.repeat != "auto" and against is None:
        return None
    from ..compare.gate import Goal
    from .gate import parse_budget, parse_tolerance
    tolerance_pct, budget_s = parse_tolerance(tolerance), parse_budget(budget)
    if against is None:
        return Goal(tolerance_pct, budget_s)
    from ..store import StoreError
    try:
        return Goal.against(open_store(db, write=False), against, tolerance_pct, budget_s)
    except StoreError as exc:
        raise ValueError(f"--against: {exc}") from None


def _measure(session, db: str, several: bool, quiet: bool, db_retry: float):
    """Every board measured, each on its own (Session.run), its findings said once it is ready;
    one line and exit 2 when the store cannot be opened or no board could be measured (then no
    database is created)."""
    def ready(board):
        if not quiet:
            print_findings(board.description.findings, f"{board.name}: " if several else "")

    progress_for, bar = _progress(several, quiet)
    with bar if bar is not None else contextlib.nullcontext():
        stop = session.run(db, db_retry=db_retry, on_ready=ready, progress_for=progress_for)
    exit_if_none_measured(session, several)
    return stop


def _hold_fleet(boards: int, max_connect: int):
    """The descriptor limit raised for the boards, or one line and exit 2 (measure.limits)."""
    from ..measure.limits import LimitError, hold_fleet
    try:
        hold_fleet(boards, max_connect)
    except LimitError as exc:
        fail_exit(str(exc))


def _progress(several: bool, quiet: bool):
    """(progress for a board, the rich bar to start) -- stderr, so --json stays clean."""
    if quiet:
        return (lambda board: None), None
    if sys.stderr.isatty():
        from .measuring import RichProgress
        bar = RichProgress().bar
        return (lambda board: RichProgress(bar, board.name if several else None)), bar
    if several:
        from .measuring import LineProgress
        return (lambda board: LineProgress(board.name)), None
    return (lambda board: None), None


def _report(boards, several: bool, *, db: str, label, quiet: bool, json_out: bool, signum):
    rows = [b.as_dict() for b in boards]
    if json_out:
        print(json.dumps(rows if several else {k: v for k, v in rows[0].items() if k != "target"}))
    if several:
        if not json_out:
            print_summary(boards, db)
        if signum is not None:
            raise SystemExit(128 + signum)
        bad = [r for r in rows if r["status"] != "complete"]
        if bad:
            fail_exit(f"{len(bad)} of {len(rows)} boards did not complete: "
                      + ", ".join(f"{r['target']} {r['status']}" for r in bad))
        return
    board, row = boards[0], rows[0]
    kept = f"{row['results']} results, {row['histograms']} histograms in {db}"
    ids = row["run_ids"]
    from ..machine.sysroot import format_cpu_list    # 1-3,7: a list of numbers, as of CPUs
    runs = f"runs {format_cpu_list(ids)}" if len(ids) > 1 else f"run {row['run_id']}"
    if signum is not None:
        if not json_out:
            print(f"{runs} {row['status']}: {kept} ({row['error']})", file=sys.stderr)
        raise SystemExit(128 + signum)
    if row["run_id"] is None:    # the board failed before its run began (e.g. the store)
        fail_exit(f"{board.name}: {row['error']}")
    if row["status"] != "complete":
        fail_exit(f"{runs} {'are' if len(ids) > 1 else 'is'} {row['status']} ({kept} kept): "
                  f"{row['error']}")
    if not quiet and not json_out:
        print(f"{runs} complete: {kept}" + (f" (label {label})" if label else ""),
              file=sys.stderr)
        _print_warnings(board)


def _print_warnings(board):
    """What the probe warned of during the runs, a repeated warning once (its count, the CPUs and
    benchmarks it touches); each is stored with its run ('platperf show')."""
    from ..runner.sink import with_probe_warnings
    from .measuring import print_findings
    warnings = [w for o in board.outcomes for w in o.warnings]
    if warnings:
        print_findings(with_probe_warnings([], warnings), "probe: ")
