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
    # the page from a directory deep enough that `show` prints a source path wider than 120
    # columns, as a CI checkout's does
    deep = tmp_path_factory.mktemp("fit") / "a-checkout-several-levels-down" / "of-the-pytest-temporary-directory" / "tests" / "fixtures" / "corpus" / "tfa"
    deep.mkdir(parents=True)
    page = deep / "juno-2025-05.rst"
    page.write_bytes(entry("tfa", "juno-2025-05.rst").local.read_bytes())
    assert len(str(page)) > 120
    out = CliRunner().invoke(app, ["ingest", "tfa-rst", str(page), "--db", path])
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


def test_a_path_wider_than_the_terminal_breaks_after_a_slash_and_keeps_every_character():
    from platperf.report.terminal import wrap
    path = "/check/work/main/tests/fixtures/corpus/tfa/juno-2025-05.rst"
    lines = wrap(f"source: {path}", 40, "  ")
    assert len(lines) > 1 and all(len(line) <= 40 for line in lines)
    assert all(line.rstrip().endswith("/") for line in lines[:-1])
    assert "".join(line.strip() for line in lines) == f"source: {path}"
    # a word with no slash to break at stays whole
    assert wrap("x " + "p" * 50, 40) == ["x", "  " + "p" * 50]


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


# A real run of the probe on this machine: its doctor's findings (long sentences, commands to
# type) and machine lines as a person gets them, 2 sizes x (latency, latency_cycles) x 2 modes
# + one bandwidth kernel on CPU 0: 9 results.
SMALL = ('[[bench]]\nkernel = "mem-latency"\npattern = "random"\nsize = ["16k", "256k"]\n'
         'samples = 2\nmin_time = 0.002\nmode = "both"\n'
         '[[bench]]\nkernel = "mem-bandwidth"\nparams = { kernel = ["rd"] }\nsize = "64k"\n'
         'samples = 2\nmin_time = 0.002\n')


@pytest.fixture(scope="module")
def probed(tmp_path_factory) -> str:
    import os
    import subprocess
    import sys

    from conftest import require_probe
    where = tmp_path_factory.mktemp("probed")
    (where / "small.toml").write_text(SMALL)
    env = {**os.environ, "PLATPERF_PROBE": require_probe()}
    done = subprocess.run([sys.executable, "-m", "platperf", "run", "--suite", str(where / "small.toml"),
                           "--cpus", "0", "--repeat", "1", "--label", "r1", "--db", str(where / "r.db"), "--quiet"],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    return str(where / "r.db")


@pytest.mark.parametrize("columns", [None, 60, 120])
def test_a_real_run_fits_and_keeps_every_median_and_every_finding(probed, columns):
    from platperf.findings import collapse
    from platperf.vocab.figures import number
    doc = json.loads(CliRunner().invoke(app, ["show", "r1", "--db", probed, "--json"]).stdout)
    results = doc["results"]
    assert len(results) == 9
    limit = columns or 80
    for args in (("show", "r1"), ("show", "r1", "--all"), ("runs",)):
        lines = run(probed, columns, *args)
        assert [line for line in lines if len(line) > limit or line != line.rstrip()] == [], args
    lines = run(probed, columns, "show", "r1", "--all")
    # each result's median in the median column of its own row, under a heading naming its
    # benchmark (and its parameters: one heading per (benchmark, params))
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["mode"])
    header = lines[at].split()
    rows = [line.split() for line in lines[at + 1:] if line.startswith("  ")]
    assert sorted(r[header.index("median")] for r in rows) == sorted(number(r["median"]) for r in results)
    headings = [line for line in lines[at + 1:] if line and not line.startswith(("  ", "("))
                and not line.endswith(" histograms")]
    assert [h.split()[0] for h in headings] == ["mem-latency"] * 2 + ["mem-bandwidth"]
    # every finding whole, its message, effect and fix, in the words of the wrapped prose
    words = " ".join(" ".join(lines).split())
    for f in collapse(doc["findings"] or []):
        for part in ("message", "effect", "fix"):
            assert " ".join(str(f.get(part) or "").split()) in words, (part, f)
