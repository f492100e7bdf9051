"""A record whose samples hold different numbers of operations (align-sweep: a placement's
rounds pooled, each round with its own repetitions) carries each sample's divisor in
``events.iterations`` (docs/results-format.md, "events"): each counter's sample i is counts[i]
divided by that sample's own operations, never by one count for all. Records written by hand."""
import pytest

from platperf.events.counted import Counted
from platperf.records import RecordError, check_record, result_from_record


def pooled(**events):
    """Two rounds of 2 samples: 1000 accesses a sample in the first, 4000 in the second."""
    rec = {"type": "result", "benchmark": "align-sweep", "params": {"kernel": "l1-chase", "offset": 16},
           "cpu": 0, "mode": "serial", "metric": "latency", "unit": "ns", "direction": "lower",
           "samples": [1.25, 1.5, 1.0, 1.75],
           "events": {"per": "access", "iterations": [1000, 1000, 4000, 4000], "counters": [
               {"name": "cycles", "asked": "cycles", "event": "CPU_CYCLES", "pmu": "armv8_pmuv3_0",
                "code": "0x11", "unit": "cycles", "counts": [3000, 3500, 12000, 14000],
                "enabled_ns": [500, 520, 2000, 2100], "running_ns": [500, 520, 2000, 2100]}]}}
    rec["events"].update(events)
    return rec


def test_each_sample_is_divided_by_its_own_operations():
    res = result_from_record(check_record(pooled(), "f:1"), "f:1")
    (c,), warnings = Counted().expand(res)
    assert (c.metric, c.unit) == ("cycles_per_access", "cycles/access")
    assert c.samples == [3.0, 3.5, 3.0, 3.5]          # not 3000/1000 and 12000/1000
    assert c.extra["iterations"] == [1000, 1000, 4000, 4000] and c.extra["counts"] == [3000, 3500, 12000, 14000]
    assert warnings == []


def test_the_records_own_iterations_are_not_needed_beside_each_samples():
    rec = pooled()
    assert "iterations" not in rec
    check_record(rec, "f:1")
    rec["iterations"] = 1000     # a record whose rounds ran alike has both; the samples' own win
    (c,), _ = Counted().expand(result_from_record(check_record(rec, "f:1"), "f:1"))
    assert c.samples == [3.0, 3.5, 3.0, 3.5]


@pytest.mark.parametrize("each, needle", [
    ([1000, 1000, 4000], "one operation count above 0 per sample (4)"),
    ([1000, 0, 4000, 4000], "one operation count above 0 per sample (4)"),
    ("1000", "one operation count above 0 per sample (4)"),
    ([1000, True, 4000, 4000], "one operation count above 0 per sample (4)"),
])
def test_a_bad_divisor_list_is_refused_naming_the_line(each, needle):
    with pytest.raises(RecordError) as err:
        check_record(pooled(iterations=each), "sweep.jsonl:3")
    assert str(err.value).startswith("sweep.jsonl:3: ") and needle in str(err.value)
