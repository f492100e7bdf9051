"""A full disk tells the truth (docs/security.md): a run that cannot store its next result says
how many results it really kept, in one line with what to do; a report written over a good one
on a full disk leaves the good one whole. The disk is a small tmpfs the test mounts (root)."""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys

import pytest
from conftest import missing, require_probe

PLATPERF = [sys.executable, "-m", "platperf"]
SUITE = "".join(f'[[bench]]\nkernel = "mem-latency"\npattern = "{p}"\n'
                f'size = ["4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k"]\n'
                f'samples = 20\nwarmup = 0\nmin_time = 0.0005\n' for p in ("random", "seq"))


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MiB tmpfs, unmounted afterwards."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        missing("the disk-full tests mount a small tmpfs: they need root and mount(8)")
    disk = tmp_path / "disk"
    disk.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(disk)]).returncode != 0:
        missing("cannot mount a tmpfs here")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)])


def fill(disk, leave_kib: int):
    """Leave ``leave_kib`` KiB free on ``disk``."""
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize
    with open(disk / "filler", "wb") as out:
        try:
            out.write(bytes(max(0, free - leave_kib * 1024)))
        except OSError:
            pass


def stored(db, run_id) -> int:
    with sqlite3.connect(db) as con:
        return con.execute("select count(*) from results where run_id = ?", (run_id,)).fetchone()[0]


def run(cwd, *args):
    return subprocess.run([*PLATPERF, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("leave_kib", [16, 96, 160])
def test_a_run_on_a_full_disk_says_how_many_results_it_kept(small_disk, leave_kib):
    """16 KiB leave no room for SQLite's journal: the store cannot be opened. The run takes about
    45 KiB in the file but some 250-290 KiB while it writes (the journal), so with 96 or 160 KiB
    left it stops part way and says how many of its results are in."""
    require_probe()
    (small_disk / "s.toml").write_text(SUITE)
    first = run(small_disk, "run", "--suite", "s.toml", "--cpus", "0", "--db", "f.db", "--label", "a", "--quiet")
    assert first.returncode == 0, first.stderr
    fill(small_disk, leave_kib)
    done = run(small_disk, "run", "--suite", "s.toml", "--cpus", "0", "--db", "f.db", "--label", "b", "--quiet",
               "--db-retry", "1")
    (small_disk / "filler").unlink()
    # the store's going away and the giving up, said as they happen, then the one error line
    *said, line = done.stderr.strip().splitlines()
    assert done.returncode == 2 and all(s.startswith("platperf: the database ") for s in said), done.stderr
    assert "the disk is full" in line and "free space" in line and "sqlalche" not in line
    if leave_kib < 48:
        assert "run 2" not in line and stored(small_disk / "f.db", 2) == 0
        return
    assert "run 2 is failed" in line, line
    kept = int(line.split("(", 1)[1].split(" results")[0])
    assert kept == stored(small_disk / "f.db", 2) < 32     # what it says is what is there
    assert stored(small_disk / "f.db", 1) == 32             # the earlier run untouched
    # the failed status could not be written on the full disk: the next command records it
    assert run(small_disk, "runs", "--db", "f.db").returncode == 0
    with sqlite3.connect(small_disk / "f.db") as con:
        status, error = con.execute("select status, error from runs where id = 2").fetchone()
    assert status == "failed" and "the disk is full" in error and "abandoned" not in error, error


def test_a_disk_freed_while_the_run_waits_loses_nothing(small_disk):
    """The disk fills under a run, and is freed while the writer waits (--db-retry): every
    result is stored and the run completes."""
    require_probe()
    (small_disk / "s.toml").write_text(SUITE)
    assert run(small_disk, "run", "--suite", "s.toml", "--cpus", "0", "--db", "f.db", "--label", "a",
               "--quiet").returncode == 0
    fill(small_disk, 96)
    proc = subprocess.Popen([*PLATPERF, "run", "--suite", "s.toml", "--cpus", "0", "--db", "f.db", "--label", "b",
                             "--quiet", "--db-retry", "300"], cwd=small_disk, stderr=subprocess.PIPE, text=True)
    first = proc.stderr.readline()
    assert first.startswith("platperf: the database went away"), first + proc.stderr.read()
    (small_disk / "filler").unlink()
    rest = proc.stderr.read()
    assert proc.wait(timeout=600) == 0, rest
    assert "the database is back" in rest
    assert stored(small_disk / "f.db", 2) == 32


def test_a_report_over_a_good_one_on_a_full_disk_keeps_the_good_one(small_disk, tmp_path):
    require_probe()
    (tmp_path / "s.toml").write_text(SUITE)
    assert run(tmp_path, "run", "--suite", "s.toml", "--cpus", "0", "--db", "r.db", "--label", "a",
               "--quiet").returncode == 0
    out = small_disk / "report"
    done = run(tmp_path, "report", "a", "--db", "r.db", "--format", "all", "-o", str(out))
    assert done.returncode == 0, done.stderr
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    fill(small_disk, 8)                                     # less than any of the report's files
    done = run(tmp_path, "report", "a", "--db", "r.db", "--format", "all", "-o", str(out))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "No space left on device" in done.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before    # whole, and no temp files
