"""The runner against a fake probe: suites, plans, and what is kept when a run goes wrong."""
import json

import pytest

import fake_probe
from platperf.runner.executor import execute_runs
from platperf.runner.probe import probe_kernels, probe_meta
from platperf.runner.sink import RunSink
from platperf.runner.suite import (SuiteError, builtin_suites, check_suite, choose_cpus, load_suite,
                                   parse_cpulist, plan)
from platperf.store import Store
from platperf.targets import UnknownTarget, get_target
from platperf.targets.local import LocalTarget

SUITE = """
name = "tiny"
[[bench]]
kernel = "mem-latency"
pattern = "random"
size = ["4k", "64k"]
samples = 4
mode = "both"

[[bench]]
kernel = "mem-bandwidth"
params = { kernel = ["rd", "copy"] }
size = "1m"
min_time = 0.01
"""


def place(cpu):
    return (None, 0, cpu)   # one package, one cluster, core = cpu: enough to see that placement is applied


@pytest.fixture
def suite(tmp_path):
    path = tmp_path / "tiny.toml"
    path.write_text(SUITE)
    return load_suite(str(path))


@pytest.fixture
def store(db_url):
    return Store(db_url)


def run_suite(store, suite, cpus=(0, 1), mode=None):
    target = LocalTarget()
    check_suite(suite, probe_kernels(target))
    run_id = store.begin_run(label="t", suite=suite.name, meta=probe_meta(target))
    return execute_runs([RunSink(store, run_id, place)], target, plan(suite, list(cpus), mode))[0]


# -- suites and plans -----------------------------------------------------------------
def test_the_builtin_suites_are_quick_memory_full_and_load():
    assert {"quick", "memory", "full"} <= set(builtin_suites())
    for name in builtin_suites():
        assert load_suite(name).entries


def test_every_builtin_suite_entry_names_a_kernel_and_a_mode():
    from platperf.adapters import ToolStep, module
    for name in builtin_suites():
        for step in plan(load_suite(name), [0]):
            if isinstance(step, ToolStep):          # the guide suite's [[tool]] entries
                assert module(step.adapter).TOOL and step.title
                continue
            assert step.argv[:2] == ["run", step.kernel]
            assert step.mode in ("serial", "parallel")


def test_plan_passes_unknown_keys_to_the_probe(suite):
    steps = plan(suite, [0, 1])
    assert [s.mode for s in steps] == ["serial", "parallel", "serial"]
    assert steps[0].argv == ["run", "mem-latency", "--cpus", "0,1", "--mode", "serial",
                             "--pattern", "random", "--size", "4k,64k", "--samples", "4"]
    # mem-bandwidth's own --kernel comes from the params table; min_time is spelled --min-time
    assert steps[2].argv[6:] == ["--size", "1m", "--min-time", "0.01", "--kernel", "rd,copy"]


def test_mode_option_overrides_every_entry(suite):
    assert [s.mode for s in plan(suite, [0], "parallel")] == ["parallel", "parallel"]
    with pytest.raises(SuiteError, match="valid: serial, parallel, both"):
        plan(suite, [0], "sideways")


def test_unknown_suite_lists_the_builtin_ones():
    with pytest.raises(SuiteError, match="valid: .*quick"):
        load_suite("quik")


@pytest.mark.parametrize("text, message", [
    ('[[bench]]\nkernel = "mem-latancy"\n', "unknown kernel 'mem-latancy' .*valid: latency-loop, mem-bandwidth, mem-latency"),
    ('[[bench]]\nkernel = "mem-latency"\nstrid = 64\n', "no parameter 'strid' .*valid: pattern, size, stride"),
    ('[[bench]]\nkernel = "mem-latency"\npattern = "zigzag"\n', "'zigzag' is not one of seq, random"),
    ('[[bench]]\nkernel = "mem-bandwidth"\nparams = { kernel = ["rd", "xx"] }\n', "'xx' is not one of rd"),
])
def test_suite_is_checked_against_the_probe_list(tmp_path, monkeypatch, text, message):
    fake_probe.install(tmp_path, monkeypatch)
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(SuiteError, match=message):
        check_suite(load_suite(str(path)), probe_kernels(LocalTarget()))


def test_a_suite_that_is_not_toml_names_the_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[[bench]\nkernel = ")
    with pytest.raises(SuiteError, match="broken.toml is not valid TOML"):
        load_suite(str(path))


def test_cpu_lists():
    assert parse_cpulist("0-3,6") == [0, 1, 2, 3, 6]
    assert choose_cpus(None, [0, 1]) == [0, 1]
    with pytest.raises(SuiteError, match=r"CPU 7 not online \(valid: 0, 1\)"):
        choose_cpus("1,7", [0, 1])
    with pytest.raises(SuiteError, match="not a CPU list"):
        parse_cpulist("all")


def test_unknown_target_lists_the_valid_ones():
    assert get_target("local").name == "local"
    with pytest.raises(UnknownTarget, match="valid: local"):
        get_target("ssh:board")


# -- running --------------------------------------------------------------------------
def test_a_complete_run_stores_every_sample_with_its_placement(tmp_path, monkeypatch, suite, store):
    log = fake_probe.install(tmp_path, monkeypatch)
    out = run_suite(store, suite)
    assert (out.status, out.error) == ("complete", None)
    run = store.run(out.run_id)
    assert run["status"] == "complete" and run["finished_at"]
    assert run["meta"]["build_id"] == "fake0001"
    results = store.results(out.run_id)
    # 2 sizes x 2 cpus x 2 modes of latency + 1 size x 2 cpus of bandwidth
    assert len(results) == out.results == 10
    assert all(len(r.samples) == 4 for r in results if r.benchmark == "mem-latency")
    assert {(r.cpu, r.cluster, r.core) for r in results} == {(0, 0, 0), (1, 0, 1)}
    assert results[0].samples == [1.0, 1.1, 1.2, 1.3]
    # the probe's warning joins the run's findings once, marked as the probe's
    assert [f["code"] for f in run["findings"]] == ["fake-counter"]
    argvs = [json.loads(line) for line in log.read_text().splitlines()]
    assert argvs[0] == ["list", "--json"] and argvs[1] == ["info"] and len(argvs) == 5


def test_histograms_are_stored_with_their_placement(tmp_path, monkeypatch, store):
    fake_probe.install(tmp_path, monkeypatch)
    path = tmp_path / "h.toml"
    path.write_text('[[bench]]\nkernel = "latency-loop"\nduration = "1s"\n')
    out = run_suite(store, load_suite(str(path)))
    hists = store.histograms(out.run_id)
    assert out.histograms == len(hists) == 2
    assert [(h["cpu"], h["cluster"], h["core"]) for h in hists] == [(0, 0, 0), (1, 0, 1)]
    assert hists[0]["record"]["buckets"] == [[9.0, 10.0, 6], [10.0, 12.5, 4]]


def test_a_killed_probe_leaves_a_partial_run_with_the_finished_results(tmp_path, monkeypatch, suite, store):
    fake_probe.install(tmp_path, monkeypatch, behaviour="die-after=3")
    out = run_suite(store, suite)
    assert out.status == "partial"
    assert "without an 'end' record (killed by signal 9)" in out.error
    assert "suite entry 1" in out.error
    run = store.run(out.run_id)
    assert (run["status"], run["error"]) == ("partial", out.error)
    assert len(store.results(out.run_id)) == 3


def test_a_malformed_line_fails_the_run_naming_it_and_keeps_what_came_before(tmp_path, monkeypatch, suite, store):
    fake_probe.install(tmp_path, monkeypatch, behaviour="malformed-at=2")
    out = run_suite(store, suite)
    assert out.status == "failed"
    # meta, warning, 2 results, then the broken line: line 5 of the first invocation
    assert "(suite entry 1):5: not JSON" in out.error
    assert store.run(out.run_id)["status"] == "failed"
    assert len(store.results(out.run_id)) == 2


def test_a_probe_error_fails_the_run_with_its_message(tmp_path, monkeypatch, suite, store):
    fake_probe.install(tmp_path, monkeypatch, behaviour="error")
    out = run_suite(store, suite)
    assert out.status == "failed"
    assert "CPU 7 is not online" in out.error
    assert store.run(out.run_id)["error"] == out.error


class ScriptedProbe:
    """An in-process probe: yields the given lines, then runs ``after`` (e.g. a signal)."""

    def __init__(self, lines, after=None):
        self.lines, self.after, self.interrupted = lines, after, False

    def __iter__(self):
        yield from self.lines
        if self.after:
            self.after()

    def interrupt(self):
        self.interrupted = True

    def kill(self): pass
    def wait(self, timeout=None): return 0
    def stderr_tail(self): return ""


def _lines(*records):
    return [json.dumps(r) + "\n" for r in records]


META = {"type": "meta", "schema": 1, "build_id": "scripted"}
RESULT = {"type": "result", "benchmark": "mem-latency", "params": {"size": 4096}, "cpu": 0,
          "metric": "latency", "unit": "ns", "direction": "lower", "samples": [1.0, 1.1]}
END = {"type": "end", "status": "complete"}


def test_ctrl_c_between_two_probe_runs_stops_before_the_next_and_is_partial(suite, store):
    import os
    import signal
    started = []

    class Target:
        name = "scripted"

        def run(self, argv):
            started.append(argv)
            return ScriptedProbe(_lines(META, RESULT, END),
                                 after=lambda: os.kill(os.getpid(), signal.SIGINT))

    run_id = store.begin_run(meta={"type": "meta", "schema": 1, "build_id": "from-info"})
    before = signal.getsignal(signal.SIGINT)   # default_int_handler; SIG_IGN in a background job
    (out,) = execute_runs([RunSink(store, run_id, place)], Target(), plan(suite, [0]))
    assert len(started) == 1
    assert (out.status, out.signal) == ("partial", signal.SIGINT)
    assert out.error.startswith("interrupted before 'mem-latency random (parallel)'")
    run = store.run(run_id)
    assert run["status"] == "partial" and len(store.results(run_id)) == 1
    assert run["meta"]["build_id"] == "from-info"   # `info`'s meta is kept, not the first run's
    assert signal.getsignal(signal.SIGINT) is before   # the handler it found is restored


@pytest.mark.parametrize("behaviour", ["complete", "die-after=3"])
def test_progress_hears_of_every_step_and_record(tmp_path, monkeypatch, suite, store, behaviour):
    from platperf.runner.executor import Progress
    fake_probe.install(tmp_path, monkeypatch, behaviour=behaviour)
    heard = []

    class Recorder(Progress):
        def step_started(self, step, index, total): heard.append(("start", index, total))
        def record(self, rec): heard.append(rec["type"])
        def step_finished(self, step): heard.append("finished")

    target = LocalTarget()
    run_id = store.begin_run(meta=probe_meta(target))
    execute_runs([RunSink(store, run_id, place)], target, plan(suite, [0, 1]), Recorder())
    if behaviour == "complete":
        assert heard == [("start", 0, 3), "meta", "warning", *["result"] * 4, "end", "finished",
                         ("start", 1, 3), "meta", "warning", *["result"] * 4, "end", "finished",
                         ("start", 2, 3), "meta", "warning", *["result"] * 2, "end", "finished"]
    else:   # a step the probe did not finish is never counted as finished
        assert heard == [("start", 0, 3), "meta", "warning", *["result"] * 3]


def test_a_silent_probe_still_gets_the_run_a_heartbeat(store, suite, monkeypatch):
    """While the probe says nothing (a long point), the store's writer keeps the run's
    heartbeat fresh, so that no later command takes the run for abandoned."""
    import time
    import platperf.store.writer as writer
    monkeypatch.setattr(writer, "HEARTBEAT_S", 0.0)   # a beat at every batch: the test needs no wait
    run_id = store.begin_run(meta=META)
    started = store.run(run_id)["heartbeat_at"]
    beats = []

    class SilentUntilHeartbeat(ScriptedProbe):
        def __iter__(self):
            yield json.dumps(META) + "\n"
            deadline = time.monotonic() + 60
            while store.run(run_id)["heartbeat_at"] == started:   # silent until the beat
                assert time.monotonic() < deadline, "no heartbeat while the probe was silent"
                time.sleep(0.05)
            beats.append(store.run(run_id)["heartbeat_at"])
            yield from _lines(RESULT, END)

    class Target:
        name = "silent"

        def run(self, argv):
            return SilentUntilHeartbeat([])

    (out,) = execute_runs([RunSink(store, run_id, place)], Target(), plan(suite, [0])[:1])
    assert out.status == "complete" and out.results == 1
    assert beats and beats[0] > started


def test_a_suite_entry_chooses_the_page_backing(tmp_path):
    """`pages` is an execution option of every kernel (platperf-probe --pages)."""
    from conftest import require_probe
    require_probe()
    path = tmp_path / "lmbench-pages.toml"
    path.write_text('[[bench]]\nkernel = "mem-latency"\nsize = "16k"\npages = "4k"\n')
    suite = load_suite(str(path))
    check_suite(suite, probe_kernels(LocalTarget()))
    assert plan(suite, [0])[0].argv[-4:] == ["--size", "16k", "--pages", "4k"]
