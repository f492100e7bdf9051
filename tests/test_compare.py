"""platperf compare: keyed, never positional; tolerance and significance; the TF-A tables."""
from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

from platperf import compare
from platperf.cli import app
from platperf.records import Result
from platperf.store import Store

# CPU_SUSPEND to the deepest power level in parallel, from
# reference/tf-a-psci-performance-juno-v2.10.rst: (cluster, core): (powerdown, wakeup, cache flush) us
V29 = {(0, 0): (104.58, 241.20, 5.26), (0, 1): (384.24, 22.50, 138.76), (1, 0): (244.56, 22.18, 5.16),
       (1, 1): (670.56, 18.58, 4.44), (1, 2): (809.36, 269.28, 4.44), (1, 3): (984.96, 219.70, 79.62)}
V210 = {(0, 0): (242.66, 245.1, 5.4), (0, 1): (522.08, 26.24, 138.32), (1, 0): (104.36, 27.1, 5.32),
        (1, 1): (382.56, 23.34, 4.42), (1, 2): (807.74, 271.54, 4.64), (1, 3): (981.36, 221.8, 79.48)}
TEST = {"test": "suspend_deepest_parallel"}


def tfa_results(table, order=None):
    out = []
    for cluster, core in order or list(table):
        for metric, value in zip(("powerdown", "wakeup", "cache_flush"), table[(cluster, core)]):
            out.append(Result("tftf-rt-instr", TEST, metric, "us", "lower", [value],
                              mode="parallel", cluster=cluster, core=core))
    return out


def make_store(where, sides: dict, fingerprints: dict | None = None):
    # where: a directory for a new SQLite file, or a database URL (the db_url fixture)
    store = Store(where if isinstance(where, str) else str(where / "t.db"))
    for label, runs in sides.items():
        for results in runs:
            run_id = store.begin_run(label=label, source="test",
                                     fingerprint=(fingerprints or {}).get(label))
            for res in results:
                store.add_result(run_id, res)
            store.finish_run(run_id, "complete")
    return store


def invoke(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_tfa_deltas_are_keyed_by_cluster_and_core(db_url):
    store = make_store(db_url, {"v2.9": [tfa_results(V29)], "v2.10": [tfa_results(V210)]})
    out = invoke("compare", "v2.9", "v2.10", "--db", store.url.removeprefix("sqlite:///"),
                 "--format", "rst-grid")
    assert out.exit_code == 0, out.output
    text = out.output
    # The reference document's annotated deltas, each on its (cluster, core) line.
    for cluster, core, cell in ((0, 0, "242.66 (+132.03%)"), (0, 1, "522.08 (+35.87%)"),
                                (1, 0, "104.36 (-57.33%)"), (1, 1, "382.56 (-42.95%)")):
        line = next(l for l in text.splitlines() if l.strip().startswith(f"|    {cluster}    |  {core}   |"))
        assert cell in line, line
    # Under the 2% tolerance: the new value alone.
    line = next(l for l in text.splitlines() if l.strip().startswith("|    1    |  2   |"))
    assert "|       807.74      |" in line and "| 4.64 (+4.50%) |" in line
    assert "Single-valued figures: the tolerance alone decides." in text


def test_reordered_rows_give_the_same_comparison(tmp_path):
    reordered = [(1, 3), (1, 2), (1, 1), (1, 0), (0, 1), (0, 0)]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = make_store(tmp_path / "a", {"v2.9": [tfa_results(V29)], "v2.10": [tfa_results(V210)]})
    b = make_store(tmp_path / "b", {"v2.9": [tfa_results(V29)], "v2.10": [tfa_results(V210, reordered)]})
    outs = [invoke("compare", "v2.9", "v2.10", "--db", s.url.removeprefix("sqlite:///"),
                   "--format", fmt).output for s in (a, b) for fmt in ("rst-grid", "json")]
    assert outs[0] == outs[2] and outs[1] == outs[3]
    assert "242.66 (+132.03%)" in outs[2]


def test_positional_pairing_would_differ():
    """The mistake of the published table: pairing rows by position compares cores with
    other cores. Keyed pairing does not depend on the order."""
    base, _ = compare.pool_results(tfa_results(V29))
    new, _ = compare.pool_results(tfa_results(V210, [(1, 3), (1, 2), (1, 1), (1, 0), (0, 1), (0, 0)]))
    rows = {r.key: r for r in compare.compare_pools(base, new)}
    r = rows[("tftf-rt-instr", "test=suspend_deepest_parallel", "parallel", 0, 0, "powerdown")]
    assert (r.base, r.new) == (104.58, 242.66)
    assert compare.cell(r) == "242.66 (+132.03%)"
    assert r.regression and r.basis == "tolerance"


def test_tolerance_and_significance_rules():
    rng = random.Random(7)
    noise = lambda mu, n: [rng.gauss(mu, mu * 0.002) for _ in range(n)]  # noqa: E731
    mk = lambda samples, metric="latency", direction="lower": Result(  # noqa: E731
        "mem-latency", {"size": 4096}, metric, "ns", direction, samples, cluster=0, core=0)
    base, _ = compare.pool_results([mk(noise(100, 20)), mk(noise(10, 20), "bw", "higher"),
                                    mk([100.0, 101.0, 99.0], "few")])
    new, _ = compare.pool_results([mk(noise(101, 20)), mk(noise(9, 20), "bw", "higher"),
                                   mk([110.0, 111.0, 109.0], "few")])
    rows = {r.metric: r for r in compare.compare_pools(base, new, tolerance=2.0)}
    # +1%: significant with 20 samples a side, but under the tolerance: not shown.
    assert rows["latency"].significant and not rows["latency"].shown
    assert compare.cell(rows["latency"]) == compare.number(rows["latency"].new)
    # -10% bandwidth (higher is better): significant, shown, a regression.
    assert rows["bw"].basis == "mwu" and rows["bw"].p_value < 0.05
    assert rows["bw"].shown and rows["bw"].regression
    # 3 + 3 samples can never reach p < 0.05 with the exact test: tolerance alone, said so.
    assert rows["few"].basis == "tolerance" and rows["few"].shown
    # The same +1% with a 0.5% tolerance is shown.
    rows = {r.metric: r for r in compare.compare_pools(base, new, tolerance=0.5)}
    assert rows["latency"].shown and rows["latency"].regression


def test_noise_above_tolerance_is_not_shown():
    mk = lambda v: Result("k", {}, "latency", "ns", "lower", v)  # noqa: E731
    base, _ = compare.pool_results([mk([90, 110, 100, 85, 115, 95, 105, 102])])
    new, _ = compare.pool_results([mk([92, 112, 105, 88, 118, 97, 108, 104])])
    (row,) = compare.compare_pools(base, new)
    assert abs(row.delta_pct) >= 2.0          # a big apparent change...
    assert not row.significant and not row.shown and not row.regression   # ...that is noise


def test_bootstrap_is_seeded_and_decides():
    rng = random.Random(5)
    base, _ = compare.pool_results([Result("k", {}, "t", "ns", "lower", [rng.gauss(100, 1) for _ in range(15)])])
    new, _ = compare.pool_results([Result("k", {}, "t", "ns", "lower", [rng.gauss(110, 1) for _ in range(15)])])
    a = compare.compare_pools(base, new, test="bootstrap")[0]
    b = compare.compare_pools(base, new, test="bootstrap")[0]
    assert a.ratio_ci == b.ratio_ci and a.ratio_ci[0] > 1.0 and a.shown and a.basis == "bootstrap"


def test_added_and_removed_keys(tmp_path):
    old = tfa_results(V29)
    new = [r for r in tfa_results(V210) if r.cluster == 0] + [
        Result("tftf-rt-instr", {"test": "version_parallel"}, "latency", "us", "lower", [1.1],
               mode="parallel", cluster=0, core=0)]
    store = make_store(tmp_path, {"a": [old], "b": [new]})
    out = invoke("compare", "a", "b", "--db", store.url.removeprefix("sqlite:///"), "--format", "json")
    data = json.loads(out.output)
    status = {(r["params"], r["cluster"], r["core"], r["metric"]): r["status"] for r in data["rows"]}
    assert status[("test=version_parallel", 0, 0, "latency")] == "added"
    assert status[("test=suspend_deepest_parallel", 1, 3, "wakeup")] == "removed"
    assert status[("test=suspend_deepest_parallel", 0, 0, "wakeup")] == "both"
    assert sum(s == "removed" for s in status.values()) == 12
    md = invoke("compare", "a", "b", "--db", store.url.removeprefix("sqlite:///"), "--format", "md").output
    assert "removed (was 984.96)" in md and "1.10 (added)" in md


def test_label_pools_all_its_runs(tmp_path):
    mk = lambda v: [Result("k", {}, "t", "ns", "lower", v, cluster=0, core=0)]  # noqa: E731
    store = make_store(tmp_path, {"a": [mk([10.0, 10.1]), mk([10.2, 9.9]), mk([10.0, 10.05])],
                                  "b": [mk([12.0, 12.1]), mk([12.2, 11.9]), mk([12.0, 12.05])]})
    cmp = compare.compare_refs(store, "a", "b")
    (row,) = cmp.rows
    assert (row.n_base, row.n_new) == (6, 6) and row.basis == "mwu" and row.shown


def test_fail_on_regression_exits_1_and_lists_them(db_url):
    store = make_store(db_url, {"v2.9": [tfa_results(V29)], "v2.10": [tfa_results(V210)]})
    db = store.url.removeprefix("sqlite:///")
    out = CliRunner().invoke(app, ["compare", "v2.9", "v2.10", "--db", db, "--fail-on-regression"])
    assert out.exit_code == 1
    assert "cluster 0 core 0 powerdown: 104.58 -> 242.66 us (+132.03%)" in out.output
    # No regressions: exit 0 even when gating.
    assert invoke("compare", "v2.9", "v2.9", "--db", db, "--fail-on-regression").exit_code == 0


def test_different_cpu_model_is_refused_unless_forced(tmp_path):
    fps = {"a": {"cpu": {"model": "Cortex-A53", "arch": "aarch64"}, "kernel": {"release": "6.1"}},
           "b": {"cpu": {"model": "Cortex-A72", "arch": "aarch64"}, "kernel": {"release": "6.6"}}}
    store = make_store(tmp_path, {"a": [tfa_results(V29)], "b": [tfa_results(V210)]}, fps)
    db = store.url.removeprefix("sqlite:///")
    out = invoke("compare", "a", "b", "--db", db)
    assert out.exit_code == 2 and "cpu.model" in out.output and "--force" in out.output
    out = invoke("compare", "a", "b", "--db", db, "--force", "--format", "json")
    assert out.exit_code == 0
    diffs = {d["key"]: (d["base"], d["new"], d["refuse"]) for d in json.loads(out.output)["differences"]}
    assert diffs == {"cpu.model": ("Cortex-A53", "Cortex-A72", True),
                     "kernel.release": ("6.1", "6.6", False)}


def test_kernel_difference_is_printed_not_refused(tmp_path):
    fps = {"a": {"cpu": {"model": "X"}, "kernel": {"release": "6.1"}},
           "b": {"cpu": {"model": "X"}, "kernel": {"release": "6.6"}}}
    store = make_store(tmp_path, {"a": [tfa_results(V29)], "b": [tfa_results(V210)]}, fps)
    out = invoke("compare", "a", "b", "--db", store.url.removeprefix("sqlite:///"))
    assert out.exit_code == 0 and "kernel.release: 6.1 -> 6.6" in out.output


def test_runs_without_fingerprint_compare():
    assert compare.comparability([{"fingerprint": None}], [{"fingerprint": {"cpu": {"model": "X"}}}]) == []


@pytest.mark.parametrize("args,needle", [
    (["--format", "html"], "unknown format 'html'"),
    (["--test", "t"], "unknown test 't'"),
    (["--tolerance", "-1"], "--tolerance"),
])
def test_bad_options_exit_2(tmp_path, args, needle):
    store = make_store(tmp_path, {"a": [tfa_results(V29)]})
    out = invoke("compare", "a", "a", "--db", store.url.removeprefix("sqlite:///"), *args)
    assert out.exit_code == 2 and needle in out.output


def test_unknown_label_exits_2(tmp_path):
    store = make_store(tmp_path, {"a": [tfa_results(V29)]})
    out = CliRunner().invoke(app, ["compare", "a", "nope", "--db", store.url.removeprefix("sqlite:///")])
    assert out.exit_code == 2


FIXTURES = __import__("pathlib").Path(__file__).parent / "fixtures" / "ingest" / "tftf"


def test_ingested_tfa_logs_reproduce_the_documents_deltas(tmp_path):
    """The point of issue 5: v2.9 against v2.10 from the TF-A logs, keyed by (cluster, core),
    gives the reference document's annotated cells, and a v2.10 log with its rows in another
    order gives the same output, byte for byte."""
    outputs = []
    for name, v210 in (("a", "v2.10.log"), ("b", "v2.10-reordered.log")):
        db = str(tmp_path / f"{name}.db")
        for label, log in (("v2.9", "v2.9.log"), ("v2.10", v210)):
            out = invoke("ingest", "tftf-rt-instr", FIXTURES / log, "--label", label, "--db", db)
            assert out.exit_code == 0, out.output
        out = invoke("compare", "v2.9", "v2.10", "--db", db, "--format", "rst-grid")
        assert out.exit_code == 0, out.output
        outputs.append(out.output)
    assert outputs[0] == outputs[1]
    text = outputs[0]
    title = "CPU_SUSPEND latencies (µs) to deepest power level in parallel (v2.10)"
    table = text[text.index(title):].split("\n\n")[1]
    rows = [line for line in table.splitlines() if line.strip().startswith("|")]
    cells = {tuple(c.strip() for c in r.split("|")[1:3]): [c.strip() for c in r.split("|")[3:-1]]
             for r in rows[1:]}
    assert cells[("0", "0")][0] == "242.66 (+132.03%)"
    assert cells[("0", "1")][0] == "522.08 (+35.87%)"
    assert cells[("1", "0")][0] == "104.36 (-57.33%)"
    assert cells[("1", "1")][0] == "382.56 (-42.95%)"
    assert cells[("1", "2")][0] == "807.74"          # -0.20%: under the tolerance
    assert "Single-valued figures: the tolerance alone decides." in text
    # CPU_VERSION: 1.48 -> 1.1 us, the document's -25.68%
    assert "1.10 (-25.68%)" in text
    # Tables in the document's order.
    order = [text.index(t) for t in ("to deepest power level in parallel", "to deepest power level in serial",
                                     "to power level 0 in parallel", "CPU_OFF", "PSCI_VERSION")]
    assert order == sorted(order)


def test_a_calibrated_counter_frequency_a_few_hz_apart_is_not_a_difference():
    from platperf.compare import comparability
    base = [{"meta": {"counter": {"name": "tsc", "freq_hz": 2596131733}}}]
    same = [{"meta": {"counter": {"name": "tsc", "freq_hz": 2596131603}}}]
    other = [{"meta": {"counter": {"name": "tsc", "freq_hz": 2994374000}}}]
    assert comparability(base, same) == []
    assert [d.key for d in comparability(base, other)] == ["meta.counter.freq_hz"]
