"""Terminal output fits (issue 38 part 5): every line of `show`, `show --all`, `runs`, `compare`
and `history` is at most the width -- 80 piped, COLUMNS when set -- by folding columns into
headings and dropping the optional ones before a cell is cut, never by padding; and nothing
is lost on the way: every result's median is still printed, each folded heading names its
benchmark.

The data: a Juno-shaped probe run of two labels (test_report_store, six CPUs in two
clusters, with a finding whose fix is a long sentence) and TF-A's Juno page of May 2025
imported (v2.12, v2.13)."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from platperf.cli import app
from platperf.store import Store

from corpus import entry
from test_report_store import write_run

LONG = {"level": "warn", "code": "vm", "message": "running in a virtual machine (KVM; cpuinfo flag 'hypervisor', "
        "clock source kvm-clock)", "effect": "vCPUs are host threads: the host preempts them, caches and memory "
        "bandwidth are shared with other guests", "fix": "measure releases on bare metal; in a VM pin the vCPUs on "
        "the host and compare only runs from the same host and guest size"}


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("fit") / "fit.db")
    store = Store(path)
    write_run(store, "v1", findings=[LONG])
    write_run(store, "v2", scale=1.2, findings=[LONG])
    out = CliRunner().invoke(app, ["ingest", "tfa-rst", str(entry("tfa", "juno-2025-05.rst").local), "--db", path])
    assert out.exit_code == 0, out.output
    return path


def run(db: str, columns: int | None, *args) -> list[str]:
    env = {"COLUMNS": str(columns)} if columns else {"COLUMNS": ""}
    out = CliRunner().invoke(app, [*args, "--db", db], env=env)
    assert out.exit_code == 0, out.output
    return out.stdout.splitlines()


COMMANDS = [("show", "v1"), ("show", "v1", "--all"), ("show", "v2.13"), ("runs",), ("compare", "v1", "v2"),
            ("history", "--labels", "v2.12,v2.13")]


@pytest.mark.parametrize("columns", [None, 60, 120])
@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a) for a in COMMANDS])
def test_every_line_fits_and_none_is_padded(db, columns, args):
    lines = run(db, columns, *args)
    limit = columns or 80
    assert lines, args
    too_long = [line for line in lines if len(line) > limit]
    assert too_long == [], too_long[:3]
    assert [line for line in lines if line != line.rstrip()] == []


@pytest.mark.parametrize("columns", [None, 60])
def test_show_all_still_prints_every_median_under_its_benchmark(db, columns):
    results = json.loads(CliRunner().invoke(app, ["show", "v1", "--db", db, "--json"]).stdout)["results"]
    assert len(results) > 100          # --all lists more than show's summary would
    lines = run(db, columns, "show", "v1", "--all")
    text = "\n".join(lines)
    # one row per result: its median, as show prints a figure, on a row of its own
    from platperf.vocab.figures import number
    rows = [line for line in lines if line.startswith("  ") and line.split()[0] in ("serial", "parallel")]
    assert len(rows) == len(results)
    for r in results[:: max(1, len(results) // 40)]:
        assert f" {number(r['median'])} " in f" {text} ".replace("\n", " \n ")
    # folded: a heading line names each (benchmark, params) before its rows
    headings = [line for line in lines if line.startswith(("mem-latency ", "mem-bandwidth "))]
    assert len(headings) == len({(r["benchmark"], json.dumps(r["params"], sort_keys=True)) for r in results})


def test_findings_are_prose_wrapped_under_their_level(db):
    lines = run(db, 60, "show", "v1")
    at = lines.index("findings (1)")
    block = lines[at + 1:at + 12]
    assert block[0].startswith("warn  running in a virtual machine")
    fix = next(i for i, line in enumerate(block) if line.startswith("      fix: "))
    # the fix's sentence whole across its lines, each under the width
    joined = " ".join(line.strip() for line in block[fix:fix + 4]).split("fix: ", 1)[1]
    assert joined.startswith(LONG["fix"])
    assert all(len(line) <= 60 for line in block)


def test_a_wide_terminal_keeps_a_result_on_one_line(db):
    lines = run(db, 300, "show", "v1", "--all")
    header = next(line for line in lines if line.startswith("benchmark"))
    assert header.split() == ["benchmark", "params", "mode", "cluster", "core", "cpu", "metric", "median", "min",
                              "max", "n", "unit"]
    assert not any(line.startswith("(left out") for line in lines)
