"""Result names as LMBench and the TI performance guide print them.

``lat_mem_rd-stride128-sz1000k``: lat_mem_rd prints sizes in MB of 2^20 bytes, and the guide
names them by that figure times 1000 — so 32 KiB is ``sz31k`` and 1 MiB is ``sz1000k``;
below 1k the name is bytes (``sz50``). ``bw_mem-bcopy-16mb``: bw_mem's size argument
(16m = 16 MiB). STREAM: the kernel name. The OS/CPU rows and TI's aliases of them are the
tables at the end. ``platperf.guide.tables.lmbench`` turns these names into keys and back.
"""
from __future__ import annotations

import math
import re

LMBENCH_BW_KERNELS = ("rd", "wr", "rdwr", "cp", "frd", "fwr", "fcp", "bzero", "bcopy")
STREAM_KERNELS = ("copy", "scale", "add", "triad")


def lat_mem_rd_size(nbytes: int) -> str:
    """``32768`` -> ``31k``; below 1k (1048 bytes) the guide writes bytes: ``50`` -> ``50``."""
    k = nbytes / (1 << 20) * 1000
    return f"{int(k)}k" if k >= 1 else f"{nbytes}"


def lat_mem_rd_bytes(figure: str, k: str) -> int:
    """The inverse of :func:`lat_mem_rd_size`: ``("31", "k")`` -> 32 KiB, ``("50", "")`` -> 50.

    A ``k`` name is lat_mem_rd's MB figure (2^20 bytes) times 1000, cut to an integer
    (0.03125 MB -> 31k, 1 MB -> 1000k) or, in older reports, with two decimals (0.49k): the
    size is the roundest multiple of 512 bytes (lat_mem_rd's steps) that gives that name.
    Without ``k`` the figure is bytes."""
    if not k:
        return int(float(figure))
    value = float(figure)
    slack = (0.005, 0.005) if "." in figure else (0.0, 0.999999)
    low = math.ceil((value - slack[0]) / 1000 * 1048576 / 512)
    high = math.floor((value + slack[1]) / 1000 * 1048576 / 512)
    if low > high or high <= 0:
        return round(value / 1000 * 1048576)
    return 512 * max(range(max(low, 1), high + 1), key=lambda m: (m & -m, -m))


BW_MEM_SCALE = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024**2, "mb": 1024**2}


def bw_mem_size(nbytes: int) -> str:
    if nbytes >= 1 << 20 and nbytes % (1 << 20) == 0:
        return f"{nbytes >> 20}mb"
    if nbytes % 1024 == 0:
        return f"{nbytes >> 10}kb"
    return f"{nbytes}b"


# lat_ctx points of the full suite (LMBench's grid): processes x KiB of working set each
LAT_CTX_PROCS = (2, 4, 8, 16)
LAT_CTX_SIZES_K = (0, 16, 64, 128, 256)

# The LMBench OS/CPU rows of TI's guide (pinned in the project's keys spec): TI row name
# without unit, benchmark, params, metric, unit. lat_fs: TI prints the creates per second
# (num_files); the deletes are a platperf row.
LMBENCH_OS_ROWS: list[tuple[str, str, dict, str, str]] = [
    *((f"lat_syscall-{op}", "os-syscall", {"op": op}, "latency", "us")
      for op in ("null", "read", "write", "stat", "fstat", "open")),
    *((f"lat_sig-{op}", "os-signal", {"op": op}, "latency", "us") for op in ("install", "catch", "prot")),
    ("lat_pipe", "os-ipc", {"kind": "pipe"}, "latency", "us"),
    ("lat_unix", "os-ipc", {"kind": "unix"}, "latency", "us"),
    ("lat_tcp", "os-ipc", {"kind": "tcp"}, "latency", "us"),
    ("lat_connect", "os-ipc", {"kind": "connect"}, "latency", "us"),
    ("lat_select", "os-ipc", {"kind": "select-tcp", "fds": 200}, "latency", "us"),
    ("lat_sem", "os-ipc", {"kind": "sem"}, "latency", "us"),
    # TI prints lat_ctx-2/4-128k/256k; the full suite measures LMBench's whole grid
    *((f"lat_ctx-{p}-{s}k", "os-ctx", {"procs": p, "size": s * 1024}, "latency", "us")
      for p in LAT_CTX_PROCS for s in LAT_CTX_SIZES_K),
    *((f"lat_proc-{op}", "os-proc", {"op": op}, "latency", "us")
      for op in ("fork", "exec", "shell", "proccall")),
    ("lat_pagefault", "os-pagefault", {}, "latency", "us"),
    ("lat_mmap-1m", "os-mmap", {"size": 1048576}, "latency", "us"),
    *((f"lat_fs-{s}k", "os-fs", {"size": s * 1024}, "create", "files/s") for s in (0, 1, 4, 10)),
    ("bw_file_rd-io-1mb", "os-file-read", {"method": "read", "scope": "io", "size": 1048576}, "bandwidth", "MB/s"),
    ("bw_file_rd-o2c-1mb", "os-file-read", {"method": "read", "scope": "o2c", "size": 1048576}, "bandwidth", "MB/s"),
    ("bw_mmap_rd-mo-1mb", "os-file-read", {"method": "mmap", "scope": "io", "size": 1048576}, "bandwidth", "MB/s"),
    ("bw_mmap_rd-o2c-1mb", "os-file-read", {"method": "mmap", "scope": "o2c", "size": 1048576}, "bandwidth", "MB/s"),
    ("bw_pipe", "os-ipc-bw", {"kind": "pipe"}, "bandwidth", "MB/s"),
    ("bw_unix", "os-ipc-bw", {"kind": "unix"}, "bandwidth", "MB/s"),
    *((f"lat_ops-{t}-{op}", "cpu-ops", {"type": t, "op": op}, "latency", "ns")
      for t, ops in (("double", ("add", "div", "mul")), ("float", ("add", "div", "mul")),
                     ("int", ("add", "bit", "div", "mod", "mul")),
                     ("int64", ("add", "bit", "div", "mod", "mul")))
      for op in ops),
]

# TI's summary names for the same measurements (alias with unit -> TI row with unit).
LMBENCH_ALIASES: dict[str, str] = {
    "af_unix_sock_stream_latency (microsec)": "lat_unix (us)",
    "af_unix_socket_stream_bandwidth (MBs)": "bw_unix (MB/s)",
    "pipe_bandwidth (MBs)": "bw_pipe (MB/s)",
    "pipe_latency (microsec)": "lat_pipe (us)",
    "procedure_call (microsec)": "lat_proc-proccall (us)",
    "select_on_200_tcp_fds (microsec)": "lat_select (us)",
    "semaphore_latency (microsec)": "lat_sem (us)",
    "signal_handler_latency (microsec)": "lat_sig-install (us)",
    "signal_handler_overhead (microsec)": "lat_sig-catch (us)",
    "tcp_ip_connection_cost_to_localhost (microsec)": "lat_connect (us)",
    "tcp_latency_using_localhost (microsec)": "lat_tcp (us)",
}


# What LMBench's programs print a figure as (``Simple syscall: 0.1303 microseconds``, lmbench3's
# lat_syscall.c, lat_sig.c, lat_proc.c, lat_pipe.c, lat_unix.c, lat_tcp.c, lat_connect.c,
# lat_sem.c, lat_select.c, bw_pipe.c, bw_unix.c) -> (benchmark, params): the keys its summary
# tables and TI's guide give the same measurements, so that a results file, a summary and a
# guide of two releases pair. "Select on N tcp fd's" carries its N (the summary's slct TCP is 100).
LMBENCH_PROGRAM_KEYS: dict[str, tuple[str, dict]] = {
    **{f"Simple {name}": ("os-syscall", {"op": op}) for name, op in (
        ("syscall", "null"), ("read", "read"), ("write", "write"), ("stat", "stat"), ("fstat", "fstat"),
        ("open/close", "open"))},
    "Signal handler installation": ("os-signal", {"op": "install"}),
    "Signal handler overhead": ("os-signal", {"op": "catch"}),
    "Protection fault": ("os-signal", {"op": "prot"}),
    "Process fork+exit": ("os-proc", {"op": "fork"}),
    "Process fork+execve": ("os-proc", {"op": "exec"}),
    "Process fork+/bin/sh -c": ("os-proc", {"op": "shell"}),
    "Procedure call": ("os-proc", {"op": "proccall"}),
    "Pipe latency": ("os-ipc", {"kind": "pipe"}),
    "AF_UNIX sock stream latency": ("os-ipc", {"kind": "unix"}),
    "TCP latency using localhost": ("os-ipc", {"kind": "tcp"}),
    "TCP/IP connection cost to localhost": ("os-ipc", {"kind": "connect"}),
    "Semaphore latency": ("os-ipc", {"kind": "sem"}),
    "Pipe bandwidth": ("os-ipc-bw", {"kind": "pipe"}),
    "AF_UNIX sock stream bandwidth": ("os-ipc-bw", {"kind": "unix"}),
}


def lmbench_program_key(name: str) -> tuple[str, dict] | None:
    """(benchmark, params) of a figure an LMBench program prints as ``name``, or None."""
    if name in LMBENCH_PROGRAM_KEYS:
        return LMBENCH_PROGRAM_KEYS[name]
    select = re.fullmatch(r"Select on (\d+) tcp fd's", name)
    return ("os-ipc", {"kind": "select-tcp", "fds": int(select.group(1))}) if select else None
