"""Counted events where people read figures (issue 37 part 2): `show`, the report's panel and the
TF-A tables, and `compare`, where a counter's change stands on the line after its figure's
("l2d_refill per access +38%" beside a latency that regressed by 40%). The runs are probe
streams in the record format of docs/results-format.md, written by hand and ingested."""
import json
import subprocess
import sys

import pytest

META = {"type": "meta", "schema": 1, "probe_version": "0.1.0", "build_id": "e0e0e0e0", "arch": "aarch64",
        "events": {"asked": "cycles,l2d", "pmu": {"cpu1": "armv8_pmuv3_0"}}}


def stream(latency: float, refills: int, j: int) -> str:
    """One run: the random chase of 64 MiB on CPU 1 counted 1000 loads a sample, its latency in ns
    and in cycles (one measurement: the same counts on both records)."""
    events = {"per": "access", "counters": [
        {"name": "cycles", "asked": "cycles", "event": "CPU_CYCLES", "pmu": "armv8_pmuv3_0", "code": "0x11",
         "unit": "cycles", "counts": [200000 + j] * 3, "enabled_ns": [9] * 3, "running_ns": [9] * 3},
        {"name": "l2d_refill", "asked": "l2d", "event": "L2D_CACHE_REFILL", "pmu": "armv8_pmuv3_0",
         "code": "0x17", "unit": "events", "counts": [refills + j, refills + j + 1, refills + j - 1],
         "enabled_ns": [9] * 3, "running_ns": [9] * 3}]}
    base = {"type": "result", "benchmark": "mem-latency", "params": {"pattern": "random", "size": 67108864,
                                                                     "stride": 64},
            "cpu": 1, "mode": "serial", "direction": "lower", "iterations": 1000, "events": events}
    samples = [latency + j * 0.5 + d for d in (0, 0.2, -0.2)]
    records = [META, {**base, "metric": "latency", "unit": "ns", "samples": samples},
               {**base, "metric": "latency_cycles", "unit": "cycles", "samples": [2 * s for s in samples]},
               {"type": "end", "status": "complete", "results": 2}]
    return "\n".join(json.dumps(r) for r in records) + "\n"


def platperf(*args):
    proc = subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True, text=True, timeout=120,
                          env={"COLUMNS": "250", **__import__("os").environ})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    where = tmp_path_factory.mktemp("events")
    db = str(where / "r.db")
    for label, latency, refills in (("v1", 100.0, 500), ("v2", 140.0, 690)):
        for j in range(3):
            path = where / f"{label}-{j}.jsonl"
            path.write_text(stream(latency, refills, j))
            platperf("ingest", "probe-jsonl", str(path), "--label", label, "--db", db)
    return db


def test_show_lists_each_counter_on_the_lines_after_its_figure(db):
    text = platperf("show", "v2", "--db", db)
    lines = [line for line in text.splitlines() if "pattern=random,size=67108864" in line]
    metrics = [next(w for w in line.split() if w.startswith(("latency", "cycles_", "l2d_"))) for line in lines]
    assert metrics == ["latency", "cycles_per_access", "l2d_refill_per_access", "latency_cycles"]
    refill = lines[2].split()
    # v2's run medians 690, 691, 692 refills a sample of 1000 loads: their median 0.691
    assert "0.69" in refill and refill[-1] == "events/access"
    assert "3 results" not in text and "4 results, 0 histograms over 3 runs" in text



def test_compare_prints_the_refills_beside_the_latency_regression(db):
    text = platperf("compare", "v1", "v2", "--db", db)
    rows = [line for line in text.splitlines() if "REGRESSED" in line]
    assert len(rows) == 3, text             # latency, latency_cycles, l2d_refill; cycles unchanged
    # run medians 100.5 -> 140.5 ns (+39.80%); refills 0.501 -> 0.691 per access (+37.92%)
    assert " latency " in rows[0] and "+39.80%" in rows[0]
    # the counter right after its figure, as a person says it, with its change
    assert "l2d_refill per access" in rows[1] and "+37.92%" in rows[1] and "events/access" in rows[1]
    assert "latency_cycles" in rows[2]
    assert "cycles per access" not in text


def test_the_report_has_a_small_panel_and_the_counters_in_the_comparison(db):
    text = platperf("report", "v1", "v2", "--db", db, "--format", "md").replace("\\_", "_")  # md's escapes
    assert "## Events counted" in text
    panel = text[text.index("## Events counted"):]
    assert "mem-latency: events per operation (v2)" in panel
    header = next(line for line in panel.splitlines() if line.startswith("| Params"))
    assert [c.strip() for c in header.strip("|").split("|")] == \
        ["Params", "Mode", "CPU", "Figure", "cycles per access", "l2d_refill per access"]
    row = next(line for line in panel.splitlines() if "pattern=random" in line and "140.50" in line)
    assert [c.strip() for c in row.strip("|").split("|")][3:] == ["140.50 ns", "200", "0.691"]
    compared = text[text.index("## Compared with v1"):]
    metrics = [[c.strip() for c in line.split("|")][4] for line in compared.splitlines() if "REGRESSED" in line]
    assert metrics == ["latency", "l2d_refill per access", "latency_cycles"]


def test_compares_release_tables_put_the_counters_after_the_figures(db):
    text = platperf("compare", "v1", "v2", "--db", db, "--format", "md").replace("\\_", "_")
    header = next(line for line in text[text.index("## Results"):].splitlines() if line.startswith("| Cluster"))
    assert [c.strip() for c in header.strip("|").split("|")] == \
        ["Cluster", "Core", "Latency", "Latency Cycles", "Cycles Per Access", "L2D Refill Per Access"]
    regressions = text[text.index("## Regressions"):].splitlines()[2:5]
    assert [line.split("**")[1].split()[-1] for line in regressions] == \
        ["latency", "l2d_refill_per_access", "latency_cycles"]


def test_a_counter_that_rose_explains_and_never_fails_a_comparison(tmp_path):
    """The same latency, refills up by 38%: the counter is shown REGRESSED beside its figure, but
    the verdict and --fail-on-regression rest on the figures (docs/events.md)."""
    db = str(tmp_path / "c.db")
    for label, refills in (("v1", 500), ("v2", 690)):
        for j in range(3):
            path = tmp_path / f"{label}-{j}.jsonl"
            path.write_text(stream(100.0, refills, j))
            platperf("ingest", "probe-jsonl", str(path), "--label", label, "--db", db)
    text = platperf("compare", "v1", "v2", "--db", db, "--fail-on-regression")     # exit 0
    assert [line for line in text.splitlines() if "REGRESSED" in line and "l2d_refill per access" in line]
    assert text.startswith("v2 against v1: 0 regressed"), text.splitlines()[0]


def test_compare_json_counts_a_counter_apart_from_the_figures(db):
    data = json.loads(platperf("compare", "v1", "v2", "--db", db, "--json"))
    assert (data["regressions"], data["counter_regressions"]) == (2, 1)     # latency, latency_cycles; l2d_refill
    assert data["decisions"]["regressed"] == 2
