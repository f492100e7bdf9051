"""``platperf archive``: old runs' samples out of the database, their summaries kept."""
from __future__ import annotations

import sys
from pathlib import Path

import typer

from .common import DbOption, app, fail_exit, open_store
from .runs import RunFilters, parse_when, run_filters


@app.command()
def archive(
    before: str = typer.Option(..., "--before", metavar="DATE",
                               help="Runs started before DATE (2025-01-01, or 180d: 180 days ago)."),
    out: Path = typer.Option(None, "--out", metavar="DIR",
                             help="Write each run's records there first, as the probe's JSON Lines gzipped "
                                  "(run-00123.jsonl.gz); 'platperf ingest probe-jsonl' reads them back."),
    drop_samples: bool = typer.Option(False, "--drop-samples",
                                      help="Delete the samples without writing them anywhere."),
    target: str = typer.Option("", "--target", metavar="BOARD[,BOARD...]", help="Only these targets."),
    label: str = typer.Option("", "--label", metavar="PATTERN", help="Only labels that match (* any text)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would be archived; change nothing."),
    vacuum: bool = typer.Option(False, "--vacuum", help="Then give the space back to the file system "
                                                         "(SQLite VACUUM; PostgreSQL reuses it by itself)."),
    db: str = DbOption,
):
    """Take old runs' samples and histograms out of the database, keeping each result's
    summary (n, min, median, mean, max, stdev): runs, show and history read those runs as
    before; compare and report, which need samples, refuse them in one line that says where
    the samples went.

    Give --out DIR to keep the samples as files (written, flushed and read back before
    anything is deleted) or --drop-samples to let them go. Nothing is done without one of
    them, and every run archived says when and where in `platperf runs` and `show`.

    \b
    Examples:
      platperf archive --before 180d --out /srv/platperf-archive --dry-run
      platperf archive --before 2025-01-01 --target am62x-07 --out /srv/platperf-archive
      platperf archive --before 2024-01-01 --drop-samples --vacuum
    """
    from ..store import StoreError, now
    from ..store.archive import archive_run, candidates
    if (out is None) == (not drop_samples):
        fail_exit("say where the samples go: --out DIR to keep them as files, or --drop-samples to delete them")
    when = parse_when(before, "--before")
    chosen = run_filters(RunFilters(target, label))
    store = open_store(db, write=not dry_run)
    with store.engine.connect() as c:
        runs = candidates(c, when, targets=chosen["targets"], label=chosen["label"])
    if dry_run or not runs:
        counts = store.result_counts([r["id"] for r in runs])
        print(f"{'would archive' if dry_run else 'nothing to archive:'} {len(runs):,} runs started before {when}"
              f" ({sum(counts.values()):,} results)" + (f": {_span(runs)}" if runs else ""))
        return
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            fail_exit(f"cannot write archives in {out}: {exc.strerror}")
    total = hist = 0
    try:
        for run in runs:
            done = archive_run(store, run["id"], out, now())
            total += done.results
            hist += done.histograms
    except (OSError, StoreError) as exc:
        fail_exit(f"{exc}; {total:,} results of the runs before it were archived")
    where = f"to {out}" if out is not None else "dropped"
    print(f"archived {len(runs):,} runs started before {when} ({_span(runs)}): {total:,} results' samples and "
          f"{hist:,} histograms {where}; their summaries stay for runs, show and history")
    if vacuum:
        _vacuum(store)
    elif store.engine.dialect.name == "sqlite":
        print("the database file keeps its size until --vacuum gives the space back", file=sys.stderr)


def _span(runs: list[dict]) -> str:
    return f"runs {runs[0]['id']}-{runs[-1]['id']}, {runs[0]['started_at'][:10]} to {runs[-1]['started_at'][:10]}"


def _vacuum(store):
    if store.engine.dialect.name != "sqlite":
        return
    with store.engine.connect() as c:
        c = c.execution_options(isolation_level="AUTOCOMMIT")
        c.exec_driver_sql("VACUUM")
