"""cpu-ops and c2c-latency run for real, natively and under qemu-user: the records they
write (keys as docs/probe.md and the LMBench name table expect), the answers to bad
input, and armv7 without a divide instruction (qemu's Cortex-A9). No timing asserted.
Builds: `make probe probe-cross`. Missing build or qemu: skipped, except under CI=true.
"""
from __future__ import annotations

import os
import subprocess

import pytest

from platperf.records import result_from_record
from test_probe_functional import SMALL, command, records, run_probe

TYPES = ("int", "int64", "float", "double")
OPS = {"int": ("add", "mul", "div", "mod", "bit"), "int64": ("add", "mul", "div", "mod", "bit"),
       "float": ("add", "mul", "div"), "double": ("add", "mul", "div")}


@pytest.mark.parametrize("build", ["native", "aarch64", "armv7"])
def test_cpu_ops_gives_every_lmbench_row_in_ns_and_cycles(build):
    recs = records(run_probe(build, "run", "cpu-ops", *SMALL).stdout)
    results = [r for r in recs if r["type"] == "result"]
    assert recs[-1]["status"] == "complete" and recs[-1]["results"] == len(results)
    keys = {(r["params"]["type"], r["params"]["op"], r["metric"]) for r in results}
    assert keys == {(t, op, m) for t in TYPES for op in OPS[t] for m in ("latency", "cycles")}
    for rec in results:
        res = result_from_record(rec)
        assert res.benchmark == "cpu-ops" and res.direction == "lower" and res.cpu == 0
        assert rec["unit"] == {"latency": "ns", "cycles": "cycles"}[rec["metric"]]
        assert len(res.samples) == 2 and all(s > 0 for s in res.samples)
        assert rec["iterations"] % 99 == 0 or rec["iterations"] % 100 == 0
        if rec["metric"] == "cycles":
            assert rec["core_clock"]["cycles_per_tick"] > 0


def test_cpu_ops_cycles_are_the_ns_at_the_core_clock():
    recs = records(run_probe("native", "run", "cpu-ops", "--type", "int,float", "--op", "add,mod", *SMALL).stdout)
    by_key = {(r["params"]["type"], r["params"]["op"], r["metric"]): r for r in recs if r["type"] == "result"}
    for t, op in (("int", "add"), ("float", "add"), ("int", "mod")):
        ns, cyc = by_key[(t, op, "latency")], by_key[(t, op, "cycles")]
        hz = cyc["core_clock"]["hz"]
        for a, b in zip(ns["samples"], cyc["samples"]):
            assert b == pytest.approx(a * hz / 1e9, rel=1e-3, abs=1e-3)


@pytest.mark.parametrize("args,names", [
    (["--type", "float", "--op", "mod,bit"], ["--type float", "--op mod,bit", "int or int64"]),
    (["--type", "quad"], ["quad", "int|int64|float|double"]),
    (["--op", "sqrt"], ["sqrt", "add|mul|div|mod|bit"]),
])
def test_cpu_ops_bad_input_is_one_line_and_exit_2(args, names):
    proc = run_probe("native", "run", "cpu-ops", *args, *SMALL, check=False)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1
    assert all(n in proc.stderr for n in names), proc.stderr


def test_armv7_without_a_divide_instruction_warns_and_measures_the_rest():
    cmd = command("armv7")
    proc = subprocess.run([cmd[0], "-cpu", "cortex-a9", *cmd[1:], "run", "cpu-ops", "--type", "int,int64",
                           "--op", "div,mod,add", *SMALL], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    recs = records(proc.stdout)
    warned = {r["message"] for r in recs if r["type"] == "warning" and r["code"] == "no-int-div"}
    assert warned == {"cpu-ops: this CPU has no integer divide instruction; int div not measured",
                      "cpu-ops: this CPU has no integer divide instruction; int mod not measured"}
    measured = {(r["params"]["type"], r["params"]["op"]) for r in recs if r["type"] == "result"}
    assert measured == {("int", "add"), ("int64", "add"), ("int64", "div"), ("int64", "mod")}


def _two_cpus():
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("c2c-latency needs two CPUs; this machine gives the tests one")


@pytest.mark.parametrize("build", ["native", "aarch64", "armv7"])
def test_c2c_measures_each_unordered_pair_once(build):
    _two_cpus()
    cpus = sorted(os.sched_getaffinity(0))[:3]
    recs = records(run_probe(build, "run", "c2c-latency", "--cpus", ",".join(map(str, cpus)), *SMALL).stdout)
    results = [r for r in recs if r["type"] == "result"]
    assert recs[-1]["status"] == "complete"
    pairs = {(r["cpu"], r["params"]["peer"]) for r in results}
    assert pairs == {(a, b) for a in cpus for b in cpus if a < b} and len(results) == len(pairs)
    for rec in results:
        assert (rec["benchmark"], rec["metric"], rec["unit"], rec["direction"]) == \
            ("c2c-latency", "latency", "ns", "lower")
        # one-way transfers: two per round trip, at least 100 round trips per sample
        assert rec["iterations"] % 2 == 0 and rec["iterations"] >= 200
        assert all(s > 0 for s in rec["samples"]) and rec["summary"]["min"] <= rec["summary"]["median"]


@pytest.mark.parametrize("args,says", [
    (["--cpus", "0"], "needs at least two CPUs"),
    (["--cpus", "0,1", "--mode", "parallel"], "one pair at a time"),
])
def test_c2c_without_a_pair_to_measure_warns_and_completes(args, says):
    """Not an error: `platperf run --suite full --cpus 0` (or --mode parallel) goes on."""
    _two_cpus()
    recs = records(run_probe("native", "run", "c2c-latency", *args, *SMALL).stdout)
    # (the meta's warnings of this machine's counter aside: a VM's TSC moving in 10 ns steps)
    warnings = [r for r in recs if r["type"] == "warning" and not r["code"].startswith("counter-")]
    assert [w["code"] for w in warnings] == ["c2c-not-applicable"] and says in warnings[0]["message"]
    assert not [r for r in recs if r["type"] == "result"]
    assert recs[-1]["status"] == "complete" and recs[-1]["results"] == 0
