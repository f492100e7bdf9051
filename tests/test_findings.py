"""What repeats is one line: the probe's warnings per CPU and kernel, a doctor finding in each
run of a label (platperf.findings.collapse, and the report's Findings section)."""
from __future__ import annotations

from platperf.findings import collapse, merge_messages
from platperf.records import Result
from platperf.report.data import load
from platperf.report.sections import build_document
from platperf.store import Store

PREEMPTED = "{k} of {n} samples are kept although preempted (result \"preempted\" lists them)"


def test_numbers_that_differ_become_ranges_and_other_words_stay_apart():
    assert merge_messages(["2 of 5 kept (1 retakes)", "4 of 5 kept (3 retakes)", "3 of 5 kept (1 retakes)"]) \
        == "2-4 of 5 kept (1-3 retakes)"
    found = collapse([{"level": "warn", "code": "w", "message": f"{k} of 5 kept", "cpu": c, "run": r}
                      for r in (7, 8) for c, k in ((0, 1), (1, 2), (3, 2))]
                     + [{"level": "warn", "code": "w", "message": "something else", "run": 7}])
    assert [(f["message"], f["count"], f["cpus"], f["runs"]) for f in found] == [
        ("1-2 of 5 kept", 6, "0-1,3", [7, 8]), ("something else", 1, "", [7])]


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
    assert cells["Finding"].startswith("1-3 of 5 samples are kept although preempted")
    assert cells["Seen"] == "runs 1, 2, CPUs 0-1, 6 times"
    assert cells["Results touched"] == "mem-latency pattern=random,size=4096 serial"
