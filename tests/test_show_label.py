"""`platperf show LABEL` means what a label means to report and compare: all its runs, pooled;
`show ID` is that run alone."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from platperf.cli import app
from platperf.store import Store
from test_report_store import write_run

WARN = {"level": "warn", "code": "sample-preempted", "message": "1 of 5 samples are kept although preempted",
        "source": "probe", "cpu": 0}


def show(db, *args):
    out = CliRunner().invoke(app, ["show", *args, "--db", db], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    return out.output


def test_a_label_pools_its_runs_as_report_and_compare_do(tmp_path):
    db = str(tmp_path / "r.db")
    store = Store(db)
    first = write_run(store, "v2.12", modes=("serial",), findings=[WARN])
    write_run(store, "v2.12", scale=1.1, modes=("serial",),
              findings=[{**WARN, "message": "3 of 5 samples are kept although preempted"}])
    write_run(store, "v2.12", scale=1.3, modes=("serial",), findings=[WARN])
    pooled = json.loads(show(db, "v2.12", "--json"))
    assert [r["id"] for r in pooled["runs"]] == [first, first + 1, first + 2]
    one = json.loads(show(db, str(first), "--json"))
    assert [r["id"] for r in one["runs"]] == [first]
    assert len(pooled["results"]) == len(one["results"])            # one line per key and CPU
    by_key = {(r["benchmark"], json.dumps(r["params"]), r["cpu"], r["metric"]): r for r in one["results"]}
    for r in pooled["results"]:
        alone = by_key[(r["benchmark"], json.dumps(r["params"]), r["cpu"], r["metric"])]
        assert r["runs"] == 3 and r["n"] == 3 * alone["n"]
        assert r["min"] <= alone["min"] <= alone["max"] <= r["max"] and (r["min"], r["max"]) != (alone["min"], alone["max"])
    # the median of the run medians: the middle run (scale 1.1) for latency
    lat = next(r for r in pooled["results"] if r["metric"] == "latency")
    lat1 = next(r for r in one["results"] if r["metric"] == "latency" and r["params"] == lat["params"]
                and r["cpu"] == lat["cpu"])
    assert abs(lat["median"] - 1.1 * lat1["median"]) < 1e-9 * lat["median"]
    # each warning as recorded, with its run; the table prints them as one line
    assert [f["run"] for f in pooled["findings"]] == [first, first + 1, first + 2]
    text = show(db, "v2.12")
    assert text.count("sample-preempted") == 1 and "3 sample-preempted warnings (CPU 0)" in text
    assert f"runs: {first}, {first + 1}, {first + 2}" in text and "status: 3 complete" in text
    assert "over 3 runs" in text
