#!/usr/bin/env python3
"""Import speed of the line-based formats (issue 8 part 6): not a test, a table of figures.

For every line-based format, a log of 5, 25 and 50 MB is made by repeating the format's
test fixture (a long TF-A run, an LMBench loop, STREAM run again and again, a guide with
many tables, probe invocations appended), then `platperf ingest FORMAT FILE --label L` runs on it in a subprocess.
Printed: seconds and peak RSS of that subprocess (getrusage RUSAGE_CHILDREN, measured in
a fresh interpreter per import so one import's peak does not hide another's), and the
ratio time(50 MB) / time(5 MB): about 10 is linear, about 100 quadratic.
Targets: a 50 MB log in <= 60 s with <= 512 MB peak RSS.

Then, for every format that names many keys (issue 39: a log of 360,000 lat_mem_rd sizes took
786 MB), a log of --many-keys distinct keys, each once (tests/ingest_samples.many_keys): its
seconds and peak RSS, against the same target.

  python bench/import_speed.py [--sizes 5,25,50] [--formats tftf-rt-instr,lmbench] [--many-keys 360000]
                               [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from ingest_samples import LINE_BASED as SOURCES, many_keys  # noqa: E402  (format -> the fixture repeated)

MANY_KEYS = ("lmbench", "tftf-rt-instr", "stream", "rst-csv-table", "tfa-rst")

TARGET_SECONDS, TARGET_RSS_MB = 60.0, 512.0
# What a format needs besides the log: instr names its intervals in a TOML and places each
# CPU on the machine the points were taken on (the fixture's: a Juno-like board's /sys).
OPTIONS = {"instr": ["--intervals", str(ROOT / "probe" / "examples" / "instr_example.toml"),
                     "--root", str(ROOT / "tests" / "fixtures" / "sysfs" / "juno")]}

# Runs one import in its own interpreter and reports that child's figures as JSON.
_MEASURE = """
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
took = time.perf_counter() - t0
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"rc": p.returncode, "seconds": took, "rss_mb": peak_kb / 1024,
                  "out": p.stdout[:2000], "err": p.stderr[-300:]}))
"""


def make_log(fmt: str, megabytes: int, path: Path) -> Path:
    block = SOURCES[fmt].read_text(encoding="utf-8")
    if not block.endswith("\n"):
        block += "\n"
    want = megabytes * 1_000_000
    with path.open("w", encoding="utf-8") as f:
        written = 0
        while written < want:
            f.write(block)
            written += len(block.encode("utf-8"))
    return path


def ingest(fmt: str, log: Path, db: Path) -> dict:
    argv = [sys.executable, "-m", "platperf", "ingest", fmt, str(log), "--label", "bench",
            "--db", str(db), *OPTIONS.get(fmt, [])]
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", _MEASURE, *argv], capture_output=True, text=True,
                          env=env, cwd=ROOT)
    figures = json.loads(proc.stdout)
    if figures["rc"] != 0:
        raise SystemExit(f"platperf ingest {fmt} {log} failed ({figures['rc']}): {figures['err']}")
    return figures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="5,25,50", help="log sizes in MB, comma-separated")
    ap.add_argument("--formats", default=",".join(SOURCES), help="formats, comma-separated")
    ap.add_argument("--keep", type=Path, help="keep logs and databases in this directory")
    ap.add_argument("--many-keys", type=int, default=360_000, help="distinct keys of the many-keys logs (0: none)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    formats = args.formats.split(",")
    for fmt in formats:
        if fmt not in SOURCES:
            raise SystemExit(f"no generator for {fmt!r}; choose from {', '.join(SOURCES)}")
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        measure(formats, sizes, args.keep)
        measure_keys([f for f in formats if f in MANY_KEYS], args.many_keys, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="platperf-import-") as work:
            measure(formats, sizes, Path(work))
            measure_keys([f for f in formats if f in MANY_KEYS], args.many_keys, Path(work))


def measure_keys(formats, keys: int, work: Path):
    """Each format's log of ``keys`` distinct keys."""
    if not keys or not formats:
        return
    print(f"\n{'format':14} {'keys':>8} {'MB':>5} {'seconds':>8} {'peak RSS MB':>12}")
    for fmt in formats:
        log = work / f"{fmt}-keys.log"
        log.write_text(many_keys(fmt, keys), encoding="utf-8")
        db = work / f"{fmt}-keys.db"
        db.unlink(missing_ok=True)
        figures = ingest(fmt, log, db)
        flag = "" if figures["seconds"] <= TARGET_SECONDS and figures["rss_mb"] <= TARGET_RSS_MB else "  OVER TARGET"
        print(f"{fmt:14} {keys:8} {log.stat().st_size / 1e6:5.1f} {figures['seconds']:8.2f} "
              f"{figures['rss_mb']:12.1f}{flag}", flush=True)
        log.unlink()


def measure(formats, sizes, work: Path):
    print(f"{'format':14} {'MB':>4} {'seconds':>8} {'peak RSS MB':>12}  {'results':>28}")
    for fmt in formats:
        took = {}
        for mb in sizes:
            log = make_log(fmt, mb, work / f"{fmt}-{mb}.log")
            db = work / f"{fmt}-{mb}.db"
            db.unlink(missing_ok=True)
            figures = ingest(fmt, log, db)
            took[mb] = figures["seconds"]
            flag = "" if figures["seconds"] <= TARGET_SECONDS and figures["rss_mb"] <= TARGET_RSS_MB \
                else "  OVER TARGET"
            said = [line for line in figures["out"].splitlines() if line.startswith("run ")]
            summary = said[-1][:60] if said else ""
            print(f"{fmt:14} {mb:4} {figures['seconds']:8.2f} {figures['rss_mb']:12.1f}  {summary}{flag}",
                  flush=True)
            log.unlink()
        if len(sizes) > 1:
            low, high = min(sizes), max(sizes)
            print(f"{fmt:14} time({high})/time({low}) = {took[high] / took[low]:.1f} "
                  f"(linear: {high / low:.0f})", flush=True)


if __name__ == "__main__":
    main()
