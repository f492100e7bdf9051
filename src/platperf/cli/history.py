"""``platperf history``: a series per key over runs or labels, with its change points."""
from __future__ import annotations

import json

import typer

from .common import DbOption, FormatOption, JsonOption, app, fail_exit, open_store, output_format

FORMATS = ("table", "json", "md", "html")


@app.command()
def history(
    labels: str = typer.Option("", "--labels",
                               help="Comma-separated labels in release order (each pools its runs); "
                                    "default: every run, oldest first."),
    benchmark: str = typer.Option("", "--benchmark", help="Only this benchmark."),
    metric: str = typer.Option("", "--metric", help="Only this metric."),
    db: str = DbOption,
    fmt: str = FormatOption(FORMATS, "table"),
    json_flag: bool = JsonOption,
    max_p: float = typer.Option(0.001, "--max-p", help="Significance threshold of a change point."),
    test: str = typer.Option("t-test", "--test",
                             help="Split test: t-test (Hunter/Otava) or permutation "
                                  "(Matteson & James, seeded; slow on long series)."),
    only_changes: bool = typer.Option(False, "--changes", help="Only series with change points."),
):
    """Series per key (benchmark, params, mode, package, cluster, core, metric), one point per run or
    label (the median), with change points found by e-divisive means.

    \b
    Example:
      platperf history --labels v2.8,v2.9,v2.10,v2.11,v2.12,v2.13 --metric powerdown
    """
    from .. import history as hist
    from ..store import StoreError
    fmt = output_format(fmt, json_flag, FORMATS, "table")
    if test not in hist.TESTS:
        fail_exit(f"unknown test '{test}'; choose one of {', '.join(hist.TESTS)}")
    if not 0 < max_p < 1:
        fail_exit(f"--max-p must be between 0 and 1, got {max_p}")
    names = [x.strip() for x in labels.split(",") if x.strip()] or None
    store = open_store(db, write=False)
    try:
        series = hist.load_series(store, names, benchmark or None, metric or None)
    except StoreError as exc:
        fail_exit(str(exc))
    if not series:
        fail_exit("no results match" + (f" --benchmark {benchmark}" if benchmark else "")
                  + (f" --metric {metric}" if metric else "") + "; see 'platperf runs'")
    hist.analyse(series, max_p=max_p, test=test)
    if only_changes:
        series = [s for s in series if s.change_points]
    if fmt == "json":
        print(json.dumps(hist.to_json(series, test), indent=2))
        return
    from ..report.sections.history import section, summary_table
    if fmt == "table":
        _print_table(summary_table(series))
        return
    from ..report import render
    from ..report.document import Document
    doc = Document("platperf history", sections=[section(series)], data=hist.to_json(series, test))
    print(render(doc, fmt), end="")


def _print_table(table):
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text
    out = Table(title=table.title)
    for h in table.headers:
        out.add_column(h)
    for row in table.rows:
        out.add_row(*(Text("" if c is None else str(c)) for c in row))
    Console(highlight=False).print(out)
