"""``platperf compare BASE NEW``: keyed comparison with significance, as release tables."""
from __future__ import annotations

import sys

import typer

from ..report import FORMATS as RENDERED, RENDERERS
from .common import (EXIT_REGRESSION, DbOption, FormatOption, JsonOption, app, fail_exit,
                     note_incomplete, open_store, output_format)

# every report renderer; "table" (report/terminal.py) first, the default
FORMATS = ("table",) + tuple(f for f in RENDERED if f != "table")


@app.command()
def compare(
    base: str = typer.Argument(..., help="Base: run id, 'latest', or a label (all its runs)."),
    new: str = typer.Argument(..., help="New: run id, 'latest', or a label (all its runs)."),
    db: str = DbOption,
    tolerance: float = typer.Option(2.0, "--tolerance", help="Smallest change shown, in percent."),
    fmt: str = FormatOption(FORMATS, "table", f" (table: {RENDERERS['table'].note}, COLUMNS, 80 "
                                              "when piped)"),
    json_out: bool = JsonOption,
    all_keys: bool = typer.Option(False, "--all", help="List every key, not only those that changed."),
    test: str = typer.Option("welch", "--test",
                             help="Test on the run medians: welch (Welch's t, p < 0.05), mwu "
                                  "(Mann-Whitney U; needs 4 runs a side) or bootstrap (95% "
                                  "interval of the ratio, seeded)."),
    ci: bool = typer.Option(False, "--ci", help="Show each figure's 95% bootstrap interval in the table."),
    fail_on_regression: bool = typer.Option(False, "--fail-on-regression",
                                            help="Exit 1 and list the confirmed regressions if there are any."),
    force: bool = typer.Option(False, "--force",
                               help="Compare even when the CPU model or architecture differ."),
):
    """Compare two runs or labels key by key (benchmark, params, mode, package, cluster, core, metric).

    Runs are the unit of evidence: with two runs or more a side (platperf run --repeat N),
    each run's median is one observation, and a change is confirmed when it is at least
    --tolerance and significant. With one run on a side a change beyond the tolerance is
    shown as unconfirmed, never as a regression, with the runs a side that would settle it.
    Each row also says the smallest change its runs can detect.

    The first line is the verdict: regressions, improvements, unchanged keys, unconfirmed
    changes and the runs that would settle them. The table lists the keys that changed,
    regressions first (--all: every key), fitted to the terminal (docs/output.md).

    \b
    Examples:
      platperf compare v2.9 v2.10
      platperf compare v2.9 v2.10 --format rst-grid
      platperf compare nightly-41 nightly-42 --fail-on-regression --ci

    \b
    Exit codes: 0 no confirmed regression (or not gating); 1 confirmed regressions
    with --fail-on-regression; 2 bad input.
    """
    from ..compare import keyed as cmp_mod
    from ..report.sections import compare as presentation
    from ..records import key_text
    from ..report import render
    fmt = output_format(fmt, json_out, FORMATS, "table")
    if test not in cmp_mod.TESTS:
        fail_exit(f"unknown test '{test}'; choose one of {', '.join(cmp_mod.TESTS)}")
    if not tolerance >= 0:
        fail_exit(f"--tolerance must be a percentage >= 0, got {tolerance}")
    from ..store import StoreError
    store = open_store(db, write=False)
    try:
        result = cmp_mod.compare_refs(store, base, new, tolerance=tolerance, test=test)
        note_incomplete([*store.runs_for(base), *store.runs_for(new)])
    except StoreError as exc:
        fail_exit(str(exc))
    if result.refused and not force:
        what = "; ".join(f"{d.key}: {d.base} vs {d.new}" for d in result.refused)
        fail_exit(f"{base} and {new} ran on different machines ({what}); "
                  "use --force to compare them anyway")
    if fmt == "table":
        doc = presentation.terminal_document(result, all_keys, ci)
    else:
        doc = presentation.document(result, all_keys, ci)
    print(render(doc, fmt), end="")
    if result.unconfirmed and fail_on_regression:
        print(f"platperf: {len(result.unconfirmed)} unconfirmed change(s) "
              f"({presentation.unconfirmed_reason(result)}) do not fail the gate; "
              f"{presentation.settle_text(result.unconfirmed)} (platperf run --repeat N)",
              file=sys.stderr)
    if fail_on_regression and result.failing:      # counted events explain, never fail
        print(f"platperf: {len(result.failing)} regression(s):", file=sys.stderr)
        for r in result.failing:
            print(f"  {key_text(r.key)}: {presentation.number(r.base)} -> "
                  f"{presentation.number(r.new)} {r.unit} ({presentation.delta_text(r.delta_pct)})",
                  file=sys.stderr)
        raise typer.Exit(EXIT_REGRESSION)
