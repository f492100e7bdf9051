"""An imported run shows what its file says, and nothing more.

A run of ``platperf ingest`` was never on a machine platperf read: a TF-A page, a TI guide, an
LMBench log carry no frequency, no SMT, no board revision, and no doctor looked at their
machine. The report (every format), ``show``, ``compare`` and ``history`` leave those facts
out -- no "no cpufreq interface", no "SMT: off", no "not reported" three times in a sentence
-- and show what the file does carry: TF-A's method table, TI's board descriptions, a LAVA
job's board. ``show`` lists each figure at its (package, cluster, core), as ``report`` does:
a TF-A page's 96 per-core figures are 96 rows of n=1, not 16 pooled ones.

Every file is imported through the CLI into a temporary SQLite database; the figures checked
are written here by hand from the page.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from platperf.cli import app
from platperf.fingerprint import collect
from platperf.store import Store
from reference_tables import TFA, TI, markdown_tables, reference, rst_tables
from test_packages import hotplug_stream
from test_report_store import write_run

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
# what a run never read would otherwise be said to have
INVENTED = ("cpufreq", "SMT", "CPU frequency", "not reported", "bare metal", "governor")
FORMATS = ("md", "rst-grid", "rst-csv", "html", "table")


def platperf(*args) -> str:
    out = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    return out.stdout


def invented(text: str) -> list[str]:
    return [word for word in INVENTED if word in text]


def show_rows(text: str) -> list[dict]:
    """The results table of ``platperf show`` (wide enough not to fold: COLUMNS 200) as dicts,
    column by column: columns are two spaces apart and a cell holds no two spaces running, so a
    column is a stretch of the header and rows with no two blank positions in a row in all of
    them (an empty cpu cell stays empty; figures are right-aligned, words left)."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["benchmark"])
    block = [lines[at]]
    for line in lines[at + 1:]:
        if not line.strip() or line.startswith(("(", " ")) or " results, " in line:
            break
        block.append(line)
    width = max(map(len, block))
    blank = [all(len(line) <= i or line[i] == " " for line in block) for i in range(width)] + [True, True]
    spans, start = [], None
    for i in range(width + 1):
        if start is None and not blank[i]:
            start = i
        elif start is not None and blank[i] and blank[i + 1]:
            spans.append((start, i))
            start = None
    names = [block[0][a:b].strip() for a, b in spans]
    return [dict(zip(names, (line[a:b].strip() for a, b in spans))) for line in block[1:]]


@pytest.fixture(scope="module")
def tfa_db(tmp_path_factory) -> str:
    db = str(tmp_path_factory.mktemp("tfa") / "tfa.db")
    platperf("ingest", "tfa-rst", reference(TFA), "--db", db)
    return db


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_tfa_page_reports_its_tables_and_no_machine(tfa_db, fmt):
    text = platperf("report", "v2.9", "v2.10", "--db", tfa_db, "--format", fmt)
    assert invented(text) == []
    # what the page does say: its method table, as printed; TFTF's figures are the firmware's
    # own, with no kernel share (that is said of the psci suite's, measured from Linux)
    assert "900 (nominal)" in text and "650 (underdrive)" in text
    assert "measured from Linux" not in text
    if fmt != "html":       # (the HTML escapes nothing of these, but wraps them in tags)
        assert "Not read from the machine: v2.9 (ingest:tfa-rst), v2.10 (ingest:tfa-rst)" in " ".join(text.split())
        assert "No doctor checked the machines of v2.9 (ingest:tfa-rst), v2.10 (ingest:tfa-rst)" \
            in " ".join(text.split())


def test_a_tfa_page_environment_holds_only_its_run(tfa_db):
    tables = {t.title: t for t in markdown_tables(platperf("report", "v2.10", "--db", tfa_db, "--format", "md"))}
    environment = tables["Environment"]
    assert [row[0] for row in environment.rows] == ["Target", "Runs", "Note"]
    assert environment.rows[0][1] == "ingested"


def test_show_of_a_tfa_page_lists_each_core_as_the_page_does(tfa_db):
    shown = json.loads(platperf("show", "v2.10", "--db", tfa_db, "--json"))
    results = shown["results"]
    # v2.10: four CPU_SUSPEND tables and CPU_OFF, 6 cores x 3 metrics each, and CPU_VERSION's 6
    assert len(results) == 5 * 6 * 3 + 6 == 96
    assert {(r["package"], r["cluster"], r["core"]) for r in results} == \
        {(None, 0, 0), (None, 0, 1), (None, 1, 0), (None, 1, 1), (None, 1, 2), (None, 1, 3)}
    assert {(r["n"], r["runs"]) for r in results} == {(1, 1)}
    keys = [(r["params"]["test"], r["cluster"], r["core"], r["metric"]) for r in results]
    assert len(set(keys)) == 96
    figure = {key: r["median"] for key, r in zip(keys, results)}
    # the page's "CPU_SUSPEND latencies (µs) to deepest power level in parallel (v2.10)",
    # cluster 1 core 0: 104.36 (-57.33%) | 27.1 | 5.32; CPU_OFF (v2.10) cluster 1 core 0: 175.18
    assert figure[("test_rt_instr_susp_deep_parallel", 1, 0, "powerdown")] == 104.36
    assert figure[("test_rt_instr_susp_deep_parallel", 1, 0, "wakeup")] == 27.1
    assert figure[("test_rt_instr_susp_deep_parallel", 1, 0, "cache_flush")] == 5.32
    assert figure[("test_rt_instr_cpu_off_serial", 1, 0, "powerdown")] == 175.18
    assert figure[("test_rt_instr_cpu_off_serial", 0, 1, "wakeup")] == 29.7


def test_show_table_of_a_tfa_page_prints_the_page_figures(tfa_db):
    text = platperf("show", "v2.9", "--db", tfa_db)
    rows = show_rows(text)
    assert len(rows) == 96 and "96 results, 0 histograms" in text
    assert {(r["cluster"], r["core"]) for r in rows} == {("0", "0"), ("0", "1"), ("1", "0"), ("1", "1"),
                                                         ("1", "2"), ("1", "3")}
    assert {r["n"] for r in rows} == {"1"} and {r["cpu"] for r in rows} == {""}
    [row] = [r for r in rows if r["params"] == "test=test_rt_instr_susp_deep_parallel"
             and (r["cluster"], r["core"], r["metric"]) == ("1", "0", "powerdown")]
    # the page's v2.9 table of that test: cluster 1 core 0 powerdown 244.56
    assert (row["median"], row["min"], row["max"], row["unit"]) == ("244.56", "244.56", "244.56", "us")
    # no machine, no probe; the page's own words, as it printed them
    assert invented(text) == [] and "machine" not in text.split("benchmark")[0]
    assert "probe" not in [line.split()[0] for line in text.splitlines() if line.split()]
    [method] = [line.split("  ") for line in text.splitlines() if "Cortex-A53" in line]
    assert [cell.strip() for cell in method if cell.strip()][:4] == ["Method", "Cortex-A53", "Frequency (MHz)",
                                                                      "650 (underdrive)"]


def test_compare_and_history_of_imported_releases_invent_no_difference(tfa_db):
    text = platperf("compare", "v2.9", "v2.10", "--db", tfa_db)
    assert "differs:" not in text and "toolchain" not in text and "comparable" not in text
    assert invented(text) == []
    for fmt in ("table", "md", "html"):
        history = platperf("history", "--labels", "v2.9,v2.10", "--metric", "powerdown", "--db", tfa_db,
                           "--format", fmt)
        assert invented(history) == [] and "toolchain" not in history


@pytest.fixture(scope="module")
def ti_db(tmp_path_factory) -> str:
    db = str(tmp_path_factory.mktemp("ti") / "ti.db")
    platperf("ingest", "rst-csv-table", reference(TI), "--db", db)
    return db


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_ti_guide_reports_its_boards_in_its_words(ti_db, fmt):
    text = platperf("report", "am62x-linux-performance-guide", "am62xx_sk-fs", "--db", ti_db, "--format", fmt)
    assert invented(text) == []
    if fmt == "rst-grid":
        [boards] = [t for t in rst_tables(text) if t.title == "Evaluation Modules"]
        # the page's table, word for word; the board columns add no row of their own
        assert boards.rows == [
            ["AM62x SK", "AM62x Starter Kit rev E2 and E3 with ARM running at 1.4GHz, DDR data rate 1600 MT/S"],
            ["AM62x LP SK", "AM62x LP Starter Kit rev E1 with ARM running at 1.25GHz, LPDDR4 data rate 1600 MT/S"],
            ["AM62SIP SK", "AM62SIP Starter Kit rev E1 with ARM running at 1.4GHz, 512MB LPDDR4 data rate "
                           "1600 MT/S"]]


def test_show_of_a_ti_guide_prints_its_words(ti_db):
    text = platperf("show", "am62x-linux-performance-guide", "--db", ti_db)
    assert "AM62x LP Starter Kit rev E1 with ARM running at 1.25GHz, LPDDR4 data rate 1600 MT/S" in text
    assert "am62x-linux-performance-guide.rst:17" in text       # where the page printed it
    assert invented(text) == []


# Every importer's fixture: (format, file, arguments).
IMPORTS = [
    ("tftf-rt-instr", "tftf/v2.10.log", ["--label", "v2.10"]),
    ("tfa-rst", "tfa/psci-performance.rst", []),
    ("rst-csv-table", "rst/guide.rst", ["--label", "sdk"]),
    ("lmbench", "lmbench/run.log", ["--label", "lmbench"]),
    ("stream", "stream/stream.txt", ["--label", "stream"]),
    ("cyclictest-json", "rt-tests/cyclictest.json", ["--label", "cyclictest"]),
    ("oslat-json", "rt-tests/oslat.json", ["--label", "oslat"]),
    ("systemd-analyze", "systemd/boots.log", ["--label", "boots"]),
    ("latency-table", "latency/study.txt", ["--label", "study"]),
    ("probe-jsonl", "probe/board.jsonl", ["--label", "saved"]),
]


@pytest.mark.parametrize("fmt, name, args", IMPORTS, ids=[i[0] for i in IMPORTS])
def test_every_import_reports_and_shows_no_machine_it_never_read(tmp_path, fmt, name, args):
    db = tmp_path / "i.db"
    platperf("ingest", fmt, FIXTURES / name, *args, "--db", db)
    runs = Store(str(db)).runs()
    assert runs and all(r["source"] == f"ingest:{fmt}" for r in runs)
    refs = [str(r["id"]) for r in runs]
    for form in FORMATS:
        text = platperf("report", *refs, "--db", db, "--format", form)
        assert invented(text) == [], form
    text = " ".join(platperf("report", *refs, "--db", db, "--format", "md").split())
    assert "Not read from the machine: " in text and "No doctor checked the machine" in text
    assert "No findings were recorded" not in text
    for ref in refs:
        shown = platperf("show", ref, "--db", db)
        assert invented(shown) == [] and "?" not in shown.split("benchmark")[0]
        assert "machine" not in shown.split("benchmark")[0]


def test_a_saved_probe_stream_shows_its_probe_and_nothing_of_its_board(tmp_path):
    db = tmp_path / "p.db"
    platperf("ingest", "probe-jsonl", FIXTURES / "probe" / "board.jsonl", "--label", "saved", "--db", db)
    tables = {t.title: t for t in markdown_tables(platperf("report", "saved", "--db", db, "--format", "md"))}
    environment = {row[0]: row[1] for row in tables["Environment"].rows}
    assert environment["Probe"] == "0.1.0, build a7cb3560647da6ee, gcc 12.2.0, counter tsc 2245.8 MHz"
    assert set(environment) == {"Target", "Probe", "Runs", "Note"}
    assert "Evaluation Modules" not in tables          # nothing of its board is known
    shown = platperf("show", "saved", "--db", db)
    assert "0.1.0 build a7cb3560647da6ee (x86_64, gcc 12.2.0)" in shown


def test_a_lava_job_shows_its_board_and_names_what_it_does_not_tell_once(tmp_path):
    db = tmp_path / "l.db"
    platperf("ingest", "lava", FIXTURES / "lava" / "job-990002.yaml", "--label", "lab", "--db", db)
    text = platperf("report", "lab", "--db", db, "--format", "md")
    tables = {t.title: t for t in markdown_tables(text)}
    # the job's board (a KVM guest, as the log's snapshot says): no revision, no cpufreq,
    # no memory rate, said once
    assert tables["Evaluation Modules"].rows == [
        ["lab", "AMD EPYC (rev, CPU frequency and memory data rate not reported)"]]
    environment = {row[0]: row[1] for row in tables["Environment"].rows}
    assert environment["Target"] == "lava" and environment["CPU"] == "AMD EPYC, x86_64, 2 CPUs"
    assert environment["Virtualization"] == "virtual machine (KVM)"
    assert "Not read from the machine" not in text and "No doctor checked" not in text


def test_a_measured_board_beside_an_import_keeps_its_facts_alone(tfa_db, tmp_path):
    db = tmp_path / "m.db"
    platperf("ingest", "tfa-rst", reference(TFA), "--db", db)
    write_run(Store(str(db)), "juno", fingerprint=collect(str(SYSFS / "juno")))
    text = platperf("report", "juno", "v2.10", "--db", db, "--format", "md")
    tables = {t.title: t for t in markdown_tables(text)}
    environment = {row[0]: row[1:] for row in tables["Environment"].rows}
    assert environment["CPU frequency"] == ["CPUs 0-1: schedutil 450-1150 MHz; CPUs 2-5: schedutil 450-850 MHz", ""]
    assert environment["SMT"][1] == "" and environment["SMT"][0]
    assert environment["Topology"] == ["cluster 0: CPUs 0-1 Cortex-A57; cluster 1: CPUs 2-5 Cortex-A53", ""]
    flat = " ".join(text.split())
    assert "Not read from the machine: v2.10 (ingest:tfa-rst); its column shows only what the imported file " \
           "says." in flat
    assert "No doctor checked the machine of v2.10 (ingest:tfa-rst): it was never read. No findings were " \
           "recorded with the other runs." in flat


def test_a_probe_stream_with_its_board_tree_shows_its_machine_and_each_core(tmp_path):
    """The other side: a probe stream imported with its board's /sys and /proc (--root) was
    read from its machine: the machine is shown, hotplug figures are said to be measured from
    Linux, and show lists each CPU at its (cluster, core)."""
    db = tmp_path / "h.db"
    stream = hotplug_stream(tmp_path / "juno.jsonl", range(6), lambda cpu: 100.0 + cpu)
    platperf("ingest", "probe-jsonl", stream, "--root", SYSFS / "juno", "--label", "juno", "--db", db)
    text = platperf("report", "juno", "--db", db, "--format", "md")
    assert "measured from Linux" in text and "Not read from the machine" not in text
    assert "CPUs 0-1: schedutil 450-1150 MHz; CPUs 2-5: schedutil 450-850 MHz" in text
    shown = platperf("show", "juno", "--db", db)
    assert "CPU frequency" in shown.split("benchmark")[0]
    offline = {(r["cpu"], r["cluster"], r["core"]): r["median"] for r in show_rows(shown)
               if r["benchmark"] == "cpu-hotplug" and r["metric"] == "offline"}
    # the stream's offline medians: 100 + cpu (samples x1, x1.01, x0.99)
    assert offline == {("0", "0", "0"): "100.00", ("1", "0", "1"): "101.00", ("2", "1", "0"): "102.00",
                       ("3", "1", "1"): "103.00", ("4", "1", "2"): "104.00", ("5", "1", "3"): "105.00"}
