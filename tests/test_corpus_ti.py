"""TI's processor-sdk-doc Linux performance guides of every device and year, as published
(tests/fixtures/corpus/ti, index.toml: repository, path, commit), read as ``platperf ingest
rst-csv-table`` stores them: every figure once, none pooled, each under its own key.

The counts are the figure cells of each file, one run a board (the page's own tables: the run
named by the file), written from the files: every non-empty cell of a value column that
prints a number, less TI's LMBench aliases (11 rows repeating another row's figure), the size
and test-number columns (parameters, not figures) and the cells of words (``n/a``, ``Full
normal boot time (~seconds)``, a sensor's name).
"""
from __future__ import annotations

import pytest

from corpus import by_key, imported
from platperf.ingest import IngestError, rst_csv_table

FIGURES = {
    "am62x-2024-08.rst": {"am62x-2024-08": 24, "am62xx_lp_sk-fs": 298, "am62xx_sk-fs": 292, "am62xxsip_sk-fs": 332},
    "am62x-2024-12.rst": {"am62x-2024-12": 24, "am62xx_lp_sk-fs": 358, "am62xx_sk-fs": 372, "am62xxsip_sk-fs": 411},
    "am62x-2026.rst": {"am62x-2026": 173, "am62xx_lp_sk-fs": 431, "am62xx_sk-fs": 436, "am62xxsip_sk-fs": 426},
    "am62px-2024.rst": {"am62px-2024": 26, "am62pxx_sk-fs": 428},
    "am62px-2026.rst": {"am62px-2026": 189, "am62pxx_sk-fs": 429},
    "am64x-2026.rst": {"am64x-2026": 147},            # 42 crypto rows x 3 and 7 CPU-usage rows x 3
    "am64x-rt-2024.rst": {"am64x-rt-2024": 6, "am64xx-hsevm": 350},
    "am64x-rt-2025.rst": {"am64x-rt-2025": 14, "am64xx-hsevm": 423},
    "am64x-rt-2026.rst": {"am64x-rt-2026": 30, "am64xx-hsevm": 367},
    "am62ax-2024.rst": {"am62ax-2024": 26, "am62axx_sk-fs": 382},
    "am62ax-2026.rst": {"am62ax-2026": 42, "am62axx_sk-fs": 468},
    "am335x-2024.rst": {"am335x-evm": 345},
    "am335x-2025.rst": {"am335x-evm": 268, "beaglebone_green_eco-gp": 208},
    "j7-2024.rst": {"am68-sk": 6, "am68_sk-fs": 283, "am69-sk": 6, "am69_sk-fs": 311, "j7200-evm": 347,
                    "j721e-idk-gw": 458, "j721s2-evm": 355, "j722s-evm": 6, "j722s_evm-fs": 380,
                    "j742s2_evm-fs": 296, "j784s4-evm": 386},
    "j7-2025.rst": {"j7200-evm": 385, "j721e-idk-gw": 526, "j721s2-evm": 439, "j722s_evm-fs": 389,
                    "j742s2_evm-fs": 453, "j784s4-evm": 507},
    "am62lx-2026.rst": {"am62lx-2026": 194, "am62lxx_evm-fs": 450},
    "am57x-2025.rst": {"am574x-idk": 19, "am57xx-evm": 457},
}


def runs(file: str) -> dict:
    return imported("ti", file, label=None)


def find(results, benchmark: str, metric: str, **params):
    hits = [r for r in results if (r.benchmark, r.metric) == (benchmark, metric) and r.params == params]
    assert len(hits) == 1, f"{len(hits)} results {benchmark} {metric} {params}"
    return hits[0]


def extra(result, name: str):
    """What the page printed beside one figure (a pooled result keeps a list a sample)."""
    (value,) = result.extra[name]
    return value


@pytest.mark.parametrize("file", sorted(FIGURES))
def test_every_figure_of_the_guide_is_read_once(file):
    read = runs(file)
    assert {run: len(results) for run, results in read.items() if results} == FIGURES[file]
    for results in read.values():
        by_key(results)                                  # no key twice in a run
        assert [r for r in results if len(r.samples) != 1] == []     # nothing pooled: n = 1


# -- 2026: cells with their unit, a size column, percentage tables --------------------------

@pytest.mark.parametrize("file, board, size_16384, ecb_16, cpu_sha256", [
    ("am62x-2026.rst", "am62x-2026", 117.17, 104.39, 94.0),
    ("am62px-2026.rst", "am62px-2026", 83.60, 104.44, 94.0),
    ("am64x-2026.rst", "am64x-2026", 134.93, 73.59, 91.0),
    ("am62lx-2026.rst", "am62lx-2026", 112.48, 93.16, None),
])
def test_a_buffer_size_is_a_parameter_of_the_crypto_keys(file, board, size_16384, ecb_16, cpu_sha256):
    results = runs(file)[board]
    title = "Crypto Accelerator Performance"
    big = find(results, title, "Accelerator (MB/s)", row="aes-128-cbc", size=16384)
    assert (big.samples, big.unit, big.direction) == ([size_16384], "MB/s", "higher")
    # "16 bytes": the unit the header names, read; the page's row kept as printed
    ecb = find(results, title, "ARM CE (MB/s)", row="aes-128-ecb", size=16)
    assert ecb.samples == [ecb_16] and extra(ecb, "row") == "aes-128-ecb, 16 bytes"
    assert extra(ecb, "row_header") == ["Algorithm", "Size (bytes)"]
    sizes = {r.params["size"] for r in results if r.benchmark == title and r.metric == "Accelerator (MB/s)"
             and r.params["row"] == "aes-128-ecb"}
    assert sizes == {16, 64, 256, 1024, 8192, 16384}        # six keys, never one of six samples
    assert not [r for r in results if "Size" in r.metric]    # the size is no figure
    if cpu_sha256 is not None:
        usage = find(results, "CPU Usage %", "Accelerator (%)", row="sha2-256")
        assert (usage.samples, usage.unit, usage.direction) == ([cpu_sha256], "%", "lower")


def test_a_cell_in_another_unit_than_its_column_is_refused():
    text = imported_text("am64x-2026.rst").replace('"aes-128-ecb", "16 bytes"', '"aes-128-ecb", "16 KB"')
    with pytest.raises(IngestError, match=r"am64x-2026.rst:33: cell '16 KB' is in 'KB', not in the 'bytes'"):
        rst_csv_table.parse(text, "am64x-2026.rst")


def imported_text(file: str) -> str:
    from corpus import entry
    return entry("ti", file).local.read_text(encoding="utf-8")


def test_units_printed_in_lower_case_since_2025_keep_the_keys_of_2024():
    new = find(runs("am62x-2026.rst")["am62xx_sk-fs"], "mem-bandwidth", "bandwidth", kernel="bcopy", size=16 << 20)
    old = find(runs("am62x-2024-12.rst")["am62xx_sk-fs"], "mem-bandwidth", "bandwidth", kernel="bcopy", size=16 << 20)
    assert (new.samples, extra(new, "min"), extra(new, "max"), old.samples) == ([839.11], 760.85, 924.59, [763.10])
    assert new.key == old.key and extra(new, "row") == "bw_mem-bcopy-16mb (mb/s)"
    j7 = runs("j7-2025.rst")
    assert find(j7["j721e-idk-gw"], "mem-bandwidth", "bandwidth", kernel="add").samples == [5280.50]
    assert find(j7["j784s4-evm"], "coremark-pro", "cjpeg-rose7-preset", contexts=8).samples == [625.0]
    beagle = find(runs("am335x-2025.rst")["beaglebone_green_eco-gp"], "dhrystone", "cpu_clock")
    assert (beagle.samples, beagle.unit, extra(beagle, "min"), extra(beagle, "max")) == ([900.0], "MHz", 800.0, 1000.0)
    four = find(runs("am62ax-2026.rst")["am62axx_sk-fs"], "coremark-pro", "cjpeg-rose7-preset", contexts=4)
    assert four.samples == [161.29]


# -- 2024: untitled power tables, the datagram size ----------------------------------------

@pytest.mark.parametrize("file, metric, deep_sleep, mcu_only", [
    ("am62x-2024-08.rst", "am62xx_sk-fs", 9.82, 107.97),     # a board's name as the power column
    ("am62x-2024-12.rst", "Power (mW)", 9.79, 110.46),
    ("am62px-2024.rst", "Power (mW)", 12.98, 203.98),
    ("am62ax-2024.rst", "Power (mW)", 16.82, 112.87),
])
def test_untitled_power_tables_are_named_by_their_caption_and_kept_apart(file, metric, deep_sleep, mcu_only):
    page = runs(file)[file.removesuffix(".rst")]
    assert find(page, "Deep sleep", metric, row="vdd_core").samples == [deep_sleep]
    assert find(page, "MCU only", metric, row="vdd_core").samples == [mcu_only]
    assert {r.benchmark for r in page} == {"Deep sleep", "MCU only"}
    assert find(page, "MCU only", "Rail voltage(V)", row="vdd_core").samples == [0.85]


def test_two_untitled_tables_under_one_heading_without_captions_are_refused():
    text = "\n".join(line for line in imported_text("am62x-2024-12.rst").splitlines()
                     if not line.startswith("Table:"))
    with pytest.raises(IngestError, match=r"'Low Power Performance': .*again, first read at x.rst:\d+"):
        rst_csv_table.parse(text, "x.rst")


def test_the_udp_datagram_size_is_no_figure_and_the_frame_size_keys_the_row():
    results = runs("am62x-2024-08.rst")["am62xx_sk-fs"]
    assert not [r for r in results if "Datagram" in r.metric or r.unit == "LOCAL_SEND_SIZE"]
    udp = find(results, "iperf3", "throughput", direction="egress", frame_size=64, loss="zero", protocol="udp")
    assert (udp.samples, udp.unit) == ([16.92], "Mbit/s")


def test_untitled_rt_tables_are_named_by_their_heading_with_their_parameters():
    cyclic = find(runs("am64x-rt-2024.rst")["am64x-rt-2024"], "Stress-ng and Cyclic Test", "CPU 1",
                  row="Maximum (usec)")
    assert (cyclic.samples, cyclic.unit, cyclic.direction) == ([105.0], "usec", "lower")
    rpmsg = runs("am64x-rt-2026.rst")["am64x-rt-2026"]
    title = "RP Message latency Performance"
    assert find(rpmsg, title, "Average round trip (usecs)", row="R5F0_0", message_size=490).samples == [154.0]
    m4f = find(rpmsg, title, "Max round trip (usecs)", row="M4F", message_size=1)
    assert (m4f.samples, m4f.direction) == ([162.0], "lower")


# -- other shapes: J7's eleven boards, words among figures ---------------------------------

def test_each_j7_board_keeps_its_own_column():
    j7 = runs("j7-2024.rst")
    ctx = {board: find(j7[board], "os-ctx", "latency", procs=2, size=128 << 10).samples[0]
           for board in ("am68_sk-fs", "am69_sk-fs", "j7200-evm", "j721e-idk-gw", "j721s2-evm", "j722s_evm-fs",
                         "j742s2_evm-fs", "j784s4-evm")}
    assert ctx == {"am68_sk-fs": 3.93, "am69_sk-fs": 3.91, "j7200-evm": 3.75, "j721e-idk-gw": 3.92,
                   "j721s2-evm": 3.86, "j722s_evm-fs": 6.41, "j742s2_evm-fs": 4.04, "j784s4-evm": 6.87}


def test_words_among_figures_are_kept_as_printed_and_are_no_figure():
    lpm = runs("am62lx-2026.rst")["am62lx-2026"]
    assert find(lpm, "LPM Resume Latency Performance", "Total Resume Latency (ms)", row="Deep Sleep").samples == [171.0]
    assert not [r for r in lpm if r.params.get("row") == "RTC Only"]      # "Full normal boot time (~seconds)"
    sensor = runs("am57x-2025.rst")["am57xx-evm"]
    fps = find(sensor, "Sensor Capture", "Fps", row="1280x800, nv12")
    assert (fps.samples, extra(fps, "min"), extra(fps, "max")) == ([30.03], 30.03, 30.04)
    assert not [r for r in sensor if r.metric == "Sensor"]
    glb = runs("am335x-2024.rst")["am335x-evm"]
    egypt = find(glb, "GLBenchmark 25 Performance", "Fps", row="GLB25_EgyptTestC24Z16FixedTime test")
    assert (egypt.samples, extra(egypt, "min"), extra(egypt, "max")) == ([4.24], 2.11, 10.32)
    assert not [r for r in glb if r.metric == "Test Number"]


def test_the_2026_guide_comes_back_from_the_report_with_the_same_keys(tmp_path):
    """import -> report -> import: the crypto table's sizes print again in their column (the
    page's "16 bytes" as the page had it) and read back to the same keys and values."""
    import subprocess
    import sys

    from corpus import entry

    def platperf(*args):
        done = subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    db = str(tmp_path / "ti.db")
    platperf("ingest", "rst-csv-table", str(entry("ti", "am62x-2026.rst").local), "--db", db)
    report = platperf("report", "am62x-2026", "am62xx_sk-fs", "--db", db, "--format", "rst-csv")
    assert '"aes-128-ecb","16 bytes","0.38","104.39","33.22"' in report
    def figures(results, board):
        return {(r.key, tuple(r.samples)) for r in results if r.extra["column"] == board}
    back = rst_csv_table.parse(report, "report.rst")
    read = runs("am62x-2026.rst")
    assert figures(back, "") == {(r.key, tuple(r.samples)) for r in read["am62x-2026"]}
    assert figures(back, "am62xx_sk-fs") == {(r.key, tuple(r.samples)) for r in read["am62xx_sk-fs"]}
