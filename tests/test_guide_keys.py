"""One key space for published and measured figures: TI's guide imported, a quick run measured,
compare pairing them, and the report's guide section read back to the same keys and values."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import missing, require_probe
from ingest_samples import SAMPLES
from reference_tables import REFERENCE, TI
from platperf import guide
from platperf.compare import board_level
from platperf.compare.pools import Pool
from platperf.guide import fallback
from platperf.guide.keys import Cell, Key
from platperf.ingest import rst_csv_table
from platperf.records import canonical_params
from platperf.vocab.figures import number

# TI's whole guide is not ours to copy into the repository (tests/fixtures/ingest/rst/guide.rst
# is an excerpt). The reference documents: tests/reference_tables.REFERENCE.
GUIDE = REFERENCE / TI


EXCERPT = Path(__file__).parent / "fixtures" / "ingest" / "rst" / "guide.rst"


def reference_guide() -> Path:
    """TI's whole guide where it sits beside the project, else the excerpt committed here (a
    fresh CI machine may have only the repository): the same tests, on fewer tables."""
    return GUIDE if GUIDE.exists() else EXCERPT


def whole_guide():
    """Tests of figures only TI's whole guide has: without it (a checkout alone) they skip, and
    fail under CI=true, which lays the guide out beside the checkout; the same code is
    exercised on the excerpt by the other tests."""
    if not GUIDE.exists():
        missing(f"{GUIDE}: TI's whole guide is not beside this checkout "
                "(../shared/reference, or set PLATPERF_REFERENCE to its directory)")


def platperf(*args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    return subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def guide_results():
    return rst_csv_table.parse(reference_guide().read_text(), reference_guide().name)


def key_of(r) -> Key:
    return guide.make_key(r.benchmark, r.params, r.metric, r.unit, r.direction)


def by_column(results, rename=lambda column: column) -> dict:
    """{(column, key): (value, min, max)} of imported results, every key once a column."""
    out = {}
    for r in results:
        where = (rename(r.extra["column"]), key_of(r))
        assert where not in out, f"{where} twice"
        out[where] = (r.samples[0], r.extra.get("min"), r.extra.get("max"))
    return out


# -- keys ------------------------------------------------------------------------------

def test_every_cell_of_the_guide_keys_and_places_back_to_itself():
    results = guide_results()
    assert len(results) > (1400 if GUIDE.exists() else 20)
    for r in results:
        key = key_of(r)
        cell = guide.to_cell(key)
        assert guide.to_key(cell.title, cell.row, cell.column) == key
        assert r.cluster is None and r.core is None and r.cpu is None and r.mode == "serial"
    assert "guide" not in {r.benchmark for r in results}      # no catch-all benchmark


@pytest.mark.parametrize("row, benchmark, params, metric, unit, direction", [
    ("lat_mem_rd-stride128-sz50 (ns)", "mem-latency", {"pattern": "seq", "size": 50, "stride": 128},
     "latency", "ns", "lower"),
    ("lat_mem_rd-stride128-sz31k (ns)", "mem-latency", {"pattern": "seq", "size": 32768, "stride": 128},
     "latency", "ns", "lower"),
    ("bw_mem-bzero-16mb (MB/s)", "mem-bandwidth", {"kernel": "bzero", "size": 16 << 20}, "bandwidth", "MB/s",
     "higher"),
    ("lat_pipe (us)", "os-ipc", {"kind": "pipe"}, "latency", "us", "lower"),
    ("pipe_latency (microsec)", "os-ipc", {"kind": "pipe"}, "latency", "us", "lower"),
    ("lat_select (us)", "os-ipc", {"kind": "select-tcp", "fds": 200}, "latency", "us", "lower"),
    ("lat_ctx-4-256k (us)", "os-ctx", {"procs": 4, "size": 256 * 1024}, "latency", "us", "lower"),
    ("lat_fs-10k (num_files)", "os-fs", {"size": 10 * 1024}, "create", "files/s", "higher"),
    ("bw_mmap_rd-mo-1mb (MB/s)", "os-file-read", {"method": "mmap", "scope": "io", "size": 1 << 20},
     "bandwidth", "MB/s", "higher"),
    ("lat_ops-int64-mod (ns)", "cpu-ops", {"type": "int64", "op": "mod"}, "latency", "ns", "lower"),
])
def test_lmbench_rows_have_the_key_of_the_measurement(row, benchmark, params, metric, unit, direction):
    key = guide.to_key("LMBench Benchmarks", row, "perf")
    assert key == guide.make_key(benchmark, params, metric, unit, direction)


def test_sz50_round_trips_and_aliases_print_again():
    key = guide.to_key("LMBench Benchmarks", "lat_mem_rd-stride128-sz50 (ns)", "perf")
    assert guide.to_cell(key).row == "lat_mem_rd-stride128-sz50 (ns)"            # not sz0.05k
    pipe = guide.to_key("LMBench Benchmarks", "lat_pipe (us)", "perf")
    assert guide.also(pipe) == (Cell("LMBench Benchmarks", "pipe_latency (microsec)", "perf"),)


def test_stream_rows_are_mem_bandwidth_without_size():
    key = guide.to_key("Stream Benchmarks", "triad (MB/s)", "perf")
    assert key == Key("mem-bandwidth", (("kernel", "triad"),), "bandwidth", "MB/s", "higher")
    assert guide.to_cell(key) == Cell("Stream Benchmarks", "triad (MB/s)", "perf")


def test_unknown_tables_are_named_by_their_title_row_and_column():
    key = guide.to_key("Audio Capture", "11025", "CPU Load (%)")
    assert key == Key("Audio Capture", (("row", "11025"),), "CPU Load (%)", "%", "lower")
    assert guide.to_key("Glmark2 Performance", "Glmark2-DRM", "Score").direction == "higher"
    # a row LMBench's family does not know stays in its own table
    odd = guide.to_key("LMBench Benchmarks", "latency_for_0.50_mb_block_size (nanosec)", "perf")
    assert odd.benchmark == "LMBench Benchmarks" and guide.to_cell(odd).title == "LMBench Benchmarks"


@pytest.mark.parametrize("key", [
    Key("mem-latency", (("pattern", "random"), ("size", 4096), ("stride", 64)), "latency", "ns", "lower"),
    Key("mem-latency", (("pattern", "seq"), ("size", 16384), ("stride", 128)), "latency_cycles", "cycles",
        "lower"),
    Key("mem-latency", (("pattern", "seq"), ("size", 1000), ("stride", 128)), "latency", "ns", "lower"),
    Key("mem-latency", (("pattern", "seq"), ("size", 5000), ("stride", 128)), "latency", "ns", "lower"),
    Key("mem-bandwidth", (("kernel", "peak-read"), ("size", 8 << 20)), "bandwidth", "MB/s", "higher"),
    Key("mem-bandwidth", (("kernel", "copy"), ("size", 64 << 20)), "bandwidth", "MB/s", "higher"),
    Key("os-pagefault", (), "latency", "us", "lower"),
    Key("latency-loop", (("ratio", 0.5), ("variant", "2ki")), "latency", "ns", "lower"),
])
def test_measured_keys_place_and_read_back(key):
    cell = guide.to_cell(key)
    assert guide.to_key(cell.title, cell.row, cell.column) == key
    # 5000 bytes is no lat_mem_rd step: its name could not carry it, so it is printed exactly
    if dict(key.params).get("size") == 5000:
        assert cell.title in fallback.PLATPERF_TITLES.values()


def test_published_min_and_max_are_kept():
    whole_guide()
    results = guide_results()
    (bzero,) = [r for r in results if r.params == {"kernel": "bzero", "size": 1 << 20}
                and r.extra["column"] == "am62xx_lp_sk-fs"]
    assert (bzero.samples, bzero.extra["min"], bzero.extra["max"]) == ([1249.56], 731.40, 1767.72)
    assert bzero.extra["section"] == ["System Benchmarks", "LMBench"]


# -- board level -----------------------------------------------------------------------

def pool(*samples):
    return Pool("ns", "lower", [list(samples)])     # one run


def test_a_whole_board_row_meets_the_per_cpu_serial_pools():
    seq = "pattern=seq,size=262144,stride=128"
    published = {("mem-latency", seq, "serial", None, None, None, "latency"): pool(5.84)}
    measured = {("mem-latency", seq, "serial", None, 0, 0, "latency"): pool(1.0, 1.1),
                ("mem-latency", seq, "serial", None, 0, 1, "latency"): pool(2.0),
                ("mem-latency", seq, "parallel", None, 0, 0, "latency"): pool(9.0),
                ("mem-bandwidth", "kernel=copy,size=1048576", "serial", None, 0, 0, "bandwidth"): pool(1.0),
                ("mem-bandwidth", "kernel=copy,size=67108864", "serial", None, 0, 0, "bandwidth"): pool(3.0),
                ("mem-bandwidth", "kernel=copy,size=67108864", "serial", None, 0, 1, "bandwidth"): pool(4.0)}
    published[("mem-bandwidth", "kernel=copy", "serial", None, None, None, "bandwidth")] = pool(1638.0)
    base, new = board_level.pair_board_level(published, measured)
    assert base == published
    assert new[("mem-latency", seq, "serial", None, None, None, "latency")].samples == [1.0, 1.1, 2.0]
    # STREAM: the largest array; the other size stays, as do parallel pools
    assert new[("mem-bandwidth", "kernel=copy", "serial", None, None, None, "bandwidth")].samples == [3.0, 4.0]
    assert set(new) == set(published) | {("mem-latency", seq, "parallel", None, 0, 0, "latency"),
                                         ("mem-bandwidth", "kernel=copy,size=1048576", "serial", None, 0, 0,
                                          "bandwidth")}
    # two measured runs are compared per CPU, as before
    assert board_level.pair_board_level(measured, dict(measured)) == (measured, measured)


# -- the reference guide through the store, the report and back -------------------------

@pytest.fixture(scope="module")
def guide_db(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("guide") / "guide.db")
    r = platperf("ingest", "rst-csv-table", str(reference_guide()), "--label", "ti", "--db", db)
    assert r.returncode == 0, r.stderr
    return db


def test_the_whole_reference_guide_round_trips_through_the_report(guide_db, tmp_path):
    whole_guide()
    boards = ["ti:am62xx_lp_sk-fs", "ti:am62xx_sk-fs", "ti:am62xxsip_sk-fs", "ti"]
    r = platperf("report", *boards, "--db", guide_db, "--format", "rst-csv")
    assert r.returncode == 0, r.stderr
    # the guide's own columns (its power tables) print without a label, as TI prints them,
    # and read back as the document's own
    back = by_column(rst_csv_table.parse(r.stdout, "report.rst"), lambda column: column or "ti")
    published = by_column(guide_results(), lambda column: f"ti:{column}" if column else "ti")
    assert back == published
    # the guide's own titles, row names and cells
    assert ".. csv-table:: LMBench Benchmarks\n" in r.stdout and ".. csv-table:: Stream Benchmarks\n" in r.stdout
    assert '"bw_mem-bzero-1mb (MB/s)","1249.56 (min 731.40, max 1767.72)",' in r.stdout
    assert '"pipe_latency (microsec)","27.48","25.15","28.22",""' in r.stdout or \
        '"pipe_latency (microsec)","27.48","25.15","28.22"' in r.stdout
    # the guide's sections, in the guide's order
    headings = ["System Benchmarks\n-----", "LMBench\n^^^", "Stream\n^^^", "Boot-time Measurement\n-----",
                "ALSA SoC Audio Driver\n-----", "EMMC EXT4 FIO 1G\n^^^", "CRYPTO Driver\n-----",
                "Low Power Performance\n-----"]
    places = [r.stdout.find(heading) for heading in headings]
    assert -1 not in places and places == sorted(places)


def test_the_boot_row_names_its_boot_cycles_again(guide_db):
    # "(20 boot cycles)" is the result's n, not its key: kept by the importer, printed from n
    (boot,) = [r for r in guide_results() if r.benchmark == "boot-time" and r.extra["column"] == "am62xx_sk-fs"]
    assert boot.extra["n"] == 20 and boot.params == {"media": "sd"}
    r = platperf("report", "ti:am62xx_sk-fs", "--db", guide_db, "--format", "rst-csv")
    assert r.returncode == 0, r.stderr
    assert '"Linux boot time from SD with default rootfs (20 boot cycles)","16.24 (min 15.96, max 16.42)"' \
        in r.stdout
    (back,) = [r for r in rst_csv_table.parse(r.stdout, "report.rst") if r.benchmark == "boot-time"]
    assert (key_of(back), back.samples, back.extra["n"], back.extra["min"], back.extra["max"]) == \
        (key_of(boot), [16.24], 20, 15.96, 16.42)


def test_measured_boots_print_their_count_and_one_boot_none(tmp_path):
    db = str(tmp_path / "boots.db")
    log = Path(__file__).parent / "fixtures" / "ingest" / "systemd" / "boots.log"
    one = tmp_path / "one.log"
    one.write_text(log.read_text().splitlines()[0] + "\n")
    for label, path in (("four", log), ("one", one)):
        r = platperf("ingest", "systemd-analyze", str(path), "--label", label, "--media", "sd", "--db", db)
        assert r.returncode == 0, r.stderr
    r = platperf("report", "four", "one", "--db", db, "--format", "rst-csv")
    assert r.returncode == 0, r.stderr
    rows = [line.strip() for line in r.stdout.splitlines() if "Linux boot time from SD" in line]
    # TI's boot cell: avg (min, max) over the boots measured (16.24, 15.96, 16.42, 66.42);
    # one key, two rows: the boards' counts differ
    boots = [16.24, 15.96, 16.42, 66.42]
    mean = f"{sum(boots) / len(boots):.2f}"
    assert rows == [f'"Linux boot time from SD with default rootfs (4 boot cycles)",'
                    f'"{mean} (min {min(boots):.2f}, max {max(boots):.2f})",""',
                    '"Linux boot time from SD with default rootfs","","16.24"']
    back = {(r.extra["column"], key_of(r)): (r.samples[0], r.extra.get("n"))
            for r in rst_csv_table.parse(r.stdout, "report.rst") if r.metric == "boot_time"}
    key = guide.make_key("boot-time", {"media": "sd"}, "boot_time", "s", "lower")
    assert back == {("four", key): (float(mean), 4), ("one", key): (16.24, None)}


# -- a measured quick run ----------------------------------------------------------------

@pytest.fixture(scope="module")
def quick_db(guide_db):
    require_probe()
    # CPU 0 only: another test may take CPU 1 offline for a while (the hotplug tests), and a
    # CPU gone under the run fails it
    r = platperf("run", "--suite", "quick", "--cpus", "0", "--label", "local", "--db", guide_db)
    assert r.returncode == 0, r.stderr
    return guide_db


def measured_board_keys(db) -> dict:
    from platperf.store import Store
    store = Store(db)
    results = [res for run in store.runs_for("local") for res in store.results(run["id"])]
    return board_level.board_figures(results)


def test_compare_pairs_every_row_a_published_board_and_a_quick_run_both_have(quick_db):
    whole_guide()
    r = platperf("compare", "ti:am62xx_sk-fs", "local", "--db", quick_db, "--format", "json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["rows"]
    status = {(row["benchmark"], row["params"], row["metric"]): row["status"] for row in rows
              if row["mode"] == "serial" and row["cluster"] is None and row["core"] is None}
    published = {(res.benchmark, res.params_key, res.metric) for res in guide_results()
                 if res.extra["column"] == "am62xx_sk-fs"}
    measured = {(key.benchmark, canonical_params(dict(key.params)), key.metric)
                for key in measured_board_keys(quick_db)}
    both = published & measured
    assert len(both) >= 13          # 8 bw_mem, 4 STREAM, lat_mem_rd sz250k
    assert {key for key, s in status.items() if s == "both"} == both
    assert all(status[key] == "removed" for key in published - measured)


def read_back(db, label: str, figures: dict):
    """The report's RST of run ``label``, imported again, beside what its ``figures`` (key ->
    board figure) should give back: ``(back, expected)``, both {(label, key): (value, min, max)}."""
    r = platperf("report", label, "--db", db, "--format", "rst-csv")
    assert r.returncode == 0, r.stderr
    back = by_column(rst_csv_table.parse(r.stdout, "report.rst"))
    expected = {(label, key): (float(number(f.value)),
                               None if f.min is None else float(number(f.min)),
                               None if f.max is None else float(number(f.max)))
                for key, f in figures.items()}
    return back, expected


def test_a_quick_run_round_trips_through_the_report(quick_db):
    back, expected = read_back(quick_db, "local", measured_board_keys(quick_db))
    assert back == expected
    assert any(key.benchmark == "mem-latency" and dict(key.params)["pattern"] == "random" for _, key in back)


def test_a_table_of_text_is_no_figures_but_a_text_cell_among_figures_is_refused():
    text = (".. csv-table:: Environment\n    :header: \"Property\",\"local\"\n\n"
            "    \"CPU\",\"AMD EPYC, x86_64, 2 CPUs\"\n    \"Runs\",\"5 (complete)\"\n\n"
            ".. csv-table:: Stream Benchmarks\n    :header: \"Benchmarks\",\"sdk:b\\_x: perf\"\n\n"
            "    \"\\copy (MB/s)\",\"1.5\"\n")
    (res,) = rst_csv_table.parse(text, "r.rst")      # escapes read as docutils reads them
    assert (res.benchmark, res.params, res.extra["column"]) == ("mem-bandwidth", {"kernel": "copy"}, "sdk:b_x")
    with pytest.raises(rst_csv_table.IngestError, match="got 'fast'"):
        rst_csv_table.parse(text.replace('"1.5"', '"fast"'), "r.rst")


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_every_key_an_importer_stores_places_in_the_guide_and_reads_back(fmt):
    from platperf.ingest import FORMATS
    path = SAMPLES[fmt]
    results, _ = FORMATS[fmt].read_file(path)
    keys = {key_of(r) for r in results}
    assert keys
    for key in keys:
        cell = guide.to_cell(key)
        assert guide.to_key(cell.title, cell.row, cell.column) == key, cell
