"""``doctor``: what on this machine will bend the results, what it does to them, how to fix it.

Each check gives one :class:`Finding` per problem (or one ``ok``), a line a person can act on.
Levels: ``ok`` (checked, fine), ``info`` (worth knowing, no harm), ``warn`` (results are
usable but noisier or not comparable with a tuned machine), ``bad`` (results are unreliable).
Warnings never make ``platperf doctor`` fail: a board under test is often not tunable.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import NamedTuple

from .fingerprint import collect
from .machine.sysroot import SysRoot, format_cpu_list

LEVELS = ("ok", "info", "warn", "bad")

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
# Counter checks (probe meta): a tick longer than this cannot resolve an L1 hit; a read slower
# than this means the counter traps (a VM) or goes through the vDSO fallback.
COARSE_TICK_NS = 10.0
SLOW_READ_NS = 50.0


@dataclass(frozen=True)
class Finding:
    level: str        # ok | info | warn | bad
    code: str         # stable kebab-case id
    message: str      # what was found
    effect: str = ""  # what it does to results
    fix: str = ""     # how to fix it

    def line(self) -> str:
        parts = [f"{self.level}: {self.message}"]
        if self.effect:
            parts.append(f"effect: {self.effect}")
        if self.fix:
            parts.append(f"fix: {self.fix}")
        return " — ".join(parts)


def check(root: SysRoot | str | os.PathLike = "/", fingerprint: dict | None = None,
          probe_meta: dict | None = None, sample_s: float = 0.2,
          core_records: list[dict] | None = None) -> list[Finding]:
    """All checks on the machine at ``root`` (a SysRoot — a remote target's snapshot — or a
    path). ``fingerprint`` is collected when not given; ``probe_meta`` (the probe's meta record)
    enables the counter checks, ``core_records`` (the records of the probe command
    :func:`core_probe_args` gives) the check for a neighbour sharing the cores. Busy processes
    are sampled over ``sample_s`` seconds (0 skips the sampling)."""
    sysroot = SysRoot.of(root)
    fp = fingerprint if fingerprint is not None else collect(sysroot, probe_meta)
    findings: list[Finding] = []
    findings += check_cpufreq(fp)
    findings += check_smt(fp)
    findings += check_isolation(fp)
    findings += check_load(fp)
    if sample_s > 0:
        looks = two_looks(sysroot, sample_s)
        findings += check_busy_processes(sysroot, sample_s, looks)
        findings += check_steal(sysroot, looks)
    else:
        findings += check_steal(sysroot)
    findings += check_vm(fp)
    findings += check_counter(probe_meta if probe_meta is not None else _meta_from(fp), fp)
    if core_records is not None:
        findings += check_core_sharing(core_records, fp)
    findings += check_resctrl(sysroot)
    findings += check_cpuidle(sysroot)
    return findings


def _cpus(cpus) -> str:
    return ("CPU " if len(cpus) == 1 else "CPUs ") + format_cpu_list(cpus)


def _mhz(khz) -> str:
    return f"{khz / 1000:g} MHz" if khz else "?"


def check_cpufreq(fp: dict) -> list[Finding]:
    freq = fp.get("cpufreq") or {}
    if not freq.get("available"):
        vm = (fp.get("virtualization") or {}).get("vm")
        return [Finding(
            "warn", "no-cpufreq",
            "no cpufreq interface: the kernel neither reports nor controls the CPU frequency"
            + (" (normal in a VM: the host decides)" if vm else " (no driver, or firmware-managed DVFS)"),
            "the clock during the run is unknown and may change under the run; ns figures cannot be "
            "converted to cycles from the frequency (the probe's add-chain estimate is used instead)",
            "in a VM set the host's governor to performance; on a board enable its cpufreq driver "
            "(e.g. CONFIG_ARM_SCMI_CPUFREQ, CONFIG_CPUFREQ_DT) or note the bootloader's clock settings")]
    out = []
    for p in freq.get("policies") or []:
        where = f"{p['policy']} ({_cpus(p['cpus'])})"
        gov = p.get("governor")
        if gov != "performance":
            fixed = p.get("min_khz") and p.get("min_khz") == p.get("max_khz")
            if fixed:
                out.append(Finding("ok", "frequency-fixed",
                                   f"{where}: governor {gov}, but min = max = {_mhz(p['max_khz'])}"))
            else:
                out.append(Finding(
                    "warn", "governor-not-performance",
                    f"{where}: governor {gov} scales {_mhz(p.get('min_khz'))}-{_mhz(p.get('max_khz'))} "
                    f"(now {_mhz(p.get('cur_khz'))})",
                    "the first samples run at a low clock and the clock follows load: medians shift and "
                    "spread widens, serial and parallel runs see different clocks",
                    f"echo performance | sudo tee /sys/devices/system/cpu/cpufreq/{p['policy']}/scaling_governor "
                    "(or cpupower frequency-set -g performance)"))
        else:
            out.append(Finding("ok", "governor-performance", f"{where}: governor performance at "
                                                             f"{_mhz(p.get('max_khz'))}"))
        cap, top = p.get("max_khz"), p.get("cpuinfo_max_khz")
        if cap and top and cap < top:
            out.append(Finding(
                "warn", "frequency-capped",
                f"{where}: scaling_max_freq {_mhz(cap)} is below the CPU's maximum {_mhz(top)}",
                "results are those of a slower CPU; a release that lifts the cap looks like a speed-up",
                f"echo {top} | sudo tee /sys/devices/system/cpu/cpufreq/{p['policy']}/scaling_max_freq, "
                "or record the cap as intended (thermal or power limit)"))
    if freq.get("boost"):
        out.append(Finding(
            "warn", "boost-on", "boost/turbo is on: the CPU may run above its base frequency",
            "the clock depends on temperature and on how many cores are busy: parallel runs are slower "
            "per core than serial ones, and results drift as the board heats",
            "echo 0 | sudo tee /sys/devices/system/cpu/cpufreq/boost "
            "(Intel: echo 1 | sudo tee /sys/devices/system/cpu/intel_pstate/no_turbo)"))
    return out


def check_smt(fp: dict) -> list[Finding]:
    siblings = (fp.get("smt") or {}).get("siblings") or []
    if not siblings:
        return [Finding("ok", "no-smt-siblings", "no SMT siblings online: each CPU is a whole core")]
    pairs = "; ".join(format_cpu_list(s) for s in siblings[:4]) + (" …" if len(siblings) > 4 else "")
    return [Finding(
        "warn", "smt-siblings",
        f"SMT siblings online ({pairs}): two logical CPUs share one core",
        "a sibling's work shares the core's pipelines, L1 and L2: parallel runs on siblings measure "
        "half a core, and an idle sibling's interrupts disturb latency",
        "echo off | sudo tee /sys/devices/system/cpu/smt/control (or boot with nosmt), "
        "or run with --cpus naming one thread per core")]


def check_isolation(fp: dict) -> list[Finding]:
    kernel = fp.get("kernel") or {}
    iso, nohz, rcu = (set(kernel.get(k) or []) for k in ("isolcpus", "nohz_full", "rcu_nocbs"))
    if not (iso or nohz or rcu):
        return [Finding(
            "warn", "no-isolated-cpus", "no CPU is isolated (no isolcpus, nohz_full or rcu_nocbs)",
            "other tasks, the scheduler tick and RCU callbacks run on every measured CPU: latency maxima "
            "and tails include OS noise (throughput medians are little affected)",
            "boot with isolcpus=nohz,domain,managed_irq,<cpus> nohz_full=<cpus> rcu_nocbs=<cpus> and run "
            "the latency tests on those CPUs")]
    cpus = sorted(iso | nohz | rcu)
    missing = [name for name, have in (("isolcpus", iso), ("nohz_full", nohz), ("rcu_nocbs", rcu))
               if not set(cpus) <= have]
    if missing:
        return [Finding(
            "warn", "partial-isolation",
            f"{_cpus(cpus)} partly isolated: not covered by {', '.join(missing)}",
            {"isolcpus": "the scheduler may still place tasks there",
             "nohz_full": "the scheduler tick still interrupts them",
             "rcu_nocbs": "RCU callbacks still run there"}[missing[0]]
            + "; latency excursions remain",
            f"add {' '.join(m + '=' + format_cpu_list(cpus) for m in missing)} to the kernel command line")]
    return [Finding("ok", "isolated-cpus",
                    f"{_cpus(cpus)} isolated (isolcpus, nohz_full, rcu_nocbs): run latency tests there")]


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


def check_vm(fp: dict) -> list[Finding]:
    vm = fp.get("virtualization") or {}
    if not vm.get("vm"):
        return [Finding("ok", "bare-metal", "no sign of a hypervisor: bare metal")]
    return [Finding(
        "warn", "virtual-machine",
        f"running in a virtual machine ({vm.get('hypervisor')}; {', '.join(vm.get('evidence') or [])})",
        "vCPUs are host threads: the host preempts them (latency maxima are the host's), caches and "
        "memory bandwidth are shared with other guests, and the counter may be virtualised",
        "measure releases on bare metal; in a VM pin the vCPUs on the host and compare only runs "
        "from the same host and guest size")]


def _meta_from(fp: dict) -> dict | None:
    """Rebuild the counter part of the probe meta from a stored fingerprint's 'probe' key."""
    probe = fp.get("probe") or {}
    return {"counter": probe.get("counter") or {}, "fallback": probe.get("fallback")} if probe else None


def _calibrated_fix(fp: dict | None) -> str:
    """What to do about a calibrated TSC frequency, from what the kernel itself knows."""
    if "tsc_known_freq" in ((fp or {}).get("cpu") or {}).get("flags", []):
        # The kernel took the exact figure from the hypervisor or firmware (cpuinfo says so)
        # but exports it to no program, and a CPU without CPUID leaf 0x15 has none to read.
        return ("nothing to change here: the kernel knows the exact frequency (cpuinfo flag "
                "tsc_known_freq) but gives it to no program, and this CPU has no CPUID leaf 0x15 "
                "the probe could read; check the calibrated figure against the kernel's "
                "(dmesg | grep -i 'tsc:') and compare runs of this machine with each other")
    return "on x86 a kernel with tsc_known_freq, or CPUID leaf 0x15, gives the exact frequency"


def check_counter(meta: dict | None, fp: dict | None = None) -> list[Finding]:
    if not meta:
        return [Finding("info", "counter-not-checked",
                        "counter not checked: no probe metadata (platperf run checks it)")]
    counter = meta.get("counter") or {}
    name, hz = counter.get("name") or "counter", counter.get("freq_hz")
    out = []
    if not hz:
        out.append(Finding(
            "bad", "counter-frequency-unknown", f"the {name} frequency is unknown",
            "ticks cannot be converted to time: every ns figure is wrong",
            "check that the kernel exposes CNTFRQ_EL0 / the TSC frequency; rebuild the probe if it lacks "
            "support for this CPU"))
        return out
    tick_ns = counter.get("resolution_ns") or 1e9 / hz
    if counter.get("freq_source") == "calibrated":
        out.append(Finding(
            "warn", "counter-frequency-calibrated",
            f"the {name} frequency ({hz / 1e6:.1f} MHz) was calibrated, not read from the CPU",
            "every ns figure carries the calibration error (about 1%)",
            _calibrated_fix(fp)))
    if tick_ns > COARSE_TICK_NS:
        out.append(Finding(
            "warn", "counter-low-resolution",
            f"the {name} runs at {hz / 1e6:g} MHz: one tick is {tick_ns:.1f} ns",
            f"single events shorter than {tick_ns:.0f} ns are invisible; latency histograms have "
            f"{tick_ns:.0f} ns steps (the probe lengthens samples so medians stay accurate)",
            "nothing to fix on the host: compare only runs with the same counter frequency"))
    overhead = counter.get("read_overhead_ns")
    if overhead is not None and overhead > SLOW_READ_NS:
        out.append(Finding(
            "warn", "counter-read-slow", f"reading the {name} takes {overhead:.0f} ns",
            "the latency loop's fastest pass is at least this long, hiding short excursions; in a VM the "
            "read may trap to the hypervisor",
            "on bare metal check the kernel lets user space read the counter (CNTKCTL_EL1.EL0VCTEN, "
            "no tsc=unstable)"))
    if meta.get("fallback"):
        out.append(Finding(
            "warn", "portable-fallback", "the probe uses its portable C loops, not the assembly ones",
            "the compiler decides what the loops do: results are not comparable with assembly runs",
            "build the probe for this architecture (make probe / make probe-cross)"))
    if not out:
        out.append(Finding("ok", "counter", f"{name} at {hz / 1e6:g} MHz, tick {tick_ns:.2f} ns"
                                            + (f", read {overhead:.1f} ns" if overhead is not None else "")))
    return out


def check_resctrl(root: SysRoot | str | os.PathLike = "/") -> list[Finding]:
    sysroot = SysRoot.of(root)
    if sysroot.exists("sys/fs/resctrl/info"):
        return [Finding("info", "resctrl-available",
                        "resctrl is mounted: the rt+resctrl interference mitigation can partition the "
                        "last-level cache")]
    return [Finding(
        "info", "resctrl-unavailable", "resctrl is not mounted: last-level cache partitioning is not available",
        "the resctrl interference mitigation cannot be applied (the others can)",
        "if the CPU supports it (x86 RDT/CAT, Arm MPAM): sudo mount -t resctrl resctrl /sys/fs/resctrl")]


def check_cpuidle(root: SysRoot | str | os.PathLike = "/") -> list[Finding]:
    """Idle states the kernel can put a CPU in (on Arm: PSCI CPU_SUSPEND), which the psci
    suite measures one by one."""
    sysroot = SysRoot.of(root)
    driver = (sysroot.read("sys/devices/system/cpu/cpuidle/current_driver") or "none").strip()
    cpu = next((c for c in sorted(sysroot.listdir("sys/devices/system/cpu"))
                if c[3:].isdigit() and c.startswith("cpu")
                and sysroot.exists(f"sys/devices/system/cpu/{c}/cpuidle/state0")), None)
    if cpu is None:
        return [Finding(
            "info", "no-cpuidle", f"no cpuidle states (driver: {driver}): the CPUs idle only in the "
            "architecture's default way (WFI, HLT)",
            "the psci suite measures no idle-state wake-up latency (PSCI CPU_SUSPEND); it reports "
            "this and measures the rest",
            "on an Arm board: describe the idle states in the device tree (arm,idle-state nodes with "
            "their PSCI suspend parameters) and enable CONFIG_ARM_PSCI_CPUIDLE; in a VM the host "
            "idles the CPUs and there is nothing to enable")]
    names = []
    for i in range(64):
        name = sysroot.read(f"sys/devices/system/cpu/{cpu}/cpuidle/state{i}/name")
        if name is None:
            break
        names.append(name.strip())
    return [Finding("ok", "cpuidle-states", f"cpuidle driver {driver}: {len(names)} idle states on "
                                            f"{cpu} ({', '.join(names)})")]


# -- a neighbour nothing in this system sees ---------------------------------------------------
# An L1 hit takes the same few cycles every time on a core nobody else uses: the dependent
# loads of a 16 KiB ring, timed in CORE_SAMPLES samples of CORE_SAMPLE_S on each CPU, agree to
# about 1%. When the 90th percentile of a CPU's samples is more than CORE_WARN above its
# fastest sample, with the preempted and stolen-from samples left out (the probe counts
# those), something outside this system shares the core: an SMT sibling running another
# guest on the host, a busy sibling thread, a clock that changes under the load.
CORE_SAMPLES, CORE_SAMPLE_S = 25, 0.004
CORE_MAX_CPUS = 64
CORE_WARN = 0.05


def core_probe_args(cpus: list[int]) -> list[str]:
    """The probe command of :func:`check_core_sharing`: each CPU one after the other (about
    0.15 s each); at most CORE_MAX_CPUS of them, spread evenly over a larger machine."""
    step = -(-len(cpus) // CORE_MAX_CPUS) if cpus else 1
    chosen = ",".join(str(c) for c in cpus[::step])
    return ["run", "mem-latency", "--size", "16k", "--pattern", "random", "--mode", "serial",
            "--samples", str(CORE_SAMPLES), "--min-time", str(CORE_SAMPLE_S), "--cpus", chosen]


def _clean_samples(rec: dict) -> list[float]:
    dropped = set(rec.get("preempted") or []) | set((rec.get("steal") or {}).get("samples") or [])
    return sorted(v for i, v in enumerate(rec.get("samples") or []) if i not in dropped)


def check_core_sharing(records: list[dict], fp: dict) -> list[Finding]:
    """Findings from the probe records of :func:`core_probe_args` (mem-latency results in ns
    and in cycles, one of each per CPU)."""
    moved: list[tuple[float, int, float, float, float | None]] = []   # (share, cpu, fastest, p90, cycles)
    cycles = {r.get("cpu"): r for r in records if r.get("type") == "result" and r.get("unit") == "cycles"}
    disturbed = []     # (cpu, samples, kept): too few samples left to judge
    for rec in records:
        if rec.get("type") != "result" or rec.get("unit") != "ns":
            continue
        kept = _clean_samples(rec)
        if len(kept) < 5 or kept[0] <= 0:
            disturbed.append((rec.get("cpu"), len(rec.get("samples") or []), len(kept)))
            continue
        p90 = kept[min(len(kept) - 1, (9 * len(kept)) // 10)]
        cyc = _clean_samples(cycles[rec["cpu"]]) if rec.get("cpu") in cycles else []
        moved.append((p90 / kept[0] - 1.0, rec.get("cpu"), kept[0], p90, cyc[0] if cyc else None))
    if not moved and disturbed:
        cpus = _cpus(sorted(c for c, _, _ in disturbed if c is not None))
        total, kept = sum(n for _, n, _ in disturbed), sum(k for _, _, k in disturbed)
        return [Finding(
            "info", "core-not-checked",
            f"the L1 hit time of {cpus} was measured but not judged: {total - kept} of its {total} "
            f"samples were preempted or had time stolen (at least 5 clean ones a CPU are needed)",
            "other work on these CPUs (the load and busy-process findings name it) takes them from "
            "the probe: it will take them from benchmark runs too",
            "run platperf doctor again when the machine is quieter")]
    if not moved:
        return [Finding("info", "core-not-checked", "the L1 hit time was not measured (no probe results)")]
    moved.sort(key=lambda m: m[0], reverse=True)
    share, cpu, fastest, p90, cyc = moved[0]
    span = f"{CORE_SAMPLES} samples of {CORE_SAMPLE_S * 1e3:g} ms"
    hit = f"{fastest:.2f} ns" + (f", {cyc:.1f} cycles" if cyc else "")
    if share <= CORE_WARN:
        return [Finding("ok", "core-steady",
                        f"L1 hit steady on {_cpus(sorted(m[1] for m in moved))}: within {100 * share:.1f}% "
                        f"over {span} (CPU {cpu}: {hit})")]
    shared = sorted(m[1] for m in moved if m[0] > CORE_WARN)
    if (fp.get("virtualization") or {}).get("vm"):
        fix = ("ask the host for vCPUs on dedicated physical cores (no SMT sibling shared with another "
               "guest), or measure releases on bare metal")
    elif (fp.get("smt") or {}).get("siblings"):
        fix = ("keep the SMT siblings of the measured CPUs idle, or echo off | sudo tee "
               "/sys/devices/system/cpu/smt/control")
    else:
        fix = "look for what changes the core's clock or shares it (governor, thermal limit, a device's interrupts)"
    return [Finding(
        "warn", "core-shared",
        f"the L1 hit time of {_cpus(shared)} moved up to {100 * share:.0f}% over {span} "
        f"(CPU {cpu}: {fastest:.2f}–{p90:.2f} ns, fastest to 90th percentile) with no preemption or "
        "steal counted: something outside this system shares the core",
        "latency figures move by as much from run to run, L2 and beyond most (the neighbour evicts the "
        "ring), bandwidth with them; steal accounting and the probe's retakes cannot see it: compare's "
        "spread and runs-needed columns carry its cost",
        fix)]
