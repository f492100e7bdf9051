"""`platperf ingest`: everything parsed first, stored in one transaction, errors as file:line."""
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from platperf.cli import app
from platperf.store import Store

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
TFTF = FIXTURES / "tftf"


def platperf(*args):
    """Run `platperf ingest ARGS`; while ingest is the only command typer has no subcommand level."""
    command = typer.main.get_command(app)
    argv = ["ingest", *args] if hasattr(command, "commands") else list(args)
    return CliRunner().invoke(app, argv)


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "results.db")


def test_several_logs_become_one_run_with_pooled_samples(db):
    """Two measurements (the v2.9 and v2.10 logs, read as one label) pool as two samples a key."""
    out = platperf("tftf-rt-instr", str(TFTF / "v2.9.log"), str(TFTF / "v2.10.log"),
                   "--label", "v2.10", "--target", "juno", "--db", db)
    assert out.exit_code == 0, out.output
    assert "96 results from 2 file(s)" in out.output
    store = Store(db)
    (run,) = store.runs()
    assert (run["label"], run["target"], run["source"], run["status"]) == \
        ("v2.10", "juno", "ingest:tftf-rt-instr", "complete")
    results = store.results(run["id"])
    assert len(results) == 96
    assert all(len(r.samples) == 2 for r in results) and any(r.samples[0] != r.samples[1] for r in results)


def test_the_same_figures_in_two_logs_are_read_once(db):
    """v2.10-reordered.log holds v2.10.log's figures in another order: one measurement."""
    out = platperf("tftf-rt-instr", str(TFTF / "v2.10.log"), str(TFTF / "v2.10-reordered.log"),
                   "--label", "v2.10", "--target", "juno", "--db", db)
    assert out.exit_code == 0, out.output
    assert "v2.10-reordered.log: its figures: the same 96 figures as " in out.output
    (run,) = Store(db).runs()
    assert {len(r.samples) for r in Store(db).results(run["id"])} == {1}


def test_same_label_again_adds_a_run(db):
    for log in ("v2.9.log", "v2.10.log"):
        assert platperf("tftf-rt-instr", str(TFTF / log), "--label", "v2.9", "--db", db).exit_code == 0
    assert [r["label"] for r in Store(db).runs_for("v2.9")] == ["v2.9", "v2.9"]
    # the same log again is not a third measurement
    out = platperf("tftf-rt-instr", str(TFTF / "v2.9.log"), "--label", "v2.9", "--db", db)
    assert out.exit_code == 0 and "v2.9: the same 96 figures as run 1 (target ingested)" in out.output
    assert len(Store(db).runs_for("v2.9")) == 2


def test_one_bad_file_stores_nothing(db, tmp_path):
    bad = tmp_path / "bad.log"
    bad.write_text("NOTICE:  Booting\n<RT_INSTR:test_rt_instr_cpu_off_serial\t0\t0\t12\t13/>\n")
    platperf("tftf-rt-instr", str(TFTF / "v2.9.log"), "--label", "v2.9", "--db", db)
    out = platperf("tftf-rt-instr", str(TFTF / "v2.10.log"), str(bad), "--label", "v2.10", "--db", db)
    assert out.exit_code == 2
    assert f"{bad}:2: 5 tab-separated fields; expected <RT_INSTR:" in out.output
    assert [r["label"] for r in Store(db).runs()] == ["v2.9"]


@pytest.mark.parametrize("args, message", [
    (["nonsense", "x.log", "--label", "a"], "unknown format 'nonsense'; choose one of: tftf-rt-instr"),
    (["tftf-rt-instr", str(TFTF / "v2.9.log")], "--label is required for tftf-rt-instr"),
    (["tftf-rt-instr", "missing.log", "--label", "a"], "cannot read missing.log"),
])
def test_usage_errors_exit_2_with_one_line(db, args, message):
    out = platperf(*args, "--db", db)
    assert out.exit_code == 2
    assert message in out.output
    assert not Path(db).exists() or Store(db).runs() == []


def test_csv_table_gives_one_run_per_platform_column(db):
    out = platperf("rst-csv-table", str(FIXTURES / "rst" / "guide.rst"), "--label", "ti-09.02", "--db", db)
    assert out.exit_code == 0, out.output
    store = Store(db)
    runs = {r["label"]: r for r in store.runs()}
    assert sorted(runs) == ["ti-09.02:am62xx_lp_sk-fs", "ti-09.02:am62xx_sk-fs", "ti-09.02:am62xxsip_sk-fs"]
    results = store.results(runs["ti-09.02:am62xx_sk-fs"]["id"])
    bzero = next(r for r in results if r.params == {"kernel": "bzero", "size": 1048576})
    assert (bzero.samples, bzero.extra["min"], bzero.extra["max"]) == ([1273.23], [810.64], [1735.81])


def test_csv_table_without_label_names_runs_by_column(db):
    assert platperf("rst-csv-table", str(FIXTURES / "rst" / "guide.rst"), "--db", db).exit_code == 0
    assert "am62xx_sk-fs" in {r["label"] for r in Store(db).runs()}


def test_csv_table_columns_without_platform_take_the_file_name_or_the_label(db, tmp_path):
    # as --help says: each column's platform, the document's name for columns naming none
    power = tmp_path / "am62x-power.rst"
    power.write_text('.. csv-table:: Power\n    :header: "Rail name","Power (mW)"\n\n    "vdd_core","8.53"\n')
    out = platperf("rst-csv-table", str(power), "--db", db)
    assert out.exit_code == 0, out.output
    assert platperf("rst-csv-table", str(power), "--label", "am62x-lpm", "--db", db).exit_code == 0
    assert [r["label"] for r in Store(db).runs()] == ["am62x-power", "am62x-lpm"]


def test_cyclictest_results_and_histograms_are_stored(db):
    out = platperf("cyclictest-json", str(FIXTURES / "rt-tests" / "cyclictest.json"), "--label", "rt", "--db", db)
    assert out.exit_code == 0, out.output
    store = Store(db)
    (run,) = store.runs()
    assert run["source"] == "ingest:cyclictest-json"
    assert len(store.results(run["id"])) == 6
    hists = store.histograms(run["id"])
    assert [(h["cpu"], h["core"], h["mode"]) for h in hists] == [(0, 0, "parallel"), (1, 1, "parallel")]
    assert hists[0]["record"]["count"] == store.results(run["id"])[0].extra["cycles"][0]


@pytest.mark.parametrize("log", ["v2.10.log", "v2.10-reordered.log"])
def test_ingested_releases_compare_by_key_as_the_document_annotates(db, log):
    # the point of the fixtures: the document's `242.66 (+132.03%)` comes out however the rows are ordered
    assert platperf("tftf-rt-instr", str(TFTF / "v2.9.log"), "--label", "v2.9", "--db", db).exit_code == 0
    assert platperf("tftf-rt-instr", str(TFTF / log), "--label", "v2.10", "--db", db).exit_code == 0
    out = CliRunner().invoke(app, ["compare", "v2.9", "v2.10", "--format", "rst-grid", "--db", db])
    assert out.exit_code == 0, out.output
    for cell in ("242.66 (+132.03%)", "104.36 (-57.33%)", "383.58 (+261.32%)", "1.10 (-25.68%)"):
        assert cell in out.output
