"""A whole ``guide`` run on this machine, read back: ``platperf run`` on the guide suite's own
steps with short settings (``--guide-dir`` on tmpfs, ``--peer`` an iperf3 server on loopback),
the report's RST, and ``platperf ingest rst-csv-table`` of it give every guide cell back under
the same key with the same value, to the precision the report prints.

The short suite is written from ``suites/guide.toml`` itself, entry by entry, changing only
the knobs in :data:`SHORT`: a step added to the guide suite is in this test at once. The
programs that are not packaged (Dhrystone, Whetstone, Linpack, NBench, CoreMark-Pro) are
found in ``$PLATPERF_GUIDE_BIN`` when it names a directory of them (built from source in /tmp,
see tests/fixtures/guide_tools/NOTE.md); without them their steps are findings, as on a board
that lacks them.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import require_executable, require_probe
from test_adapters import iperf3_server, tempfile_dir  # noqa: F401  (a fixture)
from reference_tables import rst_tables
from test_guide_keys import platperf, read_back

from platperf import guide
from platperf.compare import board_level
from platperf import toml as tomllib
from platperf.runner.suite import SUITES_DIR

GUIDE_SUITE = SUITES_DIR / "guide.toml"
# What makes each step short; everything else is the guide suite's.
SHORT_BENCH = {"samples": 2, "min_time": 0.002}
SHORT = {"openssl": {"bytes": 16},                      # one buffer size, 1 s per algorithm
         "fio": {"size": "16m", "direct": False},        # tmpfs has no O_DIRECT
         "iperf3": {"duration": 1},
         # Dhrystone and Whetstone refuse a run under about 2 s: 100 M runs take 2.8 s, 300000
         # Whetstone loops 1.7 s on a 2.4 GHz x86 (the suite's own counts are for a board's A53)
         "dhrystone": {"loops": 100000000},
         "whetstone": {"loops": 300000},
         "coremark_pro": {"iterations": 1}}
# The programs of $PLATPERF_GUIDE_BIN, by adapter.
PROGRAMS = {"dhrystone": "dhrystone", "whetstone": "whetstone", "linpack": "linpack",
            "nbench": "nbench", "coremark_pro": "core.exe"}
# The guide's tables every short run on a Linux machine fills, whatever else it lacks.
MEASURED_TITLES = {"LMBench Benchmarks", "Stream Benchmarks", "OpenSSL Performance", "OpenSSL CPU Load",
                   "EMMC TMPFS FIO 16M", "EMMC TMPFS", "CPSW2g TCP Bidirectional Throughput",
                   "CPSW2g UDP Ingress Throughput possible loss"}


def toml(value) -> str:
    """``value`` as TOML (the suite's own kinds: strings, numbers, booleans, lists, tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)                # a TOML basic string escapes as JSON does
    if isinstance(value, list):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    return "{ " + ", ".join(f"{k} = {toml(v)}" for k, v in value.items()) + " }"


def short_guide_suite(port: int, programs: Path | None) -> str:
    suite = tomllib.loads(GUIDE_SUITE.read_text())
    lines = [f"name = {toml(suite['name'])}", f"description = {toml(suite['description'])}"]
    for entry in suite["bench"]:
        lines += ["[[bench]]"] + [f"{k} = {toml(v)}" for k, v in {**entry, **SHORT_BENCH}.items()]
    for entry in suite["tool"]:
        short = {**entry, **SHORT.get(entry["adapter"], {})}
        if entry["adapter"] == "iperf3":
            short["port"] = port
        program = programs / PROGRAMS[entry["adapter"]] if programs and entry["adapter"] in PROGRAMS else None
        if program is not None and program.exists():
            short["binary"] = str(program)
        lines += ["[[tool]]"] + [f"{k} = {toml(v)}" for k, v in short.items()]
    return "\n".join(lines) + "\n"


def test_the_short_suite_is_the_guide_suite_step_for_step(tmp_path):
    short = tomllib.loads(short_guide_suite(5201, None))
    guide_suite = tomllib.loads(GUIDE_SUITE.read_text())
    assert [e["kernel"] for e in short["bench"]] == [e["kernel"] for e in guide_suite["bench"]]
    assert [e["adapter"] for e in short["tool"]] == [e["adapter"] for e in guide_suite["tool"]]
    for mine, theirs in zip(short["bench"] + short["tool"], guide_suite["bench"] + guide_suite["tool"]):
        knobs = set(SHORT_BENCH) | set(SHORT.get(theirs.get("adapter"), {})) | {"port"}
        assert {k: v for k, v in mine.items() if k not in knobs} == \
            {k: v for k, v in theirs.items() if k not in knobs}


def stored_board_figures(db: str, label: str) -> tuple[dict, list]:
    from platperf.store import Store
    store = Store(db)
    runs = store.runs_for(label)
    results = [res for run in runs for res in store.results(run["id"])]
    return board_level.board_figures(results), runs


def test_a_short_guide_run_reads_back_from_the_report_cell_for_cell(tmp_path, iperf3_server):
    require_probe()
    for tool in ("openssl", "fio", "iperf3"):
        require_executable(tool, f"make deps: {tool}")
    shm = Path("/dev/shm")
    if not shm.is_dir() or "tmpfs" not in Path("/proc/mounts").read_text():
        pytest.skip("no tmpfs at /dev/shm")
    programs = Path(os.environ["PLATPERF_GUIDE_BIN"]) if os.environ.get("PLATPERF_GUIDE_BIN") else None
    suite = tmp_path / "guide-short.toml"
    suite.write_text(short_guide_suite(iperf3_server, programs))
    db = str(tmp_path / "guide.db")
    where = tempfile_dir(shm)
    try:
        # CPU 0 only: another test may take CPU 1 offline for a while (the hotplug tests)
        r = platperf("run", "--suite", str(suite), "--cpus", "0", "--label", "local", "--db", db,
                     "--guide-dir", where, "--peer", "127.0.0.1", "--quiet", "--json")
        assert r.returncode == 0, r.stderr
        assert not os.listdir(where)                    # fio's files are removed
    finally:
        shutil.rmtree(where)
    figures, runs = stored_board_figures(db, "local")
    assert [run["status"] for run in runs] == ["complete"]

    back, expected = read_back(db, "local", figures)
    # every measured figure comes back, under its key, with its value; nothing else comes back
    assert sorted(set(expected) - set(back), key=str) == []
    assert sorted(set(back) - set(expected), key=str) == []
    assert back == expected
    titles = {guide.to_cell(key).title for _, key in back}
    assert MEASURED_TITLES <= titles, (MEASURED_TITLES - titles, titles)
    # every figure in a guide table but those the guide has no row for: the probe's cycle
    # counts beside its ns figures and lat_fs's deletions (the guide prints creations)
    fallback = set(guide.fallback.PLATPERF_TITLES.values())
    assert {key.metric for _, key in back if guide.to_cell(key).title in fallback} <= \
        {"latency_cycles", "cycles", "delete"}
    # TI's layout for what was measured, with no TI run in the report: OpenSSL in TI's
    # columns, the TCP row naming the iperf3 command that ran, the board in TI's board table
    tables = {t.title: t for t in rst_tables(platperf("report", "local", "--db", db, "--format", "rst-csv").stdout)}
    assert tables["OpenSSL Performance"].header[:3] == ["Algorithm", "Buffer Size (in bytes)",
                                                          "local: throughput (KBytes/Sec)"]
    tcp = tables["CPSW2g TCP Bidirectional Throughput"]
    assert tcp.header[0] == "Command Used"
    assert tcp.rows[0][0].startswith("iperf3 -c 127.0.0.1 ") and tcp.rows[0][0].endswith(" --bidir")
    (board,) = tables["Evaluation Modules"].rows
    # what the board does not tell (this machine's revision, its memory's rate) named once
    assert board[0] == "local" and "rev" in board[1] and "data rate" in board[1]
    assert board[1].count("not reported") <= 1
    given = {adapter for adapter, name in PROGRAMS.items() if programs and (programs / name).exists()}
    scores = {key.benchmark for _, key in back if guide.to_cell(key).title.startswith(
        ("Dhrystone", "Whetstone", "Linpack", "NBench", "CoreMarkPro"))}
    assert scores == {{"dhrystone": "dhrystone", "whetstone": "whetstone", "linpack": "linpack",
                       "nbench": "nbench", "coremark_pro": "coremark-pro"}[a] for a in given}
