"""``platperf ingest``: import logs from other tools as runs, all or nothing."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from sqlalchemy.exc import SQLAlchemyError

from ..ingest import FORMATS, IngestError, Pool
from ..store import StoreError
from .common import DbOption, app, fail_exit, open_store

_FORMATS_HELP = "; ".join(f"{name}: {fmt.help}" for name, fmt in FORMATS.items())


@app.command(epilog="Examples: platperf ingest tftf-rt-instr juno-1.log juno-2.log --label v2.10 --target juno\n\n"
                    "platperf ingest rst-csv-table am62x-guide.rst --label sdk-09.02  "
                    "(runs sdk-09.02:<board> per column)")
def ingest(
    format: str = typer.Argument(..., metavar="FORMAT", help=f"The files' format. {_FORMATS_HELP}."),
    files: List[Path] = typer.Argument(..., metavar="FILE...", help="Files to import; their samples pool."),
    label: Optional[str] = typer.Option(None, "--label", help="Run label, e.g. the release (v2.10). "
                                        "rst-csv-table: defaults to each column's header."),
    target: str = typer.Option("ingested", "--target", help="Where the figures were measured."),
    note: Optional[str] = typer.Option(None, "--note", help="Free text kept with the run."),
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
    if label is None and not fmt.run_per_column:
        fail_exit(f"--label is required for {format} (e.g. --label v2.10)")

    # results pool as they are read: memory holds the distinct keys, not every line's result
    columns: dict[str, Pool] = {}
    histograms = []
    for path in files:
        try:
            results, file_histograms = fmt.read_file(path)
            for res in results:
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
                for res in results:
                    store.add_result(run_id, res, conn=c)
                for rec in hists:
                    store.add_histogram(run_id, rec, cluster=rec.get("cluster"), core=rec.get("core"), conn=c)
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
