"""A release printed again by the next page is one measurement, not two (issue 38: TF-A's pages
print each release as the current one of a page and the previous one of the next).

Juno's pages of 2024-11 (v2.11, v2.12), 2025-05 (v2.12, v2.13) and 2025-11 (v2.13, v2.14, in ns
under µs titles): the 2025-05 page prints v2.12's 96 figures exactly as 2024-11 did, and 2025-11
prints v2.13's as 2025-05 did (in ns: 243020 ns is 243.02 µs). Before, v2.12 and v2.13 became two
identical runs each, and `compare v2.12 v2.13` decided 85 of 96 keys (47 regressed, 38 improved)
on zero spread; TF-A's 2023-05 and 2023-11 pages print two different v2.9 (remeasured), which
stay two runs."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from platperf.cli import app
from platperf.measure.republished import figures
from platperf.records import Result
from platperf.store import Store

from corpus import entry

PAGES = [("juno-2024-11.rst", []), ("juno-2025-05.rst", []), ("juno-2025-11.rst", ["--unit", "ns"])]


def ingest(db, *args) -> str:
    out = CliRunner().invoke(app, ["ingest", "tfa-rst", *args, "--db", str(db)])
    assert out.exit_code == 0, out.output
    return out.output


def labels(db) -> list[str]:
    return [r["label"] for r in Store(str(db)).runs()]


def test_pages_imported_one_by_one_store_each_release_once(tmp_path):
    db = tmp_path / "tfa.db"
    said = [ingest(db, str(entry("tfa", page).local), *opts) for page, opts in PAGES]
    assert labels(db) == ["historic", "v2.11", "v2.12", "v2.13", "v2.14"]
    assert "v2.12: the same 96 figures as run 3 (target ingested): one measurement, not stored again" \
        in said[1]
    assert "v2.13: the same 96 figures as run 4 (target ingested)" in said[2]
    assert said[2].count("not stored again") == 2 and "run 5 (v2.14): 96 results" in said[2]
    # one measurement a side: nothing decided, as with one page
    out = CliRunner().invoke(app, ["compare", "v2.12", "v2.13", "--db", str(db), "--json"])
    doc = json.loads(out.output)
    assert (doc["regressions"], doc["improvements"], doc["unconfirmed"]) == (0, 0, 85)


def test_pages_in_one_import_read_a_release_once(tmp_path):
    db = tmp_path / "tfa.db"
    said = ingest(db, *(str(entry("tfa", page).local) for page, _ in PAGES[:2]))
    assert "juno-2025-05.rst: v2.12: the same 96 figures as " in said and "one measurement, read once" in said
    assert labels(db) == ["historic", "v2.11", "v2.12", "v2.13"]
    store = Store(str(db))
    v212 = next(r["id"] for r in store.runs() if r["label"] == "v2.12")
    results = store.results(v212)
    assert len(results) == 96 and {len(r.samples) for r in results} == {1}


def test_a_release_measured_again_is_a_second_run(tmp_path):
    """TF-A's 2023-05 and 2023-11 pages print different v2.9 figures: two runs."""
    db = tmp_path / "tfa.db"
    ingest(db, str(entry("tfa", "juno-2023-05.rst").local), "--label", "v2.9")
    said = ingest(db, str(entry("tfa", "juno-2023-11.rst").local))
    assert "(v2.9): 96 results" in said and "v2.9: the same" not in said
    assert labels(db).count("v2.9") == 2


def test_one_shared_figure_is_not_a_republication():
    def res(value, core):
        return Result(benchmark="os-mmap", params={}, metric="latency", unit="us", direction="lower",
                      samples=[value], cpu=core, core=core)
    assert figures([res(15.0, 0), res(12.0, 1)]) != figures([res(15.0, 0), res(13.0, 1)])
    assert figures([res(15.0, 0), res(12.0, 1)]) == figures([res(12.0, 1), res(15.0, 0)])
    # the same printed figure read from ns: equal
    assert figures([res(243.02, 0)]) == figures([res(243020 / 1000 * (1 + 1e-16), 0)])
    assert figures([res(243.02, 0)]) != figures([res(243.03, 0)])
