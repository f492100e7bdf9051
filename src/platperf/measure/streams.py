"""Runs that were not measured here, stored as measured runs are.

A probe stream that came another way (``ingest probe-jsonl``: files saved on a board; ``ingest
lava`` and ``lava submit --wait``: a LAVA job's log) is read into a :class:`StreamRun` and stored
by :func:`store_stream` as one run, in one transaction, as ``platperf run`` stores it: described
by the board's /sys and /proc when they came with it (else the fingerprint holds what the
probe's meta says), each result and histogram on its (package, cluster, core), the probe's warnings among
the findings. Other tools' logs (``platperf ingest FORMAT``) are read by :func:`read_imported`
and stored by :func:`store_imported`: one run, or one per published column.

Everything is read and checked before the store is opened, so that bad input stores nothing.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from ..events import claims
from ..ingest import IngestError, Note, Pool, Skipped, Words, plausible, read_lines
from ..ingest.probe_jsonl import ProbeStream
from ..runner.sink import with_probe_warnings
from . import republished
from .description import Description, describe_job_board, describe_machine


class StreamError(ValueError):
    """Input a person must fix (a --root, a missing meta record, a label): one line, exit 2."""


@dataclass
class StreamRun:
    """A probe stream to store as one run."""

    stream: ProbeStream
    results: list = field(default_factory=list)
    description: Description | None = None     # when the board's /sys and /proc came with it
    note: str = ""              # the run's note unless the command gives one
    caveat: str = ""            # what the run lacks, added to its note
    meta: dict | None = None    # the run's meta, when it is more than the stream's
    suite: str | None = None    # the suite the stream ran, when it says


@dataclass
class StoredRun:
    run_id: int
    label: str | None
    results: int
    histograms: int
    status: str = "complete"
    error: str | None = None


# -- probe-jsonl ------------------------------------------------------------------------
def read_probe_files(files: list[Path], root: Path | None = None) -> StreamRun:
    """The probe's JSON Lines in ``files``, one run; with ``root`` (a copy of the board's /sys
    and /proc) the board described and each result placed. IngestError for a bad line,
    OSError for a file that cannot be read, StreamError for a bad --root."""
    if root is not None and not (root / "sys").is_dir():
        raise StreamError(f"--root {root}: no {root / 'sys'}; copy the board's /sys and /proc into it")
    stream, read = ProbeStream(), []
    for path in files:
        try:
            read += [(res, path) for res in stream.read(read_lines(path), str(path))]
        except OSError as exc:
            exc.filename = exc.filename or str(path)
            raise
    if stream.meta is None:
        raise StreamError(f"no meta record in {', '.join(map(str, files))}: not platperf-probe output")
    run = StreamRun(stream, [res for res, _ in read],
                    note=f"ingested from {', '.join(str(p) for p in files)}")
    if root is None:
        run.caveat = ("; no --root: results keep their cpu, without (cluster, core), and the "
                      "fingerprint holds only what the probe's meta says")
        return run
    run.description = _described(root, stream.meta)
    for res, path in read:
        if res.cpu is not None and res.cluster is None:
            res.set_place(_place_or_fail(run.description, res.cpu,
                                         res.extra.get("source", path), f"--root {root}"))
    return run


def _described(root: Path, meta: dict | None) -> Description:
    from ..topology import TopologyError
    try:
        return describe_machine(str(root), meta)
    except (TopologyError, OSError, ValueError) as exc:
        raise StreamError(f"--root {root}: cannot read the CPU topology ({exc})") from None


def _place_or_fail(description: Description, cpu: int, where, machine: str) -> tuple:
    from ..topology import TopologyError
    try:
        return description.topology.place(cpu)
    except TopologyError as exc:
        raise StreamError(f"{where}: {exc} in {machine}") from None


# -- a LAVA job's log -------------------------------------------------------------------
def read_lava_log(lines, name: str, *, lava: dict, lava_error: str | None = None,
                  origin: str) -> StreamRun:
    """The run of one platperf LAVA job's log, described by the board snapshot in it; ``lava``
    (job id, device, URL) is kept in the run's meta. IngestError (with LAVA's own error when
    there is one) for a log that holds no run."""
    from ..ingest.lava import read_run
    try:
        job = read_run(lines, f"{name} [probe output]")
    except IngestError as exc:
        if lava_error:
            raise IngestError(exc.where, f"{exc.message} (LAVA: {lava_error})") from None
        raise
    log, stream = job.log, job.stream
    lava = {**lava, "job_id": lava.get("job_id") or (int(log.job_id) if log.job_id else None)}
    if log.snapshot_error:        # a snapshot the log announced but that cannot be read: suspect
        stream.unfinished.append(log.snapshot_error)
    if stream.status != "complete" and (lava_error or log.job_error):
        # LAVA's own words first: they say why the run is short (a timeout, a lost board); a
        # saved log has them in the record of its `job` result
        stream.unfinished.insert(0, f"LAVA job {lava['job_id']}: {lava_error}" if lava_error
                                 else f"LAVA: {log.job_error}")
    described, why = describe_job_board(job)
    note = f"LAVA job {lava['job_id']}" if lava.get("job_id") else f"LAVA log {origin}"
    if lava.get("url"):
        note += f" {lava['url']}"
    return StreamRun(stream, job.results, described, note=note,
                     caveat="" if described else f"; {why}: results keep their cpu, without (cluster, core)",
                     meta={**stream.meta, "lava": lava}, suite=log.suite)


# -- storing ----------------------------------------------------------------------------
def store_stream(store, run: StreamRun, *, label: str | None, target: str, source: str,
                 note: str | None = None) -> StoredRun:
    """``run`` stored as one run, in one transaction; StoreError when the store fails (then
    nothing was stored). A partial or failed stream is stored with its status and error."""
    from ..fingerprint import from_probe_meta
    d, stream = run.description, run.stream
    for res in run.results if d is not None else ():
        if res.cpu is not None and res.cluster is None:
            res.set_place(d.place(res.cpu))
    with _transaction(store) as c:
        run_id = store.begin_run(
            label=label, target=target, suite=run.suite, source=source, note=(note or run.note) + run.caveat,
            fingerprint=d.fingerprint if d else from_probe_meta(stream.meta),
            findings=with_probe_warnings(d.findings if d else [], stream.warnings)
            + claims.check(stream.counted.counters, d.fingerprint if d else None),
            meta=run.meta or stream.meta, conn=c)
        store.add_results(run_id, run.results, conn=c)
        for rec in stream.histograms:
            package, cluster, core = d.place(rec["cpu"]) if d and rec.get("cpu") is not None else (None, None, None)
            store.add_histogram(run_id, rec, cluster=cluster, core=core, package=package, conn=c)
        store.finish_run(run_id, stream.status, stream.error, conn=c)
    return StoredRun(run_id, label, len(run.results), len(stream.histograms), stream.status, stream.error)


@contextlib.contextmanager
def _transaction(store):
    """The store's one transaction, a database error said as StoreError (nothing stored)."""
    from sqlalchemy.exc import SQLAlchemyError

    from ..store import StoreError
    try:
        with store.transaction() as c:
            yield c
    except SQLAlchemyError as exc:   # the transaction rolled back: nothing was stored
        raise StoreError(f"database {store.url}: {getattr(exc, 'orig', exc)}; nothing was stored") from None


# -- other tools' logs ------------------------------------------------------------------
def read_imported(fmt, files: list[Path], label: str | None, *, intervals: Path | None = None,
                  root: Path | None = None, skipped: list | None = None, options: dict | None = None) -> dict:
    """{run label: (pooled results, histograms, meta)} of ``files`` in format ``fmt``
    (ingest.FORMATS): one run, or one per published column (in the order the format gives
    them). Results pool as they are read: memory holds the distinct keys, not every line's
    result. The tables the format left out (ingest.Skipped) go to ``skipped``; the cells a
    page prints as words (ingest.Words) to the meta of their column's run. IngestError,
    OSError (with the file in ``filename``) or StreamError for what is wrong. ``options`` go to
    the format's reading (tfa-rst: label, releases, unit). A figure implausible for what it
    measures in the unit it was read in refuses the import (ingest.plausible)."""
    options, describe = (dict(options or {}), None)
    if fmt.takes_intervals:
        more, describe = _instr_setup(files, intervals, root)
        options.update(more)
    columns: dict[str, Pool] = {}
    histograms = []
    words: dict[str, dict] = {}         # column -> {cell: what the page printed in it}
    said = _Said(skipped, words)
    units = plausible.Check()           # every figure against the sizes it can have, as read
    seen = republished.Seen()
    for path in files:
        # several files: each pooled on its own first, so a release another file printed is read once
        file_columns: dict[str, Pool] = {} if len(files) > 1 else columns
        try:
            results, file_histograms = fmt.read_file(path, said, **options)
            for res in results:
                if describe is not None and res.cpu is not None:
                    machine = f"--root {root}" if root else "this machine"
                    res.set_place(_place_or_fail(describe, res.cpu, path, machine))
                column = res.extra.get("column", "") if fmt.run_per_column else ""
                units.see(res)
                file_columns.setdefault(column, Pool()).add(res)
        except OSError as exc:
            exc.filename = exc.filename or str(path)
            raise
        for column, pool in (file_columns.items() if file_columns is not columns else ()):
            pooled = pool.results
            before = seen.again(column, pooled, path)
            if before is not None:
                said.append(Note(str(path), f"{column or 'its figures'}: the same {len(pooled)} figures as "
                                            f"{before}: one measurement, read once"))
                continue
            into = columns.setdefault(column, Pool())
            for res in pooled:
                into.add(res, per_sample=True)
        histograms += file_histograms
    words = {column: list(cells.values()) for column, cells in words.items()}
    if fmt.run_per_column and words.get("") and "" not in columns and columns:
        # the page's own words and no figures of its own (TF-A's board table): with every run
        shared = words.pop("")
        for column in columns:
            words.setdefault(column, []).extend(shared)
    for column in words:                # a column of words alone is still a run of the page
        columns.setdefault(column if fmt.run_per_column else "", Pool())
    columns = dict(sorted(columns.items(), key=lambda kv: fmt.column_order(kv[0])))   # stable
    units.verdict(fmt.unit_remedy)
    return _runs(columns, histograms, words, label, fmt.run_per_column, files[0].stem)


class _Said:
    """Where an importer's words go: tables left out to ``skipped``, cells of words by column."""

    def __init__(self, skipped, words: dict):
        self.skipped, self.words = skipped, words

    def append(self, item):
        if isinstance(item, Words):     # a cell printed again (a page repeated) is kept once
            cell = (item.title, item.section, item.row, item.header)
            self.words.setdefault(item.column, {}).setdefault(cell, item.as_dict())
        elif isinstance(item, Skipped) and self.skipped is not None:
            self.skipped.append(item)


def _runs(columns: dict, histograms, words: dict, label, run_per_column, document: str) -> dict:
    """{run label: (pooled results, histograms, meta)}; one run unless the format has
    columns. Without a label a column's run is named by its platform, and the columns that
    name none (the document's own: a power table) by the ``document``'s name."""
    def meta(column):
        return {"published": words[column]} if words.get(column) else None
    if not run_per_column:
        return {label: ((columns[""].results if columns else []), histograms,
                        meta("") if len(words) <= 1 else {"published": sum(words.values(), [])})}
    if label is None:
        return {column or document: (into.results, [], meta(column)) for column, into in columns.items()}
    if len(columns) == 1:
        column, into = next(iter(columns.items()))
        return {label: (into.results, [], meta(column))}
    return {f"{label}:{column}" if column else label: (into.results, [], meta(column))
            for column, into in columns.items()}


def _instr_setup(files, intervals, root):
    """instr: the module's options (the intervals) and the machine that places each CPU:
    --root, or this machine's own /sys when every file says it was written here."""
    import socket

    from ..ingest import instr
    if intervals is None:
        raise StreamError("--intervals is required for instr: a TOML naming each interval END - START "
                          "(example: probe/examples/instr_example.toml)")
    options = {"intervals": instr.load_intervals(intervals)}
    if root is None:
        here = socket.gethostname()
        elsewhere = [str(p) for p in files if instr.file_host(p) != here]
        if elsewhere:
            raise StreamError(f"{elsewhere[0]} was not written on this machine ({here}): give --root DIR "
                              "with copies of that machine's /sys and /proc, for each CPU's (cluster, core)")
    where = root or Path("/")
    if not (where / "sys").is_dir():
        raise StreamError(f"--root {where}: no {where / 'sys'}; copy the board's /sys and /proc into it")
    return options, _topology_only(where)


def _topology_only(root: Path):
    """The topology of the machine under ``root``, as a description that places CPUs."""
    from ..topology import TopologyError, read_topology
    try:
        return Description(None, {}, [], read_topology(str(root)))
    except (TopologyError, OSError, ValueError) as exc:
        raise StreamError(f"--root {root}: cannot read the CPU topology ({exc})") from None


# Results built into rows at once when an import is stored: the rows of a 360,000-key log
# would hold as much memory again as its pool.
_INSERT_CHUNK = 5_000


def _chunks(items, size: int):
    chunk = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def store_imported(store, runs: dict, *, target: str, source: str, note: str) -> list[StoredRun]:
    """The runs of :func:`read_imported`, all in one transaction (StoreError: none stored)."""
    stored = []
    # the same release printed again by another page: stored once (looked up before the transaction)
    again = {run_label: republished.stored_before(store, run_label, target, results)
             for run_label, (results, hists, _meta) in runs.items() if not hists}
    with _transaction(store) as c:
        for run_label, (results, hists, meta) in runs.items():
            if again.get(run_label) is not None:
                stored.append(StoredRun(again[run_label], run_label, len(results), 0, status="republished"))
                continue
            run_id = store.begin_run(label=run_label, target=target, source=source, note=note, meta=meta,
                                     conn=c)
            for chunk in _chunks(results, _INSERT_CHUNK):     # a pool read back from disk: in pieces
                store.add_results(run_id, chunk, conn=c)
            for rec in hists:
                store.add_histogram(run_id, rec, cluster=rec.get("cluster"), core=rec.get("core"),
                                    package=rec.get("package"), conn=c)
            store.finish_run(run_id, "complete", conn=c)
            stored.append(StoredRun(run_id, run_label, len(results), len(hists)))
    return stored
