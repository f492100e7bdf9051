"""Userspace PMF: probe/include/platperf_instr.h in a real program, built for the three
architectures (gcc and the two cross compilers) and run (the cross builds under qemu-user),
its points imported with `platperf ingest instr` as the intervals a TOML names, per
(cluster, core). Plus the pairing rules and the TOML's errors. No timing asserted.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from platperf.ingest import IngestError, instr
from platperf.store import Store
from conftest import missing
from test_report_cli import platperf

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "probe" / "examples" / "instr_example.c"
TOML = ROOT / "probe" / "examples" / "instr_example.toml"
BUILDS = {"x86_64": ("gcc", None), "aarch64": ("aarch64-linux-gnu-gcc", "qemu-aarch64-static"),
          "armv7": ("arm-linux-gnueabihf-gcc", "qemu-arm-static")}
COUNTERS = {"x86_64": {"tsc"}, "aarch64": {"cntvct_el0"}, "armv7": {"cntvct", "clock_monotonic_raw"}}


def meta(freq=1e9, host="board"):
    return json.dumps({"type": "meta", "schema": 1, "source": "platperf_instr.h", "host": host,
                       "counter": {"name": "cntvct_el0", "freq_hz": freq, "freq_source": "cntfrq"}})


def point(name, ticks, cpu=0, thread=1):
    return json.dumps({"type": "point", "name": name, "ticks": ticks, "cpu": cpu, "thread": thread})


POWER = instr.parse_intervals('[intervals]\npowerdown = "ENTER_HW_LOW_PWR - ENTER_PSCI"\n'
                              'wakeup = "EXIT_PSCI - EXIT_HW_LOW_PWR"\n', "t.toml")


# -- the TOML ------------------------------------------------------------------------------

def test_the_example_toml_names_tf_a_s_intervals():
    iv = instr.load_intervals(TOML)
    assert iv.unit == "us" and iv.mode == "serial"
    assert [(i.name, i.end, i.start) for i in iv.intervals] == [
        ("powerdown", "ENTER_HW_LOW_PWR", "ENTER_PSCI"), ("wakeup", "EXIT_PSCI", "EXIT_HW_LOW_PWR"),
        ("cache_flush", "EXIT_CFLUSH", "ENTER_CFLUSH")]


@pytest.mark.parametrize("text,words", [
    ('[intervals]\npowerdown = "A-B"\n', ["'powerdown'", "END - START"]),
    ('unit = "ms"\n[intervals]\na = "B - C"\n', ["unit 'ms'", "ns, us"]),
    ('units = "us"\n', ["unknown key 'units'"]),
    ('unit = "us"\n', ["no [intervals] table"]),
    ('[intervals\n', ["not valid TOML"])])
def test_a_bad_toml_is_one_line_naming_the_file(text, words):
    with pytest.raises(IngestError) as err:
        instr.parse_intervals(text, "bad.toml")
    assert err.value.where.startswith("bad.toml:") and "\n" not in err.value.message
    for word in words:
        assert word in err.value.message


# -- pairing -------------------------------------------------------------------------------

def test_each_end_takes_the_latest_start_of_its_own_thread():
    lines = [meta(freq=1e6),                                         # 1 tick = 1 us
             point("ENTER_PSCI", 100, cpu=2, thread=7),
             point("ENTER_PSCI", 110, cpu=3, thread=8),
             point("ENTER_PSCI", 120, cpu=2, thread=7),                # a retry: the later START counts
             point("ENTER_HW_LOW_PWR", 150, cpu=2, thread=7),          # 30 on thread 7, CPU 2
             point("ENTER_HW_LOW_PWR", 160, cpu=3, thread=8),          # 50 on thread 8, CPU 3
             point("ENTER_HW_LOW_PWR", 170, cpu=2, thread=7),          # no START left: not an interval
             point("EXIT_HW_LOW_PWR", 200, cpu=2, thread=7),
             point("EXIT_PSCI", 204, cpu=2, thread=7),
             json.dumps({"type": "end", "status": "complete", "results": 0})]
    got = [(r.params["test"], r.cpu, r.samples, r.unit, r.metric) for r in instr.parse("\n".join(lines), "p", POWER)]
    assert got == [("powerdown", 2, [30.0], "us", "latency"), ("powerdown", 3, [50.0], "us", "latency"),
                   ("wakeup", 2, [4.0], "us", "latency")]


def test_without_a_toml_consecutive_points_of_a_thread_are_intervals():
    lines = [meta(freq=1e9), point("A", 0), point("X", 5, thread=2), point("B", 1000), point("C", 3000)]
    got = [(r.params["test"], r.samples) for r in instr.parse("\n".join(lines), "p")]
    assert got == [("A..B", [1.0]), ("B..C", [2.0])]


@pytest.mark.parametrize("lines,where,words", [
    ([meta(), point("ENTER_PSCI", 500), point("ENTER_HW_LOW_PWR", 400)], "p:3", ["went backwards"]),
    ([meta(freq=0), point("ENTER_PSCI", 1)], "p:1", ["freq_hz"]),
    ([point("ENTER_PSCI", 1)], "p:1", ["first record must be 'meta'"]),
    ([meta()], "p:1", ["no point records"]),
    ([meta(), point("ENTER", 1), point("EXIT", 2)], "p:1", ["2 points", "no interval"])])
def test_streams_that_give_no_sound_interval_are_refused(lines, where, words):
    with pytest.raises(IngestError) as err:
        instr.parse("\n".join(lines), "p", POWER)
    assert err.value.where == where, err.value
    for word in words:
        assert word in err.value.message


# -- the example program, three architectures, through the CLI -----------------------------

def build_and_run(arch: str, tmp_path: Path, rounds: int = 3) -> Path:
    compiler, qemu = BUILDS[arch]
    if not shutil.which(compiler):
        missing(f"{compiler} is not installed (make deps)")
    if qemu and not shutil.which(qemu):
        missing(f"{qemu} is not installed (make deps)")
    binary = tmp_path / f"instr_example-{arch}"
    subprocess.run([compiler, "-O2", "-Wall", "-Wextra", "-Werror", "-static", "-I", str(ROOT / "probe" / "include"),
                    str(EXAMPLE), "-o", str(binary)], check=True, capture_output=True, timeout=300)
    out = tmp_path / f"points-{arch}.jsonl"
    with out.open("w") as f:
        subprocess.run([*([qemu] if qemu else []), str(binary), str(rounds)], stdout=f, check=True, timeout=300)
    return out


@pytest.mark.parametrize("arch", sorted(BUILDS))
def test_the_example_builds_runs_and_ingests_per_cluster_and_core(arch, tmp_path):
    points = build_and_run(arch, tmp_path)
    records = [json.loads(line) for line in points.read_text().splitlines()]
    head, end = records[0], records[-1]
    assert head["type"] == "meta" and head["arch"] == arch and head["counter"]["name"] in COUNTERS[arch]
    assert head["counter"]["freq_hz"] > 0
    kept = [r for r in records if r["type"] == "point"]
    assert end == {"type": "end", "status": "complete", "results": 0, "points": len(kept)}
    cpus = {r["cpu"] for r in kept}
    assert len(kept) == 6 * 3 * len(cpus)
    assert [r["name"] for r in kept[:6]] == ["ENTER_PSCI", "ENTER_CFLUSH", "EXIT_CFLUSH", "ENTER_HW_LOW_PWR",
                                             "EXIT_HW_LOW_PWR", "EXIT_PSCI"]

    db = str(tmp_path / "runs.db")
    r = platperf("ingest", "instr", str(points), "--intervals", str(TOML), "--label", f"demo-{arch}", "--db", db)
    assert r.returncode == 0, r.stderr
    assert f"{3 * len(cpus)} results" in r.stdout
    store = Store(db)
    (run,) = store.runs_for(f"demo-{arch}")
    results = store.results(run["id"])
    assert {(res.benchmark, res.params["test"], res.metric, res.unit) for res in results} == {
        ("instr", t, "latency", "us") for t in ("powerdown", "wakeup", "cache_flush")}
    for res in results:
        assert res.cluster is not None and res.core is not None    # this machine's /sys placed them
        assert len(res.samples) == 3 and all(s >= 0 for s in res.samples)
    # powerdown (ENTER_PSCI .. ENTER_HW_LOW_PWR) holds the cache flush, sample by sample
    by = {(res.params["test"], res.cluster, res.core): res.samples for res in results}
    for (test, cluster, core), samples in by.items():
        if test == "powerdown":
            assert all(p >= c for p, c in zip(samples, by[("cache_flush", cluster, core)]))


def test_ingest_instr_refuses_what_it_cannot_place_and_stores_nothing(tmp_path):
    points = tmp_path / "board.jsonl"
    points.write_text("\n".join([meta(host="some-board"), point("ENTER_PSCI", 1), point("ENTER_HW_LOW_PWR", 9)]))
    db = str(tmp_path / "runs.db")
    r = platperf("ingest", "instr", str(points), "--intervals", str(TOML), "--label", "x", "--db", db)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "was not written on this machine" in r.stderr and "--root DIR" in r.stderr
    r = platperf("ingest", "instr", str(points), "--label", "x", "--db", db)
    assert r.returncode == 2 and "--intervals is required for instr" in r.stderr
    r = platperf("ingest", "lmbench", str(points), "--intervals", str(TOML), "--label", "x", "--db", db)
    assert r.returncode == 2 and "--intervals is for instr only" in r.stderr
    assert not Path(db).exists() or not Store(db).runs()
