"""Result names as LMBench and the TI performance guide print them.

``lat_mem_rd-stride128-sz1000k``: lat_mem_rd prints sizes in MB of 2^20 bytes, and the guide
names them by that figure times 1000 — so 32 KiB is ``sz31k`` and 1 MiB is ``sz1000k``.
``bw_mem-bcopy-16mb``: bw_mem's size argument (16m = 16 MiB). STREAM: the kernel name.

The OS and CPU rows of TI's LMBench table (``lat_syscall-null (us)``, ``lat_ctx-2-128k (us)``,
``lat_fs-0k (num_files)``, ``lat_ops-int-add (ns)``, ...) are the probe's os-* and cpu-ops
results: :data:`LMBENCH_OS_ROWS` is the one table of them, :data:`LMBENCH_ALIASES` the
summary names TI prints the same figures under again (the same measurements, not second runs).
"""
from __future__ import annotations

LMBENCH_BW_KERNELS = ("rd", "wr", "rdwr", "cp", "frd", "fwr", "fcp", "bzero", "bcopy")
STREAM_KERNELS = ("copy", "scale", "add", "triad")

# lat_ctx and lat_fs points measured by the full suite; TI prints lat_ctx-2/4-128k/256k.
LAT_CTX_PROCS = (2, 4, 8, 16)
LAT_CTX_SIZES_K = (0, 16, 64, 128, 256)
LAT_FS_SIZES_K = (0, 1, 4, 10)
# lat_ops: LMBench times float and double add, mul and div only
LAT_OPS = [(t, o) for t in ("int", "int64") for o in ("add", "mul", "div", "mod", "bit")] + \
          [(t, o) for t in ("float", "double") for o in ("add", "mul", "div")]

# (TI row name without unit, benchmark, params, metric, unit)
LMBENCH_OS_ROWS: list[tuple[str, str, dict, str, str]] = [
    *[(f"lat_syscall-{op}", "os-syscall", {"op": op}, "latency", "us")
      for op in ("null", "read", "write", "stat", "fstat", "open")],
    *[(f"lat_sig-{op}", "os-signal", {"op": op}, "latency", "us") for op in ("install", "catch", "prot")],
    ("lat_pipe", "os-ipc", {"kind": "pipe"}, "latency", "us"),
    ("lat_unix", "os-ipc", {"kind": "unix"}, "latency", "us"),
    ("lat_tcp", "os-ipc", {"kind": "tcp"}, "latency", "us"),
    ("lat_connect", "os-ipc", {"kind": "connect"}, "latency", "us"),
    ("lat_select", "os-ipc", {"kind": "select-tcp", "fds": 200}, "latency", "us"),
    ("lat_sem", "os-ipc", {"kind": "sem"}, "latency", "us"),
    *[(f"lat_ctx-{p}-{k}k", "os-ctx", {"procs": p, "size": k * 1024}, "latency", "us")
      for p in LAT_CTX_PROCS for k in LAT_CTX_SIZES_K],
    *[(f"lat_proc-{op}", "os-proc", {"op": op}, "latency", "us") for op in ("fork", "exec", "shell", "proccall")],
    ("lat_pagefault", "os-pagefault", {}, "latency", "us"),
    ("lat_mmap-1m", "os-mmap", {"size": 1048576}, "latency", "us"),
    *[(f"lat_fs-{k}k", "os-fs", {"size": k * 1024}, metric, "files/s")
      for k in LAT_FS_SIZES_K for metric in ("create", "delete")],
    ("bw_file_rd-io-1mb", "os-file-read", {"method": "read", "scope": "io", "size": 1048576}, "bandwidth", "MB/s"),
    ("bw_file_rd-o2c-1mb", "os-file-read", {"method": "read", "scope": "o2c", "size": 1048576}, "bandwidth", "MB/s"),
    ("bw_mmap_rd-mo-1mb", "os-file-read", {"method": "mmap", "scope": "io", "size": 1048576}, "bandwidth", "MB/s"),
    ("bw_mmap_rd-o2c-1mb", "os-file-read", {"method": "mmap", "scope": "o2c", "size": 1048576}, "bandwidth", "MB/s"),
    ("bw_pipe", "os-ipc-bw", {"kind": "pipe"}, "bandwidth", "MB/s"),
    ("bw_unix", "os-ipc-bw", {"kind": "unix"}, "bandwidth", "MB/s"),
    *[(f"lat_ops-{t}-{o}", "cpu-ops", {"type": t, "op": o}, "latency", "ns") for t, o in LAT_OPS],
]

# alias (with unit) -> TI row (with unit)
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


def lat_mem_rd_size(nbytes: int) -> str:
    k = nbytes / (1 << 20) * 1000
    return f"{int(k)}k" if k >= 1 else f"{k:.2f}k"


def bw_mem_size(nbytes: int) -> str:
    if nbytes >= 1 << 20 and nbytes % (1 << 20) == 0:
        return f"{nbytes >> 20}mb"
    if nbytes % 1024 == 0:
        return f"{nbytes >> 10}kb"
    return f"{nbytes}b"


def _key(benchmark: str, params: dict, metric: str) -> tuple:
    return benchmark, tuple(sorted(params.items())), metric


_OS_ROW_BY_KEY = {_key(b, p, m): (name, unit) for name, b, p, m, unit in LMBENCH_OS_ROWS}


def os_row_name(benchmark: str, params: dict, metric: str, unit: str) -> str | None:
    """TI's name with TI's unit for an OS/CPU row (``lat_fs-0k (num_files)``), or None.

    lat_fs: TI prints the creates per second as ``(num_files)``; the deletes are a platperf
    row (``lat_fs-0k-delete (files/s)``). lat_ctx points beyond TI's grid keep the same form.
    """
    row = _OS_ROW_BY_KEY.get(_key(benchmark, params, metric))
    if row is None and benchmark == "os-ctx" and metric == "latency" and {"procs", "size"} <= params.keys():
        row = (f"lat_ctx-{params['procs']}-{int(params['size']) // 1024}k", "us")
    if row is None or row[1] != unit:
        return None
    if benchmark == "os-fs":
        return f"{row[0]} (num_files)" if metric == "create" else None
    return f"{row[0]} ({unit})"


def guide_name(benchmark: str, params: dict, metric: str, unit: str) -> tuple[str, str] | None:
    """(table, name with unit) for the guide tables; None for a result the guide omits.

    Tables: ``LMBench`` (names LMBench prints), ``Stream``, and ``platperf`` for figures of
    ours with no LMBench or STREAM equivalent (random chase, cycles, peak kernels, others).
    """
    size = params.get("size")
    if benchmark == "mem-latency" and isinstance(size, (int, float)):
        stride = params.get("stride", "")
        pattern = params.get("pattern", "seq")
        name = f"lat_mem_rd-stride{stride}-sz{lat_mem_rd_size(int(size))}"
        if pattern == "seq" and metric == "latency":
            return "LMBench", f"{name} ({unit})"
        prefix = "" if pattern == "seq" else f"{pattern}-"
        return "platperf", f"{prefix}{name} ({unit})"
    if benchmark == "mem-bandwidth" and isinstance(size, (int, float)):
        kernel = params.get("kernel", "")
        if kernel in LMBENCH_BW_KERNELS:
            return "LMBench", f"bw_mem-{kernel}-{bw_mem_size(int(size))} ({unit})"
        if kernel in STREAM_KERNELS:
            return "Stream", f"{kernel} ({unit})"
        return "platperf", f"{kernel}-{bw_mem_size(int(size))} ({unit})"
    if benchmark in ("mem-latency", "mem-bandwidth"):
        return None
    os_name = os_row_name(benchmark, params, metric, unit)
    if os_name is not None:
        return "LMBench", os_name
    if benchmark == "os-fs" and "size" in params:
        return "platperf", f"lat_fs-{int(params['size']) // 1024}k-{metric} ({unit})"
    extra = ",".join(f"{k}={params[k]}" for k in sorted(params))
    return "platperf", f"{benchmark}{'-' + extra if extra else ''}-{metric} ({unit})"
