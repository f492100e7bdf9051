"""``platperf report`` from a store: columns per RUN, the guide and per-core tables, files of
``--format all``, and one clear line with exit 2 for bad input."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import pytest

from platperf.store import Store
from test_report_renderers import docutils_core
from test_report_store import write_run

HOSTILE = 'v2.12|<b>x</b>,"y"'


def platperf(*args, cwd=None):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True,
                          text=True, cwd=cwd, env=env)


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "runs.db")
    store = Store(path)
    write_run(store, "v2.11", findings=[{"level": "warn", "code": "governor", "message":
                                         "cpufreq governor is powersave", "effect": "latency varies",
                                         "fix": "cpupower frequency-set -g performance"}])
    write_run(store, HOSTILE, scale=1.1, note="board <rev B>")
    write_run(store, HOSTILE, scale=1.2)
    return path


def test_unknown_run_is_one_line_and_exit_2(db):
    r = platperf("report", "v9", "--db", db)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "no run 'v9'" in r.stderr


@pytest.mark.parametrize("args, message", [
    (["-f", "pdf"], "unknown format 'pdf'; choose one of rst-grid, rst-csv, md, html, json, csv, table, all"),
    (["-f", "all"], "give a directory with -o DIR"),
])
def test_bad_options_exit_2(db, args, message):
    r = platperf("report", "latest", "--db", db, *args)
    assert r.returncode == 2 and message in r.stderr


def test_missing_database_is_not_created(tmp_path):
    r = platperf("report", "latest", "--db", str(tmp_path / "none.db"))
    assert r.returncode == 2 and "no database" in r.stderr
    assert not (tmp_path / "none.db").exists()


def test_all_writes_every_file_and_prints_the_paths(db, tmp_path):
    out = tmp_path / "rep"
    r = platperf("report", "v2.11", HOSTILE, "--db", db, "--format", "all", "-o", str(out))
    assert r.returncode == 0, r.stderr
    names = ["index.html", "guide.rst", "guide.md", "results.json", "results.csv"]
    assert r.stdout.split() == [str(out / n) for n in names]
    data = json.loads((out / "results.json").read_text())
    assert len(data["runs"]) == 3 and {r["label"] for r in data["runs"]} == {"v2.11", HOSTILE}
    rows = list(csv.DictReader(io.StringIO((out / "results.csv").read_text())))
    assert len(rows) == len(data["results"]) == 3 * 2 * 6 * (2 * 7 * 2 + 6 * 2)
    assert {r["label"] for r in rows} == {"v2.11", HOSTILE}


def _csv_table(rst: str, title: str) -> dict[str, list[str]]:
    """The rows of one csv-table of guide.rst, keyed by benchmark name."""
    block = rst.split(f".. csv-table:: {title}\n", 1)[1].split("\n\n", 2)[1]
    return {row[0]: row[1:] for row in csv.reader(line.strip() for line in block.splitlines())}


def test_guide_has_one_column_per_run_and_pools_a_label(db):
    r = platperf("report", "v2.11", HOSTILE, "--db", db, "--format", "rst-csv")
    assert r.returncode == 0, r.stderr
    lmbench = _csv_table(r.stdout, "LMBench Benchmarks")
    # v2.11: 6 CPUs of one run; the other label: the same 6 CPUs in two runs (x1.1, x1.2).
    l1 = lmbench["lat_mem_rd-stride128-sz15k (ns)"]
    assert l1 == ["1.54 (min 1.50, max 1.58)", "1.77 (min 1.65, max 1.89)"]
    assert "bw_mem-bcopy-16mb (MB/s)" in lmbench and "bw_mem-bcopy-1mb (MB/s)" in lmbench
    assert list(_csv_table(r.stdout, "Stream Benchmarks")) == ["copy (MB/s)", "triad (MB/s)"]


def test_per_core_tables_keep_serial_and_parallel_apart(db):
    r = platperf("report", "v2.11", "--db", db, "--format", "rst-grid")
    assert r.returncode == 0, r.stderr
    titles = [line for line in r.stdout.splitlines() if line.startswith(".. table:: mem-latency per core")]
    assert titles == [".. table:: mem-latency per core in serial (v2.11)",
                      ".. table:: mem-latency per core in parallel (v2.11)"]
    table = r.stdout.split(titles[0], 1)[1].split("\n\n")[1]
    # the largest size measured within each cache level: 16 KiB fits L1d (32 KiB), 1 MiB L2 (2 MiB)
    assert table.splitlines()[1] == "    | Cluster | Core | L1d 16K (ns) | L2 1M (ns) | memory 16M (ns) |"
    assert table.splitlines()[3] == "    |    0    |  0   |     1.50     |   10.02    |      100.20     |"
    assert len(table.splitlines()) == 2 * (1 + 6) + 1       # header and six cores, each ruled


def test_markdown_to_stdout_names_findings_and_escapes(db):
    r = platperf("report", "v2.11", HOSTILE, "--db", db)
    assert r.returncode == 0, r.stderr
    assert "cpufreq governor is powersave" in r.stdout and "board &lt;rev B&gt;" in r.stdout
    assert "<b>" not in r.stdout


def test_guide_rst_parses_without_docutils_messages(db, tmp_path):
    core = docutils_core()
    out = tmp_path / "rep"
    assert platperf("report", "v2.11", HOSTILE, "--db", db, "-f", "all", "-o", str(out)).returncode == 0
    err = io.StringIO()
    tree = core.publish_doctree((out / "guide.rst").read_text(),
                                settings_overrides={"warning_stream": err, "report_level": 2})
    assert err.getvalue() == ""
    assert HOSTILE in tree.astext()


def _ci_store(tmp_path) -> str:
    """One label, three runs on one CPU: a steady L1 figure, an L2 figure that moves from run
    to run (3.8, 4.5, 3.9 ns), and a TF-A figure."""
    from platperf.records import Result
    path = str(tmp_path / "ci.db")
    store = Store(path)
    for l2 in (3.8, 4.5, 3.9):
        run = store.begin_run(label="v1", suite="quick")
        for size, ns in ((16384, 1.2), (262144, l2)):
            store.add_result(run, Result("mem-latency", {"pattern": "random", "size": size, "stride": 64},
                                         "latency", "ns", "lower", [ns, ns * 1.001, ns * 0.999],
                                         cpu=0, cluster=0, core=0))
        store.add_result(run, Result("tftf-rt-instr", {"test": "suspend_deepest_parallel"}, "powerdown",
                                     "us", "lower", [104.5, 104.6, 104.7], mode="parallel", cluster=0, core=0))
        store.finish_run(run, "complete")
    return path


@pytest.mark.parametrize("fmt", ["md", "rst-grid", "rst-csv", "html"])
def test_ci_shows_each_figures_interval_and_marks_the_unstable(tmp_path, fmt):
    db = _ci_store(tmp_path)
    plain = platperf("report", "v1", "--db", db, "--format", fmt)
    with_ci = platperf("report", "v1", "--db", db, "--format", fmt, "--ci")
    assert plain.returncode == 0 and with_ci.returncode == 0, with_ci.stderr
    assert "95% intervals" not in plain.stdout and "unstable" not in plain.stdout
    out = with_ci.stdout.replace("\\[", "[").replace("\\]", "]")   # md and rst escape brackets
    assert "Figures with their 95% intervals" in out
    # the steady figure: its interval over the three run medians is its one value
    assert "1.20 [1.20, 1.20]" in out
    # the L2 figure moved 18% between runs: its interval says so, and it is marked
    assert "3.90 [3.80, 4.50] unstable" in out
    # TF-A layout cells carry theirs too
    assert "104.60 [104.60, 104.60]" in out
    assert "unstable: 1 of 3" in out


def test_ci_is_in_the_help_with_an_example():
    out = platperf("report", "--help").stdout
    assert "--ci" in out and "platperf report v2.12 --ci" in out


def test_the_runs_row_counts_the_runs_a_column_pools(db):
    r = platperf("report", "v2.11", HOSTILE, "latest", "--db", db, "-f", "md")
    assert r.returncode == 0, r.stderr
    (row,) = [line for line in r.stdout.splitlines() if line.startswith("| Runs ")]
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert [c.split(";")[0] for c in cells[1:]] == ["1 (run 1", "2 (runs 2, 3", "1 (run 3"]
    assert all("; complete; 20" in c for c in cells[1:])
