"""`platperf ingest probe-jsonl`: probe output saved on a board without SSH becomes one run,
stored as `platperf run` stores it. The streams come from the real probe."""
import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import require_probe
from platperf.cli import app
from platperf.fingerprint import collect
from platperf.store import Store
from platperf.topology import read_topology

JUNO = Path(__file__).parent / "fixtures" / "sysfs" / "juno"
QUICK = ["--samples", "2", "--warmup", "0", "--min-time", "0", "--cpus", "0"]


def ingest(*args):
    return CliRunner().invoke(app, ["ingest", "probe-jsonl", *map(str, args)])


@pytest.fixture(scope="module")
def board_jsonl(tmp_path_factory):
    """Two probe invocations appended into one file, as a person does on a board."""
    probe = require_probe()
    path = tmp_path_factory.mktemp("board") / "board.jsonl"
    with path.open("w") as out:
        subprocess.run([probe, "run", "mem-latency", "--size", "16k,64k", *QUICK], stdout=out, check=True)
        subprocess.run([probe, "run", "mem-bandwidth", "--kernel", "rd,bcopy", "--size", "64k", *QUICK],
                       stdout=out, check=True)
    return path


def records(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_appended_invocations_are_one_complete_run(board_jsonl, tmp_path):
    db = tmp_path / "r.db"
    out = ingest(board_jsonl, "--label", "sdk-11.1", "--target", "am62x", "--db", db)
    assert out.exit_code == 0, out.output
    recs = records(board_jsonl)
    expected = [r for r in recs if r["type"] == "result"]
    store = Store(str(db))
    (run,) = store.runs()
    assert (run["label"], run["target"], run["source"], run["status"]) == \
        ("sdk-11.1", "am62x", "ingest:probe-jsonl", "complete")
    assert run["meta"] == recs[0]          # the probe's own first meta, not platperf's
    assert [r["type"] for r in recs].count("meta") == 2
    stored = store.results(run["id"])
    assert [(r.benchmark, r.params, r.metric, r.samples) for r in stored] == \
        [(e["benchmark"], e["params"], e["metric"], e["samples"]) for e in expected]
    # no sysroot: the CPU is kept, no (cluster, core) is invented, and the run says so
    assert {(r.cpu, r.cluster, r.core) for r in stored} == {(0, None, None)}
    assert "no --root" in run["note"]
    assert run["fingerprint"]["probe"]["build_id"] == recs[0]["build_id"]
    assert run["fingerprint"]["machine"]["arch"] == recs[0]["arch"]


def test_root_gives_fingerprint_and_cluster_core(board_jsonl, tmp_path):
    db = tmp_path / "r.db"
    out = ingest(board_jsonl, "--label", "juno", "--root", JUNO, "--db", db)
    assert out.exit_code == 0, out.output
    store = Store(str(db))
    (run,) = store.runs()
    placed = read_topology(str(JUNO)).place(0)
    assert {(r.cpu, r.package, r.cluster, r.core) for r in store.results(run["id"])} == {(0, *placed)}
    assert run["fingerprint"]["cpu"] == collect(str(JUNO), probe_meta=run["meta"])["cpu"]
    assert "no --root" not in run["note"]


def test_file_cut_mid_record_is_partial_with_what_arrived(board_jsonl, tmp_path):
    text = board_jsonl.read_text()
    lines = text.splitlines(keepends=True)
    cut_at = len(lines) - 3                     # inside the second invocation's results
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:cut_at]) + lines[cut_at][:25])
    db = tmp_path / "r.db"
    out = ingest(cut, "--label", "cut", "--db", db)
    assert out.exit_code == 2
    assert "is partial" in out.output and "has no 'end'" in out.output and "cut short" in out.output
    store = Store(str(db))
    (run,) = store.runs()
    assert run["status"] == "partial"
    arrived = [r for r in (json.loads(line) for line in lines[:cut_at]) if r["type"] == "result"]
    assert len(store.results(run["id"])) == len(arrived) > 0


def test_missing_final_end_is_partial(board_jsonl, tmp_path):
    lines = board_jsonl.read_text().splitlines(keepends=True)
    assert json.loads(lines[-1])["type"] == "end"
    short = tmp_path / "noend.jsonl"
    short.write_text("".join(lines[:-1]))
    db = tmp_path / "r.db"
    out = ingest(short, "--label", "x", "--db", db)
    assert out.exit_code == 2
    (run,) = Store(str(db)).runs()
    assert run["status"] == "partial" and "has no 'end'" in run["error"]


def test_error_record_makes_the_run_failed(board_jsonl, tmp_path):
    lines = board_jsonl.read_text().splitlines(keepends=True)
    failed = tmp_path / "failed.jsonl"
    failed.write_text("".join(lines[:-1]) + json.dumps({"type": "error", "message": "mbind failed"}) + "\n"
                      + json.dumps({"type": "end", "status": "failed"}) + "\n")
    db = tmp_path / "r.db"
    out = ingest(failed, "--label", "x", "--db", db)
    assert out.exit_code == 2
    (run,) = Store(str(db)).runs()
    assert run["status"] == "failed" and "mbind failed" in run["error"]


def test_a_bad_line_stores_nothing(board_jsonl, tmp_path):
    lines = board_jsonl.read_text().splitlines(keepends=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(lines[:2]) + "{not json}\n" + "".join(lines[2:]))
    db = tmp_path / "r.db"
    Store(str(db))
    out = ingest(bad, "--label", "x", "--db", db)
    assert out.exit_code == 2
    assert f"platperf: error: {bad}:3: not JSON" in out.output
    assert Store(str(db)).runs() == []


def test_root_is_refused_for_other_formats(tmp_path):
    out = CliRunner().invoke(app, ["ingest", "stream", "x.txt", "--label", "a", "--root", str(JUNO),
                                   "--db", str(tmp_path / "r.db")])
    assert out.exit_code == 2 and "--root is for probe-jsonl and instr only" in out.output
