"""LMBench and TI-guide names for platperf results."""
from platperf import guide
from platperf.vocab.lmbench import bw_mem_size, lat_mem_rd_size
from platperf.report.svg import histogram_plot, line_plot
from platperf.vocab.sizes import size_label

import pytest


def test_lat_mem_rd_sizes_are_named_as_the_guide_does():
    # The guide's rows: sz31k (32 KiB), sz62k, sz125k, sz250k, sz500k, sz1000k (1 MiB).
    assert [lat_mem_rd_size(k << 10) for k in (32, 64, 128, 256, 512, 1024)] == \
        ["31k", "62k", "125k", "250k", "500k", "1000k"]
    assert lat_mem_rd_size(512) == "512" and lat_mem_rd_size(50) == "50"   # bytes below 1k: sz50


def test_guide_names():
    def where(benchmark, params, metric, unit, direction="lower"):
        cell = guide.to_cell(guide.make_key(benchmark, params, metric, unit, direction))
        return cell.title, cell.row
    seq = {"pattern": "seq", "size": 1 << 20, "stride": 128}
    assert where("mem-latency", seq, "latency", "ns") == ("LMBench Benchmarks", "lat_mem_rd-stride128-sz1000k (ns)")
    assert where("mem-latency", seq, "latency_cycles", "cycles") == \
        ("platperf Benchmarks (lower is better)",
         "mem-latency[pattern=seq,size=1048576,stride=128] latency_cycles (cycles)")
    assert where("mem-latency", {**seq, "pattern": "random"}, "latency", "ns")[0] == \
        "platperf Benchmarks (lower is better)"
    assert where("mem-bandwidth", {"kernel": "bcopy", "size": 16 << 20}, "bandwidth", "MB/s", "higher") == \
        ("LMBench Benchmarks", "bw_mem-bcopy-16mb (MB/s)")
    # STREAM's row has no size: placement keeps the largest array, without its size
    assert where("mem-bandwidth", {"kernel": "copy"}, "bandwidth", "MB/s", "higher") == \
        ("Stream Benchmarks", "copy (MB/s)")
    assert where("mem-bandwidth", {"kernel": "peak-read", "size": 512 << 10}, "bandwidth", "MB/s", "higher") == \
        ("platperf Benchmarks (higher is better)", "mem-bandwidth[kernel=peak-read,size=524288] bandwidth (MB/s)")
    assert where("latency-loop", {"variant": "plain"}, "latency", "ns") == \
        ("platperf Benchmarks (lower is better)", "latency-loop[variant=plain] latency (ns)")
    assert bw_mem_size(1000) == "1000b"


def test_line_plot_draws_each_series_and_marks_caches():
    svg = line_plot("lat <x>", [("seq", [(1024, 1.0), (1 << 20, 5.0), (1 << 24, 90.0)]),
                                ("random", [(1024, 1.5), (1 << 24, 150.0)])],
                    x_label="size", y_label="ns", vlines=[(32768, "L1d 32K"), (1 << 21, "L2 2M")])
    assert svg.count("<polyline") == 2 and svg.count('class="marker"') == 2
    assert "lat &lt;x&gt;" in svg and "<x>" not in svg
    assert ">1K<" in svg and ">16M<" in svg                    # log-2 axis labels
    with pytest.raises(ValueError):
        line_plot("empty", [("a", [])], x_label="x", y_label="y")


def test_histogram_plot_keeps_rare_buckets_visible():
    svg = histogram_plot("h", [(10, 11, 100000), (11, 12, 0), (500, 600, 1)], x_label="ns", log_x=True)
    heights = [float(h) for h in __import__("re").findall(r'class="bar"[^>]*height="([0-9.]+)"', svg)]
    assert len(heights) == 2 and heights[1] >= 0.5 and heights[0] > heights[1]
    assert size_label(1536) == "1.5K" and size_label(1 << 30) == "1G"


def test_cache_marks_keep_both_l2_sizes_of_a_big_little_board():
    from pathlib import Path
    from platperf.fingerprint import collect
    from platperf.report.data import data_caches
    juno = Path(__file__).parent / "fixtures" / "sysfs" / "juno"
    l2 = sorted(size for name, size in data_caches(collect(str(juno))) if name == "L2")
    assert l2 == [1 << 20, 2 << 20]


def test_environment_rows_read_like_a_guide_for_a_juno_board():
    from pathlib import Path
    from platperf.fingerprint import collect
    from platperf.report.sections.environment import ROWS
    fp = collect(str(Path(__file__).parent / "fixtures" / "sysfs" / "juno"))
    rows = {name: fn(fp, {}) for name, fn in ROWS if name in ("Topology", "CPU frequency", "Virtualization")}
    assert rows["Topology"] == "cluster 0: CPUs 0-1 Cortex-A57; cluster 1: CPUs 2-5 Cortex-A53"
    assert rows["CPU frequency"] == "CPUs 0-1: schedutil 450-1150 MHz; CPUs 2-5: schedutil 450-850 MHz"
    assert rows["Virtualization"] == "bare metal"


TI_OS_ROWS = """lat_syscall-null (us) lat_syscall-read (us) lat_syscall-write (us) lat_syscall-stat (us)
lat_syscall-fstat (us) lat_syscall-open (us) lat_sig-install (us) lat_sig-catch (us) lat_sig-prot (us)
lat_pipe (us) lat_unix (us) lat_tcp (us) lat_connect (us) lat_select (us) lat_sem (us)
lat_ctx-2-128k (us) lat_ctx-2-256k (us) lat_ctx-4-128k (us) lat_ctx-4-256k (us)
lat_proc-fork (us) lat_proc-exec (us) lat_proc-proccall (us) lat_pagefault (us) lat_mmap-1m (us)
lat_fs-0k (num_files) lat_fs-1k (num_files) lat_fs-4k (num_files) lat_fs-10k (num_files)
bw_file_rd-io-1mb (MB/s) bw_file_rd-o2c-1mb (MB/s) bw_mmap_rd-mo-1mb (MB/s) bw_mmap_rd-o2c-1mb (MB/s)
bw_pipe (MB/s) bw_unix (MB/s) lat_ops-double-add (ns) lat_ops-double-div (ns) lat_ops-double-mul (ns)
lat_ops-float-add (ns) lat_ops-float-div (ns) lat_ops-float-mul (ns) lat_ops-int-add (ns)
lat_ops-int-bit (ns) lat_ops-int-div (ns) lat_ops-int-mod (ns) lat_ops-int-mul (ns)
lat_ops-int64-add (ns) lat_ops-int64-bit (ns) lat_ops-int64-div (ns) lat_ops-int64-mod (ns)
lat_ops-int64-mul (ns)"""
TI_ALIASES = ["af_unix_sock_stream_latency (microsec)", "af_unix_socket_stream_bandwidth (MBs)",
              "pipe_bandwidth (MBs)", "pipe_latency (microsec)", "procedure_call (microsec)",
              "select_on_200_tcp_fds (microsec)", "semaphore_latency (microsec)",
              "signal_handler_latency (microsec)", "signal_handler_overhead (microsec)",
              "tcp_ip_connection_cost_to_localhost (microsec)", "tcp_latency_using_localhost (microsec)"]


def _where(benchmark, params, metric, unit):
    direction = "higher" if unit in ("MB/s", "files/s") else "lower"
    cell = guide.to_cell(guide.make_key(benchmark, params, metric, unit, direction))
    return cell.title, cell.row


def test_every_os_row_of_ti_table_is_named_from_one_pinned_key():
    from platperf.vocab.lmbench import LMBENCH_ALIASES, LMBENCH_OS_ROWS
    named = {}
    for _, benchmark, params, metric, unit in LMBENCH_OS_ROWS:
        title, row = _where(benchmark, params, metric, unit)
        assert title == "LMBench Benchmarks"
        assert row not in named, row       # one key per name
        named[row] = (benchmark, params, metric)
    ti_rows = [n.strip() + ")" for n in TI_OS_ROWS.replace("\n", " ").split(")") if n.strip()]
    assert len(ti_rows) == 50
    assert set(ti_rows) <= set(named)
    assert named["lat_select (us)"] == ("os-ipc", {"kind": "select-tcp", "fds": 200}, "latency")
    assert named["lat_fs-0k (num_files)"] == ("os-fs", {"size": 0}, "create")
    assert named["lat_ctx-2-128k (us)"] == ("os-ctx", {"procs": 2, "size": 131072}, "latency")
    assert sorted(LMBENCH_ALIASES) == sorted(TI_ALIASES)
    assert set(LMBENCH_ALIASES.values()) <= set(named)
    assert LMBENCH_ALIASES["signal_handler_overhead (microsec)"] == "lat_sig-catch (us)"


def test_os_rows_off_ti_table_keep_their_form_or_go_to_platperfs_table():
    assert _where("os-ctx", {"procs": 16, "size": 0}, "latency", "us") == \
        ("LMBench Benchmarks", "lat_ctx-16-0k (us)")
    assert _where("os-fs", {"size": 4096}, "delete", "files/s")[0] == "platperf Benchmarks (higher is better)"
    assert _where("cpu-ops", {"type": "int", "op": "add"}, "cycles", "cycles")[0] == \
        "platperf Benchmarks (lower is better)"
    assert _where("os-syscall", {"op": "null"}, "latency", "ns")[0] != "LMBench Benchmarks"
