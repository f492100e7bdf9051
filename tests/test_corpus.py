"""The corpus of published files: every file indexed with its provenance, and the corpus as
large and as varied as issue 34 asks (40 files, 12 sources, 8 formats)."""
from __future__ import annotations

import re

from platperf.ingest import FORMATS

from corpus import CORPUS, entries

DATA = {"index.toml", "README.md"}


def test_every_file_is_indexed_once_with_its_provenance():
    listed = entries()
    names = [(e.folder, e.file) for e in listed]
    assert len(names) == len(set(names)), "a file indexed twice"
    on_disk = {(p.relative_to(CORPUS).parts[0], str(p.relative_to(CORPUS / p.relative_to(CORPUS).parts[0])))
               for p in CORPUS.glob("*/**/*") if p.is_file() and p.name not in DATA}
    beside = {(e.folder, str(p.relative_to(CORPUS / e.folder))) for e in listed for folder in e.beside
              for p in (CORPUS / e.folder / folder).rglob("*") if p.is_file()}
    assert all(list((CORPUS / e.folder / folder).rglob("*")) for e in listed for folder in e.beside)
    assert on_disk - beside == set(names), \
        f"not indexed: {on_disk - beside - set(names)}; indexed, absent: {set(names) - on_disk}"
    for e in listed:
        assert e.format in FORMATS, f"{e.folder}/{e.file}: format {e.format!r}"
        assert re.fullmatch(r"[0-9a-f]{40}", e.commit), f"{e.folder}/{e.file}: commit {e.commit!r}"
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", e.repo), f"{e.folder}/{e.file}: repo {e.repo!r}"
        assert e.path and e.form and e.kind and e.kept, f"{e.folder}/{e.file}: path, form, kind and kept are required"


def test_the_corpus_is_as_large_as_asked():
    listed = entries()
    assert len(listed) >= 40, f"{len(listed)} files"
    assert len({e.repo for e in listed}) >= 12, f"sources: {sorted({e.repo for e in listed})}"
    assert len({e.kind for e in listed}) >= 8, f"kinds: {sorted({e.kind for e in listed})}"
