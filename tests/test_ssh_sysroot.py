"""The board-side snapshot script, run here with sh against the fixture trees as its root: what
comes back must be the fixture byte for byte, and what platperf makes of it the same."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import require_executable

from platperf.fingerprint import collect
from platperf.targets.remote_sysroot import (SNAPSHOT_SCRIPT, SnapshotError, parse_snapshot,
                                             snapshot_sysroot)
from platperf.topology import read_topology

FIXTURES = Path(__file__).parent / "fixtures" / "sysfs"
BOARDS = ["juno", "agilex5", "am62x"]


def snapshot_of(root: Path, scratch: Path, interval: str = "0") -> bytes:
    sh = require_executable("sh")
    return subprocess.run([sh, "-s", "--", str(root), interval], env={"PATH": "/usr/bin:/bin", "TMPDIR": str(scratch)},
                          input=SNAPSHOT_SCRIPT.encode(), capture_output=True, check=True).stdout


def files(root) -> dict[str, bytes]:
    """The files a snapshot SysRoot holds (directories left out)."""
    return {rel: data for rel, data in root._files.items() if data is not None}


def tree(root: Path) -> dict[str, bytes]:
    # .keep files only hold empty directories in git.
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and p.name != ".keep"}


@pytest.mark.parametrize("board", BOARDS)
def test_snapshot_of_a_fixture_tree_is_that_tree_byte_for_byte(tmp_path, board):
    data = snapshot_of(FIXTURES / board, tmp_path)
    root = snapshot_sysroot(data, 0.0)
    assert files(root) == tree(FIXTURES / board)


@pytest.mark.parametrize("board", BOARDS)
def test_platperf_describes_the_snapshot_as_it_describes_the_tree(tmp_path, board):
    root = snapshot_sysroot(snapshot_of(FIXTURES / board, tmp_path), 0.0)
    assert read_topology(root) == read_topology(str(FIXTURES / board))
    assert collect(root) == collect(str(FIXTURES / board))


def test_the_later_sample_holds_the_processes_again(tmp_path):
    root = snapshot_sysroot(snapshot_of(FIXTURES / "juno", tmp_path, "0.01"), 0.01)
    later = root.later(0.01)
    assert later.listdir("proc") == root.listdir("proc")
    assert later.read("proc/412/stat") == root.read("proc/412/stat")
    assert later.read("proc/cpuinfo") == root.read("proc/cpuinfo")


def test_device_tree_strings_keep_their_nuls(tmp_path):
    root = snapshot_sysroot(snapshot_of(FIXTURES / "juno", tmp_path), 0.0)
    compatible = root.read_bytes("sys/firmware/devicetree/base/compatible")
    assert b"\0" in compatible
    assert compatible == (FIXTURES / "juno/sys/firmware/devicetree/base/compatible").read_bytes()


@pytest.mark.parametrize("data, says", [
    (b"F 10 /proc/cmdline\nshort", "cut short"),
    (b"F 3 /proc/cmdline\nabcL /proc/1/stat\n1 (init", "cut short"),
    (b"F 1 /proc/../etc/passwd\nx", "outside"),
    (b"F 1 relative\nx", "outside"),
    (b"X what\n", "unknown header"),
    (b"F 1 /proc/cmdline\nxF 1 /proc/cmdline\ny", "twice"),            # which one is the board's?
    (b"D /sys/a\nL /sys/a\nx\n", "twice"),                             # a directory and a file
    (b"F 1 /proc/./cmdline\nx", "outside"),
])
def test_a_damaged_snapshot_is_refused(data, says):
    with pytest.raises(SnapshotError, match=says):
        parse_snapshot(data)


# Files whose content moves by itself between the snapshot and the read that checks it.
PROC_MOVING = {"stat", "loadavg", "meminfo", "cpuinfo", "uptime"}   # cpuinfo: its "cpu MHz"
# cpuidle's per-state counters (entries, residency, entries cut short or too long, refused)
# grow whenever a CPU idles; disable/default_status and the latencies stay put.
CPUIDLE_COUNTERS = {"usage", "time", "above", "below", "rejected"}


def moves(rel: Path) -> bool:
    """Whether the snapshot's copy of ``rel`` may differ from the file read a moment later."""
    return (rel.name in PROC_MOVING or rel.parts[1].isdigit()        # /proc/<pid>
            or "cpufreq" in rel.parts or rel.name.endswith("_freq")
            or ("cpuidle" in rel.parts and rel.name in CPUIDLE_COUNTERS))


def test_snapshot_of_this_machine_matches_its_files(tmp_path):
    # The real kernel's quirks: sysctl integers end after a one-byte read and topology cpumasks
    # are binary attributes that refuse it; both must still come back whole.
    root = snapshot_sysroot(snapshot_of(Path("/"), tmp_path), 0.0)
    compared = 0
    for name, data in files(root).items():
        rel = Path(name)
        if moves(rel):
            continue
        assert data == (Path("/") / rel).read_bytes(), rel
        compared += 1
    assert compared > 10 and root.exists("proc/cmdline") and root.listdir("sys/devices/system/cpu")


def test_the_later_sample_carries_the_boards_own_uptime(tmp_path):
    # the doctor's busy-process check divides by the board's clock, not the host's
    from platperf.doctor import uptime_s
    root = snapshot_sysroot(snapshot_of(Path("/"), tmp_path, "0.2"), 0.2)
    now, later = uptime_s(root), uptime_s(root.later(0.2))
    assert now is not None and later is not None and later - now >= 0.19
