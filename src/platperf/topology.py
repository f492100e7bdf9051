"""Which CPUs a machine has, how they group into clusters, what core each one is, and the caches.

Numbering rules (results are keyed by ``(package, cluster, core)``, so these must not drift):

* **cluster** — the first of these that is meaningful for every online CPU:
  1. ``topology/cluster_id`` on Arm, when it is >= 0. Linux takes it from the device tree's
     ``cpu-map`` (``cluster0``, ``cluster1``), which is also the numbering firmware uses: on
     Juno r1 the A57 pair is cluster 0 and the A53 quad cluster 1, as in TF-A's tables, even
     when Linux numbers an A53 as CPU 0. Without a cpu-map the kernel writes -1. On x86
     ``cluster_id`` is the L2 domain (one per core on most parts, 65535 in VMs), so it is not used.
  2. ``topology/physical_package_id`` when >= 0 (arm64 kernels before 5.16 put the cpu-map
     cluster here; on x86 it is the socket).
  3. otherwise CPUs are grouped by core type, clusters numbered by their lowest CPU.
  The rule used is recorded in ``Topology.cluster_source``.
* **package** — part of a CPU's place only where ``cluster_id`` is the cluster and the CPUs
  span several packages (``Topology.per_package``): Linux numbers the device tree's
  ``socketN/clusterM`` from 0 in each socket (QEMU ``-smp 8,sockets=2,clusters=2,cores=2``:
  CPUs 0-1 and 4-5 both say cluster 0), so the cluster alone names two clusters. Elsewhere
  it is None, and the place reads as before: a one-package board's tables have no package.
* **core** — the position of the CPU within its (package,) cluster, ordering by (``core_id``, CPU number).
  With the cpu-map this is TF-A's core number (``core_id`` counts from 0 in each cluster); with
  SMT the threads of one core get consecutive positions, so ``(cluster, core)`` stays unique.
  The kernel's own ids are kept in ``core_id`` and ``package``.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field

from .machine.cpu_models import Midr, x86_core_type
from .machine.cpuinfo import arch_from_cpuinfo, read_cpuinfo
from .machine.sysroot import SysRoot, parse_cpu_list, format_cpu_list
from .vocab.sizes import size_or_none

CPU_DIR = "sys/devices/system/cpu"


class TopologyError(ValueError):
    """A CPU that the machine does not have, or a tree with no CPUs at all."""


@dataclass(frozen=True)
class Cpu:
    cpu: int
    cluster: int
    core: int
    core_type: str            # 'Cortex-A53', 'AMD EPYC'
    vendor: str               # 'Arm', 'AuthenticAMD'
    midr: str | None = None   # '0x410fd030' on Arm
    revision: str | None = None   # 'r0p3' on Arm
    family: int | None = None     # x86
    model: int | None = None      # x86
    stepping: int | None = None   # x86
    core_id: int | None = None
    package: int | None = None
    smt_siblings: tuple[int, ...] = ()
    capacity: int | None = None   # cpu_capacity (1024 = the biggest core at its highest OPP)


@dataclass(frozen=True)
class Cache:
    level: int
    type: str                 # 'data', 'instruction', 'unified'
    size: int | None          # bytes
    ways: int | None
    sets: int | None
    line: int | None          # bytes
    shared_cpus: tuple[int, ...]

    @property
    def name(self) -> str:
        return f"L{self.level}" + {"data": "d", "instruction": "i"}.get(self.type, "")


@dataclass
class Topology:
    arch: str
    cpus: list[Cpu]
    caches: list[Cache] = field(default_factory=list)
    cluster_source: str = "cluster_id"
    per_package: bool = False     # cluster ids restart in each package: the package is in the place
    problems: list[str] = field(default_factory=list)   # ids that contradict themselves, and what was done

    def cpu(self, cpu: int) -> Cpu:
        for entry in self.cpus:
            if entry.cpu == cpu:
                return entry
        raise TopologyError(f"CPU {cpu} is not online (online: {format_cpu_list(self.online())})")

    def place(self, cpu: int) -> tuple[int | None, int, int]:
        """(package, cluster, core) of a logical CPU; package is None unless ``per_package``."""
        return self.place_of(self.cpu(cpu))

    def place_of(self, entry: Cpu) -> tuple[int | None, int, int]:
        return (entry.package if self.per_package else None), entry.cluster, entry.core

    def online(self) -> list[int]:
        return [c.cpu for c in self.cpus]

    def clusters(self) -> dict[tuple[int | None, int], list[Cpu]]:
        """{(package, cluster): CPUs in core order}, package None unless ``per_package``."""
        out: dict[tuple[int | None, int], list[Cpu]] = {}
        for entry in sorted(self.cpus, key=lambda c: (self.place_of(c)[0] or 0, c.cluster, c.core)):
            out.setdefault(self.place_of(entry)[:2], []).append(entry)
        return out

    def core_types(self) -> list[str]:
        """Distinct core types in cluster order: ['Cortex-A57', 'Cortex-A53'] on Juno."""
        seen: list[str] = []
        for members in self.clusters().values():
            for entry in members:
                if entry.core_type not in seen:
                    seen.append(entry.core_type)
        return seen

    def caches_of(self, cpu: int) -> list[Cache]:
        self.cpu(cpu)
        return [c for c in self.caches if cpu in c.shared_cpus]

    def level(self, level: int) -> list[Cache]:
        return [c for c in self.caches if c.level == level]

    def llc(self, cpu: int | None = None) -> Cache | None:
        """The last-level data (or unified) cache of ``cpu``; without a cpu, the largest last-level
        cache of the machine (on Juno the A57 cluster's 2 MiB L2, not the A53's 1 MiB)."""
        pool = self.caches_of(cpu) if cpu is not None else self.caches
        pool = [c for c in pool if c.type != "instruction"]
        if not pool:
            return None
        top = max(c.level for c in pool)
        return max((c for c in pool if c.level == top), key=lambda c: (c.size or 0, len(c.shared_cpus)))

    def to_dict(self) -> dict:
        return {"arch": self.arch, "cluster_source": self.cluster_source, "per_package": self.per_package,
                "cpus": [cpu_dict(c) for c in self.cpus],
                "caches": [cache_dict(c) for c in self.caches],
                **({"problems": list(self.problems)} if self.problems else {})}

    def places(self) -> list[list]:
        """[package, cluster, core, core type] of every CPU, in key order: what a run's keys
        mean (a run whose places differ from another's does not pair with it key for key; the
        CPU numbers are left out: Linux may number the same cores otherwise at another boot)."""
        return sorted(([*self.place_of(c), c.core_type] for c in self.cpus),
                      key=lambda p: (-1 if p[0] is None else p[0], p[1], p[2]))


def cpu_dict(cpu: Cpu) -> dict:
    d = asdict(cpu)
    d["smt_siblings"] = list(cpu.smt_siblings)
    return {k: v for k, v in d.items() if v is not None}


def cache_dict(cache: Cache) -> dict:
    d = asdict(cache)
    d["shared_cpus"] = list(cache.shared_cpus)
    d["name"] = cache.name
    return d


def online_cpus(root: SysRoot | str | os.PathLike = "/") -> list[int]:
    """The CPUs the kernel has online (``cpu/online``; the cpuN directories when it is absent)."""
    sysroot = SysRoot.of(root)
    text = sysroot.read(f"{CPU_DIR}/online")
    if text:
        return parse_cpu_list(text)
    return sorted(int(n[3:]) for n in sysroot.listdir(CPU_DIR) if n.startswith("cpu") and n[3:].isdigit())


def read_topology(root: SysRoot | str | os.PathLike = "/") -> Topology:
    """The topology of the machine at ``root``: a SysRoot (e.g. a remote target's snapshot) or a path."""
    sysroot = SysRoot.of(root)
    per_cpu, _ = read_cpuinfo(sysroot)
    arch = arch_from_cpuinfo(per_cpu)
    cpus = online_cpus(sysroot) or sorted(per_cpu)
    if not cpus:
        raise TopologyError(f"no CPUs found under {sysroot} (neither {CPU_DIR}/online nor /proc/cpuinfo)")
    is_x86 = arch in ("x86_64", "i686")

    hybrid = _x86_hybrid(sysroot) if is_x86 else {}
    raw = {}
    for cpu in cpus:
        topo = f"{CPU_DIR}/cpu{cpu}/topology"
        raw[cpu] = {
            "ident": _identify(sysroot, cpu, per_cpu.get(cpu, {}), is_x86),
            "core_id": sysroot.read_int(f"{topo}/core_id"),
            "package": sysroot.read_int(f"{topo}/physical_package_id"),
            "cluster_id": sysroot.read_int(f"{topo}/cluster_id"),
            "siblings": tuple(parse_cpu_list(sysroot.read(f"{topo}/thread_siblings_list")) or [cpu]),
            "capacity": sysroot.read_int(f"{CPU_DIR}/cpu{cpu}/cpu_capacity"),
        }
        if cpu in hybrid:
            raw[cpu]["ident"]["core_type"] += f" ({hybrid[cpu]})"

    caches = _read_caches(sysroot, cpus)
    source, cluster_of, problems = _clusters(raw, cpus, caches, is_x86)
    per_package = source == "cluster_id" and all(_valid(r["package"]) for r in raw.values()) \
        and len({r["package"] for r in raw.values()}) > 1
    group_of = {c: (raw[c]["package"] if per_package else None, cluster_of[c]) for c in cpus}
    core_of = {}
    for group in set(group_of.values()):
        members = sorted((c for c in cpus if group_of[c] == group),
                         key=lambda c: (raw[c]["core_id"] if raw[c]["core_id"] is not None else c, c))
        core_of.update({c: i for i, c in enumerate(members)})
        if source == "cluster_id":      # grouped otherwise, core ids restart in each hidden cluster
            problems += _same_core(members, raw, group)

    entries = [Cpu(cpu=c, cluster=cluster_of[c], core=core_of[c], core_id=raw[c]["core_id"],
                   package=raw[c]["package"], smt_siblings=tuple(s for s in raw[c]["siblings"] if s in cpus),
                   capacity=raw[c]["capacity"], **raw[c]["ident"]) for c in cpus]
    return Topology(arch=arch, cpus=entries, caches=caches, cluster_source=source,
                    per_package=per_package, problems=problems)


def _valid(value) -> bool:
    """An id the kernel means: -1 and 65535 are its "unknown" (x86 VMs, arm64 without a cpu-map)."""
    return value is not None and 0 <= value < 65535


def _nonsense(value) -> bool:
    """An id that is neither valid nor the kernel's "unknown": a firmware or driver bug."""
    return value is not None and not _valid(value) and value not in (-1, 65535)


def _clusters(raw: dict, cpus: list[int], caches: list[Cache], is_x86: bool) -> tuple[str, dict, list[str]]:
    """(the rule, {cpu: cluster}, what contradicts itself). Arm's cluster_id where the CPUs
    give one; a CPU whose id is out of range or missing while the others' are valid is placed
    from what is valid for it (the cluster of the CPUs it shares a cache with, else of its core
    type) and said, the others untouched. Else package ids, else core types."""
    ids = {c: raw[c]["cluster_id"] for c in cpus}
    bad = sorted(c for c in cpus if _nonsense(ids[c]) or (ids[c] is None and any(_valid(v) for v in ids.values())))
    problems = [f"cluster_id out of range or missing on CPU(s) {format_cpu_list(bad)} "
                f"({', '.join(f'CPU {c}: {ids[c]}' for c in bad[:6])})"] if bad and not is_x86 else []
    good = {c: v for c, v in ids.items() if _valid(v)}
    if not is_x86 and good and (len(good) == len(cpus) or bad):
        cluster_of, placed = dict(good), []
        for c in bad:
            cluster_of[c], how = _place_alone(c, good, raw, caches)
            placed.append(f"CPU {c} {how}")
        if placed:
            problems[0] += ": " + "; ".join(placed)
        return "cluster_id", cluster_of, problems
    if all(_valid(r["package"]) for r in raw.values()):
        if problems:
            problems[0] += ": every CPU grouped by its package id instead"
        return "package_id", {c: r["package"] for c, r in raw.items()}, problems
    types = list(dict.fromkeys(raw[c]["ident"]["core_type"] for c in cpus))
    if problems:
        problems[0] += ": every CPU grouped by its core type instead"
    return "core_type", {c: types.index(r["ident"]["core_type"]) for c, r in raw.items()}, problems


def _place_alone(cpu: int, good: dict, raw: dict, caches: list[Cache]) -> tuple[int, str]:
    """A cluster for a CPU whose own id is not valid: that of the CPUs it shares its smallest
    shared cache with (a cluster's L2 or L3), else that of its core type, else one of its own."""
    for cache in sorted((c for c in caches if cpu in c.shared_cpus and len(c.shared_cpus) > 1),
                        key=lambda c: (len(c.shared_cpus), c.level)):
        theirs = {good[c] for c in cache.shared_cpus if c in good}
        if len(theirs) == 1:
            cluster = theirs.pop()
            return cluster, f"placed in cluster {cluster} (its {cache.name} is that cluster's)"
    kind = raw[cpu]["ident"]["core_type"]
    theirs = {v for c, v in good.items() if raw[c]["ident"]["core_type"] == kind}
    if len(theirs) == 1:
        cluster = theirs.pop()
        return cluster, f"placed in cluster {cluster} (the one cluster of {kind} cores)"
    cluster = max(good.values()) + 1 + sorted(c for c in raw if c not in good).index(cpu)
    return cluster, f"given cluster {cluster} of its own (nothing valid places it)"


def _same_core(members: list[int], raw: dict, group: tuple) -> list[str]:
    """CPUs of one cluster that say the same core_id and are not SMT threads of one core."""
    by_id: dict[int, list[int]] = {}
    for c in members:
        if raw[c]["core_id"] is not None:
            by_id.setdefault(raw[c]["core_id"], []).append(c)
    out = []
    for core_id, cpus in by_id.items():
        if len(cpus) > 1 and not all(set(cpus) <= set(raw[c]["siblings"]) for c in cpus):
            where = f"package {group[0]} cluster {group[1]}" if group[0] is not None else f"cluster {group[1]}"
            out.append(f"CPUs {format_cpu_list(cpus)} all say core_id {core_id} in {where} and are not SMT "
                       f"threads of one core: keyed by their order, as cores "
                       f"{', '.join(str(members.index(c)) for c in cpus)}")
    return out


def _identify(sysroot: SysRoot, cpu: int, block: dict[str, str], is_x86: bool) -> dict:
    if is_x86:
        def num(key):
            value = block.get(key, "")
            return int(value) if value.isdigit() else None
        family, model = num("cpu family"), num("model")
        return {"vendor": block.get("vendor_id", "unknown"), "family": family, "model": model,
                "stepping": num("stepping"),
                "core_type": x86_core_type(block.get("vendor_id"), family, model, block.get("model name"))}
    midr = None
    # The sysfs register is exact; cpuinfo's fields are the fallback for kernels without it.
    text = sysroot.read(f"{CPU_DIR}/cpu{cpu}/regs/identification/midr_el1")
    if text:
        try:
            midr = Midr.parse(text)
        except ValueError:
            midr = None
    if midr is None and "CPU implementer" in block:
        try:
            midr = Midr.from_fields(int(block["CPU implementer"], 16), int(block.get("CPU variant", "0"), 16),
                                    int(block.get("CPU part", "0"), 16), int(block.get("CPU revision", "0"), 0))
        except ValueError:
            midr = None
    if midr is None:
        return {"vendor": "unknown", "core_type": block.get("model name", "unknown")}
    return {"vendor": midr.vendor, "midr": midr.hex, "revision": midr.rev, "core_type": midr.core_type}


def _x86_hybrid(sysroot: SysRoot) -> dict[int, str]:
    """Intel hybrid parts (Alder Lake and later) report one brand string for both core kinds;
    the kernel's PMU devices cpu_core / cpu_atom say which CPU is which."""
    kinds = {}
    for pmu, kind in (("cpu_core", "P-core"), ("cpu_atom", "E-core")):
        for cpu in parse_cpu_list(sysroot.read(f"sys/devices/{pmu}/cpus")):
            kinds[cpu] = kind
    return kinds


_CACHE_TYPES = {"Data": "data", "Instruction": "instruction", "Unified": "unified"}


def _read_caches(sysroot: SysRoot, cpus: list[int]) -> list[Cache]:
    """Each physical cache once, however many CPUs list it (shared_cpu_list identifies it)."""
    seen: dict[tuple, Cache] = {}
    for cpu in cpus:
        base = f"{CPU_DIR}/cpu{cpu}/cache"
        for index in sysroot.listdir(base):
            if not index.startswith("index"):
                continue
            d = f"{base}/{index}"
            level = sysroot.read_int(f"{d}/level")
            if level is None:
                continue
            ctype = _CACHE_TYPES.get(sysroot.read(f"{d}/type") or "", "unified")
            shared = tuple(parse_cpu_list(sysroot.read(f"{d}/shared_cpu_list")) or [cpu])
            size = size_or_none(sysroot.read(f"{d}/size"))
            ways = sysroot.read_int(f"{d}/ways_of_associativity") or None  # 0: fully associative/unknown
            line = sysroot.read_int(f"{d}/coherency_line_size") or None
            sets = sysroot.read_int(f"{d}/number_of_sets") or None
            if sets is None and size and ways and line:
                sets = size // (ways * line)
            key = (level, ctype, shared)
            seen.setdefault(key, Cache(level, ctype, size, ways, sets, line, shared))
    return sorted(seen.values(), key=lambda c: (c.level, c.type, c.shared_cpus))
