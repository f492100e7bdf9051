"""TF-A's PSCI performance page in and out: `ingest tfa-rst` makes one run per release keyed
by (test, cluster, core); `report` shows one release as TF-A's tables; `compare` gives the
deltas the page annotates; `history` draws every release."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from platperf.compare import keyed as compare
from platperf.ingest import IngestError, tfa_rst, tftf_rt_instr
from platperf.report.sections import compare as presentation, tfa_tables
from platperf.store import Store

PAGE = Path(__file__).parent / "fixtures" / "ingest" / "tfa" / "psci-performance.rst"
TFTF = Path(__file__).parent / "fixtures" / "ingest" / "tftf" / "v2.10.log"


def platperf(*args, check=True, env_columns=None):
    env = {**os.environ, "COLUMNS": str(env_columns)} if env_columns else None
    done = subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True, text=True, env=env)
    if check:
        assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "results.db")


def by_key(results):
    return {(r.extra["column"], r.params["test"], r.cluster, r.core, r.metric): r for r in results}


def test_each_release_table_is_read_keyed_by_test_cluster_core():
    results = by_key(tfa_rst.parse(PAGE.read_text(), "page.rst"))
    deep = "test_rt_instr_susp_deep_parallel"
    assert results[("v2.9", deep, 0, 1, "powerdown")].samples == [300.0]
    assert results[("v2.10", deep, 0, 1, "powerdown")].samples == [270.0]
    assert results[("v2.10", deep, 0, 0, "cache_flush")].samples == [5.0]
    assert results[("v2.10", deep, 0, 0, "powerdown")].mode == "parallel"
    assert {r.unit for r in results.values()} == {"us"}


def test_the_page_annotations_are_kept_beside_the_value():
    results = by_key(tfa_rst.parse(PAGE.read_text(), "page.rst"))
    annotated = results[("v2.10", "test_rt_instr_susp_deep_parallel", 0, 0, "powerdown")]
    assert annotated.samples == [150.0]
    assert annotated.extra["published_delta_pct"] == 50.0
    plain = results[("v2.10", "test_rt_instr_susp_deep_parallel", 1, 0, "powerdown")]
    assert "published_delta_pct" not in plain.extra


def test_titles_map_to_tftf_tests_whatever_the_spelling():
    """`(2.9)` is v2.9; CPU_VERSION is the page's name of the PSCI_VERSION test; a row
    spanning the table is a caption, not data; the historic per-CPU table, which names no
    release, is a run of its own keyed by its heading and CPU, its header as printed."""
    results = tfa_rst.parse(PAGE.read_text(), "page.rst")
    historic = [r for r in results if r.extra["column"] == tfa_rst.HISTORIC]
    assert {(r.params["test"], r.core, r.metric, r.samples[0]) for r in historic} == {
        ("Historic results", 0, "psci_entry", 27.0), ("Historic results", 0, "psci_exit", 20.0)}
    assert historic[0].extra["headers"] == ["CPU", "``PSCI_ENTRY`` (us)", "``PSCI_EXIT`` (us)"]
    tests = {(r.extra["column"], r.params["test"]) for r in results if r not in historic}
    assert tests == {("v2.9", "test_rt_instr_susp_deep_parallel"), ("v2.10", "test_rt_instr_susp_deep_parallel"),
                     ("v2.10", "test_rt_instr_cpu_off_serial"),
                     ("v2.9", "test_rt_instr_psci_version_parallel"),
                     ("v2.10", "test_rt_instr_psci_version_parallel")}
    off = [r for r in results if r.params["test"] == "test_rt_instr_cpu_off_serial"]
    assert sorted((r.cluster, r.core) for r in off if r.metric == "wakeup") == [(0, 1), (1, 0)]
    assert all(r.mode == "serial" for r in off)


def test_page_and_tftf_log_of_a_release_key_alike():
    """A published page and a TFTF log are the same measurement: they compare key by key."""
    page = {r.key for r in tfa_rst.parse(PAGE.read_text(), "page.rst")}
    log = {r.key for r in tftf_rt_instr.parse(TFTF.read_text(), "v2.10.log")}
    assert page & log
    assert {k[0] for k in page} == {tftf_rt_instr.BENCHMARK}


def test_releases_come_oldest_first_whatever_the_page_order(db, tmp_path):
    text = PAGE.read_text()
    head, rest = text.split(".. table:: ``CPU_SUSPEND`` latencies (µs) to deepest power level in\n        parallel (v2.10)", 1)
    v210 = ".. table:: ``CPU_SUSPEND`` latencies (µs) to deepest power level in\n        parallel (v2.10)" + \
        rest.split(".. table:: ``CPU_OFF``")[0]
    swapped = text.replace(v210, "").replace(".. table:: ``CPU_SUSPEND``", v210 + ".. table:: ``CPU_SUSPEND``", 1)
    assert [r.extra["column"] for r in tfa_rst.parse(swapped, "swapped.rst")][0] == "v2.10"
    page = tmp_path / "swapped.rst"
    page.write_text(swapped)
    platperf("ingest", "tfa-rst", str(page), "--target", "juno", "--db", db)
    # the historic per-CPU table (no release) first: it is older than any release
    assert [r["label"] for r in Store(db).runs()] == ["historic", "v2.9", "v2.10"]


@pytest.mark.parametrize("broken, says", [
    ("|    0    |  1   |  -300.00  | 20.00  |    120.00   |", "page.rst:17: expected powerdown in µs, got '-300.00' (negative)"),
    ("|    0    |  1   |   fast    | 20.00  |    120.00   |", "page.rst:17: expected powerdown in µs, got 'fast'"),
    ("|    x    |  1   |   300.00  | 20.00  |    120.00   |", "page.rst:17: cluster 'x' is not"),
    ("|    0    |  1   |   300.00  | 20.00  |", "page.rst:17: 4 cells in a row of a 5-column table"),
])
def test_a_bad_row_names_file_line_and_what_was_expected(broken, says):
    text = PAGE.read_text().replace("|    0    |  1   |   300.00  | 20.00  |    120.00   |", broken, 1)
    with pytest.raises(IngestError) as err:
        tfa_rst.parse(text, "page.rst")
    assert says in str(err.value)


def test_a_table_without_release_is_refused():
    text = PAGE.read_text().replace("parallel (v2.9)", "parallel", 1)
    with pytest.raises(IngestError, match=r"page.rst:9: .*names no release"):
        tfa_rst.parse(text, "page.rst")


def test_a_file_without_per_core_tables_is_refused():
    with pytest.raises(IngestError, match=r"page.rst:1: no per-core tables"):
        tfa_rst.parse("Title\n=====\n\ntext\n", "page.rst")


def test_ingest_makes_one_run_per_release_and_history_draws_them(db):
    out = platperf("ingest", "tfa-rst", str(PAGE), "--target", "juno", "--db", db).stdout
    assert "run 2 (v2.9): 11 results" in out and "run 3 (v2.10): 17 results" in out
    assert "run 1 (historic): 2 results" in out
    store = Store(db)
    assert [r["label"] for r in store.runs()] == ["historic", "v2.9", "v2.10"]
    history = json.loads(platperf("history", "--db", db, "--metric", "powerdown", "--format", "json").stdout)
    series = {(s["params"], s["cluster"], s["core"]): s for s in history["series"]}
    points = series[("test=test_rt_instr_susp_deep_parallel", 0, 0)]["points"]
    assert [(p["label"], p["value"]) for p in points] == [("v2.9", 100.0), ("v2.10", 150.0)]


def test_compare_recomputes_the_deltas_the_page_annotates(db):
    platperf("ingest", "tfa-rst", str(PAGE), "--target", "juno", "--db", db)
    cmp = compare.compare_refs(Store(db), "v2.9", "v2.10")
    published = {r.key: r.extra["published_delta_pct"] for r in tfa_rst.parse(PAGE.read_text(), "p")
                 if "published_delta_pct" in r.extra}
    rows = {r.key: r for r in cmp.rows}
    assert published
    for key, delta in published.items():
        assert round(rows[key].delta_pct, 2) == delta
        assert presentation.cell(rows[key]) == f"{presentation.number(rows[key].new)} ({delta:+.2f}%)"


def test_report_shows_one_release_as_the_page_printed_it(db):
    """The page's titles with their markup and its release as spelt there, its cells with
    their precision and their own annotations, its caption row; no csv-table averaging the
    per-core figures."""
    platperf("ingest", "tfa-rst", str(PAGE), "--target", "juno", "--db", db)
    text = platperf("report", "v2.10", "--db", db, "--format", "rst-grid").stdout
    title = ".. table:: ``CPU_SUSPEND`` latencies (µs) to deepest power level in parallel (v2.10)"
    assert title in text
    table = text.split(title, 1)[1].split(".. table::", 1)[0]
    assert "| Cluster | Core |    Powerdown     | Wakeup | Cache Flush |" in table
    assert "|    0    |  0   | 150.00 (+50.00%) | 201.0  |     5.0     |" in table
    assert ".. table:: ``CPU_VERSION`` latency (µs) in parallel on all cores (2.10)" in text
    off = text.split("``CPU_OFF`` latencies (µs) on all non-lead CPUs (v2.10)", 1)[1]
    assert off.split("\n")[3].strip() == "|       test_rt_instr_cpu_off_serial (latest)       |"
    assert "csv-table" not in text and "platperf Benchmarks" not in text


def test_both_releases_of_a_test_sit_under_the_page_heading(db):
    platperf("ingest", "tfa-rst", str(PAGE), "--target", "juno", "--db", db)
    text = platperf("report", "v2.9", "v2.10", "--db", db, "--format", "rst-grid").stdout
    heading = "``CPU_SUSPEND`` to deepest power level\n"
    deep = text.split(heading, 1)[1]
    titles = [line for line in deep.splitlines() if line.startswith(".. table::")][:3]
    assert titles == [
        ".. table:: ``CPU_SUSPEND`` latencies (µs) to deepest power level in parallel (v2.9)",
        ".. table:: ``CPU_SUSPEND`` latencies (µs) to deepest power level in parallel (v2.10)",
        ".. table:: Deltas of ``CPU_SUSPEND`` latencies (µs) to deepest power level in parallel (v2.10) "
        "from v2.9: the page's and platperf's"]


def test_tfa_section_is_absent_without_tfa_results(db):
    from platperf.report.data import ReportData, RunColumn
    assert tfa_tables.build(ReportData(columns=[RunColumn("x", [{}], [])])) is None


def test_the_page_deltas_are_judged_against_the_same_key():
    from platperf.compare.annotations import judge
    assert judge(50.0, 50.0, True, 2.0).verdict == "agrees"
    assert judge(50.0, 49.996, True, 2.0).verdict == "agrees"        # the page's two decimals
    assert judge(-10.0, -6.67, True, 2.0).verdict == "differs"
    assert judge(30.0, 0.5, True, 2.0).verdict == "no change"
    assert judge(None, 20.0, True, 2.0).verdict == "not annotated"
    assert judge(None, 20.0, False, 2.0) is None       # a column the page never annotates
    assert judge(None, 1.0, True, 2.0) is None


def test_compare_shows_the_page_deltas_beside_its_own_and_where_they_disagree(db, tmp_path):
    """A page whose deltas do not follow from its previous release: core (0, 1) annotated
    -10% but 300 -> 280 is -6.67%, core (1, 0) 250 -> 300 with no annotation in the
    annotated Powerdown column."""
    text = PAGE.read_text().replace("|  270.00 (-10.00%) |", "|  280.00 (-10.00%) |") \
        .replace("|       251.00      |", "|       300.00      |")
    page = tmp_path / "page.rst"
    page.write_text(text)
    platperf("ingest", "tfa-rst", str(page), "--target", "juno", "--db", db)
    out = json.loads(platperf("compare", "v2.9", "v2.10", "--db", db, "--format", "json").stdout)
    verdicts = {(r["cluster"], r["core"], r["metric"]): (r["page_delta_pct"], r["page_verdict"])
                for r in out["rows"] if r["params"] == "test=test_rt_instr_susp_deep_parallel"}
    assert verdicts[(0, 0, "powerdown")] == (50.0, "agrees")
    assert verdicts[(0, 1, "powerdown")] == (-10.0, "differs")
    assert verdicts[(1, 0, "powerdown")] == (None, "not annotated")
    assert verdicts[(0, 0, "wakeup")] == (None, "")     # the page annotates no wakeup
    assert out["page_disagrees"] == 2
    table = platperf("compare", "v2.9", "v2.10", "--db", db, env_columns=250).stdout
    assert "The page's own deltas disagree with platperf's for 2 of" in table
    line = next(l for l in table.splitlines() if "powerdown" in l and " 280.00" in l)
    assert "-10.00%" in line and "-6.67%" in line and "page: differs" in line
    report = platperf("report", "v2.9", "v2.10", "--db", db, "--format", "rst-grid").stdout
    deltas = report.split("Deltas of ``CPU_SUSPEND`` latencies (µs) to deepest power level in parallel (v2.10)")[1]
    # the metric first: no `Cluster | Core` header that tfa-rst would read as a release's table
    row = next(l for l in deltas.splitlines() if "| powerdown |    0    |  1   |" in l)
    assert [c.strip() for c in row.split("|")[4:7]] == ["\\-10.00%", "\\-6.67%", "differs"]
