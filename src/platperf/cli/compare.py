"""``platperf compare BASE NEW``: keyed comparison with significance, as release tables."""
from __future__ import annotations

import json
import sys

import typer

from .common import EXIT_REGRESSION, DbOption, app, fail_exit, note_incomplete, open_store

FORMATS = ("table", "rst-grid", "md", "json")


@app.command()
def compare(
    base: str = typer.Argument(..., help="Base: run id, 'latest', or a label (pools all its runs)."),
    new: str = typer.Argument(..., help="New: run id, 'latest', or a label (pools all its runs)."),
    db: str = DbOption,
    tolerance: float = typer.Option(2.0, "--tolerance", help="Smallest change shown, in percent."),
    fmt: str = typer.Option("table", "--format", help=f"One of {', '.join(FORMATS)}."),
    test: str = typer.Option("mwu", "--test",
                             help="Significance test: mwu (Mann-Whitney U, p < 0.05) or bootstrap "
                                  "(95% interval of the median ratio, seeded)."),
    fail_on_regression: bool = typer.Option(False, "--fail-on-regression",
                                            help="Exit 1 and list the regressions if there are any."),
    force: bool = typer.Option(False, "--force",
                               help="Compare even when the CPU model or architecture differ."),
):
    """Compare two runs or labels key by key (benchmark, params, mode, cluster, core, metric).

    A cell reads NEW (+x.xx%) only when the change is at least --tolerance and significant;
    with one value a side the tolerance alone decides and the output says so.

    Example: platperf compare v2.9 v2.10 --format rst-grid --fail-on-regression
    """
    from .. import compare as cmp_mod
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
        _print_table(result)
    else:
        from ..report import render
        print(render(cmp_mod.document(result), "md" if fmt == "md" else fmt), end="")
    if fail_on_regression and result.regressions:
        print(f"platperf: {len(result.regressions)} regression(s):", file=sys.stderr)
        for r in result.regressions:
            print(f"  {cmp_mod.key_text(r.key)}: {cmp_mod.number(r.base)} -> "
                  f"{cmp_mod.number(r.new)} {r.unit} ({cmp_mod.delta_text(r.delta_pct)})",
                  file=sys.stderr)
        raise typer.Exit(EXIT_REGRESSION)


def _print_table(result):
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from .. import compare as cmp_mod
    from ..report import tfa
    # a pipe or a CI log is not 80 columns wide: keep the 13 columns readable there
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
    for d in result.differences:
        note = " (refused without --force)" if d.refuse else ""
        console.print(f"differs: {d.key}: {d.base} -> {d.new}{note}", markup=False)
    table = Table(title=f"{result.new_ref} vs {result.base_ref} "
                        f"(tolerance {result.tolerance:g}%, test {result.test})")
    for name in ("Benchmark", "Params", "Mode", "Cluster", "Core", "Metric", "Unit",
                 "Base", "New", "Delta", "p", "Basis", "Verdict"):
        table.add_column(name, justify="right" if name in ("Base", "New", "Delta", "p") else "left")
    for r in result.rows:
        bench, params, mode, cluster, core, metric = r.key
        verdict = ("added" if r.status == "added" else "removed" if r.status == "removed" else
                   "REGRESSION" if r.regression else "better" if r.improvement else "")
        p = "" if r.p_value is None else f"{r.p_value:.3g}"
        if r.ratio_ci:
            p = f"[{r.ratio_ci[0]:.3f}, {r.ratio_ci[1]:.3f}]"
        table.add_row(*(Text(c) for c in (bench, params, mode, tfa.place(cluster), tfa.place(core), metric,
                      r.unit, cmp_mod.number(r.base), cmp_mod.number(r.new),
                      cmp_mod.delta_text(r.delta_pct) if r.status == "both" else "", p,
                      "tolerance only" if r.basis == "tolerance" else r.basis, verdict)),
                      style="red" if r.regression else None)
    console.print(table)
    n_tol = sum(r.basis == "tolerance" for r in result.rows)
    if n_tol:
        console.print(f"{n_tol} figure(s) have a single value (or too few samples) on a side: "
                      "the tolerance alone decides for those.")
