"""rt-tests JSON: each tool's file read by its own format only, and the forms rt-tests 2.x wrote.

The files of tests/fixtures/ingest/rt-tests are what rt-tests 2.4's tools wrote on the
development VM (README.md there); the forms a 2.4 cannot write (oslat 2.5's ns buckets) are
written by hand as rt-tests' source prints them (src/oslat/oslat.c write_summary_json at v2.9,
commit 4aeacf722cee26a3f88ab7f631c9ab9ba6ecdb49 of github.com/woodsts/rt-tests). Figures are
stated by hand from the files."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from platperf.cli import app
from platperf.ingest import IngestError, cyclictest_json, oslat_json, rt_tests_json

RT = Path(__file__).parent / "fixtures" / "ingest" / "rt-tests"


def platperf(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def by_metric(results) -> dict:
    out = {}
    for res in results:
        assert (res.core, res.metric) not in out, "two results of one key"
        out[(res.core, res.metric)] = res.samples
    return out


# file, format asked, the tool the line must name, what it tells the user to do
FOREIGN = [
    ("cyclictest.json", "oslat-json", "cyclictest", "import it as cyclictest-json"),
    ("cyclictest-2.4-nsecs.json", "oslat-json", "cyclictest", "import it as cyclictest-json"),
    ("oslat.json", "cyclictest-json", "oslat", "import it as oslat-json"),
    ("oslat-2.4.json", "cyclictest-json", "oslat", "import it as oslat-json"),
    ("ptsematest-2.4.json", "cyclictest-json", "ptsematest", "platperf reads cyclictest"),
    ("signaltest-2.4.json", "cyclictest-json", "signaltest", "platperf reads cyclictest"),
    ("pi_stress-2.4.json", "oslat-json", "pi_stress", "platperf reads cyclictest"),
]


@pytest.mark.parametrize("file, fmt, tool, remedy", FOREIGN, ids=[f"{f[0]}-as-{f[1]}" for f in FOREIGN])
def test_one_tools_json_given_as_another_is_one_line_naming_the_tool(tmp_path, file, fmt, tool, remedy):
    done = platperf("ingest", fmt, RT / file, "--label", "x", "--db", tmp_path / "r.db")
    assert done.exit_code == 2
    (line,) = done.output.strip().splitlines()
    assert f"{file}:3: this is {tool} --json output (its cmdline \"{tool} " in line and remedy in line
    assert not (tmp_path / "r.db").exists()          # refused before any store was opened


@pytest.mark.parametrize("module, fields, tool", [
    (oslat_json, {"node": 0, "cycles": 10}, "cyclictest"),
    (cyclictest_json, {"freq": 2400, "duration": 60.0}, "oslat"),
    (cyclictest_json, {"sender": {}, "receiver": {}}, "ptsematest, pmqtest, svsematest or sigwaittest"),
])
def test_a_file_without_its_cmdline_is_known_by_its_fields(module, fields, tool):
    doc = {"file_version": 1, "num_threads": 1,
           "thread": {"0": {"cpu": 1, "min": 1, "avg": 1.5, "max": 9, **fields}}}
    with pytest.raises(IngestError, match=f"^x.json:1: this is {tool} --json output"):
        module.parse(json.dumps(doc), "x.json")


def test_cyclictest_nsecs_file_is_read_in_us_and_its_histogram_overflows_whole():
    # -N: min 30764, max 1349877, avg 71016.57 ns over 999 cycles, none under -h 100 (ns)
    text = (RT / "cyclictest-2.4-nsecs.json").read_text()
    assert by_metric(cyclictest_json.parse(text, "c.json")) == {
        (0, "latency_min"): [30.764], (0, "latency_avg"): [71.01657], (0, "latency_max"): [1349.877]}
    (hist,) = cyclictest_json.histograms(text, "c.json")
    assert (hist["count"], hist["overflow"], hist["buckets"], hist["min"], hist["max"]) == \
        (999, 999, [], 30.764, 1349.877)


def test_oslat_buckets_are_upper_edges_and_the_last_one_reaches_the_max():
    # oslat 2.4, one thread on CPU 0: "1": 43977944 (under 1 us) ... "31": 10, "32": 382 (31 us up), max 12074
    text = (RT / "oslat-2.4.json").read_text()
    assert by_metric(oslat_json.parse(text, "o.json")) == {
        (0, "latency_min"): [1.0], (0, "latency_avg"): [1.021721], (0, "latency_max"): [12074.0]}
    (hist,) = oslat_json.histograms(text, "o.json")
    assert hist["buckets"][0] == [0.0, 1.0, 43977944]
    assert hist["buckets"][1] == [1.0, 2.0, 649]
    assert hist["buckets"][-2:] == [[30.0, 31.0, 10], [31.0, 12074.0, 382]]
    assert len(hist["buckets"]) == 32 and hist["count"] == 43977944 + 649 + 347 + 47 + 17 + 15 + 8 + 9 + 4 + 5 + \
        10 + 1 + 4 + 4 + 3 + 6 + 8 + 6 + 8 + 6 + 6 + 6 + 6 + 5 + 3 + 7 + 8 + 6 + 7 + 18 + 10 + 382


def oslat_ns_file() -> str:
    """oslat 2.5+ with -W 250: unit_per_us 1000, so min and max are printed in ns, avg and the
    buckets (three decimals, upper edges) in us (write_summary_json at v2.9)."""
    return """{
  "file_version": 1,
  "cmdline:": "oslat -D 10 -c 3 -W 250 --json=w.json",
  "rt_test_version:": "2.90",
  "return_code": 0,
  "num_threads": 1,
  "thread": {
    "0": {
      "cpu": 3,
      "freq": 2000,
      "min": 180,
      "avg": 0.251000,
      "max": 1750,
      "duration": 10.001,
      "histogram": {
        "0.250": 39875001,
        "0.500": 120,
        "1.000": 4
      }
    }
  }
}
"""


def test_oslat_ns_buckets_give_min_and_max_in_ns_and_quarter_us_buckets():
    text = oslat_ns_file()
    assert by_metric(oslat_json.parse(text, "w.json")) == {
        (3, "latency_min"): [0.18], (3, "latency_avg"): [0.251], (3, "latency_max"): [1.75]}
    (hist,) = oslat_json.histograms(text, "w.json")
    assert hist["buckets"] == [[0.0, 0.25, 39875001], [0.25, 0.5, 120], [0.75, 1.75, 4]]
    assert (hist["min"], hist["max"], hist["count"]) == (0.18, 1.75, 39875125)


def test_oslat_ns_file_without_its_cmdline_takes_the_buckets_step_as_their_width():
    doc = json.loads(oslat_ns_file())
    del doc["cmdline:"]
    (hist,) = oslat_json.histograms(json.dumps(doc), "w.json")
    assert hist["buckets"][:2] == [[0.0, 0.25, 39875001], [0.25, 0.5, 120]]


def test_the_tool_is_read_from_its_cmdline_first():
    assert rt_tests_json.tool_of({"cmdline:": "/usr/local/bin/oslat -D 1", "thread": {"0": {"node": 0}}}) == \
        ("oslat", "its cmdline \"/usr/local/bin/oslat -D 1\"")
    assert rt_tests_json.tool_of({"thread": {"0": {"cpu": 0, "min": 1, "avg": 1, "max": 2}}}) is None
