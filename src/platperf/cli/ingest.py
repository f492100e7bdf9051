"""``platperf ingest``: import logs from other tools as runs, all or nothing."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from sqlalchemy.exc import SQLAlchemyError

from ..ingest import FORMATS, IngestError, Pool, read_lines
from ..store import StoreError
from .common import DbOption, app, fail_exit, open_store

_FORMATS_HELP = "; ".join(f"{name}: {fmt.help}" for name, fmt in FORMATS.items())


@app.command(epilog="Examples: platperf ingest tftf-rt-instr juno-1.log juno-2.log --label v2.10 --target juno\n\n"
                    "platperf ingest tfa-rst psci-performance-juno.rst --target juno  "
                    "(runs v2.9, v2.10 ... one per release; then platperf history --metric powerdown)\n\n"
                    "platperf ingest rst-csv-table am62x-guide.rst --label sdk-09.02  "
                    "(runs sdk-09.02:<board> per column)\n\n"
                    "platperf ingest probe-jsonl board.jsonl --label sdk-11.1 --target am62x --root am62x-sys  "
                    "(a probe run saved on a board without SSH; am62x-sys holds copies of its sys/ and proc/)\n\n"
                    "platperf ingest instr points.jsonl --intervals probe/examples/instr_example.toml --label v2.12 "
                    "--root juno-sys  (points of a program built with platperf_instr.h; see docs/instr.md)\n\n"
                    "platperf ingest lava 12345 --identity lab  (a `platperf lava job` run on a LAVA server; "
                    "or a saved job log: platperf ingest lava job-12345.yaml --label sdk-11.1)")
def ingest(
    format: str = typer.Argument(..., metavar="FORMAT", help=f"The files' format. {_FORMATS_HELP}."),
    files: List[Path] = typer.Argument(..., metavar="FILE...", help="Files to import; their samples pool."),
    label: Optional[str] = typer.Option(None, "--label", help="Run label, e.g. the release (v2.10). "
                                        "rst-csv-table: defaults to each column's header; tfa-rst: to each table's release."),
    target: Optional[str] = typer.Option(None, "--target", help="Where the figures were measured "
                                         "[default: ingested; lava: the job's device]."),
    note: Optional[str] = typer.Option(None, "--note", help="Free text kept with the run."),
    root: Optional[Path] = typer.Option(None, "--root", metavar="DIR",
                                        help="probe-jsonl only: a copy of the board's /sys and /proc "
                                             "(DIR/sys, DIR/proc) for its fingerprint and the "
                                             "(cluster, core) of each CPU. instr: the same, needed unless "
                                             "the points were taken on this machine."),
    intervals: Optional[Path] = typer.Option(None, "--intervals", metavar="TOML",
                                             help="instr only: the intervals to store, each END - START "
                                                  "of two points (docs/instr.md)."),
    identity: str = typer.Option("default", "--identity", metavar="NAME",
                                 help="lava only: the lavacli identity of the server a job id is on."),
    db: str = DbOption,
):
    """Import results from another tool's output into one run (one per column for rst-csv-table).

    Every file is parsed before anything is stored and everything is stored in one
    transaction: a bad line stops the import with `file:line: what was expected`, exit 2,
    and nothing is recorded. Results of equal key from several files pool as samples; a
    later ingest with the same label adds another run, and compare pools all runs of a label.
    """
    fmt = FORMATS.get(format)
    if fmt is None:
        fail_exit(f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}")
    if fmt.lava_job:
        if root is not None:
            fail_exit("--root is for probe-jsonl only; a LAVA job's log holds the board's own description")
        from .lava import ingest_jobs
        ingest_jobs(files, label=label, target=target, note=note, identity=identity, db=db)
        return
    target = target or "ingested"
    if label is None and not fmt.run_per_column:
        fail_exit(f"--label is required for {format} (e.g. --label v2.10)")
    if fmt.probe_run:
        _ingest_probe_run(files, label, target, note, root, db)
        return
    options, place = {}, None
    if fmt.takes_intervals:
        options, place = _instr_setup(files, intervals, root)
    elif intervals is not None:
        fail_exit(f"--intervals is for instr only; {format} logs name their own figures")
    elif root is not None:
        fail_exit(f"--root is for probe-jsonl and instr only; {format} logs carry no CPU placement to read")

    # results pool as they are read: memory holds the distinct keys, not every line's result
    columns: dict[str, Pool] = {}
    histograms = []
    for path in files:
        try:
            results, file_histograms = fmt.read_file(path, **options)
            for res in results:
                if place is not None and res.cpu is not None:
                    res.set_place(_placed_or_exit(place, res.cpu, path, root))
                column = res.extra.get("column", "") if fmt.run_per_column else ""
                into = columns.get(column)
                if into is None:
                    into = columns[column] = Pool()
                into.add(res)
            histograms += file_histograms
        except OSError as exc:
            fail_exit(f"cannot read {path}: {exc.strerror}")
        except IngestError as exc:
            fail_exit(str(exc))

    runs = _runs(columns, histograms, label, fmt.run_per_column)
    store = open_store(db)
    source = f"ingest:{format}"
    note = note or f"ingested from {', '.join(str(p) for p in files)}"
    try:
        with store.transaction() as c:
            ids = []
            for run_label, (results, hists) in runs.items():
                run_id = store.begin_run(label=run_label, target=target, source=source, note=note, conn=c)
                store.add_results(run_id, results, conn=c)
                for rec in hists:
                    store.add_histogram(run_id, rec, cluster=rec.get("cluster"), core=rec.get("core"),
                                        package=rec.get("package"), conn=c)
                store.finish_run(run_id, "complete", conn=c)
                ids.append((run_id, run_label, len(results), len(hists)))
    except StoreError as exc:
        fail_exit(str(exc))
    except SQLAlchemyError as exc:  # the transaction rolled back: nothing was stored
        fail_exit(f"database {store.url}: {getattr(exc, 'orig', exc)}; nothing was stored")
    for run_id, run_label, n_results, n_hists in ids:
        extra = f", {n_hists} histograms" if n_hists else ""
        print(f"run {run_id} ({run_label}): {n_results} results{extra} from {len(files)} file(s) [{source}]")


def _runs(columns: dict, histograms, label, run_per_column) -> dict:
    """{run label: (pooled results, histograms)}; one run unless the format has columns."""
    if not run_per_column:
        return {label: ((columns[""].results if columns else []), histograms)}
    if label is None:
        if "" in columns:
            fail_exit("--label is required: some value columns name no platform (no `platform: ...` header)")
        return {column: (into.results, []) for column, into in columns.items()}
    if len(columns) == 1:
        return {label: (next(iter(columns.values())).results, [])}
    return {f"{label}:{column}" if column else label: (into.results, [])
            for column, into in columns.items()}


def _ingest_probe_run(files, label, target, note, root, db):
    """probe-jsonl: the records become one run stored as `platperf run` stores them.

    Exit 2 when the run is partial or failed (as `platperf run`), after storing it."""
    from ..ingest.probe_jsonl import ProbeStream
    from ..runner import with_probe_warnings
    from ..topology import TopologyError

    place = _topology_place(root) if root is not None else None
    stream = ProbeStream()
    results = []
    for path in files:
        try:
            for res in stream.read(read_lines(path), str(path)):
                if place is not None and res.cpu is not None and res.cluster is None:
                    try:
                        res.set_place(place(res.cpu))
                    except TopologyError as exc:
                        fail_exit(f"{res.extra.get('source', path)}: {exc} in --root {root}")
                results.append(res)
        except OSError as exc:
            fail_exit(f"cannot read {path}: {exc.strerror}")
        except IngestError as exc:
            fail_exit(str(exc))
    if stream.meta is None:
        fail_exit(f"no meta record in {', '.join(map(str, files))}: not platperf-probe output")

    if root is not None:
        from ..measure import describe_machine
        described = describe_machine(str(root), stream.meta)
        fingerprint, findings = described.fingerprint, described.findings
    else:
        from ..fingerprint import from_probe_meta
        fingerprint, findings = from_probe_meta(stream.meta), []
    findings = with_probe_warnings(findings, stream.warnings) if stream.warnings else findings
    where = "" if root is not None else (
        "; no --root: results keep their cpu, without (cluster, core), and the fingerprint holds "
        "only what the probe's meta says")
    note = (note or f"ingested from {', '.join(str(p) for p in files)}") + where
    store_probe_run(db, stream, results, label=label, target=target, source="ingest:probe-jsonl",
                    note=note, fingerprint=fingerprint, findings=findings, meta=stream.meta,
                    place=place, origin=f"{len(files)} file(s)")


def store_probe_run(db, stream, results, *, label, target, source, note, fingerprint, findings,
                    meta, place=None, origin: str):
    """A probe stream (ingest.probe_jsonl.ProbeStream) stored as one run, in one transaction,
    as `platperf run` stores it; ``place`` gives the (package, cluster, core) of histograms and of
    results not yet placed. Prints the run; exit 2 when it is partial or failed (after storing).
    Returns the run id."""
    if place is not None:
        for res in results:
            if res.cpu is not None and res.cluster is None:
                res.set_place(_placed(place, res.cpu))
    store = open_store(db)
    try:
        with store.transaction() as c:
            run_id = store.begin_run(label=label, target=target, source=source, note=note,
                                     fingerprint=fingerprint, findings=findings, meta=meta, conn=c)
            store.add_results(run_id, results, conn=c)
            for rec in stream.histograms:
                package, cluster, core = (None, None, None)
                if place is not None and rec.get("cpu") is not None:
                    package, cluster, core = _placed(place, rec["cpu"])
                store.add_histogram(run_id, rec, cluster=cluster, core=core, package=package, conn=c)
            store.finish_run(run_id, stream.status, stream.error, conn=c)
    except StoreError as exc:
        fail_exit(str(exc))
    except SQLAlchemyError as exc:
        fail_exit(f"database {store.url}: {getattr(exc, 'orig', exc)}; nothing was stored")
    extra = f", {len(stream.histograms)} histograms" if stream.histograms else ""
    print(f"run {run_id} ({label}): {len(results)} results{extra} from {origin} "
          f"[{source}], {stream.status}")
    if stream.status != "complete":
        fail_exit(f"run {run_id} is {stream.status}: {stream.error}")
    return run_id


def _topology_place(root: Path):
    """The (package, cluster, core) of a CPU on the machine whose /sys is under ``root``."""
    from ..topology import TopologyError, read_topology
    if not (root / "sys").is_dir():
        fail_exit(f"--root {root}: no {root / 'sys'}; copy the board's /sys and /proc into it")
    try:
        return read_topology(str(root)).place
    except (TopologyError, OSError, ValueError) as exc:
        fail_exit(f"--root {root}: cannot read the CPU topology ({exc})")


def _instr_setup(files, intervals, root):
    """instr: the module's options (the intervals) and the CPU placement: --root, or this
    machine's own /sys when every file says it was written here."""
    import socket

    from ..ingest import instr
    if intervals is None:
        fail_exit("--intervals is required for instr: a TOML naming each interval END - START "
                  "(example: probe/examples/instr_example.toml)")
    try:
        options = {"intervals": instr.load_intervals(intervals)}
    except IngestError as exc:
        fail_exit(str(exc))
    if root is None:
        here = socket.gethostname()
        elsewhere = [str(p) for p in files if instr.file_host(p) != here]
        if elsewhere:
            fail_exit(f"{elsewhere[0]} was not written on this machine ({here}): give --root DIR "
                      "with copies of that machine's /sys and /proc, for each CPU's (cluster, core)")
        root = Path("/")
    return options, _topology_place(root)


def _placed_or_exit(place, cpu, path, root):
    from ..topology import TopologyError
    try:
        return place(cpu)
    except TopologyError as exc:
        fail_exit(f"{path}: {exc} in {'--root ' + str(root) if root else 'this machine'}")


def _placed(place, cpu):
    from ..topology import TopologyError
    try:
        return place(cpu)
    except TopologyError:
        return None, None, None

