"""TI's "LMBench Benchmarks" table: lat_mem_rd, bw_mem and the OS/CPU rows, aliases included.

* ``lat_mem_rd-stride128-sz1000k (ns)`` -> ``mem-latency`` pattern ``seq``, stride 128, size
  1 MiB (names as :mod:`platperf.vocab.lmbench` prints them, ``sz50`` = 50 bytes),
  metric ``latency`` ns;
* ``bw_mem-bcopy-16mb (MB/s)`` -> ``mem-bandwidth`` kernel ``bcopy``, size 16 MiB, metric
  ``bandwidth`` MB/s (lmbench3's MB is 10^6 bytes, as ours);
* the OS/CPU rows of ``LMBENCH_OS_ROWS`` (``lat_pipe (us)`` -> ``os-ipc`` kind ``pipe``
  latency us; ``lat_fs-0k (num_files)`` -> ``os-fs`` size 0 ``create`` files/s);
* TI's summary aliases (``pipe_latency (microsec)``) are the same keys as their rows.

Units are read in any case: TI's guides since 2025 print ``bw_mem-bcopy-16mb (mb/s)`` and
``pipe_bandwidth (mb\\s)`` for the ``(MB/s)`` rows of 2024, the same keys.

Rows it does not know (``latency_for_0.50_mb_block_size``) are left to the fallback.
"""
from __future__ import annotations

import re

from ...vocab.lmbench import (LMBENCH_ALIASES, LMBENCH_BW_KERNELS, LMBENCH_OS_ROWS, bw_mem_size,
                              lat_mem_rd_bytes, lat_mem_rd_size)
from ...vocab.sizes import parse_size
from ..fallback import split_unit
from ..keys import Cell, Key

TITLE = "LMBench Benchmarks"
TITLES = (TITLE,)
SECTIONS = {TITLE: ("System Benchmarks", "LMBench")}
SORTED = {TITLE}
ROW_HEADER = {TITLE: "Benchmarks"}
COLUMN = "perf"

_LAT_MEM_RD = re.compile(r"^lat_mem_rd-stride(\d{1,9})-sz(\d{1,9}(?:\.\d{1,6})?)(k?)$")
_BW_MEM = re.compile(r"^bw_mem-(" + "|".join(LMBENCH_BW_KERNELS) + r")-(\d{1,12})(b|k|kb|m|mb)?$")
# the unit TI prints where it differs from the unit stored
_PRINTED_UNIT = {"files/s": "num_files"}
_OS_BY_NAME = {name: (bench, tuple(sorted(params.items())), metric, unit)
               for name, bench, params, metric, unit in LMBENCH_OS_ROWS}
_OS_BY_KEY = {v: name for name, v in _OS_BY_NAME.items()}
_ALIASES_ANY_CASE = {alias.lower(): row for alias, row in LMBENCH_ALIASES.items()}
_ALIASES_OF: dict[str, list[str]] = {}
for _alias, _row in LMBENCH_ALIASES.items():
    _ALIASES_OF.setdefault(_row, []).append(_alias)


def _direction(metric: str) -> str:
    return "lower" if metric == "latency" else "higher"


def to_key(title: str, row: str, column: str) -> Key | None:
    if title != TITLE or column != COLUMN:
        return None
    row = _ALIASES_ANY_CASE.get(row.lower(), row)
    name, unit = split_unit(row)
    unit = unit.lower()
    lat = _LAT_MEM_RD.match(name)
    if lat and unit == "ns":
        size = lat_mem_rd_bytes(lat.group(2), lat.group(3))
        return Key("mem-latency", (("pattern", "seq"), ("size", size), ("stride", int(lat.group(1)))),
                   "latency", "ns", "lower")
    bw = _BW_MEM.match(name)
    if bw and unit == "mb/s":
        size = parse_size(bw.group(2) + (bw.group(3) or ""))
        return Key("mem-bandwidth", (("kernel", bw.group(1)), ("size", size)), "bandwidth", "MB/s", "higher")
    known = _OS_BY_NAME.get(name)
    if known and unit == _PRINTED_UNIT.get(known[3], known[3]).lower():
        bench, params, metric, stored_unit = known
        return Key(bench, params, metric, stored_unit, _direction(metric))
    return None


def _row(key: Key) -> str | None:
    params = dict(key.params)
    size = params.get("size")
    if (key.benchmark == "mem-latency" and (key.metric, key.unit, key.direction) == ("latency", "ns", "lower")
            and set(params) == {"pattern", "size", "stride"} and params["pattern"] == "seq"
            and isinstance(size, int) and isinstance(params["stride"], int) and size > 0):
        name = lat_mem_rd_size(size)
        # a size the name cannot carry (not a 512-byte step) is printed elsewhere, exactly
        if lat_mem_rd_bytes(name.rstrip("k"), "k" if name.endswith("k") else "") != size:
            return None
        return f"lat_mem_rd-stride{params['stride']}-sz{name} (ns)"
    if (key.benchmark == "mem-bandwidth" and (key.metric, key.unit, key.direction) == ("bandwidth", "MB/s", "higher")
            and set(params) == {"kernel", "size"} and params["kernel"] in LMBENCH_BW_KERNELS
            and isinstance(size, int) and size > 0):
        return f"bw_mem-{params['kernel']}-{bw_mem_size(size)} (MB/s)"
    name = _OS_BY_KEY.get((key.benchmark, key.params, key.metric, key.unit))
    if name is not None and key.direction == _direction(key.metric):
        return f"{name} ({_PRINTED_UNIT.get(key.unit, key.unit)})"
    return None


def to_cell(key: Key) -> Cell | None:
    row = _row(key)
    return Cell(TITLE, row, COLUMN) if row else None


def also(key: Key) -> tuple[Cell, ...]:
    row = _row(key)
    return tuple(Cell(TITLE, alias, COLUMN) for alias in _ALIASES_OF.get(row, ()))
