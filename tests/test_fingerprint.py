"""The fingerprint stored with every run: stable keys, values read from fixture trees, the
kernel's isolation parameters, and which differences make two runs incomparable."""
import json
import shutil
from pathlib import Path

import pytest

from platperf.fingerprint import collect, comparability_keys, detect_vm, diff
from platperf.fingerprint.kernel import cmdline_params, parse_isolation, read_isolation

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
BOARDS = ["juno", "juno-a53-first", "agilex5", "am62x", "x86vm"]
TOP_KEYS = {"schema", "hostname", "machine", "cpu", "topology", "caches", "memory", "kernel", "cpufreq",
            "smt", "virtualization", "load", "resctrl", "toolchain", "probe"}
META = {"type": "meta", "schema": 1, "probe_version": "0.1.0", "build_id": "3f9c0a1e5b7d2c44",
        "arch": "aarch64", "compiler": "gcc 12.2.0", "cflags": "-O2 -std=c11 -static",
        "counter": {"name": "cntvct", "freq_hz": 50000000, "freq_source": "cntfrq",
                    "resolution_ns": 20.0, "read_overhead_ticks": 1, "read_overhead_ns": 20.0}}


def copy_fixture(tmp_path, name):
    dest = tmp_path / name
    shutil.copytree(SYSFS / name, dest)
    return dest


@pytest.mark.parametrize("board", BOARDS)
def test_keys_are_stable_and_json_round_trips(board):
    fp = collect(SYSFS / board)
    assert set(fp) == TOP_KEYS
    assert json.loads(json.dumps(fp)) == fp
    assert set(fp["kernel"]) >= {"release", "version", "cmdline", "isolcpus", "nohz_full", "rcu_nocbs"}
    assert set(fp["virtualization"]) >= {"vm", "hypervisor"}


def test_juno():
    fp = collect(SYSFS / "juno")
    assert fp["hostname"] == "juno"
    assert fp["machine"] == {"model": "ARM Juno development board (r1)",
                             "compatible": ["arm,juno-r1", "arm,juno", "arm,vexpress"], "source": "devicetree",
                             "revision": None}
    assert fp["cpu"]["arch"] == "aarch64"
    assert fp["cpu"]["model"] == "Cortex-A57 + Cortex-A53"
    assert fp["cpu"]["midr"] == ["0x411fd070", "0x410fd030"]
    assert fp["topology"]["clusters"] == [{"cluster": 0, "cpus": [0, 1], "core_types": ["Cortex-A57"]},
                                          {"cluster": 1, "cpus": [2, 3, 4, 5], "core_types": ["Cortex-A53"]}]
    l2 = [(c["size"], c["cpus"], c["instances"]) for c in fp["caches"] if c["name"] == "L2"]
    assert l2 == [(2 << 20, [0, 1], 1), (1 << 20, [2, 3, 4, 5], 1)]
    assert fp["memory"] == {"total_bytes": 8128648 * 1024, "available_bytes": 7640212 * 1024}
    assert fp["kernel"]["release"] == "6.6.23"
    assert [(p["policy"], p["cpus"], p["governor"], p["min_khz"], p["max_khz"])
            for p in fp["cpufreq"]["policies"]] == [("policy0", [0, 1], "schedutil", 450000, 1150000),
                                                   ("policy2", [2, 3, 4, 5], "schedutil", 450000, 850000)]
    assert fp["cpufreq"]["governors"] == ["schedutil"] and fp["cpufreq"]["boost"] is None
    assert fp["virtualization"]["vm"] is False
    assert fp["load"]["loadavg"] == [0.0, 0.02, 0.0]
    assert fp["smt"] == {"active": False, "control": "notsupported", "siblings": []}


def test_x86vm_is_a_kvm_guest_without_cpufreq():
    fp = collect(SYSFS / "x86vm")
    assert fp["virtualization"]["vm"] is True
    assert fp["virtualization"]["hypervisor"] == "KVM"
    assert fp["cpufreq"] == {"available": False, "policies": [], "governors": [], "boost": None}
    assert (fp["cpu"]["vendor"], fp["cpu"]["family"], fp["cpu"]["model_number"], fp["cpu"]["model"]) == \
        ("AuthenticAMD", 25, 17, "AMD EPYC")
    assert "hypervisor" in fp["cpu"]["flags"]


def test_agilex5_isolation_and_board():
    fp = collect(SYSFS / "agilex5")
    assert fp["machine"]["model"] == "SoCFPGA Agilex5 SoCDK"
    assert (fp["kernel"]["isolcpus"], fp["kernel"]["nohz_full"], fp["kernel"]["rcu_nocbs"]) == ([1], [1], [1])
    assert fp["kernel"]["isolcpus_flags"] == ["nohz", "domain", "managed_irq"]
    assert fp["cpufreq"]["available"] is False
    assert fp["cpu"]["model"] == "Cortex-A55 + Cortex-A76"


def test_probe_meta_fills_toolchain_and_probe():
    fp = collect(SYSFS / "juno", probe_meta=META)
    assert fp["toolchain"] == {"compiler": "gcc 12.2.0", "cflags": "-O2 -std=c11 -static"}
    assert fp["probe"]["build_id"] == "3f9c0a1e5b7d2c44"
    assert fp["probe"]["counter"]["freq_hz"] == 50000000
    assert collect(SYSFS / "juno")["probe"] == {}


def test_boost_from_cpufreq_and_intel_pstate(tmp_path):
    root = copy_fixture(tmp_path, "am62x")
    (root / "sys/devices/system/cpu/cpufreq/boost").write_text("1\n")
    assert collect(root)["cpufreq"]["boost"] is True
    pstate = root / "sys/devices/system/cpu/intel_pstate"
    pstate.mkdir()
    (pstate / "no_turbo").write_text("1\n")  # intel_pstate's switch wins
    assert collect(root)["cpufreq"]["boost"] is False


@pytest.mark.parametrize("files,hypervisor", [
    ({"sys/class/dmi/id/sys_vendor": "QEMU\n", "sys/class/dmi/id/product_name": "Standard PC (Q35 + ICH9, 2009)\n"},
     "QEMU/KVM"),
    ({"sys/firmware/devicetree/base/compatible": "linux,dummy-virt\0"}, "QEMU virt"),
    ({"sys/hypervisor/type": "xen\n"}, "Xen"),
])
def test_vm_detection_sources(tmp_path, files, hypervisor):
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    vm = detect_vm(tmp_path)
    assert vm["vm"] is True and vm["hypervisor"] == hypervisor


def test_bare_metal_boards_are_not_vms():
    assert [detect_vm(SYSFS / b)["vm"] for b in ("juno", "agilex5", "am62x")] == [False, False, False]


# -- kernel command line --------------------------------------------------------------------
@pytest.mark.parametrize("cmdline,iso,flags,nohz,rcu", [
    ("root=/dev/sda2 quiet", [], [], [], []),
    ("isolcpus=1-3", [1, 2, 3], ["domain"], [], []),
    ("isolcpus=nohz,domain,managed_irq,2,3 nohz_full=2-3 rcu_nocbs=2-3", [2, 3],
     ["nohz", "domain", "managed_irq"], [2, 3], [2, 3]),
    ("isolcpus=managed_irq,0-7:2/4", [0, 1, 4, 5], ["managed_irq"], [], []),
    ("nohz_full=all rcu_nocbs", [], [], [0, 1, 2, 3, 4, 5, 6, 7], []),
    ("isolcpus=1 isolcpus=3", [3], ["domain"], [], []),          # the last one wins
    ("quiet -- isolcpus=2 nohz_full=2", [], [], [], []),         # after -- it is init's
])
def test_cmdline_isolation(cmdline, iso, flags, nohz, rcu):
    parsed = parse_isolation(cmdline, ncpus=8)
    assert (parsed.isolcpus, parsed.isolcpus_flags, parsed.nohz_full, parsed.rcu_nocbs) == (iso, flags, nohz, rcu)
    assert parsed.errors == []


def test_malformed_isolation_is_reported_not_raised():
    parsed = parse_isolation("isolcpus=3-1 nohz_full=2", ncpus=4)
    assert parsed.isolcpus == [] and parsed.nohz_full == [2]
    assert len(parsed.errors) == 1 and parsed.errors[0].startswith("isolcpus:")


def test_sysfs_says_what_the_kernel_applied(tmp_path):
    root = copy_fixture(tmp_path, "am62x")
    (root / "proc/cmdline").write_text("root=/dev/mmcblk1p2 isolcpus=2-3 nohz_full=2-3\n")
    (root / "sys/devices/system/cpu/isolated").write_text("3\n")
    iso = read_isolation(root, ncpus=4)
    assert iso.isolcpus == [3]         # sysfs wins over the command line
    assert iso.nohz_full == []         # sysfs nohz_full says (null): not applied
    assert iso.missing_for(3) == ["nohz_full", "rcu_nocbs"]


def test_cmdline_params():
    assert cmdline_params('a=1 b "c=x y" d') == {"a": "1", "b": None, "c": "x y", "d": None}


# -- comparability --------------------------------------------------------------------------
def test_comparability_keys():
    keys = comparability_keys()
    assert {k for k, v in keys.items() if v == "refuse"} == {"cpu.model", "cpu.arch", "topology.places"}
    assert set(keys) >= {"toolchain.compiler", "toolchain.cflags", "probe.build_id", "probe.counter.freq_hz",
                         "cpufreq.governors", "kernel.isolcpus", "kernel.nohz_full", "kernel.rcu_nocbs",
                         "kernel.release"}
    fp = collect(SYSFS / "juno", probe_meta=META)
    for key in keys:  # every key names something a fingerprint has
        node = fp
        for part in key.split("."):
            assert part in node, key
            node = node[part]


def test_diff_same_board_other_kernel_and_governor():
    found = {d.key: d for d in diff(collect(SYSFS / "juno"), collect(SYSFS / "juno-a53-first"))}
    assert set(found) == {"cpufreq.governors", "kernel.release"}
    assert not any(d.refuse for d in found.values())
    assert (found["kernel.release"].base, found["kernel.release"].new) == ("6.6.23", "5.10.120")


def test_diff_refuses_other_cpu_or_architecture():
    juno, am62x, x86 = (collect(SYSFS / b) for b in ("juno", "am62x", "x86vm"))
    assert [d.key for d in diff(juno, am62x) if d.refuse] == ["cpu.model", "topology.places"]
    assert [d.key for d in diff(juno, x86) if d.refuse] == ["cpu.arch", "cpu.model", "topology.places"]


def test_diff_probe_build_and_unknown_sides():
    a = collect(SYSFS / "juno", probe_meta=META)
    b = collect(SYSFS / "juno", probe_meta={**META, "build_id": "ffff", "cflags": "-O3"})
    assert [d.key for d in diff(a, b)] == ["toolchain.cflags", "probe.build_id"]
    assert diff(a, {}) == []  # an ingested log has no fingerprint: nothing known to differ


def smbios_memory_device(kind: int, speed: int, configured: int, size_mb: int = 2048) -> bytes:
    """One SMBIOS type 17 structure (3.x layout, 0x28 bytes) as dmi-sysfs gives its raw file."""
    raw = bytearray(0x28)
    raw[0], raw[1] = 17, 0x28
    raw[0x0C:0x0E] = size_mb.to_bytes(2, "little")
    raw[0x12] = kind
    raw[0x15:0x17] = speed.to_bytes(2, "little")
    raw[0x20:0x22] = configured.to_bytes(2, "little")
    return bytes(raw) + b"\0\0"


def test_board_revision_and_memory_rate_when_the_board_tells_them(tmp_path):
    """DMI's board version and the SMBIOS memory devices (as dmidecode -t memory reads them)
    go into the fingerprint and the report's board table; what a board does not tell is named
    once, at the end of its sentence, as "not reported"."""
    from platperf.report.sections.guide import board_text
    plain = collect(SYSFS / "am62x")
    assert plain["machine"]["revision"] is None and "data_rate_mts" not in plain["memory"]
    text = board_text(plain)
    assert text.startswith("Texas Instruments AM625 SK with ARM running at ")
    assert text.endswith(" (rev and memory data rate not reported)") and text.count("not reported") == 1
    root = copy_fixture(tmp_path, "am62x")
    dmi = root / "sys" / "class" / "dmi" / "id"
    dmi.mkdir(parents=True)
    (dmi / "board_version").write_text("E2\n")
    (dmi / "product_version").write_text("To be filled by O.E.M.\n")
    entries = root / "sys" / "firmware" / "dmi" / "entries"
    for n, device in enumerate([smbios_memory_device(0x1A, 3200, 1600), smbios_memory_device(0x1A, 0, 0, 0)]):
        (entries / f"17-{n}").mkdir(parents=True)
        (entries / f"17-{n}" / "raw").write_bytes(device)
    (entries / "16-0").mkdir()                      # another type: not a memory device
    told = collect(root)
    assert told["machine"]["revision"] == "E2"
    assert (told["memory"]["type"], told["memory"]["data_rate_mts"]) == ("DDR4", 1600)   # the configured rate
    assert board_text(told).startswith("Texas Instruments AM625 SK rev E2 with ARM running at ")
    assert board_text(told).endswith(", DDR4 data rate 1600 MT/S")
