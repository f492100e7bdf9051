"""The first screen of a report says the result (issue 38 part 1): a single run opens on its
machine in one line and the figures people quote -- latency per cache level in ns and cycles,
bandwidth per level and from DRAM -- with the findings that bear on them, bad first and
counted; several labels of one machine open on the verdict (one word, with the tolerance) and
the largest changes. Keys as people say them; facts a run does not have left out.

The runs are test_report_store's Juno-like machine (L1d 32 KiB, L2 2 MiB; six CPUs whose
figures grow 1% a CPU; five samples each growing 0.1%): the figures below are worked out by
hand from latency_ns and the bandwidth of write_run."""
from __future__ import annotations

import pytest

from platperf.report import render
from platperf.report.data import load
from platperf.report.sections import build_document
from platperf.store import Store
from platperf.vocab.spoken import iec, key_spoken, params_text

from test_report_store import write_run

FINDINGS = [{"level": "warn", "code": "virtual-machine", "message": "running in a virtual machine",
             "effect": "the host preempts the vCPUs"},
            {"level": "ok", "code": "no-smt-siblings", "message": "no SMT siblings online"},
            {"level": "bad", "code": "busy-processes", "message": "busy processes: python (pid 951, 95%)",
             "effect": "they take CPU time from the measured CPUs"},
            {"level": "warn", "code": "no-isolated-cpus", "message": "no CPU is isolated"}]
# the median over six CPUs of 1.00 .. 1.05 is 1.025, of 1/1.00 .. 1/1.05 (1/1.02 + 1/1.03) / 2;
# the median of five samples v (1 + 0.001 i) is v x 1.002, of v (1 - 0.001 i) v x 0.998
UP, DOWN = 1.025 * 1.002, (1 / 1.02 + 1 / 1.03) / 2 * 0.998


@pytest.fixture
def store(tmp_path):
    return Store(str(tmp_path / "runs.db"))


def tables(section) -> dict:
    return {t.title: t for t in section.tables}


def test_a_single_run_opens_on_its_machine_and_the_figures_people_quote(store):
    write_run(store, "v2.11", findings=FINDINGS)
    doc = build_document(load(store, ["v2.11"]))
    first = doc.sections[0]
    assert first.title == "Summary"
    # the machine in one line: what its fingerprint tells, nothing "not reported"
    assert first.text.splitlines()[0] == \
        "v2.11 on juno-r1: Cortex-A57 + Cortex-A53 (aarch64); L1d 32 KiB, L2 2 MiB; Linux 6.1.0"
    latency = tables(first)["Latency per cache level, median of 6 CPUs"]
    assert latency.headers == ["Level", "v2.11", "Measured at"]
    # L1d at 16 KiB (the largest size at most half of it), L2 at 1 MiB, DRAM at 16 MiB (the
    # largest of at least twice the L2): the random chase 1.6x the sequential, cycles 2x ns
    assert latency.rows == [
        ["L1d 32 KiB", f"{2.4 * UP:.2f} ns, {4.8 * UP:.2f} cycles", "random 16 KiB, stride 128 B"],
        ["L2 2 MiB", f"{16 * UP:.2f} ns, {32 * UP:.2f} cycles", "random 1 MiB, stride 128 B"],
        ["DRAM", f"{160 * UP:.2f} ns, {320 * UP:.2f} cycles", "random 16 MiB, stride 128 B"]]
    assert latency.rows[0][1] == "2.46 ns, 4.93 cycles" and latency.rows[2][1] == "164.33 ns, 328.66 cycles"
    bandwidth = tables(first)["Bandwidth per level and from DRAM, median of 6 CPUs"]
    # no bandwidth was measured inside L1 (1 and 16 MiB only): no L1 row; read is peak-read
    # where measured, copy bw_mem's bcopy before STREAM's, 8000 and 4000 MB/s at 1 and 16 MiB
    assert [r[:2] for r in bandwidth.rows] == [
        ["L2 2 MiB read", "7.79 GB/s"], ["L2 2 MiB write", "7.79 GB/s"], ["L2 2 MiB copy", "7.79 GB/s"],
        ["L2 2 MiB triad", "7.79 GB/s"], ["DRAM read", "3.89 GB/s"], ["DRAM write", "3.89 GB/s"],
        ["DRAM copy", "3.89 GB/s"], ["DRAM triad", "3.89 GB/s"]]
    assert round(8000 * DOWN / 1000, 2) == 7.79 and round(4000 * DOWN / 1000, 2) == 3.89
    assert [r[2] for r in bandwidth.rows][:4] == [
        "peak-read 1 MiB", "wr 1 MiB", "bcopy 1 MiB", "STREAM triad 1 MiB"]


def test_the_findings_that_bear_on_them_come_bad_first_and_counted(store):
    write_run(store, "v2.11", findings=FINDINGS)
    first = build_document(load(store, ["v2.11"])).sections[0]
    (table,) = [t for t in first.tables if t.title.startswith("Worst findings first")]
    assert table.title == "Worst findings first: 1 bad, 2 warnings, 1 ok"
    assert [r[:2] for r in table.rows] == [["bad", "busy processes: python (pid 951, 95%)"],
                                           ["warn", "running in a virtual machine"],
                                           ["warn", "no CPU is isolated"]]


def test_the_summary_says_keys_as_people_say_them_and_nothing_not_reported(store):
    write_run(store, "v2.11")
    doc = build_document(load(store, ["v2.11"]))
    for fmt in ("table", "md", "rst-grid", "html"):
        text = render(doc, fmt)
        head = text[:text.index("Evaluation Modules", text.index("Summary</h2>") if fmt == "html" else 0)]
        assert "Latency per cache level" in head and "random 16 KiB" in head, fmt
        assert "size=" not in head and "16777216" not in head and "not reported" not in head, fmt
    # on a terminal of 80 columns the summary's tables fit
    assert all(len(line) <= 80 for line in render(doc, "table").splitlines())


def test_several_labels_open_on_the_verdict_with_its_tolerance_and_the_largest_changes(store):
    for label, scale in (("v2.11", 1.0), ("v2.11", 1.0), ("v2.12", 1.2), ("v2.12", 1.2)):
        write_run(store, label, scale=scale)
    doc = build_document(load(store, ["v2.11", "v2.12"]))
    assert [s.title for s in doc.sections[:3]] == ["Verdict", "Summary", "Evaluation Modules"]
    verdict = doc.sections[0]
    # 6 CPUs x 2 modes x (2 patterns x 7 sizes x 2 metrics + 6 kernels x 2 sizes) = 480 keys,
    # each 20% slower (latency x 1.2, bandwidth / 1.2) in both runs of v2.12
    assert verdict.text.startswith("v2.12 against v2.11: REGRESSED (tolerance 2%). 480 regressed, "
                                   "0 improved, 0 equivalent within 2%, 0 undecided.")
    assert "Regressed: memory latency 336, memory bandwidth 144." in verdict.text
    (changes,) = verdict.tables
    assert changes.headers == ["Benchmark", "Where", "Metric", "v2.11", "v2.12", "Change", "Decision"]
    assert len(changes.rows) == 10 and changes.caption == "470 more changes in the tables below."
    # the bandwidth falls by 1/1.2 - 1 = -16.67%: the log of its ratio is the latency's, so
    # they tie; regressions first and, among them, the keys' order
    assert changes.rows[0] == ["memory latency random 16 MiB, stride 128 B, parallel", "cluster 0 core 0",
                               "latency (ns)", "160.32", "192.38", "+20.00%", "REGRESSED"]
    assert {r[5] for r in changes.rows} <= {"+20.00%", "-16.67%"}


def test_an_imported_page_has_no_summary_of_figures_it_does_not_have(store, tmp_path):
    """A TF-A page's run holds firmware latencies only: no latency curve, no bandwidth, no
    machine: no summary is made up, the report opens on the page's own tables."""
    from platperf.records import Result
    run = store.begin_run(label="v2.13", suite="ingest", source="ingest:tfa-rst")
    store.add_result(run, Result(benchmark="tftf-rt-instr", params={"test": "test_rt_instr_susp_deep_parallel"},
                                 metric="cache_flush", unit="us", direction="lower", samples=[138.88],
                                 mode="parallel", cluster=0, core=0))
    store.finish_run(run, "complete")
    doc = build_document(load(store, ["v2.13"]))
    assert all(s.title not in ("Summary", "Verdict") for s in doc.sections)


@pytest.mark.parametrize("benchmark, params, said", [
    ("mem-latency", "pattern=random,size=16777216,stride=64", "random 16 MiB"),
    ("mem-latency", {"pattern": "seq", "size": 4 << 20, "stride": 128}, "seq 4 MiB, stride 128 B"),
    ("mem-bandwidth", "kernel=triad,size=67108864", "STREAM triad 64 MiB"),
    ("mem-bandwidth", {"kernel": "peak-read", "size": 16384}, "peak-read 16 KiB"),
    ("tftf-rt-instr", "test=test_rt_instr_susp_deep_parallel", "CPU_SUSPEND deepest, parallel"),
    ("os-syscall", "op=null", "null"),
    ("os-ctx", {"procs": 2, "size": 0}, "0 B, 2 procs"),
    ("os-ipc", "fds=200,kind=select-tcp", "select-tcp, 200 fds"),
])
def test_keys_as_people_say_them(benchmark, params, said):
    assert params_text(benchmark, params) == said


def test_a_whole_key_as_people_say_it():
    key = ("tftf-rt-instr", "test=test_rt_instr_susp_deep_parallel", "parallel", None, 0, 0, "cache_flush")
    assert key_spoken(key, "us") == "TF-A PSCI CPU_SUSPEND deepest, parallel: cluster 0 core 0 cache flush (µs)"
    assert [iec(n) for n in (512, 1536, 32768, 2 << 20, 3 << 30)] == ["512 B", "1.5 KiB", "32 KiB", "2 MiB", "3 GiB"]
