"""platperf compare: keyed, never positional; runs as the unit of evidence; tolerance and
significance; detectable effects and intervals; the TF-A tables."""
from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

from platperf.compare import keyed as compare
from platperf.compare.pools import Pool, pool_results
from platperf.report.sections.compare import cell, number
from platperf.cli import app
from platperf import stats
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
    # One log a release: shown as the document shows them, but unconfirmed, never regressions.
    assert "One run a side: changes are shown but unconfirmed." in text
    assert "Unconfirmed changes" in text and "Regressions" not in text


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
    base, _ = pool_results(tfa_results(V29))
    new, _ = pool_results(tfa_results(V210, [(1, 3), (1, 2), (1, 1), (1, 0), (0, 1), (0, 0)]))
    rows = {r.key: r for r in compare.compare_pools(base, new)}
    r = rows[("tftf-rt-instr", "test=suspend_deepest_parallel", "parallel", None, 0, 0, "powerdown")]
    assert (r.base, r.new) == (104.58, 242.66)
    assert cell(r) == "242.66 (+132.03%)"
    assert r.unconfirmed and not r.regression and r.basis == "single-run"


def runs_of(rng, mu, offsets, n=20, rel=0.002, metric="latency", direction="lower", unit="ns"):
    """One Result per run: the run's own offset (its conditions) plus sample noise."""
    return [Result("mem-latency", {"size": 4096}, metric, unit, direction,
                   [rng.gauss(mu * (1 + o), mu * rel) for _ in range(n)], cluster=0, core=0)
            for o in offsets]


def test_tolerance_and_significance_rules():
    rng = random.Random(7)
    steady = (0.0, 0.001, -0.001)
    base, _ = pool_results(runs_of(rng, 100, steady) + runs_of(rng, 10, steady, metric="bw", direction="higher"))
    new, _ = pool_results(runs_of(rng, 101, steady) + runs_of(rng, 9, steady, metric="bw", direction="higher"))
    rows = {r.metric: r for r in compare.compare_pools(base, new, tolerance=2.0)}
    # +1%: significant over 3 runs a side, but under the tolerance: not shown.
    assert rows["latency"].significant and not rows["latency"].shown
    assert cell(rows["latency"]) == number(rows["latency"].new)
    # -10% bandwidth (higher is better): significant, shown, a confirmed regression.
    assert rows["bw"].basis == "runs" and rows["bw"].p_value < 0.05 and (rows["bw"].runs_base, rows["bw"].runs_new) == (3, 3)
    assert rows["bw"].shown and rows["bw"].confirmed and rows["bw"].regression
    # The same +1% with a 0.5% tolerance is shown.
    rows = {r.metric: r for r in compare.compare_pools(base, new, tolerance=0.5)}
    assert rows["latency"].shown and rows["latency"].regression


def test_identical_code_is_not_flagged_however_many_samples():
    """The issue's A/A finding: each run has its own conditions (a 1% offset here) and 200
    tight samples. Sample against sample, most of these keys "differ"; run against run,
    they do not."""
    rng = random.Random(1)
    flagged_pooled = flagged_runs = 0
    for trial in range(40):
        a = runs_of(rng, 100, [rng.gauss(0, 0.01) for _ in range(3)], n=200)
        b = runs_of(rng, 100, [rng.gauss(0, 0.01) for _ in range(3)], n=200)
        (row,) = compare.compare_pools(pool_results(a)[0], pool_results(b)[0], tolerance=0.5)
        flagged_runs += row.shown
        pooled = stats.mann_whitney_u(row_samples(a), row_samples(b))[1]
        flagged_pooled += pooled < 0.05 and abs(row.delta_pct) >= 0.5
    assert flagged_pooled >= 15
    assert flagged_runs <= 4


def row_samples(results):
    return [v for r in results for v in r.samples]


def test_one_run_a_side_is_unconfirmed_and_says_how_many_runs_settle_it():
    rng = random.Random(2)
    base, _ = pool_results(runs_of(rng, 100, [0.0], rel=0.01))
    new, _ = pool_results(runs_of(rng, 110, [0.0], rel=0.01))
    (row,) = compare.compare_pools(base, new)
    assert row.shown and row.unconfirmed and not row.regression and not row.confirmed
    assert row.basis == "single-run" and row.mde_pct is None
    # From one run's samples (1% spread): a lower bound on the runs a 2% change needs.
    assert row.spread_basis == "samples" and row.runs_needed == stats.runs_needed(2.0, row.spread_pct)
    assert 3 <= row.runs_needed <= 10


def test_detectable_effect_from_the_run_to_run_spread():
    rng = random.Random(3)
    offsets = [-0.01, 0.0, 0.01]                    # run medians 1% apart: spread 1%
    base, _ = pool_results(runs_of(rng, 100, offsets, rel=0.0001))
    new, _ = pool_results(runs_of(rng, 100, offsets, rel=0.0001))
    (row,) = compare.compare_pools(base, new)
    assert row.spread_basis == "runs" and row.spread_pct == pytest.approx(1.0, rel=0.05)
    assert row.mde_pct == pytest.approx(stats.minimum_detectable_effect(row.spread_pct, 3, 3))
    assert row.mde_pct > 2.0 and row.runs_needed == stats.runs_needed(2.0, row.spread_pct) > 3
    assert not row.shown


def test_intervals_and_unstable_figures():
    rng = random.Random(4)
    base, _ = pool_results(runs_of(rng, 100, [0.0, 0.05, -0.05], rel=0.0001))
    new, _ = pool_results(runs_of(rng, 100, [0.0, 0.001, -0.001], rel=0.0001))
    (row,) = compare.compare_pools(base, new)
    assert row.base_ci[0] < row.base < row.base_ci[1] and row.unstable     # 10% wide
    tight, _ = pool_results(runs_of(rng, 100, [0.0, 0.001, -0.001], rel=0.0001))
    (row,) = compare.compare_pools(new, tight)
    assert not row.unstable and row.new_ci[0] <= row.new <= row.new_ci[1]


def test_noise_above_tolerance_is_not_shown():
    rng = random.Random(5)
    base, _ = pool_results(runs_of(rng, 100, [-0.1, 0.1, 0.0]))
    new, _ = pool_results(runs_of(rng, 100, [-0.08, 0.12, 0.03]))
    (row,) = compare.compare_pools(base, new)
    assert abs(row.delta_pct) >= 2.0          # a big apparent change...
    assert not row.significant and not row.shown and not row.regression   # ...that is noise


def test_bootstrap_and_mwu_on_the_run_medians():
    rng = random.Random(5)
    base, _ = pool_results(runs_of(rng, 100, [0, 0.001, -0.001, 0.002]))
    new, _ = pool_results(runs_of(rng, 110, [0, 0.001, -0.001, 0.002]))
    a = compare.compare_pools(base, new, test="bootstrap")[0]
    b = compare.compare_pools(base, new, test="bootstrap")[0]
    assert a.ratio_ci == b.ratio_ci and a.ratio_ci[0] > 1.0 and a.shown and a.basis == "runs"
    m = compare.compare_pools(base, new, test="mwu")[0]
    assert m.p_value == pytest.approx(2 / 70) and m.regression
    # 3 runs a side can never reach p < 0.05 with Mann-Whitney U: unconfirmed, said so.
    base3 = {k: Pool(p.unit, p.direction, p.runs[:3]) for k, p in base.items()}
    new3 = {k: Pool(p.unit, p.direction, p.runs[:3]) for k, p in new.items()}
    m = compare.compare_pools(base3, new3, test="mwu")[0]
    assert m.basis == "too-few-runs" and m.unconfirmed and not m.regression


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
    assert (row.n_base, row.n_new, row.runs_base, row.runs_new) == (6, 6, 3, 3)
    assert row.basis == "runs" and row.shown and row.regression
    assert row.base == stats.median([10.05, 10.05, 10.025])


def test_a_run_id_against_a_run_id_is_one_run_a_side(tmp_path):
    mk = lambda v: [Result("k", {}, "t", "ns", "lower", v, cluster=0, core=0)]  # noqa: E731
    store = make_store(tmp_path, {"a": [mk([10.0, 10.1, 10.05])], "b": [mk([12.0, 12.1, 12.05])]})
    data = json.loads(invoke("compare", "1", "2", "--db", store.url.removeprefix("sqlite:///"),
                             "--format", "json").output)
    (row,) = data["rows"]
    assert row["unconfirmed"] and not row["regression"] and row["runs_needed"] >= 2
    assert data["unconfirmed"] == 1 and data["regressions"] == 0 and row["mde_pct"] is None


def jitter(table, rng):
    return {k: tuple(v * (1 + rng.uniform(-0.001, 0.001)) for v in vs) for k, vs in table.items()}


def test_fail_on_regression_acts_on_confirmed_changes_only(db_url):
    rng = random.Random(9)
    store = make_store(db_url, {"v2.9": [tfa_results(V29)], "v2.10": [tfa_results(V210)],
                                "r2.9": [tfa_results(jitter(V29, rng)) for _ in range(3)],
                                "r2.10": [tfa_results(jitter(V210, rng)) for _ in range(3)]})
    db = store.url.removeprefix("sqlite:///")
    # One log a side: the changes are unconfirmed; the gate says so and passes.
    out = CliRunner().invoke(app, ["compare", "v2.9", "v2.10", "--db", db, "--fail-on-regression"])
    assert out.exit_code == 0, out.output
    assert "unconfirmed change(s) (one run on a side) do not fail the gate" in out.output
    assert "--repeat" in out.output
    # Three runs a side: confirmed, listed, exit 1.
    out = CliRunner().invoke(app, ["compare", "r2.9", "r2.10", "--db", db, "--fail-on-regression"])
    assert out.exit_code == 1
    assert "cluster 0 core 0 powerdown: " in out.output and "(+132." in out.output
    # No regressions: exit 0 even when gating.
    assert invoke("compare", "r2.9", "r2.9", "--db", db, "--fail-on-regression").exit_code == 0


def test_table_shows_intervals_on_request(tmp_path):
    rng = random.Random(9)
    store = make_store(tmp_path, {"a": [tfa_results(jitter(V29, rng)) for _ in range(3)],
                                  "b": [tfa_results(jitter(V210, rng)) for _ in range(3)]})
    db = store.url.removeprefix("sqlite:///")
    plain = invoke("compare", "a", "b", "--db", db).output
    with_ci = invoke("compare", "a", "b", "--db", db, "--ci").output
    assert "95% CI" not in plain and "95% CI" in with_ci and "REGRESSED" in with_ci
    assert "3/3" in plain
    # the interval each decision rests on, where the terminal is wide enough
    wide = CliRunner().invoke(app, ["compare", "a", "b", "--db", db], env={"COLUMNS": "200"}).output
    assert "Detectable" in wide and "Interval" in wide


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
    (["--format", "pdf"], "unknown format 'pdf'"),
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
    title = "``CPU_SUSPEND`` latencies (µs) to deepest power level in parallel (v2.10)"
    table = text[text.index(title):].split("\n\n")[1]
    rows = [line for line in table.splitlines() if line.strip().startswith("|")]
    cells = {tuple(c.strip() for c in r.split("|")[1:3]): [c.strip() for c in r.split("|")[3:-1]]
             for r in rows[1:]}
    assert cells[("0", "0")][0] == "242.66 (+132.03%)"
    assert cells[("0", "1")][0] == "522.08 (+35.87%)"
    assert cells[("1", "0")][0] == "104.36 (-57.33%)"
    assert cells[("1", "1")][0] == "382.56 (-42.95%)"
    assert cells[("1", "2")][0] == "807.74"          # -0.20%: under the tolerance
    assert "One run a side: changes are shown but unconfirmed." in text
    # CPU_VERSION: 1.48 -> 1.1 us, the document's -25.68%
    assert "1.10 (-25.68%)" in text
    # Tables in the document's order.
    order = [text.index(t) for t in ("to deepest power level in parallel", "to deepest power level in serial",
                                     "to power level 0 in parallel", "``CPU_OFF``", "``CPU_VERSION``")]
    assert order == sorted(order)


def test_a_calibrated_counter_frequency_a_few_hz_apart_is_not_a_difference():
    from platperf.compare.keyed import comparability
    base = [{"meta": {"counter": {"name": "tsc", "freq_hz": 2596131733}}}]
    same = [{"meta": {"counter": {"name": "tsc", "freq_hz": 2596131603}}}]
    other = [{"meta": {"counter": {"name": "tsc", "freq_hz": 2994374000}}}]
    assert comparability(base, same) == []
    assert [d.key for d in comparability(base, other)] == ["meta.counter.freq_hz"]


def test_many_keys_of_identical_code_flag_none():
    """A suite has dozens to thousands of keys: at p < 0.05 a twentieth of them would pass by
    chance. The p-values are adjusted for the number of keys (Benjamini-Hochberg)."""
    rng = random.Random(12)
    def side():
        return [Result("k", {"i": i}, "t", "ns", "lower", [100 * (1 + rng.gauss(0, 0.03)) + rng.gauss(0, 0.01)
                                                             for _ in range(5)]) for i in range(300)]
    pools = [pool_results(side() + side() + side())[0] for _ in range(2)]
    rows = compare.compare_pools(*pools)
    assert sum(r.raw_p < 0.05 and r.big for r in rows) >= 3      # raw: false alarms
    assert not any(r.shown or r.regression for r in rows)         # adjusted: none


def test_a_different_page_backing_is_said_not_hidden(tmp_path):
    """The probe records what backed each buffer (pages.backing); compare names the keys whose
    two sides differ, in the table, the document and the JSON export."""
    def mk(backing, values):
        lat = Result("mem-latency", {"size": 262144}, "latency", "ns", "lower", values,
                     extra={"pages": {"asked": "auto", "backing": backing}})
        same = Result("mem-latency", {"size": 4096}, "latency", "ns", "lower", [1.0, 1.0],
                      extra={"pages": {"asked": "auto", "backing": "huge"}})
        return [lat, same]
    store = make_store(tmp_path, {"a": [mk("huge", [3.8, 3.81]), mk("huge", [3.79, 3.8])],
                                  "b": [mk("4k", [4.4, 4.5]), mk("4k", [3.8, 3.82])]})
    cmp = compare.compare_refs(store, "a", "b")
    (differ,) = cmp.pages_differ
    assert differ.key[1] == "size=262144" and (differ.pages_base, differ.pages_new) == ("huge", "4k")
    db = store.url.removeprefix("sqlite:///")
    table = CliRunner().invoke(app, ["compare", "a", "b", "--db", db], env={"COLUMNS": "200"}).output
    assert "differs: page backing: 1 key(s)" in table and "pages huge -> 4k" in table
    md = invoke("compare", "a", "b", "--db", db, "--format", "md").output
    assert "## Page backing differs" in md and "huge -&gt; 4k" in md
    data = json.loads(invoke("compare", "a", "b", "--db", db, "--format", "json").output)
    assert data["pages_differ"] == 1
    assert {(r["params"], r["pages_base"], r["pages_new"]) for r in data["rows"]} == {
        ("size=262144", "huge", "4k"), ("size=4096", "huge", "huge")}
    # results that say nothing of their pages (imports, other kernels) are not a difference
    (tmp_path / "p").mkdir()
    plain = make_store(tmp_path / "p", {"a": [[Result("k", {}, "t", "ns", "lower", [1.0])]],
                                        "b": [[Result("k", {}, "t", "ns", "lower", [1.0])]]})
    assert not compare.compare_refs(plain, "a", "b").pages_differ


# -- the terminal table: a verdict first, the changes, fitted to the width -----------------------

def three_runs_a_side(where):
    rng = random.Random(9)
    return make_store(where, {"v2.9": [tfa_results(jitter(V29, rng)) for _ in range(3)],
                              "v2.10": [tfa_results(jitter(V210, rng)) for _ in range(3)]})


def compare_at(db, width, *args):
    return CliRunner().invoke(app, ["compare", "v2.9", "v2.10", "--db", db, *args],
                              env={"COLUMNS": str(width)})


def test_the_first_line_is_the_verdict_and_regressions_come_first(tmp_path):
    db = three_runs_a_side(tmp_path).url.removeprefix("sqlite:///")
    out = compare_at(db, 80)
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    # 18 keys: 8 worse and 2 better by more than 2% (the reference document's deltas), 8 within
    assert lines[0] == "v2.10 against v2.9: 8 regressed, 2 improved, 8 equivalent within 2%, 0 undecided"
    verdicts = [l.split()[-1] for l in lines if l.rstrip().endswith(("REGRESSED", "improved"))]
    assert verdicts == ["REGRESSED"] * 8 + ["improved"] * 2
    # only the keys that changed; --all lists the 8 equivalent ones too, with their evidence
    assert "Listed: the 10 key(s) that changed, of 18" in out.output
    every = compare_at(db, 80, "--all").output
    assert sum(l.startswith("        ") for l in every.splitlines()) == 18
    assert sum(l.rstrip().endswith("equivalent") for l in every.splitlines()) == 8
    assert "--all lists" not in every


@pytest.mark.parametrize("width", [80, 100, 240])
def test_the_table_fits_the_width_and_keeps_each_key_on_one_line(tmp_path, width):
    db = three_runs_a_side(tmp_path).url.removeprefix("sqlite:///")
    text = compare_at(db, width, "--ci").output
    lines = text.splitlines()
    assert max(len(l) for l in lines) <= width
    # every changed key is one line with its change, whatever the width
    assert sum("+132.13%" in l for l in lines) == 1
    powerdown = next(l for l in lines if "+132.13%" in l)
    assert "104.58" in powerdown and "242.76" in powerdown and "REGRESSED" in powerdown
    if width == 240:     # wide: one row a key, key columns included, nothing left out
        assert "tftf-rt-instr" in powerdown and "left out" not in text and "95% CI" in text
    else:                # narrow: the key folds into a heading, least needed columns go
        assert "tftf-rt-instr" not in powerdown and "left out to fit" in text


def test_the_adjusted_p_is_labelled(tmp_path):
    db = three_runs_a_side(tmp_path).url.removeprefix("sqlite:///")
    text = compare_at(db, 200).output
    assert "p (BH)" in text and "adjusted over the 18 keys tested by Benjamini-Hochberg" in text


def test_two_runs_a_side_with_mwu_say_why_not_one_run(tmp_path):
    rng = random.Random(3)
    store = make_store(tmp_path, {"v2.9": [tfa_results(jitter(V29, rng)) for _ in range(2)],
                                  "v2.10": [tfa_results(jitter(V210, rng)) for _ in range(2)]})
    db = store.url.removeprefix("sqlite:///")
    out = compare_at(db, 80, "--test", "mwu", "--fail-on-regression")
    assert out.exit_code == 0
    assert "one run" not in out.output
    assert "fewer than 4 runs a side, too few for Mann-Whitney U" in out.output
    # 2 runs a side never settle a Mann-Whitney U test: at least its 4
    verdict = " ".join(out.output.split("\n\n")[0].split())    # wrapped at 80 columns
    assert verdict.endswith("8 equivalent within 2%, 10 undecided (10 unconfirmed changes: 4 runs a "
                            "side would settle them)")
    rows = json.loads(compare_at(db, 80, "--test", "mwu", "--json").output)["rows"]
    assert {r["runs_needed"] for r in rows if r["unconfirmed"]} == {4}


@pytest.mark.parametrize("fmt", ["md", "rst-grid", "rst-csv", "html"])
def test_the_same_verdict_line_in_every_format(tmp_path, fmt):
    db = three_runs_a_side(tmp_path).url.removeprefix("sqlite:///")
    verdict = "v2.10 against v2.9: 8 regressed, 2 improved, 8 equivalent within 2%, 0 undecided"
    assert verdict in compare_at(db, 80, "-f", fmt).output


def test_json_is_short_for_format_json(tmp_path):
    db = three_runs_a_side(tmp_path).url.removeprefix("sqlite:///")
    short, long = compare_at(db, 80, "--json").output, compare_at(db, 80, "--format", "json").output
    assert short == long and json.loads(short)["regressions"] == 8
    assert json.loads(short)["improvements"] == 2 and json.loads(short)["unchanged"] == 8
    assert json.loads(short)["decisions"] == {"regressed": 8, "improved": 2, "equivalent": 8, "undecided": 0}
    out = compare_at(db, 80, "--json", "--format", "md")
    assert out.exit_code == 2 and "cannot be combined" in out.output


def _pool(runs, first_id):
    return Pool("GB/s", "higher", [[v] for v in runs], run_ids=list(range(first_id, first_id + len(runs))))


def test_a_label_measured_in_several_sessions_has_their_drift_counted():
    """A baseline label of three sessions (platperf run invocations) whose means sit 10%
    apart, against one session 8% below their mean: taken as runs of one session the change
    is a confirmed regression; with each run's session known, compare counts the drift
    between sessions (the model the gate uses) and the key is undecided, not regressed."""
    key = Result("mem-bandwidth", {"kernel": "copy", "size": 67108864}, "bandwidth", "GB/s",
                 "higher", [1.0]).key
    base = {key: _pool([100 + off + 0.2 * i for off in (0, 10, -10) for i in range(4)], 1)}
    new = {key: _pool([92 + 0.2 * i for i in range(4)], 21)}
    sessions = {i: ("host", 100 + (i - 1) // 4) for i in range(1, 13)} | {i: ("host", 200) for i in range(21, 25)}
    (hidden,) = compare.compare_pools(base, new, tolerance=3.0)
    (counted,) = compare.compare_pools(base, new, tolerance=3.0, sessions=sessions)
    assert hidden.decision == "regressed" and hidden.sessions is None
    assert counted.decision == "undecided" and not counted.regression and counted.sessions == (3, 1)
    assert counted.p_value > 0.3 > 0.05 > hidden.p_value


KVM_EPYC = {"virtualization": {"vm": True, "hypervisor": "KVM"},
            "caches": [{"level": 1, "type": "data", "size": 32768}, {"level": 2, "type": "unified", "size": 1048576},
                       {"level": 3, "type": "unified", "size": 33554432}]}


def test_on_a_virtual_machine_compare_holds_the_keys_the_shared_cache_moves(tmp_path):
    """compare says of a key whose working set lies in the cache a VM shares with the host's
    other tenants what the gate says: undecided (shared cache), never regressed -- so
    --fail-on-regression does not fail on it -- while a DRAM key's change is still one."""
    def side(scale):
        return [[Result("mem-bandwidth", {"kernel": k, "size": size}, "bandwidth", "GB/s", "higher",
                        [v * scale * (1 + 0.001 * run)])
                 for k, size, v in (("rd", 1048576, 50.0), ("copy", 67108864, 10.0))] for run in range(4)]
    make_store(tmp_path, {"a": side(1.0), "b": side(0.7)}, {"a": KVM_EPYC, "b": KVM_EPYC})
    out = invoke("compare", "a", "b", "--db", tmp_path / "t.db", "--json")
    assert out.exit_code == 0, out.output
    rows = {r["params"]: r for r in json.loads(out.output)["rows"]}
    held, dram = rows["kernel=rd,size=1048576"], rows["kernel=copy,size=67108864"]
    assert held["decision"] == "undecided" and "32M last-level cache" in held["decision_why"]
    assert held["delta_pct"] == pytest.approx(-30.0, abs=0.5)
    assert dram["decision"] == "regressed" and dram["decision_why"] == ""
    failed = invoke("compare", "a", "b", "--db", tmp_path / "t.db", "--fail-on-regression")
    assert failed.exit_code == 1 and "1 regression(s)" in failed.output
    text = invoke("compare", "a", "b", "--db", tmp_path / "t.db", "--all").output
    assert "undecided (shared cache)" in text and "Not decided here: 1 key (shared cache)" in text


@pytest.mark.parametrize("sessions", [False, True])
def test_compare_counts_the_sessions_a_label_was_measured_in(tmp_path, sessions):
    """Three `platperf run` invocations of label a (sessions whose means sit 10% apart) and
    one of b, 8% below their mean: runs of one process would make it a regression; from
    three processes, as stored with each run, compare counts the drift and says why."""
    def run(v):
        return [Result("mem-bandwidth", {"kernel": "copy", "size": 67108864}, "bandwidth", "GB/s",
                       "higher", [v])]
    a = [run(100 + off + 0.2 * i) for off in (0, 10, -10) for i in range(4)]
    store = make_store(tmp_path, {"a": a, "b": [run(92 + 0.2 * i) for i in range(4)]})
    if sessions:
        for n, r in enumerate(store.runs_for("a")):
            store.update_run(r["id"], owner_pid=1000 + n // 4)
    out = invoke("compare", "a", "b", "--db", tmp_path / "t.db", "--all", "--fail-on-regression")
    (row,) = json.loads(invoke("compare", "a", "b", "--db", tmp_path / "t.db", "--json").output)["rows"]
    if sessions:
        assert out.exit_code == 0, out.output
        assert "0 regressed" in out.output and "the runs came from 3 base and 1 new sessions" in out.output
        assert row["sessions"] == [3, 1] and row["decision"] == "undecided"
        # runs of one session cannot narrow it: no "runs a side" advice for that key
        assert "runs a side on the median key" not in " ".join(out.output.split())
    else:
        assert out.exit_code == 1 and "1 regressed" in out.output and "Sessions:" not in out.output
        assert "runs a side on the median key" in " ".join(out.output.split())
        assert row["sessions"] is None and row["decision"] == "regressed"
