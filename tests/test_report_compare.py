"""The report's comparison section and the intervals of its exports (issue 10): a report over
two labels of one machine compares the last with the one before, runs as the unit; every
exported median carries its 95% bootstrap interval."""
from __future__ import annotations

import csv
import io
import json

from test_report_store import JUNO_FP, write_run

from platperf.report import render
from platperf.report.data import load
from platperf.report.sections import build_document
from platperf.store import Store


def sections_of(doc):
    return {s.title: s for s in doc.sections}


def test_a_slower_release_over_three_runs_a_side_is_a_regression_in_the_report(tmp_path):
    store = Store(str(tmp_path / "r.db"))
    for scale in (1.0, 1.001, 0.999):
        write_run(store, "v2.11", scale=scale, modes=("serial",))
    for scale in (1.1, 1.101, 1.099):
        write_run(store, "v2.12", scale=scale, modes=("serial",))
    doc = build_document(load(store, ["v2.11", "v2.12"]))
    section = sections_of(doc)["Compared with v2.11"]
    assert "240 regressed" in section.text and "0 undecided" in section.text
    (table,) = section.tables
    verdict = table.headers.index("Verdict")
    assert table.rows and all(row[verdict] == "REGRESSED" for row in table.rows)
    assert "smallest change detected" in section.text


def test_one_run_a_side_gives_unconfirmed_changes_and_different_boards_no_section(tmp_path):
    store = Store(str(tmp_path / "r.db"))
    write_run(store, "a", modes=("serial",))
    write_run(store, "b", scale=1.1, modes=("serial",))
    section = sections_of(build_document(load(store, ["a", "b"])))["Compared with a"]
    assert "0 regressed" in section.text and "240 undecided (240 unconfirmed changes" in section.text
    (table,) = section.tables
    assert all(row[table.headers.index("Verdict")].startswith("undecided (unconfirmed")
               for row in table.rows)
    other = {**JUNO_FP, "cpu": {**JUNO_FP["cpu"], "model": "Cortex-A72 (another board)"}}
    write_run(store, "c", fingerprint=other, modes=("serial",))
    assert not any(s.title.startswith("Compared") for s in build_document(load(store, ["a", "c"])).sections)


def test_exports_carry_each_medians_interval(tmp_path):
    store = Store(str(tmp_path / "r.db"))
    write_run(store, "v1", modes=("serial",), samples=7)
    doc = build_document(load(store, ["v1"]))
    rows = json.loads(render(doc, "json"))["results"]
    assert rows and all(r["median_ci_low"] <= r["median"] <= r["median_ci_high"] for r in rows)
    # samples 0.1% apart: 7 of them span 0.6%, under the 2% tolerance
    assert not any(r["unstable"] for r in rows)
    table = list(csv.DictReader(io.StringIO(render(doc, "csv"))))
    assert {"median_ci_low", "median_ci_high", "unstable"} <= set(table[0])
