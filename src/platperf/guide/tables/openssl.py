"""TI's "OpenSSL Performance" (algorithm x buffer size, KBytes/Sec) and "OpenSSL CPU Load"
tables, and the keys the ``openssl`` adapter stores: ``openssl-speed`` with params
``algorithm`` and ``size`` (bytes), metric ``throughput`` in kB/s (OpenSSL's 1000 bytes), and
``algorithm`` alone for ``cpu_load`` in %.

A Performance row is its two naming cells joined (``"aes-128-cbc, 1024"``).
"""
from __future__ import annotations

from ..keys import Cell, Key

BENCHMARK = "openssl-speed"
PERFORMANCE, LOAD = "OpenSSL Performance", "OpenSSL CPU Load"
TITLES = (PERFORMANCE, LOAD)
SECTIONS = {PERFORMANCE: ("CRYPTO Driver", "OpenSSL Performance"),
            LOAD: ("CRYPTO Driver", "OpenSSL Performance")}
SORTED = set(TITLES)
ROW_HEADER = {PERFORMANCE: ("Algorithm", "Buffer Size (in bytes)"), LOAD: "Algorithm"}
THROUGHPUT_COLUMN, LOAD_COLUMN = "throughput (KBytes/Sec)", "CPU Load"


def to_key(title: str, row: str, column: str) -> Key | None:
    if title == PERFORMANCE and column == THROUGHPUT_COLUMN:
        algorithm, _, size = row.partition(", ")
        if not algorithm or not size.isdigit() or size != str(int(size)):
            return None
        return Key(BENCHMARK, (("algorithm", algorithm), ("size", int(size))), "throughput", "kB/s", "higher")
    if title == LOAD and column == LOAD_COLUMN and row and ", " not in row:
        return Key(BENCHMARK, (("algorithm", row),), "cpu_load", "%", "lower")
    return None


def to_cell(key: Key) -> Cell | None:
    if key.benchmark != BENCHMARK:
        return None
    params = dict(key.params)
    if (key.metric, key.unit, key.direction) == ("throughput", "kB/s", "higher") \
            and sorted(params) == ["algorithm", "size"] and isinstance(params["size"], int) \
            and ", " not in str(params["algorithm"]):
        return Cell(PERFORMANCE, f"{params['algorithm']}, {params['size']}", THROUGHPUT_COLUMN)
    if (key.metric, key.unit, key.direction) == ("cpu_load", "%", "lower") and list(params) == ["algorithm"] \
            and ", " not in str(params["algorithm"]) and params["algorithm"]:
        return Cell(LOAD, str(params["algorithm"]), LOAD_COLUMN)
    return None
