"""``platperf runs`` (the runs in a database) and ``platperf show RUN`` (one run)."""
from __future__ import annotations

import json
import sys

import typer

from .common import DbOption, app, fail_exit, note_incomplete, open_store, FormatOption, JsonOption, output_format


@app.command()
def runs(db: str = DbOption,
         fmt: str = FormatOption(("table", "json"), "table", " (json: a list of the runs)"),
         json_flag: bool = JsonOption):
    """List the runs in the database, oldest first.

    \b
    Examples:
      platperf runs --db platperf.db
      platperf runs --json
    """
    json_out = output_format(fmt, json_flag, ("table", "json"), "table") == "json"
    store = open_store(db, write=False)
    counts = store.result_counts()
    rows = [dict(id=r["id"], label=r["label"], target=r["target"], suite=r["suite"],
                 status=r["status"], started=r["started_at"], results=counts.get(r["id"], 0),
                 host=machine_name(r["fingerprint"]), note=r["note"]) for r in store.runs()]
    if json_out:
        print(json.dumps(rows, indent=1))
        return
    if not rows:
        print(f"no runs in {db}; measure with 'platperf run'", file=sys.stderr)
        return
    table = _table("id", "label", "target", "suite", "status", "started", "results", "host / cpu")
    for r in rows:
        table.add_row(*(_cell(r[k]) for k in ("id", "label", "target", "suite", "status", "started",
                                              "results", "host")))
    _console().print(table)


@app.command()
def show(run: str = typer.Argument(..., help="Run id, 'latest', or a label: all its runs, pooled as "
                                                  "report and compare pool them."),
         db: str = DbOption,
         fmt: str = FormatOption(("table", "json"), "table", " (json: the run and its results)"),
         json_flag: bool = JsonOption):
    """Show a run, or a label's runs as one: header, machine fingerprint, doctor findings,
    results summary.

    A label means what it means to report and compare: all its runs. Each result's median is
    then the median of the runs' medians, min and max are over every run, n counts all their
    samples and a runs column says how many runs are behind it; the machine is the newest
    run's. A run id shows that run alone. Results are listed per (package, cluster, core) and
    CPU, as report keys them. An imported run shows what its file says: the words it printed
    beside its figures (TF-A's method table, TI's board descriptions) and no machine it never
    read.

    \b
    Examples:
      platperf show latest
      platperf show v2.12
      platperf show 3 --json
    """
    json_out = output_format(fmt, json_flag, ("table", "json"), "table") == "json"
    store = open_store(db, write=False)
    pooled, r, summaries = _pooled(store, run)
    several = len(pooled) > 1
    if json_out:
        doc = {k: v for k, v in r.items()}
        doc["runs"] = [{k: p[k] for k in ("id", "status", "started_at", "finished_at", "note", "error")}
                       for p in pooled]
        doc["results"] = [dict(benchmark=x.benchmark, params=x.params, mode=x.mode, cpu=x.cpu,
                               package=x.package, cluster=x.cluster, core=x.core, metric=x.metric,
                               unit=x.unit, direction=x.direction, **s, not_measured=x.not_measured)
                          for x, s in summaries]
        print(json.dumps(doc, indent=1, default=str))
        return
    console = _console()
    header = _table("", "", header=False)
    header.add_row("runs" if several else "run", _cell(", ".join(str(p["id"]) for p in pooled)))
    if several:
        statuses = [p["status"] for p in pooled]
        r["status"] = ", ".join(f"{statuses.count(s)} {s}" for s in dict.fromkeys(statuses))
    for key, name in (("label", "label"), ("status", "status"), ("target", "target"),
                      ("suite", "suite"), ("source", "source"), ("started_at", "started"),
                      ("finished_at", "finished"), ("note", "note"), ("error", "error")):
        if r[key] is not None:
            header.add_row(name, _cell(r[key]))
    probe = _probe_text(r["meta"] or {})
    if probe:
        header.add_row("probe", _cell(probe))
    console.print(header)

    for table in (_machine_table(r), _published_table(r["meta"] or {})):
        if table is not None:
            console.print(table)
    from ..findings import collapse
    findings = collapse(r["findings"] or [])    # a repeated probe warning is one line
    if findings:
        ft = _table("level", "finding", "effect", "fix")
        for f in findings:
            ft.add_row(*(_cell(f.get(k)) for k in ("level", "message", "effect", "fix")))
        console.print(ft)

    packages = any(x.package is not None for x, _ in summaries)   # several sockets (topology.py)
    rt = _table("benchmark", "params", "mode", *["package"] * packages, "cluster", "core", "cpu", "metric",
                "median", "min", "max", "n", *(["runs"] if several else []), "unit")
    for x, s in summaries:
        # an idle state never entered: the reason, no figures (its samples stay stored)
        figures = (x.not_measured, "", "") if x.not_measured else (_num(s["median"]), _num(s["min"]), _num(s["max"]))
        rt.add_row(*map(_cell, (x.benchmark, x.params_key, x.mode, *[x.package] * packages, x.cluster, x.core,
                                x.cpu, x.metric, *figures, s["n"], *([s["runs"]] if several else []), x.unit)))
    console.print(rt)
    hist = sum(len(store.histograms(p["id"])) for p in pooled)
    print(f"{len(summaries)} results, {hist} histograms" + (f" over {len(pooled)} runs" if several else ""))


def _machine_table(r: dict):
    """The same lines as the report's Environment table (one way to summarise a machine), and
    only what the fingerprint holds: None for an imported run, whose fingerprint is none or
    only its probe's words."""
    from ..report.sections.environment import ROWS
    rows = [(name, value(r["fingerprint"], r)) for name, value in ROWS if r["fingerprint"]
            and name not in ("Target", "Suite", "Runs", "Note", "Probe")]
    if not any(text for _, text in rows):
        return None
    table = _table("machine", "")
    for name, text in rows:
        if text:
            table.add_row(name, _cell(text))
    return table


def _probe_text(meta: dict) -> str:
    """``0.1.0 build 25a9bbe9 (x86_64, gcc 12.2.0)`` from a probe's meta record, as far as it
    goes; "" for a run no probe measured (an imported page's meta holds only its words)."""
    if not meta.get("probe_version") and not meta.get("build_id"):
        return ""
    where = ", ".join(str(meta[k]) for k in ("arch", "compiler") if meta.get(k))
    text = " ".join(str(p) for p in (meta.get("probe_version"),
                                     f"build {meta['build_id']}" if meta.get("build_id") else None) if p)
    return f"{text} ({where})" if where else text


def _published_table(meta: dict):
    """The words an imported file printed beside its figures (``ingest.Words``: TF-A's method
    table, TI's board descriptions, its ``n/a`` cells), as the file says them and where; None
    when it kept none."""
    words = [w for w in meta.get("published") or [] if isinstance(w, dict)]
    if not words:
        return None
    table = _table("table", "row", "column", "the file says", "where")
    for w in words:
        table.add_row(*map(_cell, (w.get("title"), w.get("row"), w.get("header"), w.get("text"), w.get("where"))))
    return table


def _pooled(store, ref):
    """(the runs of ``ref``, the run shown, its results' summaries pooled over the runs): the
    newest run's machine, probe and header stand for a label's; its findings are every run's,
    each as recorded with its run (the findings table prints a repeated one once)."""
    from ..report.data import pooled_summaries
    from ..store import StoreError
    try:
        pooled = store.runs_for(ref)
    except StoreError as exc:
        fail_exit(str(exc))
    note_incomplete(pooled)
    r = dict(pooled[-1])
    if len(pooled) > 1:
        r["findings"] = [{**f, "run": p["id"]} for p in pooled for f in p["findings"] or []]
    return pooled, r, pooled_summaries([x for p in pooled for x in store.results(p["id"], with_samples=False)])


def machine_name(fingerprint) -> str:
    """Host name and CPU model from a fingerprint, as far as it has them."""
    if not fingerprint:
        return ""
    host = _first(fingerprint, ("hostname",), ("host", "name"), ("host", "hostname"))
    cpu = _first(fingerprint, ("cpu", "model"), ("cpu", "model_name"), ("cpu_model",),
                 ("cpu", "name"))
    return " / ".join(str(v) for v in (host, cpu) if v)


def _first(doc, *paths):
    for path in paths:
        value = doc
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value not in (None, "", [], {}):
            return value
    return None


def _num(value) -> str:
    # as the report prints a figure (two decimals, as TF-A's and TI's pages): an imported
    # 104.36 reads 104.36 here too
    from ..vocab.figures import number
    return number(value)


def _cell(value):
    # Text, never markup: a label such as "[red]v2" is printed as typed.
    from rich.text import Text
    return Text("" if value is None else str(value))


def _table(*columns, header=True):
    from rich import box
    from rich.table import Table
    table = Table(box=box.SIMPLE_HEAD, show_header=header, pad_edge=False)
    for c in columns:
        table.add_column(c, overflow="fold")
    return table


def _console():
    from rich.console import Console
    # Into a pipe or file, rows stay whole (one line per result) for grep and diff.
    return Console(soft_wrap=False, width=None if sys.stdout.isatty() else 10000)
