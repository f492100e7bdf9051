"""The corpus of published files (tests/fixtures/corpus): their index, and their figures read
as ``platperf ingest`` reads them.

:func:`imported` goes through the CLI's own reading (measure.streams.read_imported: every
file pooled by key, one run a published column), so a test that states a file's figures one
by one sees what a user would store: a figure dropped, two pooled into one (n > 1), a key
re-made or a number misread each fail it.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from platperf.ingest import FORMATS
from platperf.measure.streams import read_imported
from platperf.records import Result
from platperf.toml import loads

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"
FIELDS = ("file", "format", "form", "kind", "repo", "path", "commit", "kept", "beside")


@dataclass(frozen=True)
class Entry:
    folder: str
    file: str
    format: str
    form: str
    kind: str               # the family of published files it belongs to (issue 34: 8 of them at least)
    repo: str
    path: str
    commit: str
    kept: str
    beside: tuple = ()      # folders of files the page reads beside it (TF-A's data/), same commit

    @property
    def local(self) -> Path:
        return CORPUS / self.folder / self.file


def entries() -> list[Entry]:
    """Every file of every folder's index.toml, in the index's order."""
    out = []
    for index in sorted(CORPUS.glob("*/index.toml")):
        for row in loads(index.read_text(encoding="utf-8")).get("file", []):
            fields = {k: row.get(k, "") for k in FIELDS}
            fields["beside"] = tuple(row.get("beside", ()))
            out.append(Entry(index.parent.name, **fields))
    return out


def entry(folder: str, file: str) -> Entry:
    return next(e for e in entries() if e.folder == folder and e.file == file)


def imported(folder: str, file: str, label: str | None = "corpus", **options) -> dict[str, list[Result]]:
    """{run label: results} of one corpus file, as ``platperf ingest FORMAT FILE`` reads it
    (``label`` None: as the format names its runs; ``options``: read_imported's)."""
    e = entry(folder, file)
    fmt = FORMATS[e.format]
    runs = read_imported(fmt, [e.local], label, **options)
    return {name: results for name, (results, _hists, _meta) in runs.items()}


def said(folder: str, file: str, label: str | None = "corpus", **options) -> list:
    """What the import of one corpus file says besides its results (ingest.Skipped, Note)."""
    e = entry(folder, file)
    out: list = []
    read_imported(FORMATS[e.format], [e.local], label, skipped=out, **options)
    return out


def by_key(results: list[Result]) -> dict[tuple, Result]:
    """Results by key; a key twice fails (two figures re-keyed into one)."""
    out = {}
    for res in results:
        assert res.key not in out, f"two results of one key {res.key}"
        out[res.key] = res
    return out


def find(results: list[Result], benchmark: str, metric: str, **where) -> Result:
    """The one result of ``benchmark`` and ``metric`` whose params, cluster, core or cpu are
    ``where`` (params compared as written: ``size=16777216``)."""
    hits = [r for r in results if r.benchmark == benchmark and r.metric == metric
            and all((r.params.get(k) if k in r.params else getattr(r, k, None)) == v for k, v in where.items())]
    assert len(hits) == 1, f"{len(hits)} results {benchmark} {metric} {where}: " \
                           f"{[(r.params, r.cluster, r.core) for r in results if r.benchmark == benchmark][:8]}"
    return hits[0]
