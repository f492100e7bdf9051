"""The report's Findings section: what repeats is one row, over a label's runs too
(platperf.findings.collapse), saying where it was seen and the results a warning touches."""
from __future__ import annotations

from platperf.findings import collapse
from platperf.records import Result
from platperf.report.data import load
from platperf.report.sections import build_document
from platperf.store import Store

PREEMPTED = "{k} of {n} samples are kept although preempted (result \"preempted\" lists them)"


def test_across_a_labels_runs_a_doctor_finding_keeps_its_words_and_says_its_runs():
    busy = {"level": "bad", "code": "load", "message": "load average 6.6 on 2 CPUs"}
    merged = collapse([{**busy, "run": 7}, {**busy, "run": 8},
                       {"level": "warn", "code": "w", "message": "1 of 5 kept", "cpu": 0, "run": 7},
                       {"level": "warn", "code": "w", "message": "2 of 5 kept", "cpu": 1, "run": 8}])
    assert [(f["message"], f["count"], f["runs"]) for f in merged] == [
        ("load average 6.6 on 2 CPUs", 2, [7, 8]), ("2 w warnings (CPUs 0-1), the first: 1 of 5 kept", 2, [7, 8])]


def test_the_report_has_one_row_per_repeated_warning_naming_the_results_it_touches(tmp_path):
    store = Store(str(tmp_path / "r.db"))
    for _ in range(2):
        warnings = [{"level": "warn", "code": "sample-preempted", "source": "probe", "cpu": cpu,
                     "message": PREEMPTED.format(k=k, n=5)} for cpu, k in ((0, 1), (1, 3), (0, 2))]
        run = store.begin_run(label="v1", findings=warnings)
        for size, preempted in ((4096, [0]), (65536, [])):
            store.add_result(run, Result("mem-latency", {"pattern": "random", "size": size}, "latency", "ns",
                                         "lower", [1.0] * 5, cpu=0, extra={"preempted": preempted}))
        store.finish_run(run, "complete")
    section = next(s for s in build_document(load(store, ["v1"])).sections if s.title == "Findings")
    (table,) = section.tables
    (row,) = table.rows
    cells = dict(zip(table.headers, row))
    assert cells["Finding"].startswith("6 sample-preempted warnings (CPUs 0-1), the first: 1 of 5 samples")
    assert cells["Seen"] == "runs 1, 2, CPUs 0-1, 6 times"
    assert cells["Results touched"] == "mem-latency pattern=random,size=4096 serial"
