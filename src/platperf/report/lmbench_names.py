"""Result names as LMBench and the TI performance guide print them.

``lat_mem_rd-stride128-sz1000k``: lat_mem_rd prints sizes in MB of 2^20 bytes, and the guide
names them by that figure times 1000 — so 32 KiB is ``sz31k`` and 1 MiB is ``sz1000k``.
``bw_mem-bcopy-16mb``: bw_mem's size argument (16m = 16 MiB). STREAM: the kernel name.
"""
from __future__ import annotations

LMBENCH_BW_KERNELS = ("rd", "wr", "rdwr", "cp", "frd", "fwr", "fcp", "bzero", "bcopy")
STREAM_KERNELS = ("copy", "scale", "add", "triad")


def lat_mem_rd_size(nbytes: int) -> str:
    k = nbytes / (1 << 20) * 1000
    return f"{int(k)}k" if k >= 1 else f"{k:.2f}k"


def bw_mem_size(nbytes: int) -> str:
    if nbytes >= 1 << 20 and nbytes % (1 << 20) == 0:
        return f"{nbytes >> 20}mb"
    if nbytes % 1024 == 0:
        return f"{nbytes >> 10}kb"
    return f"{nbytes}b"


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
    extra = ",".join(f"{k}={params[k]}" for k in sorted(params))
    return "platperf", f"{benchmark}{'-' + extra if extra else ''}-{metric} ({unit})"
