"""`platperf run --repeat auto` and `platperf run --against REF`, with the real probe.

A baseline whose stored figures are those of real runs scaled 1000 times (up or down) is
decided at the first look whatever the machine's noise; a tolerance of 0.01% is never shown
equivalent by three runs of this machine. Those two make the decisions, exit codes and the
rounds that re-run only the open keys' steps come out the same on every machine.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import require_probe

from platperf import stats
from platperf.compare.gate import Goal, Verdict, judge
from platperf.compare.pools import Pool
from platperf.measure.until import more_runs
from platperf.store import Store

SUITE = """
name = "two"
[[bench]]
kernel = "mem-bandwidth"
params = { kernel = ["rd"] }
size = ["64k"]
samples = 3
min_time = 0.01

[[bench]]
kernel = "mem-latency"
pattern = "random"
size = ["16k"]
samples = 3
min_time = 0.01
"""


def platperf(cwd, *args):
    env = {**os.environ, "PLATPERF_PROBE": require_probe(), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    """Three real runs of the suite under the label 'real' (the same for every test here)."""
    where = tmp_path_factory.mktemp("gate")
    (where / "two.toml").write_text(SUITE)
    proc = platperf(where, "run", "--suite", "two.toml", "--cpus", "0", "--repeat", "3",
                    "--label", "real", "--db", "g.db", "-q")
    assert proc.returncode == 0, proc.stderr
    return where


@pytest.fixture
def db(measured, tmp_path):
    shutil.copy(measured / "g.db", tmp_path / "g.db")
    shutil.copy(measured / "two.toml", tmp_path / "two.toml")
    return tmp_path


def baseline(where, factors: dict[str, float], label="base", cpu_model=None, sessions=False, facts=None):
    """The real runs again under ``label``, each benchmark's samples times its factor: a
    stored release whose figures differ from today's by a known ratio. A list of factors
    gives each run its own (a release whose runs scatter). ``facts`` replace fingerprint
    entries (virtualization, caches)."""
    store = Store(str(where / "g.db"))
    for i, run in enumerate(store.runs_for("real")):
        fingerprint = {**run["fingerprint"], **(facts or {})}
        if cpu_model is not None:
            fingerprint = {**fingerprint, "cpu": {**fingerprint["cpu"], "model": cpu_model}}
        new = store.begin_run(label=label, target=run["target"], suite=run["suite"],
                              fingerprint=fingerprint, meta=run["meta"])
        results = store.results(run["id"])
        for r in results:
            factor = factors.get(r.benchmark, 1.0)
            factor = factor[i % len(factor)] if isinstance(factor, list) else factor
            r.samples = [s * factor for s in r.samples]
        store.add_results(new, results)
        store.finish_run(new, "complete")
        if sessions:                   # each run measured by a platperf run of its own
            store.update_run(new, owner_pid=10_000_000 + i)


def keys_of_run(where, run_id):
    return {r.benchmark for r in Store(str(where / "g.db"), write=False).results(run_id, with_samples=False)}


def test_the_gate_confirms_a_regression_and_exits_1(db):
    # the stored release had 1000x the bandwidth (now far lower: regressed) and 1000x the
    # latency (now far lower: improved)
    baseline(db, {"mem-bandwidth": 1000.0, "mem-latency": 1000.0})
    proc = platperf(db, "run", "--suite", "two.toml", "--cpus", "0", "--label", "rc", "--against", "base",
                    "--tolerance", "3%", "--budget", "5m", "--db", "g.db", "-q")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first == "rc against base: 1 regressed, 2 improved, 0 equivalent within 3%, 0 undecided"
    assert "REGRESSED" in proc.stdout and "repeated confidence intervals" in proc.stdout
    # every key was decided at the first look: three runs, no more
    assert "gate: 3 run(s)" in proc.stdout
    out = platperf(db, "run", "--suite", "two.toml", "--cpus", "0", "--label", "rc2", "--against", "base",
                   "--budget", "5m", "--db", "g.db", "--json")
    doc = json.loads(out.stdout.splitlines()[-1])
    assert doc["decisions"] == {"regressed": 1, "improved": 2, "equivalent": 0, "undecided": 0}
    row = next(r for r in doc["rows"] if r["decision"] == "regressed")
    assert row["benchmark"] == "mem-bandwidth" and row["decided_runs"] == 3
    assert row["decision_ci"][2] < -3     # the whole interval beyond the tolerance


def test_the_gate_passes_when_every_key_improved(db):
    baseline(db, {"mem-bandwidth": 0.001, "mem-latency": 1000.0})
    proc = platperf(db, "run", "--suite", "two.toml", "--cpus", "0", "--label", "rc", "--against", "base",
                    "--budget", "5m", "--db", "g.db", "-q")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("rc against base: 0 regressed, 3 improved, 0 equivalent within 3%")


def test_an_undecided_key_measures_again_only_its_step_and_exits_3(db):
    # bandwidth: improved at the first look; latency: a baseline whose three runs scatter from
    # half to twice today's figures, so its interval never narrows to a decision (neither within
    # 0.01% nor beyond it, whatever this machine's load does meanwhile) until the budget ends
    baseline(db, {"mem-bandwidth": 0.001, "mem-latency": [0.5, 1.0, 2.0]})
    proc = platperf(db, "run", "--suite", "two.toml", "--cpus", "0", "--label", "rc", "--against", "base",
                    "--tolerance", "0.01%", "--budget", "20s", "--db", "g.db", "--json")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    run = json.loads(proc.stdout.splitlines()[0])
    gate = json.loads(proc.stdout.splitlines()[-1])
    assert gate["decisions"] == {"regressed": 0, "improved": 1, "equivalent": 0, "undecided": 2}
    assert gate["stopped"].startswith(("the budget ended", "the last look"))
    ids = run["run_ids"]
    assert len(ids) > 3 and gate["runs"] == len(ids)
    assert all(keys_of_run(db, i) == {"mem-bandwidth", "mem-latency"} for i in ids[:3])
    assert all(keys_of_run(db, i) == {"mem-latency"} for i in ids[3:])
    # the rounds go to the looks: 3 runs, then 6, 12, ... of the open key
    assert len(ids) in (6, 12, 24, 48, 96)


# A virtual machine whose 64 KiB L2 is private and 1 MiB L3 shared with the host's tenants:
# the suite's mem-bandwidth rd 64k (64 KiB of buffer) lives in the L3, mem-latency 16k in L1/L2
VM_CACHES = {"virtualization": {"vm": True, "hypervisor": "KVM", "evidence": ["cpuinfo flag 'hypervisor'"]},
             "caches": [{"name": "L1d", "level": 1, "type": "data", "size": 16384},
                        {"name": "L2", "level": 2, "type": "unified", "size": 65536},
                        {"name": "L3", "level": 3, "type": "unified", "size": 1048576}]}


def test_on_a_virtual_machine_a_key_in_the_shared_cache_is_not_decided_nor_measured_again(db):
    # bandwidth 1000x lower than the baseline's would be a regression; its buffer lies in the
    # cache the VM shares, so the gate leaves it undecided at once; latency improved
    baseline(db, {"mem-bandwidth": 1000.0, "mem-latency": 1000.0}, facts=VM_CACHES)
    proc = platperf(db, "run", "--suite", "two.toml", "--cpus", "0", "--label", "rc", "--against", "base",
                    "--tolerance", "3%", "--budget", "5m", "--db", "g.db")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "rc against base: 0 regressed, 2 improved, 0 equivalent within 3%, 1 undecided" in proc.stdout
    assert "undecided (shared cache)" in proc.stdout
    assert ("Not decided here: 1 key (shared cache): the working set lies in the 1M last-level cache "
            "that this virtual machine (KVM) shares") in " ".join(proc.stdout.split())
    assert "gate: 3 run(s) in" in proc.stdout and "1 key(s) cannot be decided here" in proc.stdout
    assert "a regression at alpha/2 a key, over the 2 keys" in " ".join(proc.stdout.split())
    out = platperf(db, "run", "--suite", "two.toml", "--cpus", "0", "--label", "rc2", "--against", "base",
                   "--budget", "5m", "--db", "g.db", "--json")
    doc = json.loads(out.stdout.splitlines()[-1])
    row = next(r for r in doc["rows"] if r["decision"] == "undecided")
    assert row["benchmark"] == "mem-bandwidth" and "shares with the host's other tenants" in row["decision_why"]
    assert all(r["decision_why"] == "" for r in doc["rows"] if r["benchmark"] == "mem-latency")


def test_repeat_auto_makes_the_minimum_runs_and_says_what_did_not_settle(db):
    proc = platperf(db, "run", "--suite", "two.toml", "--cpus", "0", "--label", "auto",
                    "--repeat", "auto", "--tolerance", "0.01%", "--budget", "1s", "--db", "g.db")
    assert proc.returncode == 0, proc.stderr
    assert "runs 4-6 complete" in proc.stderr
    assert "settled: 0 of 3 keys (smallest detectable change within 0.01%) after 3 run(s)" in proc.stderr
    assert "not settled: 3 key(s); the budget ended" in proc.stderr
    assert "mem-latency [pattern=random,size=16384,stride=64] serial cluster 0 core 0 latency: detectable" \
        in proc.stderr
    show = platperf(db, "show", "auto", "--db", "g.db", "--json")
    (finding,) = [f for f in json.loads(show.stdout)["findings"] if f.get("code") == "repeat-auto"]
    assert finding["level"] == "warning" and "0 of 3 keys" in finding["message"]
    assert "detectable" in finding["effect"]


def test_a_suite_may_say_repeat_auto(db):
    (db / "auto.toml").write_text('repeat = "auto"\n' + SUITE)
    proc = platperf(db, "run", "--suite", "auto.toml", "--cpus", "0", "--tolerance", "0.01%",
                    "--budget", "1s", "--db", "g.db")
    assert proc.returncode == 0 and "after 3 run(s)" in proc.stderr, proc.stderr


@pytest.mark.parametrize("args, words", [
    (["--repeat", "three"], "--repeat 'three': give a number of runs or auto"),
    (["--repeat", "auto", "--budget", "soon"], "--budget 'soon': give a time such as 90s"),
    (["--repeat", "auto", "--tolerance", "0%"], "--tolerance '0%': give a percentage above 0"),
    (["--against", "v9.99"], "--against: no run 'v9.99'"),
])
def test_bad_gate_input_is_one_line_and_exit_2(db, args, words):
    proc = platperf(db, "run", "--suite", "two.toml", "--cpus", "0", "--db", "g.db", *args)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("platperf: error: ") and words in lines[0]
    assert len(Store(str(db / "g.db"), write=False).runs()) == 3     # nothing measured


def test_a_baseline_from_another_machine_is_refused_before_measuring(db):
    baseline(db, {}, label="juno", cpu_model="Cortex-A57 (another board)")
    proc = platperf(db, "run", "--suite", "two.toml", "--cpus", "0", "--against", "juno", "--db", "g.db")
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines[-1].startswith("platperf: error: --against juno ran on another machine (cpu.model: ")
    assert len(Store(str(db / "g.db"), write=False).runs()) == 6     # 3 real, 3 juno: none new


def pool(medians):
    return Pool("ns", "lower", [[m] for m in medians])


def test_settling_rounds_follow_the_runs_needed_at_most_doubling():
    # run medians as stored: one key spread 1% (3 runs detect 3.04%, just short of 3%), one
    # spread 10% (176 runs needed: the next round only doubles, the spread is a guess)
    verdict = Verdict(Goal(tolerance=3.0, budget_s=600))
    pools = {("a",): pool([100.0, 101.0, 99.0]), ("b",): pool([100.0, 110.0, 90.0])}
    judge(verdict, pools)
    assert verdict.open_keys() == {("a",), ("b",)}
    assert verdict.settled[("a",)].detectable_pct == pytest.approx(stats.minimum_detectable_effect(1.0, 3, 3))
    assert more_runs(verdict, pools, {("a",)}) == stats.runs_needed(3.0, 1.0) - 3
    assert more_runs(verdict, pools, {("a",), ("b",)}) == 3
    calm = {("a",): pool([100.0, 100.1, 99.9, 100.0, 100.05, 99.95])}
    judge(verdict, calm)
    assert verdict.settled[("a",)].settled and verdict.open_keys() == set()


def test_gate_rounds_go_to_the_next_look():
    base = {("a",): pool([100.0, 100.2, 99.8, 100.1])}
    verdict = Verdict(Goal(tolerance=3.0, budget_s=600, baseline=base, baseline_ref="v1"))
    # 100x slower at the first look: regressed, and it stays so
    judge(verdict, {("a",): pool([10000.0, 10010.0, 9990.0])})
    assert verdict.decided[("a",)].word == "regressed" and verdict.open_keys() == set()
    verdict = Verdict(Goal(tolerance=3.0, budget_s=600, baseline=base, baseline_ref="v1"))
    noisy = {("a",): pool([90.0, 110.0, 100.0, 95.0])}
    judge(verdict, noisy)
    assert verdict.open_keys() == {("a",)} and more_runs(verdict, noisy, {("a",)}) == 2   # to 6


def test_a_baseline_of_several_sessions_counts_their_drift(db):
    # three sessions, each its own figures: far from today's (1000x), the gate still decides;
    # 1.3x apart from each other around today's, the baseline's own share of the interval (its
    # 3 session means, 2 degrees of freedom) keeps every key undecided, however many new blocks
    baseline(db, {"mem-bandwidth": 1000.0, "mem-latency": 1000.0}, label="far", sessions=True)
    proc = platperf(db, "run", "--suite", "two.toml", "--cpus", "0", "--label", "rc", "--against", "far",
                    "--tolerance", "3%", "--budget", "5m", "--db", "g.db", "-q")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[0].startswith("rc against far: 1 regressed, 2 improved")
    assert "counted from the baseline's 3 sessions" in " ".join(proc.stdout.split())
    baseline(db, {"mem-bandwidth": [1.0, 1.3, 1 / 1.3], "mem-latency": [1.0, 1.3, 1 / 1.3]},
             label="drifting", sessions=True)
    out = platperf(db, "run", "--suite", "two.toml", "--cpus", "0", "--label", "rc2", "--against", "drifting",
                   "--tolerance", "3%", "--budget", "5m", "--db", "g.db", "--json")
    assert out.returncode == 3, out.stdout + out.stderr
    doc = json.loads(out.stdout.splitlines()[-1])
    assert doc["decisions"]["undecided"] == 3
    assert all(r["decision_ci"][1] < -3 and r["decision_ci"][2] > 3 for r in doc["rows"])
    # the same runs as one session: the method says that drift was not counted
    one = platperf(db, "run", "--suite", "two.toml", "--cpus", "0", "--label", "rc3", "--against", "real",
                   "--tolerance", "3%", "--budget", "20s", "--db", "g.db", "-q")
    assert "the baseline is one session" in " ".join(one.stdout.split())


def test_the_gate_counts_the_baselines_sessions_when_it_has_several():
    # four sessions of two runs each, 4% apart from one another; today 7% slower, tight
    runs = [100.0, 100.1, 104.0, 104.1, 96.0, 96.1, 100.0, 100.1]
    base = {("a",): Pool("ns", "lower", [[v] for v in runs], run_ids=list(range(1, 9)))}
    today = {("a",): pool([107.0, 107.1, 106.9, 107.0, 107.05, 106.95])}

    def decided(pids):
        goal = Goal(tolerance=3.0, budget_s=600, baseline=base, baseline_ref="v1",
                    baseline_runs=[{"id": i, "owner_host": "h", "owner_pid": p} for i, p in enumerate(pids, 1)])
        verdict = Verdict(goal)
        judge(verdict, today)
        return verdict.decided[("a",)]
    # one session: its runs stand for every session, and today's 7% is beyond the tolerance
    assert decided([5] * 8).word == "regressed"
    # four: their means 4% apart are the baseline's share of the interval (and today's 6 runs
    # are 2 blocks), so 7% is not shown beyond 3%
    four = decided([5, 5, 6, 6, 7, 7, 8, 8])
    assert four.word == "undecided" and "the baseline's 4 sessions differ by" in four.why
