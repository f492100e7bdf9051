"""``platperf ingest``: import logs from other tools as runs, all or nothing."""
from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import List, Optional

import typer

from ..ingest import FORMATS, IngestError, LeftOut
from ..measure.streams import StreamError, read_imported, read_probe_files, store_imported, store_stream
from ..store import StoreError
from .common import DbOption, app, examples, fail_exit, open_store
from .ingest_help import IngestCommand, takes_media
from .measuring import print_stored

MEDIA = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,39}")
MediaOption = typer.Option(None, "--media", metavar="MEDIA",
                           help="systemd-analyze only: what the board booted from (sd, emmc, ospi, usb, usb-ssd, "
                                "nfs...), a parameter of the boot keys [default: not-reported]; sd, emmc, ospi, "
                                "usb and nfs print in the guide's boot tables.")


@app.command(cls=IngestCommand, epilog=examples(
    "platperf ingest tftf-rt-instr juno-1.log juno-2.log --label v2.10 --target juno",
    "platperf ingest tfa-rst psci-performance-juno.rst --target juno",
    "    # runs v2.9, v2.10 ... one per release; then: platperf history --metric powerdown",
    "platperf ingest rst-csv-table am62x-guide.rst",
    "    # one run per column, labelled by its header; --label sdk-09.02 names them sdk-09.02:BOARD",
    "platperf ingest probe-jsonl board.jsonl --label sdk-11.1 --target am62x --root am62x-sys",
    "    # a probe run saved on a board without SSH; am62x-sys holds copies of its sys/ and proc/",
    "platperf ingest instr points.jsonl --intervals probe/examples/instr_example.toml --root juno-sys",
    "    # points of a program built with platperf_instr.h (docs/instr.md)",
    "platperf ingest lava 12345 --identity lab      # a `platperf lava job` run on a LAVA server",
    "platperf ingest lava job-12345.yaml --label sdk-11.1      # or its saved log",
    "platperf ingest systemd-analyze boots.log --label sdk-11.1 --media usb-ssd",
    "    # boots from systemd-analyze outputs or a board's journal, keyed by what it booted from",
    "platperf ingest cyclictest-json --help      # what a format reads, an example, what it refuses"))
def ingest(
    format: str = typer.Argument(..., metavar="FORMAT", help="The files' format: one of the formats listed above."),
    files: List[Path] = typer.Argument(..., metavar="FILE...", help="Files to import; their samples pool."),
    label: Optional[str] = typer.Option(None, "--label", help="Run label, e.g. the release (v2.10). "
                                        "rst-csv-table: defaults to each column's platform (am62xx_sk-fs), and to the "
                                        "first file's name (without .rst) for columns that name none; tfa-rst: "
                                        "each table's release, and --label the release of tables that "
                                        "name none (TF-A's pages of 2023)."),
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
    release: List[str] = typer.Option([], "--release", metavar="WORD=RELEASE",
                                      help="tfa-rst only: the release of a page's `(current release)` / "
                                           "`(previous release)` tables and data folders, e.g. "
                                           "--release current=v2.15 --release previous=v2.14."),
    unit: Optional[str] = typer.Option(None, "--unit", metavar="UNIT",
                                       help="tfa-rst only: the unit the page's figures are in (ns, us, ms) "
                                            "where its titles say another (TF-A's Juno page of late 2025)."),
    media: Optional[str] = MediaOption,
    db: str = DbOption,
):
    """Import results from another tool's output into one run (one per column for rst-csv-table).

    Every file is parsed before anything is stored and everything is stored in one
    transaction: a bad line stops the import with `file:line: what was expected`, exit 2,
    and nothing is recorded. Results of equal key from several files pool as samples; a
    later ingest with the same label adds another run, and compare pools all runs of a label;
    the same figures again (a release the next page prints again, a log given twice) are one
    measurement, read and stored once.
    `platperf ingest FORMAT --help` says what FORMAT reads, with an example, and what it refuses.
    """
    fmt = FORMATS.get(format)
    if fmt is None:
        fail_exit(f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}")
    boot = _media_options(format, fmt, media)
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
        with _said():
            run = read_probe_files(files, root)
            stored = store_stream(open_store(db), run, label=label, target=target,
                                  source="ingest:probe-jsonl", note=note)
        print_stored(stored, f"{len(files)} file(s)", "ingest:probe-jsonl")
        return
    if intervals is not None and not fmt.takes_intervals:
        fail_exit(f"--intervals is for instr only; {format} logs name their own figures")
    if root is not None and not fmt.takes_intervals:
        fail_exit(f"--root is for probe-jsonl and instr only; {format} logs carry no CPU placement to read")
    skipped = LeftOut()
    with _said():
        page = _page_options(format, label, release, unit)
        # tfa-rst: --label is the release of tables that name none; the others keep their own
        runs = read_imported(fmt, files, None if page else label, intervals=intervals, root=root,
                             skipped=skipped, options={**page, **boot})
        source = f"ingest:{format}"
        stored = store_imported(open_store(db), runs, target=target, source=source,
                                note=note or f"ingested from {', '.join(str(p) for p in files)}")
    _said_stored(stored, len(files), source, target)
    for line in skipped.lines():     # what was seen and not taken, said rather than lost
        print(line)


def _said_stored(stored, files: int, source: str, target: str):
    """A line per run stored, or per run whose figures were already stored (one measurement)."""
    for run in stored:
        if run.status == "republished":
            print(f"{run.label}: the same {run.results} figures as run {run.run_id} (target {target}): "
                  f"one measurement, not stored again")
            continue
        extra = f", {run.histograms} histograms" if run.histograms else ""
        print(f"run {run.run_id} ({run.label}): {run.results} results{extra} from {files} file(s) [{source}]")


def _media_options(format: str, fmt, media) -> dict:
    """What the board booted from (--media), for the formats whose keys name it."""
    if media is None:
        return {}
    if not takes_media(fmt):
        fail_exit(f"--media is for systemd-analyze only; {format} figures are not boots")
    if not MEDIA.fullmatch(media):
        fail_exit(f"--media {media!r}: expected one word naming the boot media, e.g. sd, emmc, usb-ssd, nfs")
    return {"media": media.lower()}


def _page_options(format: str, label, release: list[str], unit) -> dict:
    """tfa-rst's reading options: the release of tables that name none (--label), of its
    current/previous ones (--release), the unit its figures are in (--unit)."""
    if format != "tfa-rst":
        if release or unit:
            fail_exit(f"--release and --unit are for tfa-rst only; {format} files name their own figures")
        return {}
    releases = {}
    for item in release:
        word, sep, name = item.partition("=")
        if not sep or not word.strip() or not name.strip():
            fail_exit(f"--release {item!r}: expected WORD=RELEASE, e.g. --release current=v2.15")
        releases[word.strip()] = name.strip()
    return {"label": label, "releases": releases, "unit": unit}


@contextlib.contextmanager
def _said():
    """What the library refuses, said in one line (exit 2)."""
    try:
        yield
    except OSError as exc:
        fail_exit(f"cannot read {exc.filename}: {exc.strerror}")
    except (IngestError, StreamError, StoreError) as exc:
        fail_exit(str(exc))
