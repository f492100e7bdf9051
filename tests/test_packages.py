"""Two packages whose cluster numbers restart (QEMU virt ``-smp 8,sockets=2,clusters=2,cores=2``,
fixture ``qemu-virt-2pkg``): a probe stream from that board ingested with its /sys goes through
the same placement as ``platperf run``, and every table, key and comparison keeps CPU 4 at
(package 1, cluster 0, core 0) and CPU 1 at (package 0, cluster 0, core 1). A one-package
board's tables stay as TF-A prints them: no package."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from platperf.compare import keyed as compare
from platperf.records import key_text
from platperf.report.data import load
from platperf.report.sections import build_document
from platperf.store import Store

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
META = {"type": "meta", "schema": 1, "probe_version": "0.1.0", "build_id": "0", "arch": "aarch64",
        "compiler": "gcc 12.2.0", "cflags": "-O2", "counter": {"name": "cntvct", "freq_hz": 62500000},
        "start_time": "2026-01-01T00:00:00Z"}


def platperf(*args, columns: int | None = None):
    env = {**os.environ, "COLUMNS": str(columns)} if columns else None
    done = subprocess.run([sys.executable, "-m", "platperf", *map(str, args)], capture_output=True, text=True,
                          env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def hotplug_stream(path: Path, cpus, offline_us) -> Path:
    """What `probe run cpu-hotplug` writes: offline and online latency per CPU."""
    lines = [META]
    for cpu in cpus:
        for metric, value in (("offline", offline_us(cpu)), ("online", 2 * offline_us(cpu))):
            lines.append({"type": "result", "benchmark": "cpu-hotplug", "params": {}, "cpu": cpu,
                          "mode": "serial", "metric": metric, "unit": "us", "direction": "lower",
                          "samples": [value, value * 1.01, value * 0.99]})
        lines.append({"type": "result", "benchmark": "op-latency", "params": {"op": "add"}, "cpu": cpu,
                      "mode": "serial", "metric": "latency", "unit": "ns", "direction": "lower",
                      "samples": [float(cpu + 1)]})
    lines.append({"type": "end", "status": "complete"})
    path.write_text("".join(json.dumps(rec) + "\n" for rec in lines))
    return path


@pytest.fixture
def db(tmp_path):
    """v1 and v2 of the two-package board: v2 is 50% slower on CPU 4 only."""
    db = tmp_path / "runs.db"
    for label, slow in (("v1", 1.0), ("v2", 1.5)):
        stream = hotplug_stream(tmp_path / f"{label}.jsonl", range(8),
                                lambda cpu, slow=slow: (100.0 + cpu) * (slow if cpu == 4 else 1.0))
        platperf("ingest", "probe-jsonl", stream, "--root", SYSFS / "qemu-virt-2pkg", "--label", label,
                 "--db", db)
    return db


def test_each_cpu_is_stored_at_its_own_package_cluster_and_core(db):
    results = Store(str(db)).results(1)
    places = {r.cpu: (r.package, r.cluster, r.core) for r in results}
    assert places[4] == (1, 0, 0) and places[1] == (0, 0, 1)
    assert len(set(places.values())) == 8
    assert key_text(next(r.key for r in results if r.cpu == 4)) == \
        "cpu-hotplug serial package 1 cluster 0 core 0 offline"


def test_compare_pairs_cpu_4_with_cpu_4(db):
    cmp = compare.compare_refs(Store(str(db)), "v1", "v2")
    changed = [r for r in cmp.rows if r.delta_pct and abs(r.delta_pct) > 1]
    assert [(r.key[3:6], r.metric, round(r.delta_pct)) for r in changed] == [
        ((1, 0, 0), "offline", 50), ((1, 0, 0), "online", 50)]
    assert len(cmp.rows) == 24 and all(r.status == "both" for r in cmp.rows)
    table = platperf("compare", "v1", "v2", "--db", db)
    # the key's benchmark, mode, metric and unit fold into a heading line at 80 columns; the
    # place of the CPU stays in the table, package first (report/terminal.py)
    header = next(line for line in table.splitlines() if "Cluster" in line)
    assert header.split()[:3] == ["Package", "Cluster", "Core"]
    assert [line.split()[:3] for line in table.splitlines() if "+50.00%" in line] == [["1", "0", "0"]] * 2


def test_the_tf_a_table_has_a_package_column(db):
    doc = build_document(load(Store(str(db)), ["v1"]))
    [table] = [t for s in doc.sections for t in s.tables if t.title.startswith("CPU hotplug latencies")]
    assert table.headers == ["Package", "Cluster", "Core", "Offline", "Online"]
    assert [row[:3] for row in table.rows] == [[str(p), str(cl), str(co)] for p in (0, 1) for cl in (0, 1)
                                               for co in (0, 1)]
    assert table.rows[4][3] == "104.00"        # CPU 4
    [per_core] = [t for s in doc.sections for t in s.tables if t.title.startswith("op-latency per core")]
    assert per_core.headers[:3] == ["Package", "Cluster", "Core"]
    assert [row[:3] for row in per_core.rows][4] == [1, 0, 0] and per_core.rows[4][3] == "5.00"
    text = platperf("report", "v1", "--db", db, "--format", "rst-grid")
    assert "| Package | Cluster | Core | Offline | Online |" in text


def test_a_package_table_reads_back_with_ingest_tfa_rst(db, tmp_path):
    page = tmp_path / "page.rst"
    page.write_text(platperf("report", "v1", "--db", db, "--format", "rst-grid"))
    platperf("ingest", "tfa-rst", page, "--db", tmp_path / "back.db")
    back = {(r.package, r.cluster, r.core, r.metric): r.samples for r in Store(str(tmp_path / "back.db")).results(1)}
    assert back[(1, 0, 0, "offline")] == [104.0] and back[(0, 0, 1, "online")] == [202.0]


def test_show_and_the_exports_name_the_package(db):
    shown = platperf("show", "v1", "--db", db, columns=300)     # wide: the whole header on one line
    assert "package" in next(line for line in shown.splitlines() if "benchmark" in line)
    rows = json.loads(platperf("show", "v1", "--db", db, "--json"))["results"]
    assert {(r["cpu"], r["package"], r["cluster"], r["core"]) for r in rows if r["cpu"] in (1, 4)} == {
        (1, 0, 0, 1), (4, 1, 0, 0)}
    csv = platperf("report", "v1", "--db", db, "--format", "csv")
    assert '"cpu","package","cluster","core"' in csv.splitlines()[0]
    env = platperf("report", "v1", "--db", db, "--format", "md")
    assert "package 0 cluster 1: CPUs 2-3 Cortex-A57; package 1 cluster 0: CPUs 4-5" in env


def test_a_one_package_board_keeps_tf_a_columns(tmp_path):
    stream = hotplug_stream(tmp_path / "juno.jsonl", range(6), lambda cpu: 100.0 + cpu)
    db = tmp_path / "juno.db"
    platperf("ingest", "probe-jsonl", stream, "--root", SYSFS / "juno", "--label", "v1", "--db", db)
    doc = build_document(load(Store(str(db)), ["v1"]))
    [table] = [t for s in doc.sections for t in s.tables if t.title.startswith("CPU hotplug latencies")]
    assert table.headers == ["Cluster", "Core", "Offline", "Online"]
    assert [row[:2] for row in table.rows] == [["0", "0"], ["0", "1"], ["1", "0"], ["1", "1"], ["1", "2"],
                                               ["1", "3"]]
    shown = platperf("show", "v1", "--db", db, columns=300).lower()
    assert "package" not in shown.split("benchmark", 1)[1].split("\n")[0]
