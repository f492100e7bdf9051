"""``platperf interference``: the matrix input, its cells in the store with the mitigation
in their key, mitigations undone after Ctrl-C, and the report's mitigation table."""
from __future__ import annotations

import json

import pytest
from conftest import require_probe
from typer.testing import CliRunner

from platperf.cli import app
from platperf.interference import InterferenceError, make_plan, run_matrix
from platperf.report.data import load
from platperf.report.sections import interference as section
from platperf.store import Store

META = {"type": "meta", "schema": 1, "probe_version": "0.0-fake", "build_id": "fake",
        "arch": "x86_64", "counter": {"name": "fake", "freq_hz": 1e9}}
# max latency of a cell: idle 100 ns, with a pattern 1000 ns; rt halves it
MAX = {"none": 100.0, "way_hammer": 1000.0, "set_crawler": 400.0}


def options(argv):
    return {argv[i][2:]: argv[i + 1] for i in range(len(argv) - 1) if argv[i].startswith("--")}


class FakeProbe:
    def __init__(self, argv, interrupt_after=None, min_steps=None):
        o = options(argv)
        worst = MAX[o["pattern"]] / (2 if o.get("rt") == "1" else 1)
        params = {"aggressors": o.get("aggressor-cpus", ""), "duration": float(o["duration"]),
                  "pattern": o["pattern"], "threshold": float(o["threshold"]), "variant": o["variant"]}
        cpu = int(o["cpus"])
        hist = {"type": "histogram", "benchmark": "latency-loop", "params": params, "cpu": cpu,
                "mode": "serial", "unit": "ns", "count": 11, "sum": 10 * 10 + worst, "min": 10.0,
                "max": worst, "buckets": [[10.0, 11.0, 10], [worst, worst + 1, 1]], "top": [],
                "rt": {"requested": o.get("rt") == "1", "applied": o.get("rt") == "1"}}
        results = [{"type": "result", "benchmark": "latency-loop", "params": params, "cpu": cpu,
                    "mode": "serial", "metric": m, "unit": u, "direction": "lower", "samples": [v]}
                   for m, u, v in (("latency_min", "ns", 10.0), ("latency_max", "ns", worst),
                                   ("p99", "ns", worst), ("p99_99", "ns", worst),
                                   ("excursions", "count", 1.0 if worst > float(o["threshold"]) else 0.0))]
        if min_steps is not None:       # the probe's mark of a pass within a few counter steps
            results[0]["resolution_steps"] = min_steps
        self.lines = [json.dumps(r) for r in [META, hist, *results,
                                                {"type": "end", "status": "complete"}]]
        self.interrupt_after = interrupt_after

    def __iter__(self):
        for i, line in enumerate(self.lines):
            if self.interrupt_after is not None and i == self.interrupt_after:
                raise KeyboardInterrupt
            yield line + "\n"

    def interrupt(self): ...
    def kill(self): ...
    def wait(self, timeout=None): return 0
    def stderr_tail(self): return ""


class FakeTarget:
    name = "fake"

    def __init__(self, interrupt_on_cell=None, min_steps=None):
        self.argvs = []
        self.interrupt_on_cell = interrupt_on_cell
        self.min_steps = min_steps

    def run(self, argv):
        self.argvs.append(argv)
        stop = 2 if len(self.argvs) == self.interrupt_on_cell else None
        return FakeProbe(argv, stop, self.min_steps)


@pytest.fixture
def store(tmp_path):
    return Store(str(tmp_path / "t.db"))


def test_the_matrix_lists_mitigations_then_loops_then_patterns():
    plan = make_plan(victim=1, aggressors="2-3", patterns="none,way_hammer", loops="plain,2ki",
                     mitigation_sets="none,rt+resctrl", duration=2)
    assert [c.title for c in plan.cells][:3] == ["plain / none / none", "plain / way_hammer / none",
                                                 "2ki / none / none"]
    assert len(plan.cells) == 8
    argv = plan.argv(plan.cells[1], ["--rt", "1"])
    assert argv[:3] == ["run", "latency-loop", "--cpus"]
    assert options(argv) == {"cpus": "1", "variant": "plain", "duration": "2", "threshold": "1000",
                             "pattern": "way_hammer", "aggressor-cpus": "2,3", "rt": "1"}


@pytest.mark.parametrize("kwargs, message", [
    (dict(aggressors="0-2"), "victim CPU 1 is also listed in --aggressors"),
    (dict(patterns="none,hammer"), "unknown pattern 'hammer' (valid: none, way_hammer"),
    (dict(loops="plain,4ki"), "unknown loop '4ki' (valid: plain, 2ki, 2kl)"),
    (dict(duration=0), "--duration 0 must be > 0"),
    (dict(duration=-1), "--duration -1 must be > 0"),
    (dict(mitigation_sets="none,qos"), "unknown mitigation 'qos'"),
    (dict(aggressors=""), "need --aggressors"),
    (dict(aggressors="0,7"), "CPU 7 not online"),
])
def test_bad_matrix_input_is_one_clear_error(kwargs, message):
    args = dict(victim=1, aggressors="0,2", patterns="none,way_hammer", online=[0, 1, 2, 3]) | kwargs
    with pytest.raises(InterferenceError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_plan(**args)


@pytest.mark.parametrize("args", [
    ["--victim", "1", "--aggressors", "1"],
    ["--victim", "1", "--aggressors", "0", "--patterns", "way-hammer"],
    ["--victim", "1", "--aggressors", "0", "--duration", "0"],
    ["--victim", "1", "--aggressors", "0", "--mitigations", "nl3a"],
])
def test_cli_refuses_bad_input_with_exit_2_before_touching_the_database(args, tmp_path):
    db = tmp_path / "never.db"
    result = CliRunner().invoke(app, ["interference", *args, "--db", str(db)])
    assert result.exit_code == 2
    assert "platperf: error:" in result.output
    assert not db.exists()


def test_cli_help_has_an_example():
    result = CliRunner().invoke(app, ["interference", "--help"])
    assert result.exit_code == 0
    assert "Examples:" in result.output and "--mitigations" in result.output


def test_every_cell_is_stored_with_its_mitigation_in_the_key(store, tmp_path):
    plan = make_plan(victim=1, aggressors="0", patterns="none,way_hammer", loops="plain",
                     mitigation_sets="none,rt,resctrl", duration=1)
    run_id = store.begin_run(label="v1", suite="interference")
    target = FakeTarget()
    out = run_matrix(store, target, plan, run_id, root=str(tmp_path), resctrl_root=tmp_path / "none")
    assert (out.status, out.cells, out.histograms, out.results) == ("complete", 6, 6, 30)
    assert store.run(run_id)["status"] == "complete"
    maxima = {(r.params["pattern"], r.params["mitigation"]): r.summary["median"]
              for r in store.results(run_id) if r.metric == "latency_max"}
    assert maxima == {("none", "none"): 100, ("way_hammer", "none"): 1000, ("none", "rt"): 50,
                      ("way_hammer", "rt"): 500, ("none", "resctrl"): 100, ("way_hammer", "resctrl"): 1000}
    # no /dev/cpu_dma_latency and no resctrl under the fake root: said once each, recorded
    assert [n.split(":")[0] for n in out.notes] == ["rt not applied", "resctrl not applied"]
    codes = [f["code"] for f in store.run(run_id)["findings"]]
    assert codes == ["mitigation-rt-not-applied", "mitigation-resctrl-not-applied"]
    hist = [h for h in store.histograms(run_id) if h["params_json"]["mitigation"] == "resctrl"][0]
    assert hist["record"]["mitigations"][0]["applied"] is False


def test_ctrl_c_during_a_cell_leaves_the_run_partial_and_removes_resctrl_groups(store, tmp_path):
    from tests.test_mitigations import fake_resctrl, groups
    root = fake_resctrl(tmp_path)
    plan = make_plan(victim=1, aggressors="0", patterns="none,way_hammer", loops="plain",
                     mitigation_sets="resctrl", duration=1)
    run_id = store.begin_run(suite="interference")
    with pytest.raises(KeyboardInterrupt):
        run_matrix(store, FakeTarget(interrupt_on_cell=2), plan, run_id, root=str(tmp_path),
                   resctrl_root=root)
    assert groups(root) == []
    assert store.run(run_id)["status"] == "partial"
    # the first cell, and what the second had written before the Ctrl-C, are kept
    assert len(store.histograms(run_id)) == 2
    assert len(store.results(run_id)) == 5


def test_report_gives_the_mitigation_table_and_the_interference_factor(store, tmp_path):
    plan = make_plan(victim=1, aggressors="0", patterns="none,way_hammer", loops="plain,2kl",
                     mitigation_sets="none,rt", duration=1)
    run_id = store.begin_run(label="v2", suite="interference")
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "cpu_dma_latency").write_bytes(b"")
    run_matrix(store, FakeTarget(), plan, run_id, root=str(tmp_path))
    sec = section.build(load(store, ["v2"]))
    # one table for the victim, the study's three columns; the other statistics in a second
    assert [t.title for t in sec.tables] == ["Mitigation results, CPU 1 (v2)", "Tail statistics, CPU 1 (v2)"]
    main, tail = sec.tables
    assert main.headers == ["Applied Mitigation", "Maximum Latency", "Minimum Latency"]
    assert tail.headers == ["Applied Mitigation", "p99", "p99.99", "Excursions", "Interference factor"]
    # each loop and pattern, its mitigations in the order applied; rt halves the fake's maximum
    def ns(v):
        return section.latency_text(v)
    want = [[f"{m}, {loop} loop, {'no aggressor' if pattern == 'none' else pattern}",
             ns(MAX[pattern] / (2 if m == "rt" else 1)), ns(10)]
            for loop in ("plain", "2kl") for pattern in ("none", "way_hammer") for m in ("none (default)", "rt")]
    assert main.rows == want
    factor = f"{MAX['way_hammer'] / MAX['none']:.2f}x"
    assert tail.rows[2] == ["none (default), plain loop, way_hammer", ns(MAX["way_hammer"]), ns(MAX["way_hammer"]),
                            0, factor]
    assert sum("1 - CDF" in p.title for p in sec.plots) == 2
    assert all(p.svg.startswith("<svg") for p in sec.plots)
    exported = section.export(load(store, ["v2"]))["interference"]
    assert len(exported) == 8 and exported[0]["histogram"]["buckets"]


def test_a_minimum_at_the_counter_resolution_says_so_in_the_report(store, tmp_path):
    """A counter stepping 10 ns: the 10 ns minimum is one step, quantised (issue 25)."""
    plan = make_plan(victim=1, aggressors="0", patterns="none", loops="plain", mitigation_sets="none", duration=1)
    run_id = store.begin_run(label="v2", suite="interference")
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "cpu_dma_latency").write_bytes(b"")
    run_matrix(store, FakeTarget(min_steps=1), plan, run_id, root=str(tmp_path))
    table = section.build(load(store, ["v2"])).tables[0]        # the study's table
    assert table.rows[0][1:3] == ["100ns", "10ns (1 counter steps)"]
    assert "within 4 steps of the counter's resolution" in table.caption


@pytest.mark.parametrize("ns, text", [(57, "57ns"), (75.4, "75ns"), (10780, "10.780us"),
                                      (4237, "4.237us"), (165000, "165.000us"), (12.024e6, "12024.000us")])
def test_latencies_are_written_as_in_the_study(ns, text):
    assert section.latency_text(ns) == text


def _matrix(store, tmp_path, label, victim, aggressors, mitigation_sets):
    plan = make_plan(victim=victim, aggressors=aggressors, patterns="none,way_hammer", loops="plain",
                     mitigation_sets=mitigation_sets, duration=1)
    run_id = store.begin_run(label=label, suite="interference")
    run_matrix(store, FakeTarget(), plan, run_id, root=str(tmp_path), resctrl_root=tmp_path / "none")


def test_two_victims_sit_side_by_side_and_a_mitigation_not_applied_says_why(store, tmp_path):
    """A little core and a big core in one report: one table, each victim's two columns;
    mitigations in the order applied (rt+resctrl stays so); resctrl missing says why."""
    _matrix(store, tmp_path, "a55", 1, "2", "none,rt+resctrl")
    _matrix(store, tmp_path, "a76", 3, "2", "none,rt+resctrl")
    sec = section.build(load(store, ["a55", "a76"]))
    main = sec.tables[0]
    assert main.headers == ["Applied Mitigation", "Maximum Latency (CPU 1, a55)", "Minimum Latency (CPU 1, a55)",
                            "Maximum Latency (CPU 3, a76)", "Minimum Latency (CPU 3, a76)"]
    names = [row[0] for row in main.rows]
    assert names[0] == "none (default), plain loop, no aggressor"
    assert names[1].startswith("rt + resctrl (not applied: rt: ") and "resctrl: " in names[1]
    assert all(len(row) == 5 and all(row[1:]) for row in main.rows)


def test_the_command_runs_a_small_matrix_with_the_real_probe_into_the_store(tmp_path, monkeypatch):
    """The whole command as a person runs it: probe, fingerprint, placement, store, report."""
    from platperf.topology import online_cpus
    monkeypatch.setenv("PLATPERF_PROBE", require_probe())
    cpus = online_cpus()
    victim, aggressors = cpus[-1], [c for c in cpus if c != cpus[-1]][:1]
    db = tmp_path / "i.db"
    args = ["interference", "--victim", str(victim), "--patterns", "none,bw-read", "--loops", "plain",
            "--duration", "0.2", "--db", str(db), "--label", "study", "--json"]
    if aggressors:
        args[3:3] = ["--aggressors", ",".join(map(str, aggressors))]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["status"] == "complete" and out["cells"] == 2 and out["histograms"] == 2
    store = Store(str(db))
    run = store.run("study")
    assert run["fingerprint"]["cpu"]["arch"] and run["meta"]["counter"]["name"]
    assert {r.cpu for r in store.results(run["id"])} == {victim}
    assert all(r.cluster is not None and r.core is not None for r in store.results(run["id"]))


def board_without_caches(tmp_path):
    """This machine's fixture tree with its cache directories taken out: a board whose device
    tree describes no caches (the QEMU arm64 guest, most Arm boards)."""
    import shutil
    from pathlib import Path
    root = tmp_path / "nocache"
    shutil.copytree(Path(__file__).parent / "fixtures" / "sysfs" / "x86vm", root)
    for cache in root.glob("sys/devices/system/cpu/cpu*/cache"):
        shutil.rmtree(cache)
    return root


def test_aggressors_on_a_board_without_cache_geometry_are_refused_before_measuring(tmp_path):
    require_probe()
    root = board_without_caches(tmp_path)
    db = tmp_path / "r.db"
    result = CliRunner().invoke(app, ["interference", "--root", str(root), "--victim", "1", "--aggressors", "0",
                                      "--patterns", "none,bw-read", "--duration", "0.1", "--db", str(db)])
    assert result.exit_code == 2
    assert "describes no last-level cache geometry" in result.output and "--cache-sets" in result.output
    assert not db.exists() or Store(str(db)).runs() == []          # refused before anything ran


def test_the_geometry_given_on_the_command_line_reaches_the_probe(tmp_path):
    require_probe()
    root = board_without_caches(tmp_path)
    db = tmp_path / "r.db"
    result = CliRunner().invoke(app, ["interference", "--root", str(root), "--victim", "1", "--aggressors", "0",
                                      "--patterns", "bw-read", "--duration", "0.1", "--cache-sets", "1024",
                                      "--cache-ways", "8", "--line-size", "64", "--db", str(db)])
    assert result.exit_code == 0, result.output
    (run,) = Store(str(db)).runs()
    hists = Store(str(db)).histograms(run["id"])
    assert hists and all(h["record"]["cache"] == {"sets": 1024, "ways": 8, "line": 64} for h in hists)
