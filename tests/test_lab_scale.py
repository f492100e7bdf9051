"""A lab's database (issue 36): runs lists the newest runs and filters them, a label is one index
lookup, a missed label is one short line naming the nearest ones, show sums up a big run,
history keeps each board's series apart and reads only the runs asked for."""
from __future__ import annotations

import json
import sqlite3

from typer.testing import CliRunner

from platperf.cli import app
from platperf.records import Result
from platperf.store import Store

BOARDS = ("am62x-01", "am62x-02", "juno")


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "250"})


def lab(db: str) -> Store:
    """Ten nights of three boards (labels BOARD-2025-01-DD), then releases v2.1 and v2.2 on
    am62x-01: 32 runs. Latency on CPU 0 is 10 ns on am62x-01 and 20 ns on am62x-02 (the same
    CPU numbering, two series), and steps to 12 ns on am62x-01 from night 6."""
    store = Store(db)
    for night in range(1, 11):
        for board in BOARDS:
            level = {"am62x-01": 12.0 if night >= 6 else 10.0, "am62x-02": 20.0, "juno": 30.0}[board]
            run = store.begin_run(label=f"{board}-2025-01-{night:02d}", target=board, suite="full",
                                  fingerprint={"hostname": board, "cpu": {"model": "Cortex-A53"}})
            store.add_results(run, [Result("mem-latency", {"size": 4096}, "latency", "ns", "lower",
                                           [level, level * 1.01, level * 0.99], cpu=0, cluster=0, core=0)])
            store.update_run(run, status="complete", started_at=f"2025-01-{night:02d}T02:00:00Z")
    for label in ("v2.1", "v2.2"):
        run = store.begin_run(label=label, target="am62x-01", suite="full")
        store.add_results(run, [Result("mem-latency", {"size": 4096}, "latency", "ns", "lower", [11.0],
                                       cpu=0, cluster=0, core=0)])
        store.update_run(run, status="complete", started_at="2025-01-11T09:00:00Z")
    return store


def test_runs_lists_the_newest_and_filters_them(tmp_path):
    db = str(tmp_path / "lab.db")
    lab(db)
    out = cli("runs", "--db", db, "--json")
    listed = json.loads(out.stdout)
    assert [r["id"] for r in listed] == list(range(13, 33))           # the newest 20, oldest first
    assert "the newest 20 of 32 runs that match" in out.stderr
    assert listed[0] == {"id": 13, "label": "am62x-01-2025-01-05", "target": "am62x-01", "suite": "full",
                         "status": "complete", "started": "2025-01-05T02:00:00Z", "results": 1,
                         "host": "am62x-01 / Cortex-A53", "note": None, "archived": None}
    juno = json.loads(cli("runs", "--db", db, "--json", "--target", "juno", "--since", "2025-01-08").stdout)
    assert [r["label"] for r in juno] == ["juno-2025-01-08", "juno-2025-01-09", "juno-2025-01-10"]
    releases = json.loads(cli("runs", "--db", db, "--json", "--label", "v2.*").stdout)
    assert [r["label"] for r in releases] == ["v2.1", "v2.2"]
    early = json.loads(cli("runs", "--db", db, "--json", "--until", "2025-01-02", "--limit", "0").stdout)
    assert [r["label"] for r in early] == [f"{b}-2025-01-01" for b in BOARDS]
    assert len(json.loads(cli("runs", "--db", db, "--json", "--limit", "0").stdout)) == 32
    bad = cli("runs", "--db", db, "--since", "yesterday")
    assert bad.exit_code == 2 and "--since 'yesterday'" in bad.output


def test_a_label_is_one_index_lookup(tmp_path):
    db = tmp_path / "lab.db"
    lab(str(db))
    with sqlite3.connect(db) as c:
        plan = " ".join(row[-1] for row in c.execute("EXPLAIN QUERY PLAN SELECT * FROM runs WHERE label = 'v2.1'"))
        assert "USING INDEX ix_runs_label" in plan
        plan = " ".join(row[-1] for row in c.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM runs WHERE label GLOB 'juno-2025-*'"))
        assert "ix_runs_label" in plan


def test_a_missed_label_is_one_short_line_naming_the_nearest(tmp_path):
    db = str(tmp_path / "lab.db")
    lab(db)
    out = cli("show", "am62x-01-2025-01-32", "--db", db)
    assert out.exit_code == 2
    (line,) = out.output.strip().splitlines()
    assert len(line) < 400
    near = line.split("the nearest labels: ")[1].split(" (")[0].split(", ")
    assert near[:2] == ["am62x-01-2025-01-02", "am62x-01-2025-01-03"] and len(near) == 5
    assert "(32 runs: 'platperf runs --label PATTERN' lists them)" in line
    swapped = cli("show", "am26x-02-2025-01-05", "--db", db).output     # a typo at the start
    assert "the nearest labels: am62x-02-2025-01-05, am62x-01-2025-01-05," in swapped


def test_show_sums_up_a_big_run_and_lists_it_with_all(tmp_path):
    db = str(tmp_path / "big.db")
    store = Store(db)
    run = store.begin_run(label="full", target="am62x-01")
    results = [Result("mem-latency", {"size": 1024 * (i + 1)}, "latency", "ns", "lower", [1.0 + i, 2.0 + i],
                      cpu=cpu, cluster=0, core=cpu) for i in range(60) for cpu in (0, 1)]
    results += [Result("os-syscall", {"op": op}, "latency", "us", "lower", [0.2], cpu=0, cluster=0, core=0)
                for op in ("null", "read", "write")]
    store.add_results(run, results)
    store.finish_run(run, "complete")
    text = cli("show", "full", "--db", db).stdout
    table = text[text.index("benchmark"):]
    assert "mem-latency  serial  latency      120   0-1           1.50           60.50  ns" in table
    assert "os-syscall   serial  latency        3     0           0.20            0.20  us" in table
    assert "123 results, 0 histograms; --all lists each result" in text
    every = cli("show", "full", "--db", db, "--all").stdout
    assert every.count("mem-latency") == 120 and "size=61440" in every and "--all lists" not in every


def test_history_keeps_each_board_apart_and_reads_only_the_runs_asked_for(tmp_path):
    db = str(tmp_path / "lab.db")
    lab(db)
    data = json.loads(cli("history", "--db", db, "--json").stdout)
    by_board = {s["target"]: s for s in data["series"]}
    assert sorted(by_board) == list(BOARDS)            # one key, three boards: three series
    assert [p["value"] for p in by_board["am62x-02"]["points"]] == [20.0] * 10
    one = by_board["am62x-01"]
    assert [p["value"] for p in one["points"]] == [10.0] * 5 + [12.0] * 5 + [11.0, 11.0]
    (step,) = one["change_points"]
    assert (step["label"], step["index"], step["regression"]) == ("am62x-01-2025-01-06", 5, True)
    narrowed = json.loads(cli("history", "--db", db, "--json", "--target", "am62x-01", "--since", "2025-01-04",
                              "--until", "2025-01-09", "--label", "am62x-*").stdout)
    (series,) = narrowed["series"]
    assert [p["label"][-2:] for p in series["points"]] == ["04", "05", "06", "07", "08"]
    releases = json.loads(cli("history", "--db", db, "--json", "--labels", "v2.1,v2.2").stdout)
    assert [(s["target"], [p["run_ids"] for p in s["points"]]) for s in releases["series"]] == \
        [("am62x-01", [[31], [32]])]
    clash = cli("history", "--db", db, "--labels", "v2.1", "--label", "v2.*")
    assert clash.exit_code == 2 and "give one of them" in clash.output
