"""TFTF runtime-instrumentation logs reproduce the TF-A PSCI performance document.

The fixtures under fixtures/ingest/tftf/ are the logs that the v2.9 and v2.10 tables of
"PSCI Performance Measurements on Arm Juno Development Platform" imply (ns, as TFTF
prints them); the figures below are those tables, in us, transcribed row by row.
"""
from pathlib import Path

import pytest

from platperf.ingest import FORMATS, IngestError, pool
from platperf.ingest.tftf_rt_instr import parse
from platperf.vocab.tfa import TFTF_TITLES as TITLES

TFTF = Path(__file__).parent / "fixtures" / "ingest" / "tftf"

V2_9 = {
    "test_rt_instr_susp_deep_parallel": [
        (0, 0, 104.58, 241.20, 5.26),
        (0, 1, 384.24, 22.50, 138.76),
        (1, 0, 244.56, 22.18, 5.16),
        (1, 1, 670.56, 18.58, 4.44),
        (1, 2, 809.36, 269.28, 4.44),
        (1, 3, 984.96, 219.70, 79.62),
    ],
    "test_rt_instr_susp_deep_serial": [
        (0, 0, 236.56, 23.24, 138.18),
        (0, 1, 236.86, 23.28, 138.10),
        (1, 0, 281.04, 22.80, 77.24),
        (1, 1, 100.28, 18.52, 4.54),
        (1, 2, 100.12, 18.78, 4.50),
        (1, 3, 100.36, 18.94, 4.44),
    ],
    "test_rt_instr_cpu_susp_parallel": [
        (0, 0, 662.34, 15.22, 8.08),
        (0, 1, 802.00, 15.50, 8.16),
        (1, 0, 385.22, 15.74, 7.88),
        (1, 1, 106.16, 16.06, 7.44),
        (1, 2, 524.38, 15.64, 7.34),
        (1, 3, 246.00, 15.78, 7.72),
    ],
    "test_rt_instr_cpu_susp_serial": [
        (0, 0, 99.80, 15.94, 5.42),
        (0, 1, 99.76, 15.80, 5.24),
        (1, 0, 278.26, 16.16, 4.58),
        (1, 1, 96.88, 16.00, 4.52),
        (1, 2, 96.80, 16.12, 4.54),
        (1, 3, 96.88, 16.12, 4.54),
    ],
    "test_rt_instr_cpu_off_serial": [
        (0, 0, 235.76, 26.14, 137.80),
        (0, 1, 235.40, 25.72, 137.62),
        (1, 0, 174.70, 22.40, 77.26),
        (1, 1, 100.92, 24.04, 4.52),
        (1, 2, 100.68, 22.44, 4.36),
        (1, 3, 101.36, 22.70, 4.52),
    ],
    "test_rt_instr_psci_version_parallel": [
        (0, 0, 1.48),
        (0, 1, 1.04),
        (1, 0, 0.56),
        (1, 1, 0.92),
        (1, 2, 0.96),
        (1, 3, 0.96),
    ],
}
V2_10 = {
    "test_rt_instr_susp_deep_parallel": [
        (0, 0, 242.66, 245.1, 5.4),
        (0, 1, 522.08, 26.24, 138.32),
        (1, 0, 104.36, 27.1, 5.32),
        (1, 1, 382.56, 23.34, 4.42),
        (1, 2, 807.74, 271.54, 4.64),
        (1, 3, 981.36, 221.8, 79.48),
    ],
    "test_rt_instr_susp_deep_serial": [
        (0, 0, 236.84, 27.1, 138.36),
        (0, 1, 236.96, 27.1, 138.32),
        (1, 0, 280.06, 26.94, 77.5),
        (1, 1, 100.76, 23.42, 4.36),
        (1, 2, 100.02, 23.42, 4.44),
        (1, 3, 100.08, 23.2, 4.4),
    ],
    "test_rt_instr_cpu_susp_parallel": [
        (0, 0, 801.04, 18.66, 8.22),
        (0, 1, 661.28, 19.08, 7.88),
        (1, 0, 105.9, 20.3, 7.58),
        (1, 1, 383.58, 20.4, 7.42),
        (1, 2, 523.52, 20.1, 7.74),
        (1, 3, 244.5, 20.16, 7.56),
    ],
    "test_rt_instr_cpu_susp_serial": [
        (0, 0, 99.84, 18.86, 5.54),
        (0, 1, 100.2, 18.82, 5.66),
        (1, 0, 278.12, 20.56, 4.48),
        (1, 1, 96.68, 20.62, 4.3),
        (1, 2, 96.94, 20.14, 4.42),
        (1, 3, 96.68, 20.46, 4.32),
    ],
    "test_rt_instr_cpu_off_serial": [
        (0, 0, 236.04, 30.02, 137.9),
        (0, 1, 235.38, 29.7, 137.72),
        (1, 0, 175.18, 26.96, 77.26),
        (1, 1, 100.56, 28.34, 4.32),
        (1, 2, 100.38, 26.82, 4.3),
        (1, 3, 100.86, 26.98, 4.42),
    ],
    "test_rt_instr_psci_version_parallel": [
        (0, 0, 1.1),
        (0, 1, 1.06),
        (1, 0, 0.58),
        (1, 1, 0.88),
        (1, 2, 0.92),
        (1, 3, 0.9),
    ],
}


def figures(results):
    """{(test, cluster, core): {metric: value}} of single-sample results."""
    out = {}
    for res in results:
        assert len(res.samples) == 1
        out.setdefault((res.params["test"], res.cluster, res.core), {})[res.metric] = res.samples[0]
    return out


def document(table):
    out = {}
    for test, rows in table.items():
        for cluster, core, *values in rows:
            metrics = ("latency",) if len(values) == 1 else ("powerdown", "wakeup", "cache_flush")
            out[(test, cluster, core)] = dict(zip(metrics, values))
    return out


@pytest.mark.parametrize("log, table", [("v2.9.log", V2_9), ("v2.10.log", V2_10),
                                        ("v2.10-reordered.log", V2_10)])
def test_log_reproduces_the_document_per_cluster_and_core(log, table):
    got = figures(parse((TFTF / log).read_text(), log))
    want = document(table)
    assert got.keys() == want.keys()
    for key, metrics in want.items():
        assert got[key] == pytest.approx(metrics, abs=1e-9), key


def test_reordered_log_prints_cluster_1_first_and_gives_the_same_keys():
    plain = parse((TFTF / "v2.10.log").read_text(), "a")
    reordered = parse((TFTF / "v2.10-reordered.log").read_text(), "b")
    assert [r.key for r in plain] != [r.key for r in reordered]
    assert reordered[0].cluster == 1
    assert {r.key: r.samples for r in plain} == {r.key: r.samples for r in reordered}


def test_key_of_the_documented_delta():
    # the document's 242.66 (+132.03%): cluster 0, core 0, deepest level, parallel
    by_key = {r.key: r for r in parse((TFTF / "v2.10.log").read_text(), "v2.10.log")}
    res = by_key[("tftf-rt-instr", "test=test_rt_instr_susp_deep_parallel", "parallel", None, 0, 0, "powerdown")]
    assert res.samples == [242.66]
    assert (res.unit, res.direction, res.cpu) == ("us", "lower", None)
    assert res.extra["source"] == "v2.10.log:16"


def test_mode_comes_from_the_test_name():
    modes = {r.params["test"]: r.mode for r in parse((TFTF / "v2.9.log").read_text(), "x")}
    assert modes == {
        "test_rt_instr_susp_deep_parallel": "parallel", "test_rt_instr_susp_deep_serial": "serial",
        "test_rt_instr_cpu_susp_parallel": "parallel", "test_rt_instr_cpu_susp_serial": "serial",
        "test_rt_instr_cpu_off_serial": "serial", "test_rt_instr_psci_version_parallel": "parallel"}
    assert set(modes) == set(TITLES)


def test_tag_may_follow_a_console_prefix_and_values_are_converted_from_ns():
    text = "[ 12.5] lava: <RT_INSTR:test_rt_instr_psci_version_parallel\t1\t3\t960/>\n"
    (res,) = parse(text, "lava.log")
    assert (res.cluster, res.core, res.metric, res.samples, res.mode) == (1, 3, "latency", [0.96], "parallel")


def test_repeated_runs_pool_as_samples():
    line = "<RT_INSTR:test_rt_instr_cpu_off_serial\t0\t1\t{}\t25720\t137620/>\n"
    results = pool(parse(line.format(235400) + line.format(235380), "two.log"))
    assert len(results) == 3
    powerdown = next(r for r in results if r.metric == "powerdown")
    assert powerdown.samples == [235.4, 235.38]
    assert powerdown.extra["source"] == ["two.log:1", "two.log:2"]


@pytest.mark.parametrize("line, what", [
    ("<RT_INSTR:test_x\t0\t0\t1\t2/>", "5 tab-separated fields"),
    ("<RT_INSTR:test_x\t0\t0\t1\t2\t3/", "unterminated"),
    ("<RT_INSTR:test_x\t0\tcore0\t1/>", "core 'core0' is not an unsigned integer"),
    ("<RT_INSTR:test_x\t0\t0\t-5/>", "latency '-5' is not an unsigned integer"),
    ("<RT_INSTR:test x\t0\t0\t5/>", "is not a C identifier"),
])
def test_malformed_tag_names_file_line_and_the_expected_shape(line, what):
    with pytest.raises(IngestError) as err:
        parse("NOTICE:  Booting\n" + line + "\n", "bad.log")
    assert err.value.where == "bad.log:2"
    assert what in err.value.message
    assert "expected <RT_INSTR:test" in err.value.message


def test_a_file_without_tags_is_refused():
    with pytest.raises(IngestError, match="no <RT_INSTR:...> lines"):
        parse("NOTICE:  Booting Trusted Firmware\n", "boot.log")


def test_registered():
    assert FORMATS["tftf-rt-instr"].parse("<RT_INSTR:t\t0\t0\t20/>", "x")[0].samples == [0.02]
