"""A board's /sys and /proc, fetched in one round trip and read from a local copy.

tar cannot do this: procfs files report size 0. So a small POSIX sh script (busybox ash is
enough: no bash, no GNU-only flags) prints every file platperf reads, each behind a header:

    F <bytes> <path>\\n<exactly that many bytes>   any file (device-tree strings hold NULs)
    L <path>\\n<one line>                          a one-line file (a sysfs attribute, a
                                                  /proc/<pid> stat or comm): the shell's own `read`
    D <path>                                      a directory that exists (resctrl/info)
    = later                                       the second /proc/<pid> sample starts here

The /proc/<pid> files are printed twice, ``interval`` seconds apart, because the doctor's
busy-process check compares two samples of the same machine.
"""
from __future__ import annotations

import shutil
from pathlib import Path, PurePosixPath

from ..machine.sysroot import SysRoot

# $1: a root prefix (empty on a board, a fixture tree in the tests); $2: seconds between the
# two /proc samples. The one scratch file is made by mktemp (in $TMPDIR or /tmp) or not at all:
# a name of our own choosing in a shared directory could be a link planted there.
SNAPSHOT_SCRIPT = r'''
R=$1
T=$(mktemp 2>/dev/null) || { echo "no mktemp: the snapshot needs one private scratch file" >&2; exit 3; }
trap 'rm -f "$T"' EXIT
emit() {
    for f in "$@"; do
        [ -f "$f" ] || continue
        # Copied first: a changing file (loadavg, stat) must be counted and sent as one version.
        cat "$f" > "$T" 2>/dev/null || continue
        printf 'F %d %s\n' "$(wc -c < "$T")" "${f#"$R"}"
        cat "$T"
    done
}
# sysfs attributes and /proc/<pid> files hold one line: the shell's own `read` takes them,
# without the three forks per file of emit (hundreds of files on a board with a slow fork).
line() {
    for f in "$@"; do
        case $f in */uevent) continue ;; esac    # the one multi-line kind: never read
        l=
        if [ -r "$f" ] && { IFS= read -r l < "$f"; } 2>/dev/null; then
            printf 'L %s\n%s\n' "${f#"$R"}" "$l"
        else
            # No newline, or `read`'s one-byte reads refused: sysctl integers end at the
            # first byte, binary attributes (topology cpumasks) fail. cat reads it whole.
            emit "$f"
        fi
    done
    return 0
}
dirs() {
    for d in "$@"; do [ -d "$d" ] && printf 'D %s\n' "${d#"$R"}"; done
    return 0
}
procs() {
    # A process may exit between the glob and the read: then it is left out. The board's
    # uptime with each sample says how far apart they really were.
    # /proc/self: this shell, read by its own `read`; the doctor leaves it and the rest of
    # platperf's connection out of the busy processes.
    line "$R"/proc/uptime "$R"/proc/self/stat
    emit "$R"/proc/stat         # per-CPU steal between the two samples (doctor)
    for p in "$R"/proc/[0-9]*; do line "$p/stat" "$p/comm"; done
}
C="$R/sys/devices/system/cpu"
line "$C"/online "$C"/possible "$C"/present "$C"/offline "$C"/isolated "$C"/nohz_full \
     "$C"/smt/active "$C"/smt/control "$C"/intel_pstate/no_turbo "$C"/intel_pstate/status \
     "$C"/cpufreq/boost "$C"/cpuidle/*
for cpu in "$C"/cpu[0-9]*; do
    dirs "$cpu" "$cpu"/cpuidle/state*
    line "$cpu"/online "$cpu"/cpu_capacity "$cpu"/topology/* "$cpu"/regs/identification/* \
         "$cpu"/cache/index*/* "$cpu"/cpuidle/state*/*
done
for policy in "$C"/cpufreq/policy*; do
    dirs "$policy"
    line "$policy"/*
done
line "$R"/sys/devices/system/clocksource/clocksource*/* "$R"/sys/class/dmi/id/* \
     "$R"/sys/hypervisor/type "$R"/sys/devices/cpu_core/cpus "$R"/sys/devices/cpu_atom/cpus \
     "$R"/proc/sys/kernel/hostname "$R"/proc/sys/kernel/osrelease \
     "$R"/proc/sys/kernel/sched_rt_runtime_us "$R"/proc/sys/kernel/sched_rt_period_us
dirs "$R"/sys/fs/resctrl/info
# Device-tree strings hold NULs and no newline; the rest are several lines or change as read.
emit "$R"/sys/firmware/devicetree/base/model "$R"/sys/firmware/devicetree/base/compatible \
     "$R"/proc/cpuinfo "$R"/proc/cmdline "$R"/proc/meminfo "$R"/proc/loadavg "$R"/proc/version
procs
sleep "$2"
echo '= later'
procs
'''


class SnapshotError(ValueError):
    pass


def parse_snapshot(data: bytes) -> tuple[dict[str, bytes | None], dict[str, bytes | None]]:
    """The script's output as two {path: bytes, or None for a directory}: the first sample and
    the second one's /proc/<pid> files."""
    now: dict[str, bytes | None] = {}
    later: dict[str, bytes | None] = {}
    into, pos = now, 0
    while pos < len(data):
        eol = data.find(b"\n", pos)
        if eol < 0:
            raise SnapshotError(f"board snapshot cut short at byte {pos}")
        header = data[pos:eol].decode("utf-8", "replace")
        pos = eol + 1
        kind, _, rest = header.partition(" ")
        if header == "= later":
            into = later
        elif kind == "F":
            size, _, path = rest.partition(" ")
            if not size.isdigit() or pos + int(size) > len(data):
                raise SnapshotError(f"board snapshot cut short in {path or header!r}")
            into[_relative(path)] = data[pos:pos + int(size)]
            pos += int(size)
        elif kind == "L":
            eol = data.find(b"\n", pos)
            if eol < 0:
                raise SnapshotError(f"board snapshot cut short in {rest!r}")
            into[_relative(rest)] = data[pos:eol + 1]
            pos = eol + 1
        elif kind == "D":
            into[_relative(rest)] = None
        else:
            raise SnapshotError(f"board snapshot has an unknown header {header[:60]!r}")
    return now, later


def _relative(path: str) -> str:
    parts = PurePosixPath(path).parts
    if not path.startswith("/") or ".." in parts or len(parts) < 2:
        raise SnapshotError(f"board snapshot names a path outside /sys and /proc: {path!r}")
    return "/".join(parts[1:])


def write_tree(root: Path, files: dict[str, bytes | None]):
    made: set[Path] = set()
    for rel, content in files.items():
        path = root / rel
        folder = path if content is None else path.parent
        if folder not in made:
            folder.mkdir(parents=True, exist_ok=True)
            made.add(folder)
        if content is not None:
            path.write_bytes(content)


class SnapshotSysRoot(SysRoot):
    """A SysRoot over a board's files copied to ``root``; :meth:`later` is the second sample."""

    def __init__(self, root, later_root=None, interval: float | None = None):
        super().__init__(root)
        self._later_root = later_root
        self.interval = interval

    def later(self, seconds: float) -> SysRoot:
        """The same board ``interval`` seconds later (its /proc/<pid> files sampled again)."""
        if self._later_root is None:
            raise ValueError("this board snapshot has no later sample")
        if abs(seconds - self.interval) > 1e-6:
            raise ValueError(f"the board was sampled {self.interval} s apart, not {seconds} s "
                             f"(ask sysroot(interval={seconds}))")
        return SnapshotSysRoot(self._later_root)


def unpack_snapshot(data: bytes, into: Path, interval: float) -> SnapshotSysRoot:
    """Write the script's output under ``into``/now and ``into``/later; the SysRoot over it."""
    now, later = parse_snapshot(data)
    shutil.rmtree(into, ignore_errors=True)
    write_tree(into / "now", now)
    # The later tree is the same machine: the first sample's files, its processes replaced.
    write_tree(into / "later", later)
    for entry in (into / "now").iterdir():
        if entry.name != "proc":
            (into / "later" / entry.name).symlink_to(entry)
    (into / "later" / "proc").mkdir(parents=True, exist_ok=True)
    for entry in (into / "now" / "proc").iterdir():
        if not entry.name.isdigit() and not (into / "later" / "proc" / entry.name).exists():
            (into / "later" / "proc" / entry.name).symlink_to(entry)
    return SnapshotSysRoot(into / "now", into / "later", interval)
