"""Every importer, fed anything, returns well-formed results or raises its own IngestError.

Hypothesis mutates the real fixtures (a line replaced, text spliced in, lines dropped or
repeated) and also builds near-miss lines of each format, with a bounded budget.
"""
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from platperf.ingest import FORMATS, IngestError
from platperf.records import DIRECTIONS, MODES, canonical_params

from ingest_samples import SAMPLES
BUDGET = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# pieces of each format, so that random lines come near the real shapes
PIECES = ["<RT_INSTR:", "/>", "\t", "test_rt_instr_x", "\"stride=", "bw_mem 16m ", "bcopy",
          " microseconds", " nanoseconds", "MB/sec", ": ", "Function    Best Rate MB/s  Avg time     Min time     Max time",
          "Copy:", "Array size = ", "bytes per array element", "Failed Validation", ".. csv-table:: T",
          "    :header: ", "\"a\",\"b: c\"", "(min ", ", max ", ")", "\"", ",", "1e309", "1.7e308", "-0", "nan", "inf",
          "99999999999999999999999", "0.00049", "1.5", "\n", " ", "{", "}", "[", "]", "\"thread\"",
          "\"histogram\"", "\"point\"", "\"ticks\"", "\"cpu\"", "\"min\"", "\"avg\"", "\"max\"", "\"cycles\"", ":", "null", "true", "7"]
line_text = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=8)), max_size=12).map("".join)


@st.composite
def mutated(draw, fmt):
    lines = SAMPLES[fmt].read_text().splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines)))
        action = draw(st.sampled_from(["replace", "insert", "drop", "repeat", "splice"]))
        if action == "insert" or not lines:
            lines.insert(i, draw(line_text) + "\n")
        elif action == "replace":
            lines[min(i, len(lines) - 1)] = draw(line_text) + "\n"
        elif action == "drop":
            del lines[min(i, len(lines) - 1)]
        elif action == "repeat":
            j = min(i, len(lines) - 1)
            lines.insert(j, lines[j])
        else:
            j = min(i, len(lines) - 1)
            at = draw(st.integers(0, len(lines[j])))
            lines[j] = lines[j][:at] + draw(line_text) + lines[j][at:]
    return "".join(lines)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.sampled_from([10**400, -10**400]) | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12)


@st.composite
def rt_tests_documents(draw):
    """A valid thread with some fields replaced by any JSON value, or dropped."""
    thread = {"cpu": 0, "min": 1, "avg": 2.5, "max": 30, "cycles": 10, "freq": 2600, "duration": 2.0,
              "histogram": {"1": 5, "2": 4, "30": 1}}
    for key in draw(st.lists(st.sampled_from(sorted(thread)), max_size=3)):
        if draw(st.booleans()):
            thread[key] = draw(json_values)
        else:
            thread.pop(key, None)
    if draw(st.booleans()):
        thread["histogram"] = draw(st.dictionaries(st.text(max_size=4) | st.integers(0, 99).map(str),
                                                   json_values, max_size=4))
    doc = {"thread": {draw(st.sampled_from(["0", "1", ""])): thread}}
    for key in draw(st.lists(st.sampled_from(["resolution_in_ns", "return_code"]), max_size=2)):
        doc[key] = draw(json_values)
    return json.dumps(doc)


def check(fmt, text):
    """Parse ``text``; anything but IngestError fails the test, and results must be sound."""
    parser = FORMATS[fmt]
    try:
        results = parser.parse(text, "fuzz.txt")
        histograms = parser.histograms(text, "fuzz.txt")
    except IngestError as exc:
        assert exc.where.startswith("fuzz.txt:")
        assert exc.message and "\n" not in exc.message
        return
    assert results
    for res in results:
        assert res.samples and all(isinstance(s, float) and math.isfinite(s) for s in res.samples)
        assert res.direction in DIRECTIONS and res.mode in MODES and res.unit is not None
        canonical_params(res.params)
        json.dumps(res.extra, allow_nan=False)
    for rec in histograms:
        json.dumps(rec, allow_nan=False)
        assert all(lo <= hi and n > 0 for lo, hi, n in rec["buckets"])


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@BUDGET
@given(data=st.data())
def test_mutated_fixture_never_escapes(fmt, data):
    check(fmt, data.draw(mutated(fmt)))


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@BUDGET
@given(text=st.lists(line_text, max_size=10).map("\n".join))
def test_lines_of_format_pieces_never_escape(fmt, text):
    check(fmt, text)


@pytest.mark.parametrize("fmt", ["cyclictest-json", "oslat-json"])
@BUDGET
@given(text=rt_tests_documents())
def test_rt_tests_documents_never_escape(fmt, text):
    check(fmt, text)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_fixtures_parse(fmt):
    check(fmt, SAMPLES[fmt].read_text())
    assert FORMATS[fmt].parse(SAMPLES[fmt].read_text(), "x")
