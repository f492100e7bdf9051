"""How the CPUs are set up, from the fingerprint: frequency scaling and boost, SMT siblings,
CPU isolation, and whether the machine is a virtual one."""
from __future__ import annotations

from ..machine.sysroot import format_cpu_list
from ..compare.shared_cache import zone
from ..vocab.sizes import size_label
from .finding import Finding, cpus_text, mhz_text


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
        where = f"{p['policy']} ({cpus_text(p['cpus'])})"
        gov = p.get("governor")
        if gov != "performance":
            fixed = p.get("min_khz") and p.get("min_khz") == p.get("max_khz")
            if fixed:
                out.append(Finding("ok", "frequency-fixed",
                                   f"{where}: governor {gov}, but min = max = {mhz_text(p['max_khz'])}"))
            else:
                out.append(Finding(
                    "warn", "governor-not-performance",
                    f"{where}: governor {gov} scales {mhz_text(p.get('min_khz'))}-{mhz_text(p.get('max_khz'))} "
                    f"(now {mhz_text(p.get('cur_khz'))})",
                    "the first samples run at a low clock and the clock follows load: medians shift and "
                    "spread widens, serial and parallel runs see different clocks",
                    f"echo performance | sudo tee /sys/devices/system/cpu/cpufreq/{p['policy']}/scaling_governor "
                    "(or cpupower frequency-set -g performance)"))
        else:
            out.append(Finding("ok", "governor-performance", f"{where}: governor performance at "
                                                             f"{mhz_text(p.get('max_khz'))}"))
        cap, top = p.get("max_khz"), p.get("cpuinfo_max_khz")
        if cap and top and cap < top:
            out.append(Finding(
                "warn", "frequency-capped",
                f"{where}: scaling_max_freq {mhz_text(cap)} is below the CPU's maximum {mhz_text(top)}",
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
            f"{cpus_text(cpus)} partly isolated: not covered by {', '.join(missing)}",
            {"isolcpus": "the scheduler may still place tasks there",
             "nohz_full": "the scheduler tick still interrupts them",
             "rcu_nocbs": "RCU callbacks still run there"}[missing[0]]
            + "; latency excursions remain",
            f"add {' '.join(m + '=' + format_cpu_list(cpus) for m in missing)} to the kernel command line")]
    return [Finding("ok", "isolated-cpus",
                    f"{cpus_text(cpus)} isolated (isolcpus, nohz_full, rcu_nocbs): run latency tests there")]


def check_vm(fp: dict) -> list[Finding]:
    vm = fp.get("virtualization") or {}
    if not vm.get("vm"):
        return [Finding("ok", "bare-metal", "no sign of a hypervisor: bare metal")]
    shared = zone([fp])
    held = (f"; a gate (run --against) leaves undecided the keys whose working set lies in the "
            f"cache the host shares ({size_label(shared.low)} .. {size_label(shared.high)})" if shared else "")
    return [Finding(
        "warn", "virtual-machine",
        f"running in a virtual machine ({vm.get('hypervisor')}; {', '.join(vm.get('evidence') or [])})",
        "vCPUs are host threads: the host preempts them (latency maxima are the host's), caches and "
        "memory bandwidth are shared with other guests, and the counter may be virtualised" + held,
        "measure releases on bare metal; in a VM pin the vCPUs on the host and compare only runs "
        "from the same host and guest size")]


def check_topology(fp: dict) -> list[Finding]:
    """CPU ids that contradict themselves (topology.read_topology's problems): one finding each,
    naming the CPUs, their ids and how they were keyed; the other CPUs are untouched."""
    return [Finding(
        "warn", "topology-contradicts-itself", f"the CPU topology contradicts itself: {problem}",
        "results are keyed by (package, cluster, core): these CPUs are keyed from what is valid for "
        "them, and a run keyed otherwise does not compare with this one",
        "fix the device tree's cpu-map (or the firmware's MPIDR affinities) so that every CPU has one "
        "cluster and core; compare refuses runs whose CPUs are placed otherwise unless --force")
        for problem in (fp.get("topology") or {}).get("problems") or []]
