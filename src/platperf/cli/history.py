"""``platperf history``: a series per board and key over runs or labels, with its change points."""
from __future__ import annotations

import json

import typer

from .common import DbOption, FormatOption, JsonOption, app, fail_exit, open_store, output_format
from .runs import RunFilters, run_filters

FORMATS = ("table", "json", "md", "html")


@app.command()
def history(
    target: str = typer.Option("", "--target", metavar="BOARD[,BOARD...]",
                               help="Only these targets (boards); default: every one, each its own series."),
    label: str = typer.Option("", "--label", metavar="PATTERN",
                              help="Only runs whose label matches (* any text, ? one character), e.g. 'v2.*'."),
    since: str = typer.Option("", "--since", metavar="DATE",
                              help="Only runs started on or after DATE (2025-06-01, or 30d: 30 days ago)."),
    until: str = typer.Option("", "--until", metavar="DATE", help="Only runs started before DATE."),
    labels: str = typer.Option("", "--labels",
                               help="Comma-separated labels in release order (each pools its runs on a "
                                    "board); default: every run, oldest first."),
    benchmark: str = typer.Option("", "--benchmark", help="Only this benchmark."),
    metric: str = typer.Option("", "--metric", help="Only this metric."),
    db: str = DbOption,
    fmt: str = FormatOption(FORMATS, "table"),
    json_flag: bool = JsonOption,
    max_p: float = typer.Option(0.001, "--max-p", help="Significance threshold of a change point."),
    test: str = typer.Option("t-test", "--test",
                             help="Split test: t-test (Hunter/Otava) or permutation "
                                  "(Matteson & James, seeded; slow on long series)."),
    only_changes: bool = typer.Option(False, "--changes", help="Only series with change points or a step "
                                                                 "far beyond the key's spread."),
):
    """Series per board and key (benchmark, params, mode, package, cluster, core, metric), one
    point per run or label (its median, from the summaries stored with each run), with change
    points found by e-divisive means.

    Each target (board) has its own series, read and printed one board after another: the time
    and memory follow the series printed, whatever the size of the database.

    \b
    Examples:
      platperf history --target am62x-07 --since 2025-01-01 --changes
      platperf history --target am62x-07 --label 'nightly-*' --benchmark mem-bandwidth
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
    if names and label:
        fail_exit("--labels names the points, --label picks runs by a pattern: give one of them")
    chosen = run_filters(RunFilters(target, label, since, until))
    store = open_store(db, write=False)
    boards = hist.board_series(store, names, benchmark or None, metric or None, **chosen)
    printer = _PRINTERS[fmt](test, store)
    analysed = shown = 0
    try:
        for _, series in boards:
            hist.analyse(series, max_p=max_p, test=test)
            analysed += len(series)
            series = [s for s in series if not only_changes or s.change_points or _far(s)]
            shown += len(series)
            printer.add(series)
    except StoreError as exc:
        fail_exit(str(exc))
    if not analysed:
        given = " ".join(f"--{name} {value}" for name, value in (
            ("target", target), ("label", label), ("since", since), ("until", until), ("benchmark", benchmark),
            ("metric", metric)) if value)
        fail_exit("no results match" + (f" {given}" if given else "") + "; see 'platperf runs'")
    if not shown and fmt == "table":
        print(f"no change points in {analysed:,} series")
    printer.end()


def _far(s) -> bool:
    """A step of the series far beyond its key's spread (compare.steps)."""
    from ..report.sections.multiples import Judged
    return bool(Judged(s, 2.0).far)


class _TablePrinter:
    """Per board, printed as soon as the board is analysed: its largest steps, then a line a
    series with its change points."""

    def __init__(self, test, store=None):
        self.boards, self.store = 0, store

    def add(self, series):
        from ..report.sections import multiples
        from ..report.sections.history import summary_table
        if series:
            steps = multiples.listed([multiples.Judged(s, 2.0) for s in series])
            if steps:
                table = multiples.steps_table(steps, multiples.Pairs(self.store, 2.0), boards=False)
                table.title += f", board {series[0].target}" if series[0].target is not None else ""
                _print_table(table)
                print()
            _print_table(summary_table(series))
            self.boards += 1

    def end(self):
        pass


class _JsonPrinter:
    """The JSON document of ``history.to_json``, one series a line, written as they come."""

    def __init__(self, test, store=None):
        from .. import history as hist
        self.head = hist.to_json([], test)["method"]
        self.test = test
        self.first = True
        print(json.dumps({"method": self.head})[:-1] + ', "series": [')

    def add(self, series):
        from .. import history as hist
        for s in hist.to_json(series, self.test)["series"]:
            print(("" if self.first else ",\n") + json.dumps(s), end="")
            self.first = False

    def end(self):
        print("\n]}")


class _DocumentPrinter:
    """md and html: one document over every board (its plots, the first series changed)."""

    def __init__(self, test, store=None, fmt="md"):
        self.test, self.fmt, self.series, self.store = test, fmt, [], store

    def add(self, series):
        self.series += series

    def end(self):
        from .. import history as hist
        from ..report import render
        from ..report.document import Document
        from ..report.sections.history import section
        doc = Document("platperf history", sections=[section(self.series, self.store)],
                       data=hist.to_json(self.series, self.test))
        print(render(doc, self.fmt), end="")


_PRINTERS = {"table": _TablePrinter, "json": _JsonPrinter, "md": _DocumentPrinter,
             "html": lambda test, store: _DocumentPrinter(test, store, "html")}


def _print_table(table):
    from ..report.terminal import render_table
    print("\n".join(render_table(table)))
