"""TI's storage tables -- ``EMMC EXT4 FIO 1G``, ``EMMC EXT4``, ``MMC EXT2``, ... -- and the keys
the ``fio`` adapter stores: benchmark ``fio``, params ``bs`` (bytes), ``fs``, ``medium``, ``rw``
and, for the ``FIO <size>`` tables, ``size`` (the file's bytes); metrics ``throughput`` (MB/s,
10^6 bytes) and ``cpu_load`` (%).

A title is ``<MEDIUM> <FS>`` [``FIO <SIZE>``]; rows are buffer sizes, printed as fio writes
them in the FIO tables (``4k``, ``1m``) and in bytes in the others (``102400``); columns are
``Write EXT4 Throughput (Mbytes/sec)``, ``Read EXT4 CPU Load (%)``, ... -- except in the MMC
tables without FIO, whose columns say ``Raw`` where the others name the filesystem (as the
guide prints them). The titles are every medium x filesystem x size below, the guide's among them.
"""
from __future__ import annotations

from ...vocab.sizes import parse_size, size_text
from ..keys import Cell, Key

BENCHMARK = "fio"
MEDIA = ("emmc", "mmc", "sd", "usb", "nvme", "sata", "disk")
FILESYSTEMS = ("ext2", "ext3", "ext4", "vfat", "xfs", "btrfs", "f2fs", "tmpfs")
FIO_SIZES = ("16m", "64m", "256m", "512m", "1g", "2g", "4g")
RW = {"write": "Write", "read": "Read", "randwrite": "Random Write", "randread": "Random Read"}
METRICS = {"throughput": ("Throughput (Mbytes/sec)", "MB/s", "higher"),
           "cpu_load": ("CPU Load (%)", "%", "lower")}
SECTION = {"emmc": "EMMC Driver", "mmc": "MMCSD", "sd": "MMCSD"}


def _title(medium: str, fs: str, size: int | None) -> str:
    return f"{medium.upper()} {fs.upper()}" + (f" FIO {size_text(size).upper()}" if size else "")


def _word(medium: str, fs: str, size: int | None) -> str:
    return "Raw" if medium == "mmc" and size is None else fs.upper()


TABLES = {_title(m, f, s): (m, f, s) for m in MEDIA for f in FILESYSTEMS
          for s in (None, *map(parse_size, FIO_SIZES))}
TITLES = tuple(TABLES)
SECTIONS = {title: (SECTION.get(m, "Storage"), _title(m, f, s)) for title, (m, f, s) in TABLES.items()}
ROW_HEADER = {title: "Buffer size (bytes)" for title in TITLES}
PER_BOARD = set(TITLES)         # TI prints a storage table per board


def to_key(title: str, row: str, column: str) -> Key | None:
    spec = TABLES.get(title)
    if spec is None:
        return None
    medium, fs, size = spec
    try:
        bs = parse_size(row)
    except ValueError:
        return None
    if row != (size_text(bs) if size else str(bs)):
        return None
    for rw, verb in RW.items():
        for metric, (text, unit, direction) in METRICS.items():
            if column == f"{verb} {_word(medium, fs, size)} {text}":
                params = {"bs": bs, "fs": fs, "medium": medium, "rw": rw}
                if size:
                    params["size"] = size
                return Key(BENCHMARK, tuple(sorted(params.items())), metric, unit, direction)
    return None


def to_cell(key: Key) -> Cell | None:
    params = dict(key.params)
    if key.benchmark != BENCHMARK or key.metric not in METRICS \
            or METRICS[key.metric][1:] != (key.unit, key.direction) \
            or set(params) - {"size"} != {"bs", "fs", "medium", "rw"} or params["rw"] not in RW \
            or not isinstance(params["bs"], int) or params["bs"] <= 0:
        return None
    size = params.get("size")
    title = _title(str(params["medium"]), str(params["fs"]), size) if isinstance(size, (int, type(None))) else None
    if title not in TABLES or TABLES[title] != (params["medium"], params["fs"], size):
        return None
    bs = params["bs"]
    column = f"{RW[params['rw']]} {_word(params['medium'], params['fs'], size)} {METRICS[key.metric][0]}"
    return Cell(title, size_text(bs) if size else str(bs), column)
