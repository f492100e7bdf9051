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
    done = run(small_disk, "run", "--suite", "s.toml", "--cpus", "0", "--db", "f.db", "--label", "b", "--quiet")
    (small_disk / "filler").unlink()
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert "the disk is full" in lines[0] and "free space" in lines[0] and "sqlalche" not in lines[0]
    if leave_kib < 48:
        assert "run 2" not in lines[0] and stored(small_disk / "f.db", 2) == 0
    else:
        assert "run 2 is failed" in lines[0], lines[0]
        kept = int(lines[0].split("(", 1)[1].split(" results")[0])
        assert kept == stored(small_disk / "f.db", 2) < 32     # what it says is what is there
    assert stored(small_disk / "f.db", 1) == 32             # the earlier run untouched


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
