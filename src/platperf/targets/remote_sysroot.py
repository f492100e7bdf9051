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

from pathlib import PurePosixPath

from ..bounded import MAX_SNAPSHOT_BYTES, MAX_SNAPSHOT_FILE_BYTES, MAX_SNAPSHOT_FILES
from ..machine.sysroot import SysRoot

# The seconds between the snapshot's two /proc samples (an SSH board's, a LAVA job's): the
# sample the doctor compares, the same as doctor.check_busy_processes's default.
SAMPLE_INTERVAL_S = 0.2

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
# The PMUs (doctor.pmu: what --events can count): each source's type, CPUs and event names.
for s in "$R"/sys/bus/event_source/devices/*; do
    [ -d "$s" ] || continue
    dirs "$s" "$s"/events "$s"/caps
    line "$s"/type "$s"/cpus "$s"/cpumask "$s"/caps/* "$s"/events/*
done
line "$R"/proc/sys/kernel/perf_event_paranoid "$R"/proc/sys/kernel/perf_user_access
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
    the second one's /proc/<pid> files. Refuses more than MAX_SNAPSHOT_FILES entries, a file over
    MAX_SNAPSHOT_FILE_BYTES and the same path twice in one sample."""
    if len(data) > MAX_SNAPSHOT_BYTES:
        raise SnapshotError(f"board snapshot of {len(data) >> 20} MiB is over the "
                            f"{MAX_SNAPSHOT_BYTES >> 20} MiB platperf reads")
    now: dict[str, bytes | None] = {}
    later: dict[str, bytes | None] = {}
    into, pos, entries = now, 0, 0
    while pos < len(data):
        eol = data.find(b"\n", pos)
        if eol < 0:
            raise SnapshotError(f"board snapshot cut short at byte {pos}")
        header = data[pos:eol].decode("utf-8", "replace")
        pos = eol + 1
        kind, _, rest = header.partition(" ")
        if header == "= later":
            into = later
            continue
        entries += 1
        if entries > MAX_SNAPSHOT_FILES:
            raise SnapshotError(f"board snapshot holds more than {MAX_SNAPSHOT_FILES} files")
        if kind == "F":
            size, _, path = rest.partition(" ")
            if not size.isdigit() or pos + int(size) > len(data):
                raise SnapshotError(f"board snapshot cut short in {path or header!r}")
            if int(size) > MAX_SNAPSHOT_FILE_BYTES:
                raise SnapshotError(f"board snapshot file {path!r} is {int(size) >> 20} MiB, over "
                                    f"the {MAX_SNAPSHOT_FILE_BYTES >> 20} MiB platperf reads")
            _put(into, path, data[pos:pos + int(size)])
            pos += int(size)
        elif kind == "L":
            eol = data.find(b"\n", pos)
            if eol < 0:
                raise SnapshotError(f"board snapshot cut short in {rest!r}")
            _put(into, rest, data[pos:eol + 1])
            pos = eol + 1
        elif kind == "D":
            _put(into, rest, None)
        else:
            raise SnapshotError(f"board snapshot has an unknown header {header[:60]!r}")
    return now, later


def _put(into: dict, path: str, content: bytes | None):
    rel = _relative(path)
    if rel in into and (into[rel] is not None or content is not None):
        raise SnapshotError(f"board snapshot names {path!r} twice")
    into[rel] = content


def _relative(path: str) -> str:
    parts = PurePosixPath(path).parts
    if not path.startswith("/") or ".." in parts or "." in path.split("/") or len(parts) < 2:
        raise SnapshotError(f"board snapshot names a path outside /sys and /proc: {path!r}")
    return "/".join(parts[1:])


class SnapshotSysRoot(SysRoot):
    """A SysRoot over a board's files held in memory (nothing is written to disk); ``later``
    is the second sample: the same files with the /proc/<pid> ones of the second look."""

    def __init__(self, files: dict[str, bytes | None], later_files: dict | None = None,
                 interval: float | None = None, name: str = "board snapshot"):
        super().__init__(f"<{name}>")
        self._files = files
        self._later = later_files
        self.interval = interval
        self._name = name
        self._children: dict[str, set[str]] = {}
        for rel in files:
            parts = rel.split("/")
            for depth in range(len(parts)):
                self._children.setdefault("/".join(parts[:depth]), set()).add(parts[depth])

    def later(self, seconds: float) -> SysRoot:
        """The same board ``interval`` seconds later (its /proc/<pid> files sampled again)."""
        if self._later is None:
            raise ValueError("this board snapshot has no later sample")
        if abs(seconds - self.interval) > 1e-6:
            raise ValueError(f"the board was sampled {self.interval} s apart, not {seconds} s "
                             f"(ask sysroot(interval={seconds}))")
        kept = {rel: data for rel, data in self._files.items() if not _is_pid(rel)}
        return SnapshotSysRoot({**kept, **self._later}, name=self._name)

    def path(self, rel: str):
        raise NotImplementedError("a board snapshot has no local paths: read it with read()")

    def read_bytes(self, rel: str) -> bytes | None:
        return self._files.get(rel.strip("/"))

    read_binary = read_bytes

    def read(self, rel: str) -> str | None:
        data = self.read_bytes(rel)
        return None if data is None else data.decode("utf-8", "replace").rstrip("\n\0 ")

    def exists(self, rel: str) -> bool:
        rel = rel.strip("/")
        return rel in self._files or rel in self._children

    def listdir(self, rel: str) -> list[str]:
        return sorted(self._children.get(rel.strip("/"), ()))


def _is_pid(rel: str) -> bool:
    parts = rel.split("/")
    return len(parts) > 1 and parts[0] == "proc" and parts[1].isdigit()


def snapshot_sysroot(data: bytes, interval: float) -> SnapshotSysRoot:
    """The SysRoot of the script's output, held in memory."""
    now, later = parse_snapshot(data)
    return SnapshotSysRoot(now, later, interval)
