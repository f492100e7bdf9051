"""`platperf archive`: old runs' samples out of the database, written first where asked, their
summaries kept for runs, show and history; never silently."""
from __future__ import annotations

import gzip
import json

from typer.testing import CliRunner

from platperf.cli import app
from platperf.records import Result
from platperf.store import Store

EXTRA = {"iterations": 1000, "ticks": [11, 12, 13], "pages": {"asked": "auto", "backing": "huge"}}
HISTOGRAM = {"type": "histogram", "benchmark": "latency-loop", "params": {"variant": "plain"}, "cpu": 0,
             "mode": "serial", "unit": "ns", "count": 10, "min": 9.0, "max": 12.0,
             "buckets": [[9.0, 10.0, 6], [10.0, 12.5, 4]]}


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "200"})


def nights(db: str) -> Store:
    """Six nights of one board, 2025-01-01 to 01-06: latency 10, 10, 10, 12, 12, 12 ns (x1,
    x1.01, x0.99), bandwidth 9000 MB/s; a histogram on each."""
    store = Store(db)
    for night, level in enumerate((10.0, 10.0, 10.0, 12.0, 12.0, 12.0)):
        run = store.begin_run(label=f"n{night}", target="am62x", suite="quick")
        store.add_results(run, [
            Result("mem-latency", {"pattern": "random", "size": 16384}, "latency", "ns", "lower",
                   [level, level * 1.01, level * 0.99], cpu=0, cluster=0, core=0, extra=EXTRA),
            Result("mem-bandwidth", {"kernel": "rd", "size": 1 << 20}, "bandwidth", "MB/s", "higher",
                   [9000.0, 9100.0], cpu=0, cluster=0, core=0)])
        store.add_histogram(run, HISTOGRAM, cluster=0, core=0)
        store.update_run(run, status="complete", started_at=f"2025-01-0{night + 1}T02:00:00Z")
    return store


def test_archive_writes_the_samples_first_then_keeps_only_the_summaries(tmp_path):
    db = str(tmp_path / "a.db")
    store = nights(db)
    out = tmp_path / "archive"
    refused = cli("archive", "--before", "2025-01-04", "--db", db)
    assert refused.exit_code == 2 and "--out DIR" in refused.output and "--drop-samples" in refused.output
    dry = cli("archive", "--before", "2025-01-04", "--out", out, "--dry-run", "--db", db)
    assert dry.exit_code == 0 and "would archive 3 runs started before 2025-01-04 (6 results)" in dry.output
    assert not out.exists() and len(store.results(1)) == 2

    done = cli("archive", "--before", "2025-01-04", "--out", out, "--db", db)
    assert done.exit_code == 0, done.output
    assert "archived 3 runs" in done.output and "6 results' samples and 3 histograms" in done.output
    assert sorted(p.name for p in out.iterdir()) == ["run-00001.jsonl.gz", "run-00002.jsonl.gz", "run-00003.jsonl.gz"]
    records = [json.loads(line) for line in gzip.open(out / "run-00002.jsonl.gz", "rt")]
    assert [r["type"] for r in records] == ["meta", "result", "result", "histogram", "end"]
    assert records[0]["archived_run"]["label"] == "n1" and records[-1] == {"type": "end", "status": "complete",
                                                                            "results": 2}
    latency = records[1]
    assert latency["samples"] == [10.0, 10.1, 9.9] and latency["ticks"] == [11, 12, 13]
    assert latency["params"] == {"pattern": "random", "size": 16384} and records[3]["count"] == 10

    # the summaries stay: runs, show and history read the archived runs as before
    listed = json.loads(cli("runs", "--db", db, "--json").output)
    assert [(r["label"], r["results"], bool(r["archived"])) for r in listed] == \
        [("n0", 2, True), ("n1", 2, True), ("n2", 2, True), ("n3", 2, False), ("n4", 2, False), ("n5", 2, False)]
    shown = json.loads(cli("show", "n1", "--db", db, "--json").output)
    assert {r["metric"]: r["median"] for r in shown["results"]} == {"latency": 10.0, "bandwidth": 9050.0}
    series = json.loads(cli("history", "--metric", "latency", "--db", db, "--json").output)["series"]
    assert [p["value"] for p in series[0]["points"]] == [10.0, 10.0, 10.0, 12.0, 12.0, 12.0]
    # what needs samples says where they went, in one line
    compared = cli("compare", "n1", "n4", "--db", db)
    assert compared.exit_code == 2 and "run 2 of 'n1' has no samples any more" in compared.output
    assert "run-00002.jsonl.gz" in compared.output and len(compared.output.strip().splitlines()) == 1
    assert store.results(2) == [] or all(r.samples == [] for r in store.results(2))
    assert [r.samples for r in store.results(4)][0] == [12.0, 12.0 * 1.01, 12.0 * 0.99]
    # the file brings the run back with every sample
    (tmp_path / "back.jsonl").write_bytes(gzip.open(out / "run-00002.jsonl.gz").read())
    again = cli("ingest", "probe-jsonl", tmp_path / "back.jsonl", "--label", "back", "--db", db)
    assert again.exit_code == 0, again.output
    back = {r.metric: r for r in store.results(store.run("back")["id"])}
    assert back["latency"].samples == [10.0, 10.1, 9.9] and back["latency"].extra["ticks"] == [11, 12, 13]
    assert back["bandwidth"].samples == [9000.0, 9100.0]


def test_drop_samples_says_so_and_archives_no_run_twice(tmp_path):
    db = str(tmp_path / "d.db")
    store = nights(db)
    first = cli("archive", "--before", "2025-01-03", "--drop-samples", "--target", "am62x", "--db", db)
    assert first.exit_code == 0 and "archived 2 runs" in first.output and "dropped" in first.output
    again = cli("archive", "--before", "2025-01-03", "--drop-samples", "--db", db)
    assert again.exit_code == 0 and "nothing to archive: 0 runs" in again.output
    assert "(platperf archive --drop-samples)" in store.run("n0", archived=True)["archived"]
    assert store.run("n2")["archived"] is None and store.histograms(1) == [] and len(store.histograms(3)) == 1
