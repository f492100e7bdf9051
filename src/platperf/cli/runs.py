"""``platperf runs`` (the runs in a database) and ``platperf show RUN`` (one run)."""
from __future__ import annotations

import datetime as dt
import json
import re
import sys
from dataclasses import dataclass

import typer

from .common import DbOption, app, fail_exit, note_incomplete, open_store, FormatOption, JsonOption, output_format

LIMIT = 20            # runs listed unless --limit says otherwise
SHOW_ALL_UP_TO = 100  # results `show` lists one by one without --all (a TF-A page's 96 figures)


@dataclass
class RunFilters:
    """What ``runs`` and ``history`` choose runs by, as typed."""

    target: str = ""
    label: str = ""
    since: str = ""
    until: str = ""


def run_filters(f: RunFilters) -> dict:
    """The filters for store/queries.py: targets, label pattern, ISO times; exit 2 for a
    time that is not one."""
    targets = [t.strip() for t in f.target.split(",") if t.strip()] or None
    return dict(targets=targets, label=f.label or None, since=parse_when(f.since, "--since"),
                until=parse_when(f.until, "--until"))


_AGE = re.compile(r"(\d+)([hdw])")


def parse_when(text: str, option: str) -> str | None:
    """A run's start time as stored (``2025-06-01T02:00:00Z``, UTC) from a date, a time or an
    age (``30d``); a bare date stays a date, which sorts before every time of that day."""
    if not text:
        return None
    age = _AGE.fullmatch(text.strip())
    if age:
        hours = int(age[1]) * {"h": 1, "d": 24, "w": 168}[age[2]]
        when = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=hours)
        return when.strftime("%Y-%m-%dT%H:%M:%SZ")
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text.strip()):
            return dt.date.fromisoformat(text.strip()).isoformat()
        when = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        fail_exit(f"{option} {text!r}: give a date (2025-06-01), a time (2025-06-01T12:00:00Z) or an age "
                  "(30d, 12h, 2w)")
    when = when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)
    return when.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@app.command()
def runs(db: str = DbOption,
         target: str = typer.Option("", "--target", metavar="BOARD[,BOARD...]", help="Only these targets."),
         label: str = typer.Option("", "--label", metavar="PATTERN",
                                   help="Only labels that match (* any text, ? one character), e.g. 'v2.*'."),
         since: str = typer.Option("", "--since", metavar="DATE",
                                   help="Only runs started on or after DATE (2025-06-01, or 7d: 7 days ago)."),
         until: str = typer.Option("", "--until", metavar="DATE", help="Only runs started before DATE."),
         status: str = typer.Option("", "--status", metavar="STATUS",
                                    help="Only runs of this status: complete, partial, failed, running, abandoned."),
         limit: int = typer.Option(LIMIT, "--limit", metavar="N", help="The newest N runs that match; 0: all."),
         fmt: str = FormatOption(("table", "json"), "table", " (json: a list of the runs)"),
         json_flag: bool = JsonOption):
    """List the newest runs in the database (20 unless --limit), oldest of them first.

    A lab's database holds thousands of runs: --target, --label, --since and --status narrow
    the list, and a line on stderr says how many more match.

    \b
    Examples:
      platperf runs --db platperf.db
      platperf runs --target am62x-07 --since 7d
      platperf runs --label 'v2.*' --limit 0 --json
    """
    from ..store.queries import list_runs
    json_out = output_format(fmt, json_flag, ("table", "json"), "table") == "json"
    if limit < 0:
        fail_exit(f"--limit must be 0 (all) or more, got {limit}")
    chosen = run_filters(RunFilters(target, label, since, until))
    store = open_store(db, write=False)
    with store.engine.connect() as c:
        listed, total = list_runs(c, limit=limit, status=status or None, **chosen)
    counts = store.result_counts([r["id"] for r in listed])
    rows = [dict(id=r["id"], label=r["label"], target=r["target"], suite=r["suite"], status=r["status"],
                 started=r["started_at"], results=counts.get(r["id"], 0), host=r["host"] or "", note=r["note"],
                 archived=r["archived"]) for r in listed]
    if total > len(rows):
        print(f"the newest {len(rows):,} of {total:,} runs that match; --limit 0 lists them all, "
              "--target, --label, --since narrow them", file=sys.stderr)
    if json_out:
        print(json.dumps(rows, indent=1))
        return
    if not rows:
        print(f"no runs in {db}" + (" match" if any(chosen.values()) or status else "; measure with 'platperf run'"),
              file=sys.stderr)
        return
    table = _table("id", "label", "target", "suite", "status", "started", "results", "host / cpu",
                   optional=("host / cpu", "suite", "target"))
    for r in rows:
        shown = dict(r, status=r["status"] + (" (archived)" if r["archived"] else ""))
        table.rows.append([shown[k] for k in ("id", "label", "target", "suite", "status", "started", "results",
                                              "host")])
    _print(table, gap=False)


@app.command()
def show(run: str = typer.Argument(..., help="Run id, 'latest', or a label: all its runs, pooled as "
                                                  "report and compare pool them."),
         db: str = DbOption,
         every: bool = typer.Option(False, "--all", help="List every result, however many (without it a "
                                                         f"run of more than {SHOW_ALL_UP_TO} results is "
                                                         "summed up per benchmark, mode and metric)."),
         fmt: str = FormatOption(("table", "json"), "table", " (json: the run and its results)"),
         json_flag: bool = JsonOption):
    """Show a run, or a label's runs as one: header, machine fingerprint, doctor findings,
    results summary.

    A label means what it means to report and compare: all its runs. Each result's median is
    then the median of the runs' medians, min and max are over every run, n counts all their
    samples and a runs column says how many runs are behind it; the machine is the newest
    run's. A run id shows that run alone. Results are listed per benchmark and parameters, each
    at its (package, cluster, core) and CPU as report keys them, fitted to the terminal (80
    columns piped) by folding the benchmark and parameters into a heading over their rows and
    leaving out min, max and n before a cell is cut; a run of more than 100 results (the full suite's 2,286) is
    summed up per benchmark, mode and metric, and --all lists each one. An imported run
    shows what its file says: the words it printed beside its figures (TF-A's method table,
    TI's board descriptions) and no machine it never read.

    \b
    Examples:
      platperf show latest
      platperf show v2.12 --all
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
    _print_items(_header_items(pooled, r))
    machine = _machine_items(r)
    if machine:
        print("\nmachine")
        _print_items(machine, indent="  ")
    published = _published_table(r["meta"] or {})
    if published is not None:
        _print(published)
    from ..findings import collapse
    _print_findings(collapse(r["findings"] or []))    # a repeated probe warning is one line
    listed = every or len(summaries) <= SHOW_ALL_UP_TO
    _print(_results_table(summaries, several) if listed else _families_table(summaries))
    hist = store.histogram_count(p["id"] for p in pooled)
    print(f"{len(summaries)} results, {hist} histograms" + (f" over {len(pooled)} runs" if several else "")
          + ("" if listed else f"; --all lists each result"))


def _header_items(pooled: list[dict], r: dict) -> list[tuple[str, str]]:
    several = len(pooled) > 1
    items = [("runs" if several else "run", ", ".join(str(p["id"]) for p in pooled))]
    if several:
        statuses = [p["status"] for p in pooled]
        r["status"] = ", ".join(f"{statuses.count(s)} {s}" for s in dict.fromkeys(statuses))
    for key, name in (("label", "label"), ("status", "status"), ("target", "target"),
                      ("suite", "suite"), ("source", "source"), ("started_at", "started"),
                      ("finished_at", "finished"), ("note", "note"), ("error", "error"),
                      ("archived", "samples archived")):
        if r.get(key) is not None:
            items.append((name, str(r[key])))
    probe = _probe_text(r["meta"] or {})
    if probe:
        items.append(("probe", probe))
    events = (r["meta"] or {}).get("events")      # --events: what was asked, the PMU of each CPU
    if isinstance(events, dict) and events.get("asked"):
        pmus = sorted(set((events.get("pmu") or {}).values())) if isinstance(events.get("pmu"), dict) else []
        items.append(("events", f"{events['asked']} ({', '.join(pmus) if pmus else 'no PMU'})"))
    return items


def _results_table(summaries, several: bool):
    """One line per result, as report keys them."""
    packages = any(x.package is not None for x, _ in summaries)   # several sockets (topology.py)
    # too wide for the terminal: (benchmark, params) become a heading over their rows, then the
    # range, the counts and the CPU number (cluster and core stay) go before any cell is cut
    rt = _table("benchmark", "params", "mode", *["package"] * packages, "cluster", "core", "cpu", "metric",
                "median", "min", "max", "n", *(["runs"] if several else []), "unit",
                fold=2, optional=("min", "max", "n", "runs", "cpu"))
    # each (benchmark, params) once, its CPUs together under it, in the order first seen
    first = {}
    for x, _ in summaries:
        first.setdefault((x.benchmark, x.params_key), len(first))
    for x, s in sorted(summaries, key=lambda xs: first[(xs[0].benchmark, xs[0].params_key)]):
        # an idle state never entered: the reason, no figures (its samples stay stored)
        figures = (x.not_measured, "", "") if x.not_measured else (_num(s["median"]), _num(s["min"]), _num(s["max"]))
        rt.rows.append([x.benchmark, x.params_key, x.mode, *[x.package] * packages, x.cluster, x.core,
                        x.cpu, x.metric, *figures, s["n"], *([s["runs"]] if several else []), x.unit])
    return rt


def _families_table(summaries):
    """The results summed up per (benchmark, mode, metric, unit): how many, on which CPUs, and
    the range of their medians."""
    families: dict[tuple, list] = {}
    for x, s in summaries:
        families.setdefault((x.benchmark, x.mode, x.metric, x.unit), []).append((x, s))
    table = _table("benchmark", "mode", "metric", "results", "cpus", "lowest median", "highest median", "unit",
                   fold=2, optional=("cpus",))
    for (benchmark, mode, metric, unit), members in families.items():
        medians = [s["median"] for x, s in members if not x.not_measured and s["median"] is not None]
        cpus = sorted({x.cpu for x, _ in members if x.cpu is not None})
        table.rows.append([benchmark, mode, metric, len(members), _cpu_text(cpus),
                           _num(min(medians)) if medians else "", _num(max(medians)) if medians else "", unit])
    return table


def _cpu_text(cpus: list[int]) -> str:
    if not cpus:
        return ""
    return f"{cpus[0]}-{cpus[-1]}" if cpus == list(range(cpus[0], cpus[-1] + 1)) and len(cpus) > 1 else \
        ",".join(map(str, cpus))


def _machine_items(r: dict) -> list[tuple[str, str]]:
    """The same lines as the report's Environment table (one way to summarise a machine), and
    only what the fingerprint holds: none for an imported run, whose fingerprint is none or
    only its probe's words."""
    from ..report.sections.environment import ROWS
    rows = [(name, value(r["fingerprint"], r)) for name, value in ROWS if r["fingerprint"]
            and name not in ("Target", "Suite", "Runs", "Note", "Probe")]
    return [(name, str(text)) for name, text in rows if text]


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
    table = _table("table", "row", "column", "the file says", "where", fold=1, optional=("where",))
    for w in words:
        table.rows.append([w.get("title"), w.get("row"), w.get("header"), w.get("text"), w.get("where")])
    return table


def _pooled(store, ref):
    """(the runs of ``ref``, the run shown, its results' summaries pooled over the runs): the
    newest run's machine, probe and header stand for a label's; its findings are every run's,
    each as recorded with its run (the findings table prints a repeated one once). Only the
    summaries are read (a run whose samples were archived shows too)."""
    from ..report.data import pooled_summaries
    from ..store import StoreError
    try:
        pooled = store.runs_for(ref, archived=True)
    except StoreError as exc:
        fail_exit(str(exc))
    note_incomplete(pooled)
    r = dict(pooled[-1])
    if len(pooled) > 1:
        r["findings"] = [{**f, "run": p["id"]} for p in pooled for f in p["findings"] or []]
    return pooled, r, pooled_summaries([x for p in pooled
                                        for x in store.results(p["id"], with_samples=False, with_extra=False)])


def _num(value) -> str:
    # as the report prints a figure (two decimals, as TF-A's and TI's pages): an imported
    # 104.36 reads 104.36 here too
    from ..vocab.figures import number
    return number(value)


def _table(*columns, fold: int = 0, optional: tuple[str, ...] = ()):
    from ..report.document import Table
    return Table("", list(columns), [], fold=fold, optional=optional)


def _print(table, gap: bool = True) -> None:
    """A table fitted to the terminal (COLUMNS, else the terminal's width, 80 when piped) as
    compare and history fit theirs (report/terminal.py): columns folded into headings, then
    dropped, before a cell is cut; no line padded out."""
    from ..report.terminal import render_table
    if gap:
        print()
    print("\n".join(render_table(table)))


def _print_items(items: list[tuple[str, str]], indent: str = "") -> None:
    """``name: value`` lines, a long value wrapped at word boundaries under its name."""
    from ..report.terminal import width, wrap
    for name, value in items:
        print("\n".join(wrap(f"{name}: {value}", width(), indent)))


def _print_findings(findings: list[dict]) -> None:
    """Findings as prose, the worst first (bad, warn, info, ok; as recorded within a level): the
    level and the finding, then its effect and fix indented under it, wrapped to the terminal."""
    import textwrap

    from ..report.terminal import width
    if not findings:
        return
    cols = width()
    print(f"\nfindings ({len(findings)})")
    order = {"bad": 0, "warn": 1, "info": 2, "ok": 3}
    for f in sorted(findings, key=lambda f: order.get(str(f.get("level")), 2)):   # the worst first
        lines = [(f"{str(f.get('level') or ''):<6}", f.get("message") or "", " " * 6)]
        lines += [(f"      {part}: ", f[part], " " * 8) for part in ("effect", "fix") if f.get(part)]
        for first, text, rest in lines:
            print("\n".join(textwrap.wrap(" ".join(str(text).split()), cols, initial_indent=first,
                                           subsequent_indent=rest, break_on_hyphens=False,
                                           break_long_words=False) or [first.rstrip()]))
