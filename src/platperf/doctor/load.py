"""What else runs: the load average, the processes busy while we look (platperf's own left out),
and the time a hypervisor steals from each CPU. The arithmetic (:func:`busy_between`,
:func:`steal_shares`) is apart from the looking (:func:`two_looks`), so it tests without sleeping."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import NamedTuple

from ..machine.sysroot import SysRoot
from .finding import Finding

# A process using more than this share of one CPU while we sample is "busy".
BUSY_SHARE = 0.10
# The names (/proc/<pid>/comm) of the SSH servers a board runs: the snapshot's shell and every
# other session of platperf's connection are descendants of the one serving that connection.
SSH_SERVERS = frozenset({"sshd", "sshd-session", "sshd-auth", "dropbear"})
# Load average per online CPU above which the machine is not idle.
LOAD_WARN_PER_CPU, LOAD_BAD_PER_CPU = 0.25, 1.0
# Share of a CPU's time the hypervisor gave to others (/proc/stat's steal) above which
# results spread: a sample stolen from is longer by the stolen time.
STEAL_WARN, STEAL_BAD = 0.01, 0.10


def check_load(fp: dict) -> list[Finding]:
    load = (fp.get("load") or {}).get("loadavg")
    ncpus = (fp.get("cpu") or {}).get("count") or 1
    if not load:
        return [Finding("info", "load-unknown", "load average unreadable (/proc/loadavg)")]
    one = load[0]
    if one >= LOAD_BAD_PER_CPU * ncpus:
        level = "bad"
    elif one >= LOAD_WARN_PER_CPU * ncpus:
        level = "warn"
    else:
        return [Finding("ok", "idle", f"load average {one:.2f} on {ncpus} CPUs: the machine is idle")]
    return [Finding(
        level, "load",
        f"load average {one:.2f} / {load[1]:.2f} / {load[2]:.2f} on {ncpus} CPUs",
        "other work competes for the CPUs, caches and memory bandwidth: results are slower and spread "
        "wider, by an amount that changes from run to run",
        "stop other work (see busy processes), wait for the load to fall, or isolate the measured CPUs")]


@dataclass(frozen=True)
class BusyProcess:
    pid: int
    name: str
    cpu_share: float   # of one CPU, over the sampling interval


class ProcTimes(NamedTuple):
    """One process in one look at /proc/<pid>/stat."""

    name: str
    ticks: int           # utime + stime, in clock ticks
    ppid: int = 0
    threads: int = 1


def _stat(text: str | None) -> tuple[int, ProcTimes] | None:
    if not text:
        return None
    # The name is in parentheses and may itself hold spaces and ')'.
    name = text[text.find("(") + 1:text.rfind(")")]
    fields = text[text.rfind(")") + 2:].split()   # fields[0] is field 3 of proc(5)
    try:
        return int(text.split(None, 1)[0]), ProcTimes(
            name, int(fields[11]) + int(fields[12]),                    # utime, stime (14, 15)
            int(fields[1]), int(fields[17]) if len(fields) > 17 else 1)  # ppid (4), num_threads (20)
    except (IndexError, ValueError):
        return None


def cpu_times(root: SysRoot | str | os.PathLike = "/") -> dict[int, ProcTimes]:
    """{pid: ProcTimes} from /proc/<pid>/stat."""
    sysroot = SysRoot.of(root)
    out = {}
    for entry in sysroot.listdir("proc"):
        if entry.isdigit():
            found = _stat(sysroot.read(f"proc/{entry}/stat"))
            if found is not None:
                out[int(entry)] = found[1]
    return out


def process_share(before: ProcTimes, after: ProcTimes, seconds: float, clock_ticks: int) -> float:
    """The share of one CPU a process used between two looks ``seconds`` apart by the machine's
    own uptime: its utime + stime growth over that time, at most its thread count.

    A thread runs on one CPU at a time, so a process cannot use more CPUs than it has threads;
    the raw ratio can pass that because one process's stat is read a little after the uptime
    of its look (a snapshot shell reading hundreds of files, slower in its second look), and
    the kernel accounts CPU time in whole ticks (10 ms at USER_HZ 100: 5% of a 0.2 s look).
    """
    share = (after.ticks - before.ticks) / clock_ticks / seconds
    return min(share, max(1, after.threads))


def own_processes(table: dict[int, ProcTimes], me: int | None, local: bool) -> set[int]:
    """platperf's own processes in one look at a machine's /proc: ``me`` (the process reading
    it: this one on this machine; on a board, the snapshot's shell) and its descendants. On a
    board, the whole subtree of the SSH server process that serves platperf's connection: the
    shell's ancestors up to the SSH servers above it (``dropbear`` or ``sshd``/``sshd-session``,
    the topmost of two or more being the listening daemon, which is not ours) and everything
    they run — the probe's upload and setup in the connection's other sessions, the probe."""
    if me is None:
        return set()
    top = me
    if not local:
        chain, pid = [], me
        while pid in table and pid not in chain and pid > 1:
            chain.append(pid)
            pid = table[pid].ppid
        servers = [i for i, p in enumerate(chain) if table[p].name in SSH_SERVERS]
        if servers:
            last = servers[0]
            while last + 1 < len(chain) and table[chain[last + 1]].name in SSH_SERVERS:
                last += 1
            top = chain[last - 1] if last > servers[0] else chain[last]
    children: dict[int, list[int]] = {}
    for pid, proc in table.items():
        children.setdefault(proc.ppid, []).append(pid)
    own, todo = set(), [top]
    while todo:
        pid = todo.pop()
        if pid not in own:
            own.add(pid)
            todo += children.get(pid, [])
    return own


def busy_between(before: dict, after: dict, seconds: float, clock_ticks: int,
                 ignore: tuple[int, ...] | set[int] = ()) -> list[BusyProcess]:
    """Processes whose CPU time grew by more than BUSY_SHARE of one CPU, busiest first
    (:func:`process_share`); ``ignore``: pids left out (platperf's own)."""
    busy = []
    for pid, now in after.items():
        if pid in ignore or pid not in before:
            continue
        now, then = ProcTimes(*now), ProcTimes(*before[pid])
        share = process_share(then, now, seconds, clock_ticks)
        if share >= BUSY_SHARE:
            busy.append(BusyProcess(pid, now.name, share))
    return sorted(busy, key=lambda b: -b.cpu_share)


def uptime_s(sysroot: SysRoot) -> float | None:
    """Seconds since boot (/proc/uptime's first field), or None."""
    try:
        return float((sysroot.read("proc/uptime") or "").split()[0])
    except (IndexError, ValueError):
        return None


@dataclass(frozen=True)
class Looks:
    """Two looks at a machine's /proc, ``seconds`` apart by its own clock."""

    times_before: dict
    times_after: dict
    stat_before: str | None
    stat_after: str | None
    seconds: float


def two_looks(root: SysRoot | str | os.PathLike = "/", sample_s: float = 0.2) -> Looks:
    """Process CPU times and /proc/stat, ``sample_s`` apart on the machine itself
    (``SysRoot.later``: a sleep here, the board's own second sample for a remote snapshot)."""
    sysroot = SysRoot.of(root)
    before, up_before, stat_before = cpu_times(sysroot), uptime_s(sysroot), sysroot.read("proc/stat")
    later = sysroot.later(sample_s)
    after, up_after, stat_after = cpu_times(later), uptime_s(later), later.read("proc/stat")
    # The machine's own clock says how far apart the samples were (a remote snapshot waited on
    # the board, not here); a tree without /proc/uptime falls back to the asked interval.
    seconds = up_after - up_before if up_before is not None and up_after is not None else sample_s
    if seconds <= 0:
        seconds = sample_s
    return Looks(before, after, stat_before, stat_after, seconds)


def check_busy_processes(root: SysRoot | str | os.PathLike = "/", sample_s: float = 0.2,
                         looks: Looks | None = None) -> list[Finding]:
    """Processes busy between two looks at /proc (:func:`two_looks`)."""
    sysroot = SysRoot.of(root)
    looks = looks or two_looks(sysroot, sample_s)
    # USER_HZ is 100 on every Linux architecture platperf supports, so this host's value also
    # holds for a board's /proc.
    clock_ticks = os.sysconf("SC_CLK_TCK")
    # Our own processes are busy reading /proc (and, on a board, sending it and the probe).
    me = _stat(sysroot.read("proc/self/stat"))
    ignore = own_processes(looks.times_after, me[0] if me else None, local=str(sysroot) == "/")
    busy = busy_between(looks.times_before, looks.times_after, looks.seconds, clock_ticks, ignore=ignore)
    if not busy:
        return [Finding("ok", "no-busy-processes",
                        f"no other process used more than {BUSY_SHARE:.0%} of a CPU over {sample_s:g} s")]
    top = ", ".join(f"{b.name} (pid {b.pid}, {b.cpu_share:.0%})" for b in busy[:3])
    return [Finding(
        "bad" if busy[0].cpu_share >= 0.5 else "warn", "busy-processes",
        f"busy processes: {top}" + (f" and {len(busy) - 3} more" if len(busy) > 3 else ""),
        "they take CPU time, cache and memory bandwidth from the measured CPUs: slower results, wider "
        "spread, and latency excursions when they are scheduled on a measured CPU",
        "stop them for the run, or move them away: taskset -pc <other cpus> <pid>")]


def cpu_stat(text: str | None) -> dict[int, tuple[int, int]]:
    """{cpu: (all time, steal)} in USER_HZ ticks from /proc/stat's ``cpuN`` lines (steal is
    the 8th value; a kernel without the column gives nothing)."""
    out = {}
    for line in (text or "").splitlines():
        name, *values = line.split()
        if not name.startswith("cpu") or not name[3:].isdigit() or len(values) < 8:
            continue
        try:
            ticks = [int(v) for v in values[:8]]   # guest time is already in user's
        except ValueError:
            continue
        out[int(name[3:])] = (sum(ticks), ticks[7])
    return out


def steal_shares(before: dict, after: dict | None = None) -> dict[int, float]:
    """Each CPU's share of time stolen: between two :func:`cpu_stat` readings, or since boot
    with one."""
    shares = {}
    for cpu, (total, steal) in (after if after is not None else before).items():
        if after is not None:
            if cpu not in before:
                continue
            total, steal = total - before[cpu][0], steal - before[cpu][1]
        if total > 0:
            shares[cpu] = steal / total
    return shares


def check_steal(root: SysRoot | str | os.PathLike = "/", looks: Looks | None = None) -> list[Finding]:
    """The hypervisor's steal time per CPU: over the two looks when there are two, else since
    boot. The probe retakes or marks each sample stolen from (docs/results-format.md)."""
    sysroot = SysRoot.of(root)
    before = cpu_stat(looks.stat_before if looks else sysroot.read("proc/stat"))
    after = cpu_stat(looks.stat_after) if looks and looks.stat_after else None
    shares = steal_shares(before, after)
    if not shares:
        return []
    when = f"over {looks.seconds:.2g} s" if after else "since boot"
    worst = max(shares.values())
    rates = ", ".join(f"CPU {cpu} {share:.1%}" for cpu, share in sorted(shares.items()) if share > 0)
    if worst < STEAL_WARN:
        return [Finding("ok", "steal-time", f"steal time {when}: {rates or 'none'}")]
    return [Finding(
        "bad" if worst >= STEAL_BAD else "warn", "steal-time",
        f"the hypervisor stole CPU time {when}: {rates}",
        "a sample stolen from is longer by what was stolen: the probe retakes it (or marks it) and "
        "results from this guest spread from run to run",
        "measure on bare metal or a dedicated host; otherwise compare with several runs a side "
        "(platperf run --repeat N)")]
