"""`platperf run`, `runs` and `show` as a person or a script uses them (fake probe)."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import fake_probe
from conftest import require_probe

from platperf.store import Store

SUITE = """
name = "tiny"
[[bench]]
kernel = "mem-latency"
pattern = "random"
size = ["4k", "64k"]
samples = 3
mode = "both"
"""


def platperf(*args, env=None, **kw):
    return subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True, text=True,
                          env=env, timeout=60, **kw)


@pytest.fixture
def setup(tmp_path, monkeypatch):
    fake_probe.install(tmp_path, monkeypatch)
    suite = tmp_path / "tiny.toml"
    suite.write_text(SUITE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def one_line_error(proc, *needles):
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("platperf: error: "), proc.stderr
    for needle in needles:
        assert needle in lines[0]


def test_run_then_runs_then_show(setup):
    label, note = "v2.12 [red]<b>'\"|", "after BSP 9.1; DDR @ 3200"
    proc = platperf("run", "--suite", "tiny.toml", "--db", "r.db", "--label", label, "--note", note,
                    "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["status"] == "complete" and out["results"] == 8
    runs = json.loads(platperf("runs", "--db", "r.db", "--json").stdout)
    assert [(r["id"], r["label"], r["note"], r["status"], r["results"]) for r in runs] == \
        [(out["run_id"], label, note, "complete", 8)]
    table = platperf("runs", "--db", "r.db").stdout
    assert label in table   # printed as typed, not taken as markup
    shown = json.loads(platperf("show", label, "--db", "r.db", "--json").stdout)
    assert shown["label"] == label and len(shown["results"]) == 8
    text = platperf("show", "latest", "--db", "r.db").stdout
    assert "pattern=random,size=65536,stride=64" in text and "8 results, 0 histograms" in text


def test_show_of_a_run_that_does_not_exist_is_one_line(setup):
    platperf("run", "--suite", "tiny.toml", "--db", "r.db", "--quiet")
    one_line_error(platperf("show", "42", "--db", "r.db"), "no run '42'")


@pytest.mark.parametrize("args, needles", [
    (["--suite", "nope"], ["unknown suite 'nope'", "quick", "full"]),
    (["--suite", "missing.toml"], ["missing.toml does not exist"]),
    (["--cpus", "0,99"], ["CPU 99 not online", "valid: "]),
    (["--mode", "sideways"], ["unknown mode 'sideways'"]),
    (["--target", "lava"], ["unknown target 'lava'", "valid: local"]),
])
def test_bad_input_is_one_line_and_exit_2(setup, args, needles):
    if "--suite" not in args:
        args = ["--suite", "tiny.toml", *args]
    one_line_error(platperf("run", *args, "--db", "r.db"), *needles)


def test_bad_kernel_in_a_suite_exits_2_before_a_run_begins(setup):
    (setup / "bad.toml").write_text('[[bench]]\nkernel = "mem-latancy"\n')
    one_line_error(platperf("run", "--suite", "bad.toml", "--db", "r.db"),
                   "unknown kernel 'mem-latancy'", "mem-latency")
    assert not (setup / "r.db").exists()      # checked before any database is opened


def test_unwritable_database_is_one_line(setup):
    one_line_error(platperf("run", "--suite", "tiny.toml", "--db", "/nonexistent-dir/r.db"),
                   "does not exist")
    if os.geteuid() == 0:   # root may write anywhere but /proc
        one_line_error(platperf("runs", "--db", "/proc/platperf-test.db"), "/proc/platperf-test.db")


def test_database_from_a_newer_platperf_is_one_line(setup):
    Store(str(setup / "r.db"))
    with sqlite3.connect(setup / "r.db") as c:
        c.execute("UPDATE alembic_version SET version_num = 'ffff'")
    for command in (["runs"], ["show", "latest"], ["run", "--suite", "tiny.toml"]):
        one_line_error(platperf(*command, "--db", "r.db"), "newer than this platperf")


def test_a_killed_probe_exits_2_and_keeps_the_results(setup, monkeypatch):
    monkeypatch.setenv("FAKE_PROBE_BEHAVIOUR", "die-after=1")
    proc = platperf("run", "--suite", "tiny.toml", "--db", "r.db", "--json", "--quiet")
    assert proc.returncode == 2
    out = json.loads(proc.stdout)
    assert out["status"] == "partial" and out["results"] == 1
    one_line_error(proc, "run 1 is partial (1 results, 0 histograms in r.db kept)",
                   "without an 'end' record (killed by signal 9)")


def test_a_malformed_record_exits_2_naming_the_line(setup, monkeypatch):
    monkeypatch.setenv("FAKE_PROBE_BEHAVIOUR", "malformed-at=2")
    proc = platperf("run", "--suite", "tiny.toml", "--db", "r.db", "--quiet")
    one_line_error(proc, "run 1 is failed (2 results", "(suite entry 1):5: not JSON")


def test_ctrl_c_forwards_sigint_and_leaves_a_partial_run(setup, monkeypatch):
    monkeypatch.setenv("FAKE_PROBE_BEHAVIOUR", "slow")
    proc = subprocess.Popen([sys.executable, "-m", "platperf", "run", "--suite", "tiny.toml",
                             "--db", "r.db", "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _stored(setup / "r.db") < 4:
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    out = json.loads(stdout)
    assert out["status"] == "partial" and out["results"] >= 4
    runs = json.loads(platperf("runs", "--db", "r.db", "--json").stdout)
    assert runs[0]["status"] == "partial" and runs[0]["results"] == out["results"]
    # the probe saw the SIGINT and wrote `end` interrupted; nothing of it is left running
    argv = json.loads((setup / "probe-argv.log").read_text().splitlines()[-1])
    assert argv[:2] == ["run", "mem-latency"]
    assert "interrupted" in json.loads(platperf("show", "latest", "--db", "r.db", "--json").stdout)["error"]


def _stored(db):
    try:
        with sqlite3.connect(db) as c:
            return c.execute("SELECT count(*) FROM results").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize("command", ["run", "runs", "show"])
def test_help_has_an_example(command):
    proc = platperf(command, "--help")
    assert proc.returncode == 0 and "Example" in proc.stdout


# -- with the real probe ----------------------------------------------------------------
def _real_probe():
    return require_probe()


@pytest.fixture
def real_probe(monkeypatch, tmp_path):
    monkeypatch.delenv("PLATPERF_PROBE", raising=False)
    monkeypatch.setenv("PLATPERF_PROBE", _real_probe())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_builtin_suites_are_valid_for_the_real_probe(real_probe):
    from platperf.runner.probe import probe_kernels
    from platperf.runner.suite import builtin_suites, check_suite, load_suite
    from platperf.targets.local import LocalTarget
    kernels = probe_kernels(LocalTarget())
    for name in builtin_suites():
        check_suite(load_suite(name), kernels)


def test_end_to_end_with_the_real_probe(real_probe):
    (real_probe / "small.toml").write_text(
        '[[bench]]\nkernel = "mem-latency"\npattern = "random"\nsize = ["16k", "256k"]\n'
        'samples = 2\nmin_time = 0.002\nmode = "both"\n'
        '[[bench]]\nkernel = "mem-bandwidth"\nparams = { kernel = ["rd", "copy"] }\nsize = "64k"\n'
        'samples = 2\nmin_time = 0.002\n')
    proc = platperf("run", "--suite", "small.toml", "--cpus", "0", "--db", "e.db", "--label", "e2e",
                    "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # 2 sizes x (latency, latency_cycles) x 2 modes + 2 bandwidth kernels
    assert (out["status"], out["results"]) == ("complete", 10)
    shown = json.loads(platperf("show", "e2e", "--db", "e.db", "--json").stdout)
    assert shown["meta"]["schema"] == 1 and shown["meta"]["build_id"]
    assert shown["fingerprint"]["cpu"]["count"] >= 1
    assert {(r["cpu"], r["cluster"], r["core"]) for r in shown["results"]} == {(0, 0, 0)}
    assert {r["metric"] for r in shown["results"]} == {"latency", "latency_cycles", "bandwidth"}
    assert all(r["n"] == 2 and r["min"] > 0 for r in shown["results"])


def test_ctrl_c_with_the_real_probe_keeps_what_it_measured(real_probe):
    (real_probe / "long.toml").write_text(
        '[[bench]]\nkernel = "mem-latency"\npattern = "random"\n'
        'size = ["4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m", "2m", "4m", "8m"]\n'
        'samples = 50\nmin_time = 0.01\n')
    proc = subprocess.Popen([sys.executable, "-m", "platperf", "run", "--suite", "long.toml",
                             "--cpus", "0", "--db", "i.db", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _stored(real_probe / "i.db") < 2 and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    out = json.loads(stdout)
    assert out["status"] == "partial" and 2 <= out["results"] < 24
    assert _stored(real_probe / "i.db") == out["results"]


def test_results_are_placed_by_the_topology_of_the_root(setup):
    # A Juno r1 tree: CPUs 0-1 are the Cortex-A57 cluster 0, CPUs 2-5 the Cortex-A53 cluster 1.
    root = os.path.join(os.path.dirname(__file__), "fixtures", "sysfs", "juno")
    one_line_error(platperf("run", "--suite", "tiny.toml", "--root", root, "--cpus", "6", "--db", "j.db"),
                   "CPU 6 not online (valid: 0, 1, 2, 3, 4, 5)")
    proc = platperf("run", "--suite", "tiny.toml", "--root", root, "--cpus", "1,2,5", "--mode", "serial",
                    "--db", "j.db", "--json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(platperf("show", "latest", "--db", "j.db", "--json").stdout)
    assert sorted({(r["cpu"], r["cluster"], r["core"]) for r in shown["results"]}) == \
        [(1, 0, 1), (2, 1, 0), (5, 1, 3)]
    assert shown["fingerprint"]["cpu"]["core_types"] == ["Cortex-A57", "Cortex-A53"]


# -- runs as the unit: --repeat (issue 10) --------------------------------------------------

def test_interleave_turns_the_order_of_the_runs_from_step_to_step():
    from platperf.runner.executor import interleave
    from platperf.runner.suite import Step
    steps = [Step(n, "k", "serial", [], f"s{n}") for n in (1, 2, 3)]
    order = [(i, s.title) for i, s in interleave(steps, 3)]
    assert order == [(0, "s1"), (1, "s1"), (2, "s1"), (1, "s2"), (2, "s2"), (0, "s2"),
                     (2, "s3"), (0, "s3"), (1, "s3")]
    assert [(i, s.title) for i, s in interleave(steps, 1)] == [(0, "s1"), (0, "s2"), (0, "s3")]


def test_repeat_stores_n_runs_under_one_label_steps_interleaved(setup):
    proc = platperf("run", "--suite", "tiny.toml", "--db", "r.db", "--label", "v1", "--repeat", "3",
                    "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["status"] == "complete" and len(out["run_ids"]) == 3 and out["results"] == 24
    runs = json.loads(platperf("runs", "--db", "r.db", "--json").stdout)
    assert [(r["label"], r["status"], r["results"]) for r in runs] == [("v1", "complete", 8)] * 3
    # Each probe step went into every run before the next step began: the runs' results
    # were stored turn about, not one run after the other.
    con = sqlite3.connect("r.db")
    order = [run_id for (run_id,) in con.execute("SELECT run_id FROM results ORDER BY id")]
    con.close()
    first_step = order[:12]        # tiny's first step (serial) gives 4 results a run
    assert sorted(set(first_step)) == out["run_ids"]
    # and compare takes them as 3 runs a side
    data = json.loads(platperf("compare", "v1", "v1", "--db", "r.db", "--format", "json").stdout)
    assert {(r["runs_base"], r["runs_new"]) for r in data["rows"]} == {(3, 3)}


def test_a_suite_says_how_many_runs_and_repeat_overrides_it(setup):
    (setup / "twice.toml").write_text("repeat = 2\n" + SUITE)
    out = json.loads(platperf("run", "--suite", "twice.toml", "--db", "r.db", "--json").stdout)
    assert len(out["run_ids"]) == 2
    out = json.loads(platperf("run", "--suite", "twice.toml", "--db", "r.db", "--json",
                              "--repeat", "1").stdout)
    assert out["run_ids"] == [out["run_id"]]
    from platperf.runner.suite import load_suite
    assert load_suite("quick").repeat == 3


@pytest.mark.parametrize("suite_head, args, needle", [
    ("", ["--repeat", "0"], "--repeat 0: give a number of runs from 1 to 100"),
    ("repeat = \"three\"\n", [], "repeat = 'three' must be a whole number of runs"),
])
def test_bad_repeat_is_one_line_and_exit_2(setup, suite_head, args, needle):
    (setup / "bad.toml").write_text(suite_head + SUITE)
    one_line_error(platperf("run", "--suite", "bad.toml", "--db", "r.db", *args), needle)
    assert not (setup / "r.db").exists()


def test_a_failing_step_ends_every_run_of_a_repeat_keeping_what_arrived(setup, monkeypatch):
    monkeypatch.setenv("FAKE_PROBE_BEHAVIOUR", "malformed-at=2")
    proc = platperf("run", "--suite", "tiny.toml", "--db", "r.db", "--json", "--quiet",
                    "--repeat", "3")
    assert proc.returncode == 2
    out = json.loads(proc.stdout)
    assert out["status"] == "failed" and len(out["run_ids"]) == 3
    one_line_error(proc, "runs 1-3 are failed", "not JSON")
    runs = json.loads(platperf("runs", "--db", "r.db", "--json").stdout)
    # the first run's first step failed; the two others never began theirs: partial, empty
    assert [(r["status"], r["results"]) for r in runs] == [("failed", 2), ("partial", 0), ("partial", 0)]


def test_repeated_probe_warnings_are_one_line_everywhere_and_each_is_kept(setup, monkeypatch):
    # 2 sizes x 2 CPUs x 3 runs: 12 sample-preempted warnings, near-identical (the serial and the
    # parallel invocation of a run write the same ones: kept once)
    monkeypatch.setenv("FAKE_PROBE_PREEMPTED", "1")
    proc = platperf("run", "--suite", "tiny.toml", "--db", "r.db", "--label", "busy", "--cpus", "0,1",
                    "--repeat", "3")
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if "sample-preempted" in line]
    assert said == ["probe: warn: 12 sample-preempted warnings (CPUs 0-1; mem-latency 12), the first: "
                    "1 of 3 samples are kept although preempted"]
    runs = json.loads(platperf("runs", "--db", "r.db", "--json").stdout)
    stored = [f for r in runs for f in json.loads(platperf("show", str(r["id"]), "--db", "r.db", "--json")
                                                  .stdout)["findings"] if f["code"] == "sample-preempted"]
    assert len(stored) == 12 and {f["benchmark"] for f in stored} == {"mem-latency"}
    shown = platperf("show", str(runs[0]["id"]), "--db", "r.db").stdout
    assert shown.count("sample-preempted") == 1 and "4 sample-preempted warnings (CPUs 0-1;" in shown
    for fmt in ("md", "rst-grid", "rst-csv", "html"):
        report = platperf("report", "busy", "--db", "r.db", "--format", fmt).stdout
        # one line for the label's three runs, none per warning: where and how often it was seen,
        # on the first screen (the worst findings) and in the Findings section
        assert report.count("sample-preempted warnings") == 2, fmt
        assert report.count("of 3 samples are kept although preempted") == 2, fmt
        assert report.index("Worst findings first") < report.index("sample-preempted warnings"), fmt
        assert "runs 1, 2, 3, CPUs 0-1, 12 times" in report, fmt
