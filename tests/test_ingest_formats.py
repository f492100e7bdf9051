"""The import formats besides TFTF: what each reads, what it makes of it, what it refuses."""
import json
from pathlib import Path

import pytest

from platperf.ingest import FORMATS, IngestError, Skipped, Words, pool
from platperf.records import Result
from platperf.ingest import cyclictest_json, lmbench, oslat_json, rst_csv_table, stream

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"


def by_key(results):
    return {(r.benchmark, r.params_key, r.metric, r.core): r for r in results}


def refused(module, text, line, *words):
    with pytest.raises(IngestError) as err:
        module.parse(text, "in.txt")
    assert err.value.where == f"in.txt:{line}", err.value
    for word in words:
        assert word in err.value.message, err.value.message


def test_registry_lists_the_formats():
    assert sorted(FORMATS) == ["cyclictest-json", "instr", "latency-table", "lava", "lmbench", "oslat-json",
                               "probe-jsonl", "rst-csv-table", "stream", "systemd-analyze", "tfa-rst",
                               "tftf-rt-instr"]


# -- lmbench -------------------------------------------------------------------------------
def test_lmbench_log():
    results = by_key(lmbench.parse((FIXTURES / "lmbench" / "run.log").read_text(), "run.log"))
    # lat_mem_rd: size printed in 2^20 bytes with 5 decimals, restored to bytes
    l1 = results[("mem-latency", "pattern=seq,size=512,stride=128", "latency", None)]
    assert (l1.samples, l1.unit, l1.direction) == ([2.402], "ns", "lower")
    assert results[("mem-latency", "pattern=seq,size=786432,stride=128", "latency", None)].samples == [38.22]
    assert len([k for k in results if k[0] == "mem-latency"]) == 21
    # bw_mem: "16.78" (10^6 bytes) is bw_mem 16m; MB/s stored as printed (10^6 B/s)
    bcopy = results[("mem-bandwidth", "kernel=bcopy,size=16777216", "bandwidth", None)]
    assert (bcopy.samples, bcopy.unit, bcopy.direction) == ([702.31], "MB/s", "higher")
    assert results[("mem-bandwidth", "kernel=wr,size=524288", "bandwidth", None)].samples == [569.46]
    # name: value microseconds / nanoseconds / MB/sec
    # the figures the summaries and guides name too carry their keys (Simple syscall: os-syscall null)
    assert results[("os-syscall", "op=null", "latency", None)].samples == [0.5186]
    assert results[("os-proc", "op=fork", "latency", None)].unit == "us"
    assert results[("lmbench", "test=integer add", "latency", None)].unit == "ns"
    assert results[("os-ipc-bw", "kind=pipe", "bandwidth", None)].direction == "higher"
    # bw_file_rd pairs and the lat_ctx block are not bw_mem figures
    assert not [k for k in results if k[0] == "mem-bandwidth" and "886.84" in str(results[k].samples)]
    # ... they are their own figures: bw_file_rd's read, lat_ctx's two points, lat_fs's 2 sizes x 2
    assert results[("os-file-read", "method=read,scope=io,size=524288", "bandwidth", None)].samples == [886.84]
    assert results[("os-ctx", "procs=4,size=131072", "latency", None)].samples == [8.82]
    assert results[("os-fs", "size=1024", "delete", None)].samples == [61041.0]
    assert len(results) == 21 + 3 + 5 + 1 + 2 + 4


@pytest.mark.parametrize("text, line, words", [
    ('"stride=128\n0.00049 1.2\n0.00098 fast\n', 3, ["a latency in ns"]),
    ('"stride=128\n0.00049 1.2\nnot a pair at all\n', 3, ["`size_mb latency_ns` pair"]),
    ('"stride=abc\n', 1, ['stride in bytes after "stride=']),
    ("Simple syscall: 0.1.2 microseconds\n", 1, ["a number of microseconds"]),
    ("16.78 702.31\n", 1, ["bw_mem SIZE KERNEL", "command lines"]),
    ("nothing to see\n", 1, ["no LMBench results"]),
])
def test_lmbench_refuses(text, line, words):
    refused(lmbench, text, line, *words)


# -- stream --------------------------------------------------------------------------------
def test_stream_table():
    results = by_key(stream.parse((FIXTURES / "stream" / "stream.txt").read_text(), "stream.txt"))
    # 10^7 elements x 8 bytes per array; 2 OpenMP threads measured together
    triad = results[("mem-bandwidth", "kernel=triad,size=80000000,threads=2", "bandwidth", None)]
    assert (triad.samples, triad.unit, triad.direction) == ([1384.6], "MB/s", "higher")
    assert triad.extra == {"avg_time_s": 0.174881, "min_time_s": 0.173335, "max_time_s": 0.17642,
                           "source": "stream.txt:21"}
    assert {k[1].split(",")[0] for k in results} == {"kernel=copy", "kernel=scale", "kernel=add",
                                                     "kernel=triad"}


def test_stream_runs_in_one_file_pool_and_one_thread_has_no_threads_param():
    one = (FIXTURES / "stream" / "stream.txt").read_text().replace("counted = 2", "counted = 1")
    results = pool(stream.parse(one + one, "two.txt"))
    assert len(results) == 4
    assert results[0].params == {"kernel": "copy", "size": 80000000}
    assert results[0].samples == [1455.4, 1455.4]


@pytest.mark.parametrize("text, line, words", [
    ("Function    Best Rate MB/s  Avg time     Min time     Max time\nCopy: 1 2 3 4\n", 1, ["Array size"]),
    ("Array size = 1000 (elements)\nFunction    Best Rate MB/s  Avg time     Min time     Max time\n"
     "Copy:  1455.4  0.1  0.1\n", 3, ["Name:  best_rate_MBps", "got 3 values"]),
    ("Array size = 1000 (elements)\nFunction    Best Rate MB/s  Avg time     Min time     Max time\n"
     "Copy:  fast  0.1  0.1  0.2\n", 3, ["a best rate in MB/s"]),
    ("Array size = 10.5 (elements)\n", 1, ["positive whole number"]),
    ("Failed Validation on array c[]\n", 1, ["failed validation"]),
    ("STREAM version 5.10\n", 1, ["no STREAM results"]),
])
def test_stream_refuses(text, line, words):
    refused(stream, text, line, *words)


# -- cyclictest / oslat --------------------------------------------------------------------
def test_cyclictest_json_threads_and_histograms():
    text = (FIXTURES / "rt-tests" / "cyclictest.json").read_text()
    doc = json.loads(text)
    results = by_key(cyclictest_json.parse(text, "c.json"))
    assert len(results) == 3 * len(doc["thread"])
    for tid, thread in doc["thread"].items():
        cpu = thread["cpu"]
        for field in ("min", "avg", "max"):
            res = results[("cyclictest", "", f"latency_{field}", cpu)]
            assert (res.samples, res.unit, res.direction, res.cpu, res.mode) == \
                ([float(thread[field])], "us", "lower", cpu, "parallel")
            assert res.extra["cycles"] == thread["cycles"]
    hists = cyclictest_json.histograms(text, "c.json")
    assert [h["cpu"] for h in hists] == [t["cpu"] for t in doc["thread"].values()]
    first = hists[0]
    thread = doc["thread"]["0"]
    assert first["count"] == thread["cycles"]
    assert sum(n for _, _, n in first["buckets"]) + first.get("overflow", 0) == thread["cycles"]
    assert first["buckets"][0][:2] == [float(min(map(int, thread["histogram"]))),
                                       float(min(map(int, thread["histogram"])) + 1)]


def test_cyclictest_nsecs_are_converted_to_us():
    doc = {"resolution_in_ns": 1, "thread": {"0": {"cpu": 3, "min": 1500, "avg": 2500, "max": 40000,
                                                   "cycles": 2, "histogram": {"1500": 1, "40000": 1}}}}
    (low, avg, high) = cyclictest_json.parse(json.dumps(doc), "n.json")
    assert (low.samples, avg.samples, high.samples, low.mode) == ([1.5], [2.5], [40.0], "serial")
    assert cyclictest_json.histograms(json.dumps(doc), "n.json")[0]["buckets"][0] == [1.5, 1.501, 1]


def test_oslat_json_last_bucket_reaches_the_max():
    text = (FIXTURES / "rt-tests" / "oslat.json").read_text()
    doc = json.loads(text)
    results = by_key(oslat_json.parse(text, "o.json"))
    thread = doc["thread"]["1"]
    res = results[("oslat", "", "latency_max", thread["cpu"])]
    assert res.samples == [float(thread["max"])]
    assert res.extra["freq_mhz"] == thread["freq"]
    hist = oslat_json.histograms(text, "o.json")[1]
    assert hist["buckets"][-1][1] == float(thread["max"])
    assert hist["count"] == sum(thread["histogram"].values())


@pytest.mark.parametrize("module, text, line, words", [
    (oslat_json, "{\n  \"thread\": {\n", 3, ["not JSON"]),
    (oslat_json, "[1, 2]", 1, ["non-empty \"thread\" object"]),
    (cyclictest_json, '{"thread": {"0": {"cpu": 0, "min": 1, "avg": "x", "max": 3}}}', 1, ['"avg" as a number']),
    (cyclictest_json, '{"thread":\n {"0": {"cpu": -1, "min": 1, "avg": 2, "max": 3}}}', 2, ['"cpu" as a CPU number']),
    (cyclictest_json, '{"return_code": 1, "thread": {"0": {}}}', 1, ["return_code 1"]),
])
def test_rt_tests_json_refuses(module, text, line, words):
    refused(module, text, line, *words)


def test_rt_tests_histogram_refuses_bad_buckets():
    doc = {"thread": {"0": {"cpu": 0, "min": 1, "avg": 2, "max": 3, "histogram": {"1": -4}}}}
    with pytest.raises(IngestError, match="histogram bucket '1'"):
        oslat_json.histograms(json.dumps(doc), "h.json")


# -- rst-csv-table -------------------------------------------------------------------------
def test_rst_csv_table_one_column_per_platform():
    results = rst_csv_table.parse((FIXTURES / "rst" / "guide.rst").read_text(), "guide.rst")
    columns = {}
    for res in results:
        columns.setdefault(res.extra["column"], []).append(res)
    assert sorted(columns) == ["am62xx_lp_sk-fs", "am62xx_sk-fs", "am62xxsip_sk-fs"]
    sk = by_key(columns["am62xx_sk-fs"])
    lat = sk[("mem-latency", "pattern=seq,size=1048576,stride=128", "latency", None)]
    assert (lat.samples, lat.unit, lat.direction) == ([51.88], "ns", "lower")
    assert sk[("mem-latency", "pattern=seq,size=50,stride=128", "latency", None)].samples == [2.15]
    bzero = sk[("mem-bandwidth", "kernel=bzero,size=1048576", "bandwidth", None)]
    assert (bzero.samples, bzero.extra["min"], bzero.extra["max"]) == ([1273.23], 810.64, 1735.81)
    # the LMBench OS rows and STREAM have the keys of the measurements that produce them
    syscall = sk[("os-syscall", "op=null", "latency", None)]
    assert (syscall.samples, syscall.unit, syscall.direction) == ([0.46], "us", "lower")
    copy = sk[("mem-bandwidth", "kernel=copy", "bandwidth", None)]
    assert (copy.unit, copy.direction) == ("MB/s", "higher")
    # boot time: the key systemd-analyze's adapter stores, the published min and max kept
    boot = sk[("boot-time", "media=sd", "boot_time", None)]
    assert (boot.samples, boot.extra["min"], boot.extra["max"], boot.unit, boot.direction) == \
        ([16.24], 15.96, 16.42, "s", "lower")
    assert boot.extra["section"] == ["Linux Performance Guide (excerpt)", "Boot time"]
    # an empty cell is no figure; a missing column is no figure
    assert len(columns["am62xxsip_sk-fs"]) == 7 and len(columns["am62xx_lp_sk-fs"]) == 7


def test_rst_csv_table_openssl_rows_get_the_adapters_key():
    text = ('.. csv-table:: OpenSSL Performance\n'
            '    :header: "Algorithm","Buffer Size (in bytes)","board-a: throughput (KBytes/Sec)"\n\n'
            '    "aes-128-cbc","1024","19332.10"\n')
    assert [(r.benchmark, r.params, r.samples, r.metric, r.unit) for r in rst_csv_table.parse(text, "ssl.rst")] == \
        [("openssl-speed", {"algorithm": "aes-128-cbc", "size": 1024}, [19332.1], "throughput", "kB/s")]


def test_rst_csv_table_columns_without_platform_key_the_row():
    # a table no guide family knows: named by its own title, row and column
    text = ('.. csv-table:: Cipher Lab Performance\n'
            '    :header: "Algorithm","Buffer Size (in bytes)","board-a: throughput (KBytes/Sec)"\n\n'
            '    "aes-128-cbc","1024","19332.10"\n    "aes-128-cbc","16","5000.5"\n')
    results = rst_csv_table.parse(text, "ssl.rst")
    assert [(r.params, r.samples, r.metric, r.unit) for r in results] == \
        [({"row": "aes-128-cbc, 1024"}, [19332.1], "throughput (KBytes/Sec)", "KBytes/Sec"),
         ({"row": "aes-128-cbc, 16"}, [5000.5], "throughput (KBytes/Sec)", "KBytes/Sec")]
    assert results[0].extra["row_header"] == ["Algorithm", "Buffer Size (in bytes)"]
    assert len(pool(results)) == 2


@pytest.mark.parametrize("text, line, words", [
    ('.. csv-table:: T\n    :header: "a","b: perf"\n\n    "x","fast"\n', 4, ["got 'fast'", "(min X, max Y)", "column 'b'"]),
    ('.. csv-table:: T\n    :header: "a","b: perf"\n\n    "x","1","2"\n', 4, ["at most 2 cells"]),
    ('.. csv-table:: T\n    :header: "a","b: perf"\n\n    "x","1 (min 2, max)"\n', 4, ["cell"]),
    ('.. csv-table:: T\n\n    "x","1"\n', 1, [":header:"]),
    ('.. csv-table:: T\n    :header: "a","b"\n    :file: data.csv\n', 1, ["reads its rows from data.csv", "cannot be read beside the page"]),
    ('.. csv-table:: T\n    :header: "a","b: perf"\n\n    "x,"1"\n', 4, ["not a CSV row"]),
    ("Just prose.\n", 1, ["no figures"]),
])
def test_rst_csv_table_refuses(text, line, words):
    refused(rst_csv_table, text, line, *words)


def test_rst_csv_table_lat_mem_rd_names_round_trip_with_the_report():
    # every size lat_mem_rd steps through, named as the report names it, reads back exactly
    from platperf.vocab.lmbench import lat_mem_rd_size
    sizes, size = [512, 1024, 2048, 3072, 4096], 4096
    while size < 1 << 30:
        step = 32 * 1024
        while step <= size:
            step *= 2
        size += step // 16
        sizes.append(size)
    sizes = [50, 100] + sizes        # below 1k the guide names bytes: sz50
    rows = "".join(f'    "lat_mem_rd-stride64-sz{lat_mem_rd_size(s)} (ns)","1.0"\n' for s in sizes)
    text = '.. csv-table:: LMBench Benchmarks\n    :header: "Benchmarks","board: perf"\n\n' + rows
    assert [r.params["size"] for r in rst_csv_table.parse(text, "names.rst")] == sizes


def test_lmbench_bw_mem_verbose_line():
    (res,) = lmbench.parse("$ bw_mem -v -P 2 16m rd\n16.78 702.31 690.12 time_per_iter_stddev=1.23%\n", "v.log")
    assert (res.params, res.samples) == ({"kernel": "rd", "size": 16777216}, [702.31])


def test_rst_csv_table_header_row_and_delimiter_options():
    text = (".. csv-table:: Latency\n    :header-rows: 1\n    :delim: ;\n\n"
            "    Benchmarks;board-x: perf\n    lat_syscall-null (us);0.52\n")
    (res,) = rst_csv_table.parse(text, "opts.rst")
    assert (res.extra["column"], res.benchmark, res.params, res.samples) == \
        ("board-x", "Latency", {"row": "lat_syscall-null (us)"}, [0.52])


def test_negative_durations_and_rates_are_refused():
    refused(lmbench, "Simple syscall: -0.5 microseconds\n", 1, "negative")
    refused(stream, "Array size = 1000 (elements)\nFunction    Best Rate MB/s  Avg time     Min time     Max time\n"
                    "Copy:  -1455.4  0.1  0.1  0.2\n", 3, "negative")


# -- latency-table ---------------------------------------------------------------------------
def test_latency_study_tables_as_copied():
    """The study's tables as a browser copies them: rows in the order the mitigations were
    applied, latencies in ns as the cells print them, the title keeping two tables apart; the
    table of another header is not taken, and said."""
    from platperf.ingest import latency_table
    items = list(latency_table.read((FIXTURES / "latency" / "study.txt").read_text().splitlines(), "study.txt"))
    results = [r for r in items if isinstance(r, Result)]
    assert [(r.params["table"], r.params["mitigation"], r.metric, r.samples[0], r.extra["published"])
            for r in results if r.metric == "latency_max"] == [
        ("Cluster Tuning Results", "none", "latency_max", 12500.0, "12.500us"),
        ("Cluster Tuning Results", "alpha", "latency_max", 8250.0, "8.250us"),
        ("Cluster Tuning Results", "alpha+beta", "latency_max", 3125.0, "3.125us"),
        ("Cache coloring results", "none", "latency_max", 80.0, "80ns")]
    # the table of words kept as printed, its last word the column's
    assert [(w.title, w.row_header, w.row, w.header, w.text) for w in items if isinstance(w, Words)] == [
        ("Memory Configuration Impact", ("Memory Configuration",), "DDR4 no ECC", "Observed Latency", "HIGH"),
        ("Memory Configuration Impact", ("Memory Configuration",), "LPDDR4 with ECC", "Observed Latency", "LOW")]
    assert not [s for s in items if isinstance(s, Skipped)]


def test_a_latency_study_row_without_latencies_is_refused_at_its_line():
    from platperf.ingest import latency_table
    text = (FIXTURES / "latency" / "study.txt").read_text().replace("alpha 8.250us 60ns", "alpha fast 60ns")
    with pytest.raises(IngestError) as err:
        latency_table.parse(text, "study.txt")
    assert err.value.where == "study.txt:17" and "'fast' is not a latency" in err.value.message


def test_prose_pasted_under_a_copied_study_table_ends_it():
    """A copy that lost the blank line under a table: the prose line is no row, the table
    reads whole, the page's next table is read too."""
    from platperf.ingest import latency_table
    text = (FIXTURES / "latency" / "study.txt").read_text()
    whole = latency_table.parse(text, "study.txt")
    pasted = latency_table.parse(text.replace("alpha + beta 3.125us 59ns\n\n", "alpha + beta 3.125us 59ns\n"),
                                 "study.txt")
    assert [(r.key, r.samples) for r in pasted] == [(r.key, r.samples) for r in whole]
    twice = latency_table.parse(text + text, "twice.txt")         # one page after another
    assert len(twice) == 2 * len(whole)


def test_rst_csv_table_reads_rows_from_the_file_beside_the_page(tmp_path):
    """A csv-table's ``:file:`` is read relative to the page, as docutils reads it; each row is
    named by the data file and its line."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "rows.csv").write_text('"lat_pipe (us)","12.5"\n"lat_unix (us)","20.25"\n')
    page = tmp_path / "guide.rst"
    page.write_text('.. csv-table:: LMBench\n    :header: "Benchmarks","am62xx_sk-fs: perf"\n'
                    '    :file: data/rows.csv\n')
    results = rst_csv_table.parse(page.read_text(), str(page))
    assert [(r.samples, r.extra["source"]) for r in results] == [
        ([12.5], f"{tmp_path / 'data' / 'rows.csv'}:1"), ([20.25], f"{tmp_path / 'data' / 'rows.csv'}:2")]
