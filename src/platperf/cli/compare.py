"""``platperf compare BASE NEW``: keyed comparison with significance, as release tables."""
from __future__ import annotations

import json
import sys

import typer

from .common import EXIT_REGRESSION, DbOption, app, fail_exit, note_incomplete, open_store

FORMATS = ("table", "rst-grid", "md", "json")


@app.command()
def compare(
    base: str = typer.Argument(..., help="Base: run id, 'latest', or a label (all its runs)."),
    new: str = typer.Argument(..., help="New: run id, 'latest', or a label (all its runs)."),
    db: str = DbOption,
    tolerance: float = typer.Option(2.0, "--tolerance", help="Smallest change shown, in percent."),
    fmt: str = typer.Option("table", "--format", help=f"One of {', '.join(FORMATS)}."),
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

    \b
    Examples:
      platperf compare v2.9 v2.10 --format rst-grid
      platperf compare nightly-41 nightly-42 --fail-on-regression --ci

    \b
    Exit codes: 0 no confirmed regression (or not gating); 1 confirmed regressions
    with --fail-on-regression; 2 bad input.
    """
    from .. import compare as cmp_mod
    from ..report.sections import compare as presentation
    from ..records import key_text
    if fmt not in FORMATS:
        fail_exit(f"unknown format '{fmt}'; choose one of {', '.join(FORMATS)}")
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
    if fmt == "json":
        print(json.dumps(cmp_mod.to_json(result), indent=2))
    elif fmt == "table":
        _print_table(result, ci)
    else:
        from ..report import render
        print(render(presentation.document(result), "md" if fmt == "md" else fmt), end="")
    if result.unconfirmed and fail_on_regression:
        worst = max(r.runs_needed or 2 for r in result.unconfirmed)
        print(f"platperf: {len(result.unconfirmed)} unconfirmed change(s) (one run on a side) do "
              f"not fail the gate; up to {worst} runs a side would settle them "
              "(platperf run --repeat N)", file=sys.stderr)
    if fail_on_regression and result.regressions:
        print(f"platperf: {len(result.regressions)} regression(s):", file=sys.stderr)
        for r in result.regressions:
            print(f"  {key_text(r.key)}: {presentation.number(r.base)} -> "
                  f"{presentation.number(r.new)} {r.unit} ({presentation.delta_text(r.delta_pct)})",
                  file=sys.stderr)
        raise typer.Exit(EXIT_REGRESSION)


def _print_table(result, ci: bool):
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from ..report.sections import compare as presentation
    # a pipe or a CI log is not 80 columns wide: keep the columns readable there
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 220)
    for d in result.differences:
        note = " (refused without --force)" if d.refuse else ""
        console.print(f"differs: {d.key}: {d.base} -> {d.new}{note}", markup=False)
    pages = presentation.pages_section(result)
    if pages:
        console.print(f"differs: page backing: {pages.text}", markup=False)
    table = Table(title=f"{result.new_ref} vs {result.base_ref} "
                        f"(tolerance {result.tolerance:g}%, test {result.test})")
    # a Package column only where cluster numbers restart in each package (several sockets)
    packages = any(r.key[3] is not None for r in result.rows)
    names = ["Benchmark", "Params", "Mode"] + ["Package"] * packages + [
        "Cluster", "Core", "Metric", "Unit", "Base", "New", "Delta", "p", "Runs", "Detectable", "Verdict"]
    at = names.index("Delta")
    if ci:
        names[at:at] = ["Base 95% CI", "New 95% CI"]
    for name in names:
        table.add_column(name, justify="right" if name in ("Base", "New", "Delta", "p", "Detectable") else "left")
    for r in result.rows:
        bench, params, mode, package, cluster, core, metric = r.key
        p = "" if r.p_value is None else f"{r.p_value:.3g}"
        if r.ratio_ci:
            p = f"[{r.ratio_ci[0]:.3f}, {r.ratio_ci[1]:.3f}]"
        verdict = presentation.verdict(r)
        if r.unconfirmed:
            verdict += f", {presentation.runs_text(r)}"
        if r.unstable:
            verdict += (", " if verdict else "") + "unstable"
        if r.pages_differ:
            verdict += (", " if verdict else "") + f"pages {r.pages_base} -> {r.pages_new}"
        cells = [bench, params, mode] + [presentation.place(package)] * packages + [
                 presentation.place(cluster), presentation.place(core), metric, r.unit,
                 presentation.side_text(r, "base"), presentation.side_text(r, "new"),
                 presentation.delta_text(r.delta_pct) if r.status == "both" else "", p,
                 f"{r.runs_base}/{r.runs_new}",
                 "" if r.mde_pct is None else f"{r.mde_pct:.2f}%", verdict]
        if ci:
            cells[at:at] = [presentation.interval_text(r.base_ci), presentation.interval_text(r.new_ci)]
        table.add_row(*(Text(c) for c in cells), style="red" if r.regression else None)
    console.print(table)
    detect = presentation.detectable_text(result)
    if detect:
        console.print(detect, markup=False)
    if result.unconfirmed:
        console.print(f"{len(result.unconfirmed)} change(s) with one run on a side are unconfirmed, "
                      "not regressions: measure with platperf run --repeat N.", markup=False)
