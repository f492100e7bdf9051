"""A year-old database still works (issue 36 part 5).

The database here is written by the oldest schema platperf has had — revision 0001, made by
running that migration alone — and filled as platperf of that time stored runs: one row a
result with its key's text, its parameters as JSON, its samples and the probe's fields as
JSON text; the fingerprint and findings as JSON; a histogram. Then every command opens it:
the first one migrates it to the newest revision (on SQLite and on PostgreSQL) (the results split into keys, summaries
and samples, the runs indexed), and runs, show, report, compare, history, ingest and run
(the fake probe) work on it with the figures written below by hand.
"""
from __future__ import annotations

import json
import subprocess
import sys
from array import array
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

import fake_probe
from platperf.store import Store
from platperf.store.migrations import HEAD

FIXTURES = Path(__file__).parent / "fixtures"
SUITE = 'name = "tiny"\n[[bench]]\nkernel = "mem-latency"\npattern = "random"\nsize = ["4k", "64k"]\nsamples = 3\nmode = "both"\n'
# Ten nightly runs of a Juno: random latency at 16 KiB on CPU 0 is 10 ns until r5, then
# 13 ns (a step); rd bandwidth on CPU 1 stays at 9000 MB/s; CPU 0's deepest idle state was
# never entered (usage_delta 0: no figure).
LATENCY = [[10.0, 10.1, 9.9]] * 5 + [[13.0, 13.1, 12.9]] * 5
BANDWIDTH = [9000.0, 9010.0, 8990.0]
IDLE = [55.0, 60.0]
PROBE_FIELDS = {"iterations": 1939456, "ticks": [5498402, 5661968, 5546554],
                "cost": {"target_ticks": 5192256, "retakes": 0}, "preempted": [],
                "pages": {"asked": "auto", "backing": "huge", "bytes": 20480, "huge_bytes": 2097152}}


def blob(samples):
    return array("d", samples).tobytes()


def summary(samples):
    s = sorted(samples)
    mean = sum(s) / len(s)
    stdev = (sum((v - mean) ** 2 for v in s) / (len(s) - 1)) ** 0.5
    return dict(n=len(s), min=s[0], median=s[len(s) // 2], mean=mean, max=s[-1], stdev=stdev)


def engine_of(db: str):
    return create_engine(db.replace("postgresql://", "postgresql+psycopg://") if "://" in db else f"sqlite:///{db}")


def revision(db: str) -> list:
    engine = engine_of(db)
    with engine.connect() as c:
        found = c.execute(text("SELECT version_num FROM alembic_version")).all()
    engine.dispose()
    return [tuple(r) for r in found]


def year_old_database(db: str):
    """Revision 0001's tables, filled as platperf wrote them then (on SQLite or PostgreSQL)."""
    from alembic import command

    from platperf.fingerprint import collect
    from platperf.store.migrations import _config
    engine = engine_of(db)
    # JSON columns take text on SQLite, and a cast on PostgreSQL
    j = (lambda name: f"CAST(:{name} AS json)") if engine.dialect.name == "postgresql" else (lambda name: f":{name}")
    with engine.begin() as conn:
        command.upgrade(_config(conn), "0001")
    fingerprint = json.dumps(collect(str(FIXTURES / "sysfs" / "juno")))
    findings = json.dumps([{"level": "warn", "code": "governor-not-performance", "message": "schedutil"}])
    meta = json.dumps({"type": "meta", "schema": 1, "probe_version": "0.1.0", "build_id": "a7cb3560647da6ee",
                       "arch": "aarch64", "compiler": "gcc 12.2.0"})
    with engine.begin() as c:
        for night in range(10):
            run_id = c.execute(text(
                "INSERT INTO runs (label, target, suite, status, source, started_at, finished_at, meta, "
                f"fingerprint, findings) VALUES (:label, 'juno', 'quick', 'complete', 'probe', :at, :at, {j('meta')}, "
                f"{j('fp')}, {j('findings')}) RETURNING id"),
                dict(label=f"r{night}", at=f"2025-01-{night + 1:02d}T02:00:00Z", meta=meta, fp=fingerprint,
                     findings=findings)).scalar()
            rows = [("mem-latency", {"pattern": "random", "size": 16384, "stride": 64}, 0, 0, 0, "latency", "ns",
                     "lower", LATENCY[night], PROBE_FIELDS),
                    ("mem-bandwidth", {"kernel": "rd", "size": 1048576}, 1, 0, 1, "bandwidth", "MB/s", "higher",
                     BANDWIDTH, None),
                    ("cpu-idle", {"state": "cpu-sleep-0"}, 0, 0, 0, "wakeup_lateness", "us", "lower", IDLE,
                     {"usage_delta": 0, "rejected_delta": 0})]
            for benchmark, params, cpu, cluster, core, metric, unit, direction, samples, extra in rows:
                params_text = ",".join(f"{k}={params[k]}" for k in sorted(params))
                c.execute(text(
                    "INSERT INTO results (run_id, benchmark, params, params_json, cpu, cluster, core, mode, metric, "
                    "unit, direction, n, min, median, mean, max, stdev, samples, extra) VALUES (:run, :benchmark, "
                    f":params, {j('params_json')}, :cpu, :cluster, :core, 'serial', :metric, :unit, :direction, :n, "
                    f":min, :median, :mean, :max, :stdev, :samples, {j('extra')})"),
                    dict(run=run_id, benchmark=benchmark, params=params_text, params_json=json.dumps(params), cpu=cpu,
                         cluster=cluster, core=core, metric=metric, unit=unit, direction=direction,
                         samples=blob(samples), extra=None if extra is None else json.dumps(extra), **summary(samples)))
            if night == 0:
                record = {"type": "histogram", "benchmark": "latency-loop", "params": {"variant": "plain"}, "cpu": 0,
                          "mode": "serial", "unit": "ns", "count": 10, "min": 9.0, "max": 12.0,
                          "buckets": [[9.0, 10.0, 6], [10.0, 12.5, 4]]}
                c.execute(text("INSERT INTO histograms (run_id, benchmark, params, params_json, cpu, cluster, core, "
                               f"mode, unit, record) VALUES (:run, 'latency-loop', 'variant=plain', {j('pj')}, 0, 0, "
                               f"0, 'serial', 'ns', {j('record')})"),
                          dict(run=run_id, pj=json.dumps({"variant": "plain"}), record=json.dumps(record)))
    engine.dispose()


@pytest.fixture
def old_db(tmp_path, monkeypatch, db_url):
    fake_probe.install(tmp_path, monkeypatch)
    (tmp_path / "tiny.toml").write_text(SUITE)
    monkeypatch.chdir(tmp_path)
    year_old_database(db_url)
    assert revision(db_url) == [("0001",)]
    return db_url


def platperf(*args) -> str:
    proc = subprocess.run([sys.executable, "-m", "platperf", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env=None)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_every_command_works_on_a_database_of_the_first_schema(old_db):
    runs = json.loads(platperf("runs", "--db", old_db, "--json"))
    assert revision(old_db) == [(HEAD,)]
    assert [(r["label"], r["results"], r["host"]) for r in runs] == \
        [(f"r{i}", 3, "juno / Cortex-A57 + Cortex-A53") for i in range(10)]

    shown = json.loads(platperf("show", "r0", "--db", old_db, "--json"))
    figures = {(r["benchmark"], r["metric"]): r for r in shown["results"]}
    assert len(figures) == 3
    assert (figures["mem-latency", "latency"]["median"], figures["mem-latency", "latency"]["n"]) == (10.0, 3)
    assert figures["mem-latency", "latency"]["params"] == {"pattern": "random", "size": 16384, "stride": 64}
    assert (figures["mem-bandwidth", "bandwidth"]["min"], figures["mem-bandwidth", "bandwidth"]["max"]) == (8990.0, 9010.0)
    assert figures["cpu-idle", "wakeup_lateness"]["not_measured"] == "not entered"
    assert shown["findings"][0]["code"] == "governor-not-performance"
    assert "3 results, 1 histograms" in platperf("show", "r0", "--db", old_db)

    report = platperf("report", "r0", "r9", "--db", old_db, "--format", "md")
    assert "mem-latency" in report and "13.00" in report and "10.00" in report

    compared = json.loads(platperf("compare", "r0", "r9", "--db", old_db, "--format", "json"))
    latency = next(r for r in compared["rows"] if r["metric"] == "latency")
    assert (latency["base"], latency["new"]) == (10.0, 13.0)

    series = json.loads(platperf("history", "--target", "juno", "--metric", "latency", "--db", old_db, "--json"))
    (latency,) = series["series"]
    assert latency["target"] == "juno" and [p["value"] for p in latency["points"]] == [10.0] * 5 + [13.0] * 5
    (change,) = latency["change_points"]
    assert (change["label"], change["index"], change["regression"]) == ("r5", 5, True)

    platperf("ingest", "stream", FIXTURES / "ingest" / "stream" / "stream.txt", "--label", "stream", "--db", old_db)
    stream = json.loads(platperf("show", "stream", "--db", old_db, "--json"))
    assert {r["params"]["kernel"]: r["median"] for r in stream["results"]} == \
        {"copy": 1455.4, "scale": 1595.7, "add": 1415.0, "triad": 1384.6}

    out = json.loads(platperf("run", "--suite", "tiny.toml", "--label", "today", "--db", old_db, "--json"))
    assert out["status"] == "complete" and out["results"] == 8

    store = Store(str(old_db), write=False)
    [bandwidth] = [r for r in store.results(store.run("r3")["id"]) if r.metric == "bandwidth"]
    assert bandwidth.samples == BANDWIDTH and bandwidth.extra == {}
    [latency] = [r for r in store.results(store.run("r7")["id"]) if r.metric == "latency"]
    assert latency.samples == LATENCY[7] and latency.extra == PROBE_FIELDS
    assert [h["record"]["count"] for h in store.histograms(store.run("r0")["id"])] == [10]
