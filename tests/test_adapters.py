"""The adapters: tools a board already has, run for real through the target interface (short
durations), their own output parsed into records, and their keys placed in the guide's tables."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import iperf3_peer
import pytest
from conftest import require_executable

from platperf.adapters import Missing, ToolStep, check_entries, find_tool, module, plan, run_step
from platperf.guide.keys import Key
from platperf.guide.tables import boot, cpu_scores, ethernet, openssl, storage
from platperf.ingest import FORMATS
from platperf.targets import NOT_FOUND, TIMED_OUT
from platperf.targets.local import LocalTarget

TOOLS = Path(__file__).parent / "fixtures" / "guide_tools"
FAMILIES = (boot, cpu_scores, ethernet, openssl, storage)


def key_of(res) -> Key:
    return Key(res.benchmark, tuple(sorted(res.params.items())), res.metric, res.unit, res.direction)


def cell_of(res):
    """Where the guide prints a result: its family's cell, with the key coming back."""
    key = key_of(res)
    cells = [m.to_cell(key) for m in FAMILIES if m.to_cell(key) is not None]
    assert len(cells) == 1, (key, cells)
    family = next(m for m in FAMILIES if cells[0].title in m.TITLES)
    assert family.to_key(*[cells[0].title, cells[0].row, cells[0].column]) == key
    return cells[0]


def step(**entry) -> ToolStep:
    return plan([entry])[0]


def measured(target, **entry):
    records, found = run_step(step(**entry), target)
    assert found is None, found
    return records


# -- the target runs the board's tools ---------------------------------------------------------
def gone(target, pid: str) -> bool:
    """The process ``pid`` on the target has ended (at most a zombie its new parent has not
    reaped yet)."""
    for _ in range(50):                # the kill of a board's process goes over its own session
        stat = target.command(["cat", f"/proc/{pid.strip()}/stat"]).stdout
        if not stat or stat.rsplit(")", 1)[1].split()[0] == "Z":
            return True
        time.sleep(0.1)
    return False


def test_command_gives_status_output_and_takes_stdin():
    target = LocalTarget()
    done = target.command(["sh", "-c", "read x; echo out $x; echo err >&2; exit 3"], stdin=b"42\n")
    assert (done.returncode, done.stdout, done.stderr) == (3, "out 42\n", "err\n")
    assert target.command(["platperf-no-such-tool"]).returncode == NOT_FOUND
    stopped = target.command(["sh", "-c", "sleep 30 & echo $!; wait"], timeout=0.5)
    assert stopped.returncode == TIMED_OUT and "stopped after 0.5 s" in stopped.stderr
    assert gone(target, stopped.stdout)                          # what it started is gone too
    assert target.which("sh") and target.which("platperf-no-such-tool") is None


def test_an_adapter_runs_on_a_board_over_ssh(sshd):
    require_executable("openssl", "make deps: openssl")
    from platperf.targets.ssh import SshTarget
    with SshTarget("ssh://board", ssh_options=sshd.ssh_options()) as board:
        done = board.command(["sh", "-c", "read x; echo $x; exit 5"], stdin=b"on the board\n")
        assert (done.returncode, done.stdout) == (5, "on the board\n")
        assert board.command(["platperf-no-such-tool"]).returncode == NOT_FOUND
        assert board.which("openssl") and board.which("platperf-no-such-tool") is None
        stopped = board.command(["sh", "-c", "sleep 30 & echo $!; wait"], timeout=1)
        assert stopped.returncode == TIMED_OUT
        assert gone(board, stopped.stdout)
        results = measured(board, adapter="openssl", algorithms=["sha256"], bytes=64, seconds=1)
    assert {(r.metric, r.unit) for r in results} == {("throughput", "kB/s"), ("cpu_load", "%")}
    assert all(r.samples[0] > 0 for r in results)


# -- the packaged tools, for real --------------------------------------------------------------
def test_openssl_speed_fills_the_guides_two_openssl_tables():
    require_executable("openssl", "make deps: openssl")
    results = measured(LocalTarget(), adapter="openssl", algorithms=["aes-128-cbc", "sha256"],
                       bytes=16, seconds=1, runs=2)
    cells = {(cell_of(r).title, cell_of(r).row, cell_of(r).column) for r in results}
    assert cells == {("OpenSSL Performance", "aes-128-cbc, 16", "throughput (KBytes/Sec)"),
                     ("OpenSSL Performance", "sha256, 16", "throughput (KBytes/Sec)"),
                     ("OpenSSL CPU Load", "aes-128-cbc", "CPU Load"), ("OpenSSL CPU Load", "sha256", "CPU Load")}
    for res in results:
        assert len(res.samples) == 2 and all(s > 0 for s in res.samples)   # every run kept
        assert res.cpu is None and res.direction == ("higher" if res.metric == "throughput" else "lower")
        if res.metric == "cpu_load":
            assert 0 < res.samples[0] <= 100 * os.cpu_count() + 5


def test_fio_on_tmpfs_measures_write_and_read_into_the_storage_tables(tmp_path):
    require_executable("fio", "make deps: fio")
    shm = Path("/dev/shm")
    if not shm.is_dir() or "tmpfs" not in Path("/proc/mounts").read_text():
        pytest.skip("no tmpfs at /dev/shm")
    where = Path(tempfile_dir(shm))
    victim = tmp_path / "victim"
    victim.write_text("kept")
    (where / "platperf-fio.tmp").symlink_to(victim)   # planted where fio used to write
    try:
        results = measured(LocalTarget(), adapter="fio", dir=str(where), medium="emmc",
                           bs=["4k", "1m"], size="16m", direct=False)
        # its own directory is removed, the link was never followed
        assert [p.name for p in where.iterdir()] == ["platperf-fio.tmp"]
        assert victim.read_text() == "kept"
    finally:
        shutil.rmtree(where)
    by = {(r.params["rw"], r.params["bs"], r.metric): r for r in results}
    assert sorted(by) == sorted((rw, bs, m) for rw in ("write", "read") for bs in (4096, 1048576)
                                for m in ("throughput", "cpu_load"))
    first = by[("write", 4096, "throughput")]
    assert first.params == {"medium": "emmc", "fs": "tmpfs", "rw": "write", "bs": 4096, "size": 16 * 2**20}
    assert first.unit == "MB/s" and first.samples[0] > 0
    assert cell_of(first) == storage.Cell("EMMC TMPFS FIO 16M", "4k", "Write TMPFS Throughput (Mbytes/sec)")
    assert cell_of(by[("read", 1048576, "cpu_load")]).column == "Read TMPFS CPU Load (%)"


def tempfile_dir(parent: Path) -> str:
    import tempfile
    return tempfile.mkdtemp(prefix="platperf-fio-", dir=parent)


@pytest.fixture
def iperf3_server(tmp_path):
    iperf3 = require_executable("iperf3", "make deps: iperf3")
    with iperf3_peer.iperf3_server(iperf3, tmp_path / "iperf3-server.log") as port:
        yield port


def test_iperf3_tcp_bidirectional_and_udp_on_loopback(iperf3_server):
    target = LocalTarget()
    tcp = measured(target, adapter="iperf3", peer="127.0.0.1", port=iperf3_server, duration=1)
    assert {(cell_of(r).title, cell_of(r).column) for r in tcp} == {
        ("CPSW2g TCP Bidirectional Throughput", "THROUGHPUT (Mbits/sec)"),
        ("CPSW2g TCP Bidirectional Throughput", "CPU Load % (LOCAL_CPU_UTIL)")}
    assert all(r.samples[0] > 0 and r.extra["intervals"] for r in tcp)
    paced = measured(target, adapter="iperf3", peer="127.0.0.1", port=iperf3_server, duration=1,
                     interrupt_pacing="on")
    assert {cell_of(r).title for r in paced} == {"CPSW2g TCP Bidirectional Throughput Interrupt Pacing"}
    udp = measured(target, adapter="iperf3", peer="127.0.0.1", port=iperf3_server, duration=1,
                   protocol="udp", direction="ingress", frame_sizes=[1518])
    by = {r.metric: r for r in udp}
    assert sorted(by) == ["cpu_load", "packet_loss", "packet_rate", "throughput"]
    assert by["throughput"].params == {"protocol": "udp", "direction": "ingress", "frame_size": 1518,
                                       "loss": "possible"}
    assert cell_of(by["packet_rate"]) == ethernet.Cell("CPSW2g UDP Ingress Throughput possible loss", "1518",
                                                       "Packets Per Second (kPPS)")
    assert 0 <= by["packet_loss"].samples[0] <= 100


def test_a_peer_that_does_not_answer_is_one_finding():
    require_executable("iperf3", "make deps: iperf3")
    records, found = run_step(step(adapter="iperf3", peer="127.0.0.1", port=iperf3_peer.free_port(), duration=1),
                              LocalTarget())
    assert records == [] and found["code"] == "peer-missing" and found["level"] == "info"
    assert "iperf3 -s" in found["fix"]


def test_stress_ng_and_sysbench_cpu_figures():
    require_executable("stress-ng", "make deps: stress-ng")
    require_executable("sysbench", "make deps: sysbench")
    target = LocalTarget()
    [stress] = measured(target, adapter="stress-ng", method="int64", seconds=1)
    assert (stress.benchmark, stress.params, stress.unit) == (
        "stress-ng", {"stressor": "cpu", "method": "int64", "workers": 1}, "bogo-ops/s")
    [bench] = measured(target, adapter="sysbench", max_prime=2000, seconds=1, runs=2)
    assert (bench.metric, bench.unit, len(bench.samples)) == ("events_rate", "events/s", 2)
    assert stress.samples[0] > 0 and min(bench.samples) > 0


def test_sevenzip_benchmark_ratings():
    require_executable("7z", "make deps: p7zip-full")
    results = measured(LocalTarget(), adapter="sevenzip", dictionary=18)
    assert sorted(r.metric for r in results) == ["compress_rating", "decompress_rating", "total_rating"]
    assert all(r.unit == "MIPS" and r.samples[0] > 0 for r in results)


def test_cyclictest_measures_every_cpu_with_its_histogram():
    require_executable("cyclictest", "make deps: rt-tests")
    records = measured(LocalTarget(), adapter="cyclictest", seconds=1, priority=0 if os.geteuid() else 80)
    results = [r for r in records if not isinstance(r, dict)]
    histograms = [r for r in records if isinstance(r, dict)]
    cpus = sorted({r.cpu for r in results})
    assert cpus == sorted(os.sched_getaffinity(0))
    assert {r.metric for r in results} == {"latency_min", "latency_avg", "latency_max"}
    assert len(histograms) == len(cpus) and all(h["count"] > 0 for h in histograms)


def test_boot_time_without_systemd_is_one_finding_and_boots_import():
    path = require_executable("systemd-analyze", "make deps: systemd")
    done = LocalTarget().command([path, "time"])
    records, found = run_step(step(adapter="boot_time"), LocalTarget())
    if done.returncode == 0:            # a machine booted with systemd measures its own boot
        assert found is None and {r.metric for r in records} >= {"boot_time", "kernel", "userspace"}
    else:
        assert records == [] and found["code"] == "boot-time-missing"
    # imported boots are from the media the import names (--media sd), as the adapter's are
    boots = {r.metric: r for r in FORMATS["systemd-analyze"].module.parse(
        (Path(__file__).parent / "fixtures/ingest/systemd/boots.log").read_text(), "boots.log", media="sd")}
    assert boots["boot_time"].samples == pytest.approx([16.243, 15.960, 16.420, 66.419])
    assert boots["initrd"].samples == [1.220]            # only the boot that had one
    assert cell_of(boots["boot_time"]).row == "Linux boot time from SD with default rootfs"


# -- binaries the user names -------------------------------------------------------------------
@pytest.mark.parametrize("adapter, fixture, expected", [
    ("dhrystone", "dhrystone.txt", {"": 5000000.0}),
    ("whetstone", "whetstone.txt", {"": 2000.0}),
    ("linpack", "linpack.txt", {"": 3993880.380}),
    ("nbench", "nbench.txt", {"numeric_sort": 1882.6, "bitfield": 8.9019e+08, "lu_decomposition": 4114.6}),
    ("coremark_pro", "coremark-pro-c1.txt", {"sha-test": 42.5532, "zip-test": 37.037}),
])
def test_parsers_read_the_real_programs_output(adapter, fixture, expected):
    parsed = module(adapter).parse((TOOLS / fixture).read_text())
    if adapter == "linpack":
        parsed = parsed[-1][-1]
    for name, value in expected.items():
        assert (parsed[name] if name else parsed) == pytest.approx(value)


def test_a_named_binary_runs_through_its_adapter_and_maps_to_its_guide_table(tmp_path):
    # The captured output stands for the program; the adapter's argv, stdin and parsing are real.
    program = tmp_path / "dhry"
    program.write_text(f"#!/bin/sh\nread runs\necho \"runs $runs\" >&2\ncat {TOOLS / 'dhrystone.txt'}\nexit 7\n")
    program.chmod(0o755)
    results = measured(LocalTarget(), adapter="dhrystone", binary=str(program))
    by = {r.metric: r for r in results}
    assert by["dhrystone_per_second"].samples == [5000000.0]
    assert cell_of(by["dhrystone_per_second"]) == cpu_scores.Cell(
        "Dhrystone Benchmarks", "dhrystone_per_second (DhrystoneP)", "perf")
    if "cpu_clock" in by:       # the board's clock is known: DMIPS/MHz as the guide prints it
        assert by["dhrystone_per_mhz"].samples[0] == pytest.approx(
            5000000.0 / 1757 / by["cpu_clock"].samples[0])


def eembc_certification() -> tuple[dict, dict]:
    """({single|best: {workload: median iterations/s}}, {single|best: mark}) of CoreMark-Pro's
    own certification run: the median lines of its log and the mark cert_mark.pl printed."""
    medians: dict = {}
    for line in (TOOLS / "coremark-pro-cert.log").read_text().splitlines():
        fields = line.split()
        if fields[-2:-1] == ["median"]:
            medians.setdefault(fields[-1], {})[fields[2]] = float(fields[8])
    (row,) = [line.split() for line in (TOOLS / "coremark-pro-cert.mark").read_text().splitlines()
              if line.startswith("CoreMark-PRO")]
    return medians, {"best": float(row[1]), "single": float(row[2])}


def test_the_coremark_pro_mark_is_eembcs_from_the_same_workload_figures():
    coremark_pro = module("coremark_pro")
    medians, marks = eembc_certification()
    assert set(medians) == {"single", "best"}
    for mode in medians:
        assert sorted(medians[mode]) == sorted(coremark_pro.WORKLOADS)
        assert coremark_pro.mark(medians[mode]) == pytest.approx(marks[mode], abs=0.005)   # as printed
    # TI's published rows give back TI's published marks (am62xx_sk-fs, 1 and 2 contexts)
    ti = dict(zip(sorted(coremark_pro.WORKLOADS), (41.84, 0.30, 14.68, 0.66, 1.09, 8.20, 53.18, 80.65, 20.83)))
    assert round(coremark_pro.mark(ti), 2) == 887.88
    with pytest.raises(KeyError, match="zip-test"):
        coremark_pro.mark({w: 1.0 for w in coremark_pro.WORKLOADS if w != "zip-test"})


def coremark_pro_build(tmp_path, text: str, workloads) -> Path:
    """A bin directory whose ``W.exe`` print ``text`` (the real workloads' captured stdout)
    and note their arguments."""
    for workload in workloads:
        exe = tmp_path / f"{workload}.exe"
        exe.write_text(f"#!/bin/sh\necho \"$*\" >> {tmp_path / 'argv'}\ncat {text}\n")
        exe.chmod(0o755)
    return tmp_path / "core.exe"


@pytest.mark.parametrize("contexts, runs", [(1, "coremark-pro-single-runs.txt"), (2, "coremark-pro-best-runs.txt")])
def test_coremark_pro_stores_each_workload_and_the_mark(tmp_path, contexts, runs):
    coremark_pro = module("coremark_pro")
    core = coremark_pro_build(tmp_path, TOOLS / runs, coremark_pro.WORKLOADS)
    results = measured(LocalTarget(), adapter="coremark_pro", binary=str(core), contexts=contexts,
                       iterations=1)
    by = {r.metric: r for r in results}
    rates = coremark_pro.parse((TOOLS / runs).read_text())
    assert {w: by[w].samples[0] for w in coremark_pro.WORKLOADS} == rates
    assert by["core"].params == {"contexts": contexts} and by["core"].unit == "workloads/s"
    mark = by["coremark-pro"]
    assert (mark.unit, mark.direction, mark.samples) == ("score", "higher", [pytest.approx(coremark_pro.mark(rates))])
    assert cell_of(mark) == cpu_scores.Cell("CoreMarkProTwoCore Benchmarks" if contexts == 2 else
                                            "CoreMarkPro Benchmarks", "coremark-pro ()", "perf")
    assert set((tmp_path / "argv").read_text().splitlines()) == {f"-c{contexts} -w1 -v0 -i1"}


def test_coremark_pro_without_every_workload_stores_what_it_measured_and_no_mark(tmp_path):
    coremark_pro = module("coremark_pro")
    core = coremark_pro_build(tmp_path, TOOLS / "coremark-pro-single-runs.txt", ["core", "sha-test"])
    records, found = run_step(step(adapter="coremark_pro", binary=str(core)), LocalTarget())
    assert sorted(r.metric for r in records) == ["core", "sha-test"]
    assert found["level"] == "info" and found["code"] == "tool-missing"
    assert "no CoreMark-PRO mark" in found["message"] and "zip-test" in found["message"]
    assert "cjpeg-rose7-preset.exe" not in found["message"] and "cjpeg-rose7-preset" in found["message"]
    # a suite that names fewer workloads: measured, and the mark's lack said
    records, found = run_step(step(adapter="coremark_pro", binary=str(core), workloads=["core"]), LocalTarget())
    assert [r.metric for r in records] == ["core"] and found["code"] == "mark-missing"
    assert "sha-test" in found["message"]


def test_a_binary_that_is_nowhere_is_one_finding_naming_where_to_say_it():
    records, found = run_step(step(adapter="whetstone"), LocalTarget())
    assert records == [] and found["code"] == "tool-missing"
    assert "binary =" in found["fix"] and "tools.whetstone" in found["fix"]
    target = LocalTarget()
    target.tools = {"whetstone": "/bin/true"}      # the inventory's tools table
    assert find_tool(target, module("whetstone"), {"binary": None}) == "/bin/true"
    with pytest.raises(Missing):
        find_tool(target, module("whetstone"), {"binary": "/nonexistent/whet"})


def test_suite_entries_are_checked_against_their_adapter():
    with pytest.raises(ValueError, match=r"\[\[tool\]\] entry 1: unknown adapter 'opensl'"):
        check_entries([{"adapter": "opensl"}], "suite s")
    with pytest.raises(ValueError, match=r"entry 2 \(fio\) has no parameter 'blocksize' \(valid: dir,"):
        check_entries([{"adapter": "fio"}, {"adapter": "fio", "blocksize": "4k"}], "suite s")
    with pytest.raises(ValueError, match=r"direct = 1 is not true or false, as in: direct = true"):
        check_entries([{"adapter": "fio", "direct": 1}], "suite s")
    assert plan([{"adapter": "fio", "bs": "4k"}])[0].entry["bs"] == ["4k"]   # one value is a list of one


# -- the guide's tables both ways --------------------------------------------------------------
def guide_cells(name: str = "guide-excerpt.rst"):
    """(title, row, column) of every figure of the guide's csv-tables (an excerpt of each)."""
    import csv
    import re
    text = (TOOLS / name).read_text()
    for title, header, rows in re.findall(r"\.\. csv-table:: (.*)\n\s+:header: (.*)\n\n((?:\s+\".*\n)+)", text):
        columns = [h.split(": ", 1) for h in next(csv.reader([header]))[1:]]
        for line in rows.strip().splitlines():
            cells = next(csv.reader([line.strip()]))
            row = ", ".join([cells[0]] + [c for col, c in zip(columns, cells[1:]) if len(col) == 1])
            for col, value in zip(columns, cells[1:]):
                if len(col) == 2 and value.strip():
                    yield title, row, col[1]


def test_every_guide_figure_of_these_families_has_a_key_that_comes_back():
    claimed, titles = 0, set()
    for title, row, column in guide_cells():
        family = next(m for m in FAMILIES if title in m.TITLES)
        key = family.to_key(title, row, column)
        if column == "UDP Datagram Size(bytes) (LOCAL_SEND_SIZE)":
            assert key is None          # the row's frame size less the headers, not a figure
            continue
        assert key is not None, (title, row, column)
        claimed += 1
        titles.add(title)
        cell = family.to_cell(key)
        assert (cell.title, cell.column) == (title, column)
        assert cell.row == boot.CYCLES.sub("", row)   # the boot row's count is the result's n
        assert family.to_key(cell.title, cell.row, cell.column) == key
    assert len(titles) == 17 and claimed == 136


def test_families_refuse_what_is_not_theirs():
    assert openssl.to_key("OpenSSL Performance", "aes-128-cbc, 01024", "throughput (KBytes/Sec)") is None
    assert storage.to_key("EMMC EXT4 FIO 1G", "1048576", "Write EXT4 Throughput (Mbytes/sec)") is None
    assert storage.to_key("MMC EXT4", "102400", "Write EXT4 Throughput (Mbytes/sec)") is None
    assert cpu_scores.to_key("Dhrystone Benchmarks", "dhrystone_per_second (MIPS)", "perf") is None
    assert ethernet.to_cell(Key("iperf3", (("direction", "egress"), ("frame_size", 64), ("loss", "zero"),
                                           ("protocol", "udp")), "packet_loss", "%", "lower")) is None


# -- a suite with tools, end to end ------------------------------------------------------------
def test_run_a_suite_with_tools_stores_results_and_findings(tmp_path):
    require_executable("openssl", "make deps: openssl")
    from conftest import require_probe
    require_probe()
    suite = tmp_path / "tools.toml"
    suite.write_text('name = "tools"\n'
                     '[[tool]]\nadapter = "openssl"\nalgorithms = ["sha256"]\nbytes = 16\nseconds = 1\n'
                     '[[tool]]\nadapter = "fio"\n'
                     '[[tool]]\nadapter = "iperf3"\n'
                     '[[tool]]\nadapter = "cyclictest"\nseconds = 1\n'
                     f'priority = {0 if os.geteuid() else 80}\n')
    require_executable("cyclictest", "make deps: rt-tests")
    db = tmp_path / "r.db"
    done = subprocess.run([sys.executable, "-m", "platperf", "run", "--suite", str(suite), "--db", str(db),
                           "--quiet", "--json"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "complete"
    with sqlite3.connect(db) as conn:
        benchmarks = {b for (b,) in conn.execute("select benchmark from results")}
        findings = json.loads(conn.execute("select findings from runs").fetchone()[0])
        placed = conn.execute("select count(*) from results where benchmark = 'cyclictest' "
                              "and cpu is not null and cluster is not null").fetchone()[0]
        histograms = conn.execute("select count(*) from histograms").fetchone()[0]
    assert benchmarks == {"openssl-speed", "cyclictest"}
    cpus = len(os.sched_getaffinity(0))
    assert placed == 3 * cpus and histograms == cpus     # per CPU, placed as (cluster, core)
    assert {f["code"] for f in findings if (f.get("source") or "").startswith("adapter")} == {"storage-missing", "peer-missing"}
    bad = subprocess.run([sys.executable, "-m", "platperf", "run", "--suite", str(suite.with_name("x.toml"))],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    suite.write_text('[[tool]]\nadapter = "fio"\nblocksize = "4k"\n')
    bad = subprocess.run([sys.executable, "-m", "platperf", "run", "--suite", str(suite), "--db", str(db)],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "blocksize" in bad.stderr


def test_the_inventory_names_a_boards_binaries(tmp_path, monkeypatch):
    from platperf.targets import get_target
    from platperf.targets.inventory import Entry, Inventory, InventoryError
    path = tmp_path / "targets.toml"
    monkeypatch.setenv("PLATPERF_TARGETS", str(path))
    Inventory.load().add(Entry("bench-box", "local", tools={"dhrystone": "/opt/bench/dhry"}))
    assert Inventory.load().entries["bench-box"].tools == {"dhrystone": "/opt/bench/dhry"}
    assert get_target("bench-box").tools == {"dhrystone": "/opt/bench/dhry"}
    path.write_text('[targets.x]\nurl = "local"\ntools = { dhrystone = 3 }\n')
    with pytest.raises(InventoryError, match=r"\[targets.x\] tools must be a table of paths"):
        Inventory.load()
