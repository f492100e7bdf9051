"""Repeated findings read once (platperf.findings.collapse): what show, the report and a run's
summary print; the stored findings stay as they were."""
from platperf.findings import collapse


def preempted(cpu, benchmark, n):
    return {"level": "warn", "code": "sample-preempted", "cpu": cpu, "benchmark": benchmark, "source": "probe",
            "message": f"{n} of 25 samples are kept although preempted (result \"preempted\" lists them)"}


def test_27_warnings_of_one_code_are_one_with_their_count_cpus_and_benchmarks():
    findings = [{"level": "bad", "code": "busy-processes", "message": "busy processes: yes (pid 7, 99%)"}]
    findings += [preempted(cpu, bench, n) for n, (bench, cpu) in enumerate(
        [("mem-latency", c) for c in (0, 1)] * 9 + [("os-syscall", c) for c in (0, 1, 3)] * 3)]
    assert len(findings) == 28
    busy, merged = collapse(findings)
    assert busy == findings[0]
    assert (merged["count"], merged["cpus"], merged["benchmarks"]) == (27, [0, 1, 3], ["mem-latency", "os-syscall"])
    assert merged["message"] == ("27 sample-preempted warnings (CPUs 0-1,3; mem-latency 18, os-syscall 9), the "
                                 "first: 0 of 25 samples are kept although preempted (result \"preempted\" lists them)")
    assert len(findings) == 28     # nothing is taken from what was given


def test_a_lone_finding_and_the_order_stay():
    a = {"level": "warn", "code": "x", "message": "one"}
    b = {"level": "warn", "code": "y", "message": "two", "cpu": 2}
    c = {"level": "info", "code": "x", "message": "an info of another level"}
    assert collapse([a, b, c]) == [a, b, c]
    merged = collapse([b, a, dict(b, cpu=3)])
    assert [f["code"] for f in merged] == ["y", "x"] and merged[0]["message"].startswith("2 y warnings (CPUs 2-3)")
