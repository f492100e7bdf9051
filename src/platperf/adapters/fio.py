"""``fio``: the guide's storage tables (EMMC/MMC/SD, per filesystem): write and read
throughput and CPU load per buffer size, in a directory the user names (``dir``, or
``platperf run --guide-dir DIR``).

One fio job per (rw, bs), one file of ``size`` bytes in ``dir``; its JSON output
(``--output-format=json``) gives the bytes per second and the job's CPU use (``usr_cpu`` +
``sys_cpu``, % of one CPU, as the guide's "CPU Load"). ``runs`` repeats each job (the guide's
``avg (min, max)``). ``medium`` (emmc, mmc, sd, usb, ...) names the device in the table title;
``fs`` is read from the board's /proc/mounts unless given. ``table = "fio"`` keys the results
with their file size, as the guide's "EMMC EXT4 FIO 1G" tables; ``table = "plain"`` without it,
as its "EMMC EXT4" tables.
"""
from __future__ import annotations

import json
import posixpath

from . import Missing, ToolFailed, result, run
from ..vocab.sizes import parse_size

TOOL = "fio"
BENCHMARK = "fio"
PARAMS = {"dir": None, "medium": "disk", "fs": None, "bs": ["1m", "4m", "4k", "256k"],
          "rw": ["write", "read"], "size": "1g", "table": "fio", "direct": True, "runs": 1,
          "binary": None}
RW = ("write", "read", "randwrite", "randread")
TABLES = ("fio", "plain")


def title(entry: dict) -> str:
    return f"fio {'/'.join(entry['rw'])} {','.join(map(str, entry['bs']))} in {entry['dir'] or '(no dir)'}"


def measure(target, entry: dict, path: str) -> list:
    directory = entry["dir"]
    if not directory:
        raise Missing("storage-missing", "fio: no directory to measure storage in",
                      "name one on the device to measure: platperf run --guide-dir /mnt/emmc "
                      "(or dir = \"...\" in the suite's fio entry)")
    bad = [rw for rw in entry["rw"] if rw not in RW] + ([entry["table"]] if entry["table"] not in TABLES else [])
    if bad:
        raise ToolFailed(f"fio entry: '{bad[0]}' is not one of {', '.join(RW + TABLES)}")
    size = parse_size(entry["size"])
    fs = entry["fs"] or filesystem(target, directory, entry)
    # A directory of our own (mktemp -d: new, 0700): a fixed name in a shared directory could
    # be a link someone planted, and fio runs as root on many boards.
    made = target.command(["mktemp", "-d", posixpath.join(directory, "platperf-fio.XXXXXX")], timeout=60)
    private = made.stdout.strip()
    if made.returncode != 0 or not private.startswith("/"):
        raise ToolFailed(f"fio: cannot make a private directory in {directory} with mktemp -d: "
                         f"{made.stderr.strip() or 'no path printed'}")
    where = posixpath.join(private, "platperf-fio.tmp")
    samples: dict[tuple, list] = {}
    try:
        for _ in range(int(entry["runs"])):
            for bs in entry["bs"]:
                for rw in entry["rw"]:
                    bw, cpu = job(target, entry, path, where, rw, parse_size(bs), size)
                    samples.setdefault((rw, parse_size(bs), "throughput"), []).append(bw / 1e6)
                    samples.setdefault((rw, parse_size(bs), "cpu_load"), []).append(cpu)
    finally:
        target.command(["rm", "-rf", private], timeout=60)
    out = []
    for (rw, bs, metric), values in samples.items():
        params = {"medium": entry["medium"], "fs": fs, "rw": rw, "bs": bs}
        if entry["table"] == "fio":
            params["size"] = size
        unit, direction = ("MB/s", "higher") if metric == "throughput" else ("%", "lower")
        out.append(result(BENCHMARK, params, metric, unit, direction, values, file_size=size,
                          direct=bool(entry["direct"])))
    return out


def job(target, entry, path, where, rw, bs, size) -> tuple[float, float]:
    """(bytes/s, CPU load %) of one fio job."""
    argv = [path, "--name=platperf", f"--filename={where}", f"--rw={rw}", f"--bs={bs}",
            f"--size={size}", f"--direct={1 if entry['direct'] else 0}", "--output-format=json"]
    if rw.endswith("write"):
        argv.append("--end_fsync=1")     # the time to reach the device, not the page cache
    text = run(target, argv, entry)
    try:
        doc = json.loads(text[text.index("{"):])
        one = doc["jobs"][0]
        side = one["write" if rw.endswith("write") else "read"]
        return float(side["bw_bytes"]), float(one["usr_cpu"]) + float(one["sys_cpu"])
    except (ValueError, KeyError, IndexError, TypeError):
        raise ToolFailed(f"fio printed no JSON job result for {rw} bs={bs}") from None


def filesystem(target, directory: str, entry: dict) -> str:
    """The type of the filesystem ``directory`` is on, from the board's /proc/mounts."""
    df = target.command(["df", "-P", directory], timeout=60)
    mounts = target.command(["cat", "/proc/mounts"], timeout=60)
    lines = df.stdout.strip().splitlines()
    if df.returncode != 0 or len(lines) < 2:
        raise Missing("storage-missing", f"fio: {directory} does not exist on {target.name}",
                      "name an existing directory with --guide-dir DIR")
    mountpoint = lines[-1].split()[-1]
    fs = None
    for line in mounts.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[1] == mountpoint:
            fs = fields[2]           # the last mount on a point is the one in use
    return fs or "unknown"
