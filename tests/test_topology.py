"""Topology from sysfs fixture trees: clusters and cores numbered as firmware numbers them,
core types decoded from MIDR / cpuinfo, cache geometry."""
import shutil
from pathlib import Path

import pytest

from platperf.machine.cpu_models import Midr
from platperf.machine.sysroot import format_cpu_list, parse_cpu_list
from platperf.vocab.sizes import size_or_none
from platperf.topology import TopologyError, read_topology

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
BOARDS = ["juno", "juno-a53-first", "agilex5", "am62x", "x86vm", "qemu-virt-2pkg"]


def copy_fixture(tmp_path, name):
    dest = tmp_path / name
    shutil.copytree(SYSFS / name, dest)
    return dest


def layout(topo):
    return {(c.cluster, c.core): c.core_type for c in topo.cpus}


def test_juno_clusters_follow_tf_a_numbering():
    topo = read_topology(SYSFS / "juno")
    assert topo.cluster_source == "cluster_id"
    assert {n: [c.cpu for c in m] for n, m in topo.clusters().items()} == {(None, 0): [0, 1],
                                                                           (None, 1): [2, 3, 4, 5]}
    assert layout(topo) == {(0, 0): "Cortex-A57", (0, 1): "Cortex-A57", (1, 0): "Cortex-A53",
                            (1, 1): "Cortex-A53", (1, 2): "Cortex-A53", (1, 3): "Cortex-A53"}
    assert topo.place(5) == (None, 1, 3)   # one package: no package in the place
    assert topo.core_types() == ["Cortex-A57", "Cortex-A53"]


def test_juno_booted_on_an_a53_keeps_the_firmware_numbering():
    # Linux CPU 0 is the A53 boot CPU and the A57s are CPUs 1-2 (a 5.10 kernel: the cpu-map
    # cluster is in physical_package_id); (cluster, core) must still mean what TF-A means.
    topo = read_topology(SYSFS / "juno-a53-first")
    assert topo.cluster_source == "package_id"
    assert [topo.place(cpu)[1:] for cpu in range(6)] == [(1, 0), (0, 0), (0, 1), (1, 1), (1, 2), (1, 3)]
    assert layout(topo) == layout(read_topology(SYSFS / "juno"))


def test_agilex5_is_one_dynamiq_cluster_of_two_core_types():
    topo = read_topology(SYSFS / "agilex5")
    assert topo.cluster_source == "package_id"  # no cpu-map: cluster_id is -1
    assert [(c.cpu, c.cluster, c.core, c.core_type) for c in topo.cpus] == [
        (0, 0, 0, "Cortex-A55"), (1, 0, 1, "Cortex-A55"), (2, 0, 2, "Cortex-A76"), (3, 0, 3, "Cortex-A76")]
    assert [c.revision for c in topo.cpus] == ["r2p0", "r2p0", "r4p1", "r4p1"]


def test_am62x_is_four_a53_in_one_cluster():
    topo = read_topology(SYSFS / "am62x")
    assert layout(topo) == {(0, n): "Cortex-A53" for n in range(4)}
    assert {c.midr for c in topo.cpus} == {"0x410fd034"}


def test_x86_vm_uses_the_package_not_the_l2_cluster_id():
    topo = read_topology(SYSFS / "x86vm")
    assert topo.arch == "x86_64"
    assert topo.cluster_source == "package_id"  # cluster_id is 65535 in this VM
    assert [topo.place(c) for c in (0, 1)] == [(None, 0, 0), (None, 0, 1)]
    cpu0 = topo.cpu(0)
    assert (cpu0.vendor, cpu0.family, cpu0.model, cpu0.core_type) == ("AuthenticAMD", 25, 17, "AMD EPYC")
    assert cpu0.midr is None


def test_two_packages_keep_their_clusters_apart():
    # QEMU virt -smp 8,sockets=2,clusters=2,cores=2: Linux numbers cluster_id (and core_id) from
    # 0 in each package, so CPUs 0-1 and 4-5 both say cluster 0. Merged, CPU 4 became (0, 1)
    # and CPU 1 (0, 2); the package keeps each CPU at its own place.
    topo = read_topology(SYSFS / "qemu-virt-2pkg")
    assert (topo.cluster_source, topo.per_package) == ("cluster_id", True)
    assert topo.place(4) == (1, 0, 0) and topo.place(1) == (0, 0, 1)
    assert [topo.place(c) for c in topo.online()] == [
        (p, cl, co) for p in (0, 1) for cl in (0, 1) for co in (0, 1)]
    assert {k: [c.cpu for c in m] for k, m in topo.clusters().items()} == {
        (0, 0): [0, 1], (0, 1): [2, 3], (1, 0): [4, 5], (1, 1): [6, 7]}


def test_the_numbering_of_two_packages_does_not_depend_on_the_other_package(tmp_path):
    # Stable: a CPU's place comes from its own ids, so CPUs 4-7 keep theirs when CPU 1 is
    # offline, and the clusters of package 1 do not move up into package 0's numbers.
    root = copy_fixture(tmp_path, "qemu-virt-2pkg")
    (root / "sys/devices/system/cpu/online").write_text("0,2-7\n")
    topo = read_topology(root)
    assert [topo.place(c) for c in (0, 2, 4, 5, 6, 7)] == [(0, 0, 0), (0, 1, 0), (1, 0, 0), (1, 0, 1),
                                                          (1, 1, 0), (1, 1, 1)]


def test_one_package_with_two_clusters_has_no_package_in_its_place(tmp_path):
    # QEMU virt -smp 4,clusters=2,cores=2 (one socket): what Juno's tables have always looked like.
    root = copy_fixture(tmp_path, "qemu-virt-2pkg")
    (root / "sys/devices/system/cpu/online").write_text("0-3\n")
    topo = read_topology(root)
    assert not topo.per_package
    assert [topo.place(c) for c in range(4)] == [(None, 0, 0), (None, 0, 1), (None, 1, 0), (None, 1, 1)]


@pytest.mark.parametrize("board", BOARDS)
def test_cluster_and_core_are_unique(board):
    topo = read_topology(SYSFS / board)
    places = [topo.place(c) for c in topo.online()]
    assert len(set(places)) == len(places)


def test_without_cluster_or_package_ids_cpus_group_by_core_type(tmp_path):
    root = copy_fixture(tmp_path, "juno-a53-first")
    for f in root.glob("sys/devices/system/cpu/cpu*/topology/physical_package_id"):
        f.unlink()
    topo = read_topology(root)
    assert topo.cluster_source == "core_type"
    # Clusters are numbered by their lowest CPU: the A53s (CPU 0) come first here.
    assert layout(topo) == {(0, 0): "Cortex-A53", (0, 1): "Cortex-A53", (0, 2): "Cortex-A53",
                            (0, 3): "Cortex-A53", (1, 0): "Cortex-A57", (1, 1): "Cortex-A57"}


def write_tree(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def smt_tree(root):
    """Two x86 cores with two threads each, enumerated as Linux does: siblings are n and n+2."""
    files = {"sys/devices/system/cpu/online": "0-3\n", "sys/devices/system/cpu/smt/active": "1\n",
             "proc/cpuinfo": "".join(f"processor\t: {n}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                                     f"model\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz\n"
                                     f"flags\t\t: fpu lm ht\n\n" for n in range(4))}
    for cpu in range(4):
        t = f"sys/devices/system/cpu/cpu{cpu}/topology/"
        files[t + "core_id"] = f"{cpu % 2}\n"
        files[t + "physical_package_id"] = "0\n"
        files[t + "thread_siblings_list"] = f"{cpu % 2},{cpu % 2 + 2}\n"
    return write_tree(root, files)


def test_smt_threads_get_distinct_core_positions(tmp_path):
    topo = read_topology(smt_tree(tmp_path))
    # Ordered by (core_id, cpu): core 0's threads (CPUs 0, 2), then core 1's (1, 3).
    assert [topo.place(c)[1:] for c in range(4)] == [(0, 0), (0, 2), (0, 1), (0, 3)]
    assert topo.cpu(2).smt_siblings == (0, 2)
    assert topo.cpu(0).core_type == "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz"


def test_unknown_cpu_names_the_online_ones():
    topo = read_topology(SYSFS / "am62x")
    with pytest.raises(TopologyError, match=r"CPU 7 is not online \(online: 0-3\)"):
        topo.place(7)


def test_empty_tree_is_a_clear_error(tmp_path):
    with pytest.raises(TopologyError, match="no CPUs found"):
        read_topology(tmp_path)


def test_midr_from_cpuinfo_when_sysfs_has_no_register(tmp_path):
    root = copy_fixture(tmp_path, "juno")
    for d in root.glob("sys/devices/system/cpu/cpu*/regs"):
        shutil.rmtree(d)
    topo = read_topology(root)
    assert layout(topo) == layout(read_topology(SYSFS / "juno"))
    assert topo.cpu(0).midr == "0x411fd070" and topo.cpu(2).midr == "0x410fd030"


# -- caches ---------------------------------------------------------------------------------
def test_juno_caches_per_cluster():
    topo = read_topology(SYSFS / "juno")
    l2 = {c.shared_cpus: (c.size, c.ways, c.sets, c.line) for c in topo.level(2)}
    assert l2 == {(0, 1): (2 << 20, 16, 2048, 64), (2, 3, 4, 5): (1 << 20, 16, 1024, 64)}
    l1i_a57 = [c for c in topo.caches_of(0) if c.name == "L1i"]
    assert [(c.size, c.ways, c.sets) for c in l1i_a57] == [(48 << 10, 3, 256)]
    assert topo.llc(0).size == 2 << 20 and topo.llc(4).size == 1 << 20
    assert topo.llc().shared_cpus == (0, 1)  # the largest last level of the machine
    assert len(topo.level(1)) == 12  # every core's own L1d and L1i, each once


def test_agilex5_l3_is_the_dsu_cache():
    topo = read_topology(SYSFS / "agilex5")
    llc = topo.llc(1)
    assert (llc.name, llc.size, llc.ways, llc.sets, llc.line, llc.shared_cpus) == \
        ("L3", 2 << 20, 16, 2048, 64, (0, 1, 2, 3))
    assert {c.size for c in topo.level(2)} == {128 << 10, 256 << 10}


def test_x86vm_caches_copied_from_this_machine():
    topo = read_topology(SYSFS / "x86vm")
    assert [(c.name, c.size, c.shared_cpus) for c in topo.caches_of(1)] == [
        ("L1d", 32 << 10, (1,)), ("L1i", 32 << 10, (1,)), ("L2", 1 << 20, (1,)), ("L3", 32 << 20, (0, 1))]


def test_sets_are_derived_when_sysfs_omits_them(tmp_path):
    root = copy_fixture(tmp_path, "am62x")
    for f in root.glob("sys/devices/system/cpu/cpu*/cache/index*/number_of_sets"):
        f.unlink()
    assert [c.sets for c in read_topology(root).level(2)] == [512]


# -- MIDR -----------------------------------------------------------------------------------
@pytest.mark.parametrize("part,name", [
    (0xD03, "Cortex-A53"), (0xD05, "Cortex-A55"), (0xD07, "Cortex-A57"), (0xD08, "Cortex-A72"),
    (0xD09, "Cortex-A73"), (0xD0A, "Cortex-A75"), (0xD0B, "Cortex-A76"), (0xD0D, "Cortex-A77"),
    (0xD41, "Cortex-A78"), (0xD44, "Cortex-X1"), (0xD46, "Cortex-A510"), (0xD47, "Cortex-A710"),
    (0xD48, "Cortex-X2"), (0xD4D, "Cortex-A715"), (0xD81, "Cortex-A720"), (0xD4E, "Cortex-X3"),
    (0xD0C, "Neoverse N1"), (0xD40, "Neoverse V1"), (0xD49, "Neoverse N2"), (0xD4F, "Neoverse V2")])
def test_arm_part_numbers(part, name):
    assert Midr.from_fields(0x41, 0, part, 0).core_type == name


def test_midr_fields_and_unknown_parts():
    midr = Midr.parse("0x00000000411fd070")
    assert (midr.implementer, midr.variant, midr.part, midr.revision) == (0x41, 1, 0xD07, 0)
    assert (midr.hex, midr.rev, midr.vendor) == ("0x411fd070", "r1p0", "Arm")
    assert Midr.from_fields(0x41, 0, 0xD99, 0).core_type == "Arm part 0xd99"
    assert Midr.from_fields(0x51, 0, 0x123, 0).core_type == "Qualcomm part 0x123"
    assert Midr.from_fields(0x99, 0, 0x001, 0).core_type == "implementer 0x99 part 0x001"


# -- sysfs syntax ---------------------------------------------------------------------------
@pytest.mark.parametrize("text,cpus", [
    ("0-3,8", [0, 1, 2, 3, 8]), ("5", [5]), ("", []), ("(null)", []), ("0-7:2/4", [0, 1, 4, 5]),
    ("all", [0, 1, 2, 3]), ("2-N", [2, 3])])
def test_cpu_lists(text, cpus):
    assert parse_cpu_list(text, ncpus=4) == cpus


@pytest.mark.parametrize("text", ["3-1", "a-b", "1,,x"])
def test_bad_cpu_lists_are_named(text):
    with pytest.raises(ValueError, match="not a cpu list"):
        parse_cpu_list(text, ncpus=4)


def test_cpu_list_round_trip_and_sizes():
    assert format_cpu_list([5, 0, 1, 2, 7]) == "0-2,5,7"
    assert [size_or_none(s) for s in ("32K", "2048K", "32M", "64", "x")] == [32768, 2 << 20, 32 << 20, 64, None]


def test_32_bit_arm_kernel_from_cpuinfo_alone(tmp_path):
    # An armv7 kernel has no midr_el1 in sysfs and says 'ARMv7 Processor' even on a Cortex-A53.
    block = ("processor\t: {n}\nmodel name\t: ARMv7 Processor rev 4 (v7l)\nBogoMIPS\t: 48.00\n"
             "CPU implementer\t: 0x41\nCPU architecture: 7\nCPU variant\t: 0x0\nCPU part\t: 0x{part:03x}\n"
             "CPU revision\t: 5\n\n")
    text = "".join(block.format(n=n, part=0xC07 if n < 2 else 0xC0F) for n in range(4))
    write_tree(tmp_path, {"proc/cpuinfo": text + "Hardware\t: Generic DT based system\n"})
    topo = read_topology(tmp_path)
    assert topo.arch == "armv7l"
    assert topo.cluster_source == "core_type"
    assert layout(topo) == {(0, 0): "Cortex-A7", (0, 1): "Cortex-A7", (1, 0): "Cortex-A15", (1, 1): "Cortex-A15"}
    assert topo.cpu(2).midr == "0x410fc0f5" and topo.caches == []


def test_intel_hybrid_core_kinds(tmp_path):
    smt_tree(tmp_path)
    write_tree(tmp_path, {"sys/devices/cpu_core/cpus": "0,2\n", "sys/devices/cpu_atom/cpus": "1,3\n"})
    topo = read_topology(tmp_path)
    assert [topo.cpu(c).core_type.rsplit(" ", 1)[1] for c in range(4)] == ["(P-core)", "(E-core)", "(P-core)", "(E-core)"]
    assert len(topo.core_types()) == 2
