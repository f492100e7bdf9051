"""``collect()``: the fingerprint stored with every run (keys documented in docs/fingerprint.md)."""
from __future__ import annotations

import os

from .. import topology as topology_mod
from ..machine.cpuinfo import read_cpuinfo
from . import board
from .kernel import cmdline_params, read_isolation
from ..machine.sysroot import SysRoot, parse_cpu_list

SCHEMA = 1
CPU_DIR = "sys/devices/system/cpu"

# Clock sources only a hypervisor offers; the kernel lists them even when it chose the TSC.
_VM_CLOCKSOURCES = {"kvm-clock": "KVM", "hyperv_clocksource_tsc_page": "Hyper-V",
                    "hyperv_clocksource_msr": "Hyper-V", "xen": "Xen", "vmware-tsc": "VMware"}
# DMI vendor / product strings of virtual firmware.
_VM_DMI = {"QEMU": "QEMU/KVM", "KVM": "KVM", "VMware": "VMware", "VirtualBox": "VirtualBox",
           "innotek": "VirtualBox", "Xen": "Xen", "Microsoft Corporation Virtual Machine": "Hyper-V",
           "Amazon EC2": "KVM (Amazon EC2)", "Google Compute Engine": "KVM (Google)", "Parallels": "Parallels",
           "BHYVE": "bhyve", "Firecracker": "Firecracker"}
# Device-tree machines that are virtual boards.
_VM_DT = {"linux,dummy-virt": "QEMU virt"}


def collect(root: SysRoot | str | os.PathLike = "/", probe_meta: dict | None = None, *,
            topology=None) -> dict:
    """Everything about the machine at ``root`` (a SysRoot, or a path) that explains its results, as
    plain JSON values; ``topology``: the machine's, when the caller has read it already."""
    sysroot = SysRoot.of(root)
    topo = topology if topology is not None else topology_mod.read_topology(sysroot)
    per_cpu, machine_fields = read_cpuinfo(sysroot)
    # 'all' and 'N' in cpu lists count possible CPUs, offline ones included.
    possible = parse_cpu_list(sysroot.read(f"{CPU_DIR}/possible")) or topo.online()
    ncpus = max(possible) + 1
    cmdline = sysroot.read("proc/cmdline") or ""
    iso = read_isolation(sysroot, ncpus)
    cpufreq = _cpufreq(sysroot)
    return {
        "schema": SCHEMA,
        "hostname": sysroot.read("proc/sys/kernel/hostname"),
        "machine": {**_machine(sysroot, machine_fields), "revision": board.revision(sysroot, machine_fields)},
        "cpu": _cpu(topo, per_cpu),
        "topology": {
            "cluster_source": topo.cluster_source,
            "per_package": topo.per_package,
            "clusters": [{**({"package": package} if package is not None else {}), "cluster": n,
                          "cpus": [c.cpu for c in members],
                          "core_types": list(dict.fromkeys(c.core_type for c in members))}
                         for (package, n), members in topo.clusters().items()],
            "cpus": [topology_mod.cpu_dict(c) for c in topo.cpus],
            "places": topo.places(),
            **({"problems": list(topo.problems)} if topo.problems else {}),
        },
        "caches": _caches(topo),
        "memory": _memory(sysroot),
        "kernel": {
            "release": sysroot.read("proc/sys/kernel/osrelease"),
            "version": sysroot.read("proc/version"),
            "cmdline": cmdline,
            "isolcpus": iso.isolcpus,
            "isolcpus_flags": iso.isolcpus_flags,
            "nohz_full": iso.nohz_full,
            "rcu_nocbs": iso.rcu_nocbs,
            "preempt": _preempt(sysroot.read("proc/version") or "", cmdline),
        },
        "cpufreq": cpufreq,
        "smt": _smt(sysroot, topo),
        "virtualization": detect_vm(sysroot),
        "load": _load(sysroot),
        "resctrl": {"mounted": sysroot.exists("sys/fs/resctrl/info")},
        "toolchain": _toolchain(probe_meta),
        "probe": _probe(probe_meta),
    }


def from_probe_meta(meta: dict) -> dict:
    """Without the machine's /sys and /proc (a probe stream saved on a board), what its probe
    said of itself: arch, toolchain, probe build and counter."""
    return {"schema": SCHEMA, "machine": {"arch": meta.get("arch")}, "toolchain": _toolchain(meta),
            "probe": _probe(meta), "sysroot": None}


def _caches(topo) -> list[dict]:
    """Caches of one geometry merged: a 64-core server lists its L1d once, with the CPUs it serves
    and each instance's sharing set (Juno's two L2s stay apart: they differ in size)."""
    merged: dict[tuple, dict] = {}
    for c in topo.caches:
        key = (c.level, c.type, c.size, c.ways, c.sets, c.line, len(c.shared_cpus))
        entry = merged.setdefault(key, {"name": c.name, "level": c.level, "type": c.type, "size": c.size,
                                        "ways": c.ways, "sets": c.sets, "line": c.line, "cpus": [],
                                        "instances": 0, "shared_cpus": []})
        entry["cpus"] = sorted(set(entry["cpus"]) | set(c.shared_cpus))
        entry["instances"] += 1
        entry["shared_cpus"].append(list(c.shared_cpus))
    return sorted(merged.values(), key=lambda e: (e["level"], e["type"], e["cpus"]))


def _machine(sysroot: SysRoot, machine_fields: dict) -> dict:
    """The board or server, from the device tree, DMI, or 32-bit Arm's cpuinfo 'Hardware'."""
    model = sysroot.read("sys/firmware/devicetree/base/model")
    if model:
        compatible = (sysroot.read("sys/firmware/devicetree/base/compatible") or "").split("\0")
        return {"model": model, "compatible": [c for c in compatible if c], "source": "devicetree"}
    vendor, product = sysroot.read("sys/class/dmi/id/sys_vendor"), sysroot.read("sys/class/dmi/id/product_name")
    if vendor or product:
        return {"model": " ".join(p for p in (vendor, product) if p), "source": "dmi"}
    if machine_fields.get("Hardware"):
        return {"model": machine_fields["Hardware"], "source": "cpuinfo"}
    return {"model": None, "source": None}


def _cpu(topo, per_cpu: dict) -> dict:
    first = topo.cpus[0]
    out = {"arch": topo.arch, "vendor": first.vendor, "count": len(topo.cpus),
           "core_types": topo.core_types()}
    if first.midr is not None:
        # big.LITTLE parts have no single name: the model is its core types, biggest cluster order.
        out["model"] = " + ".join(topo.core_types())
        out["midr"] = list(dict.fromkeys(c.midr for members in topo.clusters().values()
                                          for c in members if c.midr))
    else:
        out["model"] = first.core_type
        out.update(family=first.family, model_number=first.model, stepping=first.stepping)
        flags = per_cpu.get(first.cpu, {}).get("flags", "").split()
        out["flags"] = sorted(f for f in flags if f in ("sse2", "avx", "avx2", "avx512f", "constant_tsc",
                                                        "nonstop_tsc", "tsc_known_freq", "hypervisor"))
    features = per_cpu.get(first.cpu, {}).get("Features")
    if features:
        out["features"] = features.split()
    return out


def _memory(sysroot: SysRoot) -> dict:
    fields = {}
    for line in (sysroot.read("proc/meminfo") or "").splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            fields[key] = int(parts[0]) * (1024 if parts[1:] == ["kB"] else 1)
    return {"total_bytes": fields.get("MemTotal"), "available_bytes": fields.get("MemAvailable"),
            **board.memory(sysroot)}


def _cpufreq(sysroot: SysRoot) -> dict:
    base = f"{CPU_DIR}/cpufreq"
    policies = []
    for name in sysroot.listdir(base):
        if not name.startswith("policy"):
            continue
        d = f"{base}/{name}"
        cpus = (sysroot.read(f"{d}/related_cpus") or sysroot.read(f"{d}/affected_cpus") or "").split()
        policies.append({
            "policy": name,
            "cpus": sorted(int(c) for c in cpus if c.isdigit()),
            "driver": sysroot.read(f"{d}/scaling_driver"),
            "governor": sysroot.read(f"{d}/scaling_governor"),
            "cur_khz": sysroot.read_int(f"{d}/scaling_cur_freq"),
            "min_khz": sysroot.read_int(f"{d}/scaling_min_freq"),
            "max_khz": sysroot.read_int(f"{d}/scaling_max_freq"),
            "cpuinfo_min_khz": sysroot.read_int(f"{d}/cpuinfo_min_freq"),
            "cpuinfo_max_khz": sysroot.read_int(f"{d}/cpuinfo_max_freq"),
            "boost": _flag(sysroot.read(f"{d}/boost")),
        })
    policies.sort(key=lambda p: p["cpus"][:1])
    return {
        "available": bool(policies),
        "policies": policies,
        "governors": sorted({p["governor"] for p in policies if p["governor"]}),
        "boost": boost_state(sysroot, policies),
    }


def boost_state(sysroot: SysRoot, policies: list[dict]) -> bool | None:
    """True when the CPU may clock above its base frequency (Intel Turbo, AMD Core Performance
    Boost, Arm boost OPPs); None when the kernel does not say."""
    no_turbo = _flag(sysroot.read(f"{CPU_DIR}/intel_pstate/no_turbo"))
    if no_turbo is not None:
        return not no_turbo
    boost = _flag(sysroot.read(f"{CPU_DIR}/cpufreq/boost"))
    if boost is not None:
        return boost
    per_policy = [p["boost"] for p in policies if p.get("boost") is not None]
    return any(per_policy) if per_policy else None


def _flag(text: str | None) -> bool | None:
    return {"1": True, "0": False}.get((text or "").strip())


def _smt(sysroot: SysRoot, topo) -> dict:
    siblings = sorted({c.smt_siblings for c in topo.cpus if len(c.smt_siblings) > 1})
    return {"active": _flag(sysroot.read(f"{CPU_DIR}/smt/active")),
            "control": sysroot.read(f"{CPU_DIR}/smt/control"),
            "siblings": [list(s) for s in siblings]}


def detect_vm(root: SysRoot | str | os.PathLike = "/") -> dict:
    """{'vm': bool, 'hypervisor': name or None, 'evidence': [why]} from what a guest can see
    without privileges: the cpuinfo 'hypervisor' flag (x86), hypervisor-only clock sources,
    /sys/hypervisor, DMI strings of virtual firmware, the QEMU 'virt' device tree."""
    sysroot = SysRoot.of(root)
    evidence, names = [], []
    per_cpu, _ = read_cpuinfo(sysroot)
    if "hypervisor" in next(iter(per_cpu.values()), {}).get("flags", "").split():
        evidence.append("cpuinfo flag 'hypervisor'")
    for source in (sysroot.read("sys/devices/system/clocksource/clocksource0/available_clocksource") or "").split():
        if source in _VM_CLOCKSOURCES:
            evidence.append(f"clock source {source}")
            names.append(_VM_CLOCKSOURCES[source])
    xen = sysroot.read("sys/hypervisor/type")
    if xen:
        evidence.append(f"/sys/hypervisor/type {xen}")
        names.append(xen.capitalize())
    dmi = " ".join(filter(None, (sysroot.read(f"sys/class/dmi/id/{f}") for f in
                                 ("sys_vendor", "product_name", "bios_vendor", "board_vendor"))))
    for needle, name in _VM_DMI.items():
        if needle in dmi:
            evidence.append(f"DMI '{needle}'")
            names.append(name)
            break
    compatible = (sysroot.read("sys/firmware/devicetree/base/compatible") or "").split("\0")
    for needle, name in _VM_DT.items():
        if needle in compatible:
            evidence.append(f"device tree {needle}")
            names.append(name)
    return {"vm": bool(evidence), "hypervisor": names[0] if names else ("unknown" if evidence else None),
            "evidence": evidence}


def _load(sysroot: SysRoot) -> dict:
    parts = (sysroot.read("proc/loadavg") or "").split()
    try:
        loadavg = [float(p) for p in parts[:3]]
        running, total = (int(x) for x in parts[3].split("/"))
    except (ValueError, IndexError):
        return {"loadavg": None}
    return {"loadavg": loadavg, "runnable": running, "tasks": total}


def _preempt(version: str, cmdline: str) -> str | None:
    """'PREEMPT_RT', 'PREEMPT', 'PREEMPT_DYNAMIC' … as /proc/version announces; preempt= on the
    cmdline overrides a dynamic kernel's default."""
    override = cmdline_params(cmdline).get("preempt")
    for model in ("PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT"):
        if f" {model} " in f" {version} ":
            return f"{model} ({override})" if override and model == "PREEMPT_DYNAMIC" else model
    return None


def _toolchain(meta: dict | None) -> dict:
    meta = meta or {}
    return {"compiler": meta.get("compiler"), "cflags": meta.get("cflags")}


def _probe(meta: dict | None) -> dict:
    if not meta:
        return {}
    counter = meta.get("counter") or {}
    return {
        "version": meta.get("probe_version"),
        "build_id": meta.get("build_id"),
        "arch": meta.get("arch"),
        "fallback": meta.get("fallback"),
        "counter": {**{k: counter.get(k) for k in ("name", "freq_hz", "freq_source", "resolution_ns",
                                                   "read_overhead_ticks", "read_overhead_ns")},
                    # what newer metas have: how the stop read is made, and the measured step
                    # (the doctor reads it here)
                    **{k: counter[k] for k in ("stop_read", "step_ticks", "read_mean_ns", "back_to_back",
                                               "quantum_ticks") if k in counter}},
        "core_clock": meta.get("core_clock"),
    }


