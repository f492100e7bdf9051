"""Old runs' samples out of the database, their summaries kept (``platperf archive``).

A lab's year is 35 million results, and a result's samples with what the probe wrote beside
them are four fifths of its bytes (docs/lab.md). Runs older than a date can give them up:

* with a directory, each run's records are first written there as the probe's JSON Lines
  (docs/results-format.md), gzipped, one file per run (``run-00123.jsonl.gz``): a ``meta``
  record (the run's own, with the run's row under ``archived_run``), every ``result`` with its
  samples and the probe's fields, every ``histogram`` as it was recorded, and an ``end`` with
  the run's status and counts. The file is written, flushed to disk and read back (its lines
  counted) before anything is deleted. ``gunzip -k`` it and ``platperf ingest probe-jsonl``
  brings the run back with every sample;
* without one (``drop``), the samples are deleted, and the run says so.

Then, one transaction a run, its ``result_samples`` and ``histograms`` rows go and
``runs.archived`` says when and where to. The summaries stay: ``runs``, ``show`` and
``history`` read the run as before; ``compare`` and ``report``, which need samples, refuse it
in one line that says where they are. Nothing else is touched; a running run never.
"""
from __future__ import annotations

import gzip
import json
import os
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import delete, select, update

from .results_io import read_results
from .schema import histograms, result_samples, runs, summaries


@dataclass
class Archived:
    run_id: int
    results: int
    histograms: int
    path: Path | None      # None: the samples were dropped


def candidates(conn, before: str, **filters) -> list[dict]:
    """The runs started before ``before`` that still hold their samples, oldest first (never a
    running one)."""
    from .queries import run_filters
    q = (select(runs.c.id, runs.c.label, runs.c.target, runs.c.started_at, runs.c.status)
         .where(runs.c.started_at < before, runs.c.archived.is_(None), runs.c.status != "running",
                *run_filters(conn.dialect.name, **filters))
         .order_by(runs.c.id))
    return [dict(r._mapping) for r in conn.execute(q)]


def archive_run(store, run_id: int, out: Path | None, when: str) -> Archived:
    """Run ``run_id``'s samples and histograms written to ``out`` (a directory; None: dropped),
    then deleted from the database, its summaries kept."""
    with store.engine.connect() as c:
        run = dict(c.execute(select(runs).where(runs.c.id == run_id)).one()._mapping)
        results = read_results(c, run_id, with_samples=True, with_extra=True)
        hists = [r.record for r in c.execute(select(histograms.c.record).where(histograms.c.run_id == run_id)
                                               .order_by(histograms.c.id))]
    path = None
    if out is not None:
        path = out / f"run-{run_id:05d}.jsonl.gz"
        lines = _write(path, run, results, hists)
        with gzip.open(path, "rt", encoding="utf-8") as f:
            if sum(1 for _ in f) != lines:
                raise OSError(f"{path} reads back short; nothing of run {run_id} was deleted")
    said = f"archived {when} to {path}" if path else f"dropped {when} (platperf archive --drop-samples)"
    with store.engine.begin() as c:
        ids = select(summaries.c.id).where(summaries.c.run_id == run_id).scalar_subquery()
        c.execute(delete(result_samples).where(result_samples.c.result_id.in_(ids)))
        c.execute(delete(histograms).where(histograms.c.run_id == run_id))
        c.execute(update(runs).where(runs.c.id == run_id).values(archived=said))
    return Archived(run_id, len(results), len(hists), path)


def _write(path: Path, run: dict, results, hists: list[dict]) -> int:
    """The run as probe JSON Lines, gzipped, on disk before this returns; the lines written."""
    row = {k: run[k] for k in ("id", "label", "target", "suite", "source", "status", "started_at",
                               "finished_at", "note", "error")}
    meta = dict(run["meta"]) if isinstance(run["meta"], dict) else {}
    meta.update(type="meta", schema=meta.get("schema", 1), archived_run=row)
    records = [meta]
    for res in results:
        if not res.samples:           # archived before (cannot be: such runs are not chosen)
            continue
        rec = {"type": "result", "benchmark": res.benchmark, "params": res.params, "cpu": res.cpu,
               "mode": res.mode, "package": res.package, "cluster": res.cluster, "core": res.core,
               "metric": res.metric, "unit": res.unit, "direction": res.direction, "samples": res.samples}
        records.append({**{k: v for k, v in rec.items() if v is not None}, **(res.extra or {})})
    records += hists
    records.append({"type": "end", "status": run["status"] if run["status"] in ("complete", "partial", "failed")
                    else "partial", "results": len(results)})
    spare = path.with_name(path.name + ".part")
    with open(spare, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb") as f:
            for rec in records:
                f.write((json.dumps(rec, separators=(",", ":")) + "\n").encode())
        raw.flush()
        os.fsync(raw.fileno())
    os.replace(spare, path)
    return len(records)
