"""The package carries a static probe per architecture (hatch_build.py) and
platperf.probe_path finds the one a target needs. The shipped files are checked as an
installed package has them (src/platperf/_bin after `pip install -e .`): ELF header of the
right machine, no program interpreter (static), and the cross ones run under qemu-user.
"""
from __future__ import annotations

import json
import os
import platform
import struct
import subprocess
from pathlib import Path

import pytest

from conftest import missing, require_executable
from platperf import probe_path
from platperf.probe_path import ARCHES, ProbeNotFound, find_probe, probe_arch

BIN = Path(probe_path.__file__).resolve().parent / "_bin"
# ELF e_machine of each architecture: EM_X86_64, EM_AARCH64, EM_ARM
E_MACHINE = {"x86_64": 62, "aarch64": 183, "armv7": 40}
CROSS_COMPILER = {"aarch64": "aarch64-linux-gnu-gcc", "armv7": "arm-linux-gnueabihf-gcc"}
QEMU = {"aarch64": "qemu-aarch64-static", "armv7": "qemu-arm-static"}
PT_INTERP = 3


@pytest.mark.parametrize("machine,arch", [
    ("x86_64", "x86_64"), ("amd64", "x86_64"), ("aarch64", "aarch64"), ("arm64", "aarch64"),
    ("armv7l", "armv7"), ("armv7", "armv7"), ("armv8l", "armv7"), ("aarch64\n", "aarch64"),
])
def test_probe_arch_maps_uname_m(machine, arch):
    assert probe_arch(machine) == arch


@pytest.mark.parametrize("machine", ["mips", "riscv64", "i686", "armv6l", ""])
def test_probe_arch_refuses_machines_without_a_probe(machine):
    with pytest.raises(ProbeNotFound) as err:
        probe_arch(machine)
    assert str(err.value) == f"no probe for machine '{machine}' (platperf ships x86_64, aarch64, armv7)"


def test_environment_names_the_probe_of_an_architecture(tmp_path, monkeypatch):
    fake = tmp_path / "probe-aarch64"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PLATPERF_PROBE_AARCH64", str(fake))
    assert find_probe("aarch64") == fake
    fake.chmod(0o644)
    with pytest.raises(ProbeNotFound, match="PLATPERF_PROBE_AARCH64=.* is not an executable file"):
        find_probe("aarch64")


def test_unknown_architecture_is_refused():
    with pytest.raises(ProbeNotFound, match="no probe for architecture 'mips'"):
        find_probe("mips")


def test_a_missing_cross_probe_says_what_to_build(tmp_path, monkeypatch):
    other = "armv7" if probe_arch(platform.machine()) != "armv7" else "aarch64"
    monkeypatch.setattr(probe_path, "_BIN", tmp_path / "bin")
    monkeypatch.setattr(probe_path, "_BUILD", tmp_path / "build")
    monkeypatch.delenv(f"PLATPERF_PROBE_{other.upper()}", raising=False)
    with pytest.raises(ProbeNotFound) as err:
        find_probe(other)
    assert "make probe-cross" in str(err.value) and "apt install gcc-" in str(err.value)


def test_a_probe_rebuilt_after_the_install_is_the_one_run(tmp_path, monkeypatch):
    """`make probe` in a checkout rebuilds build/probe/ after `pip install -e .` copied the
    probe into _bin/ (copy2: same mtime): the newer build must not be shadowed by the copy."""
    monkeypatch.setattr(probe_path, "_BIN", tmp_path / "bin")
    monkeypatch.setattr(probe_path, "_BUILD", tmp_path / "build")
    monkeypatch.delenv("PLATPERF_PROBE", raising=False)
    copy, built = tmp_path / "bin" / "platperf-probe", tmp_path / "build" / "native" / "platperf-probe"
    for path in (copy, built):
        path.parent.mkdir(parents=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
        os.utime(path, (1000, 1000))
    assert find_probe() == copy                 # as installed: the package's copy
    os.utime(built, (2000, 2000))
    assert find_probe() == built                # rebuilt since: the build tree's
    os.utime(copy, (3000, 3000))
    assert find_probe() == copy                 # reinstalled since: the copy again


def test_this_machines_arch_falls_back_to_the_native_probe(monkeypatch):
    native = find_probe()
    arch = probe_arch(platform.machine())
    monkeypatch.delenv(f"PLATPERF_PROBE_{arch.upper()}", raising=False)
    assert find_probe(arch).read_bytes() == Path(native).read_bytes()


def elf_header(path: Path) -> tuple[int, int, list[int]]:
    """(ELF class 32/64, e_machine, program header types) of a little-endian ELF file."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF", f"{path} is not an ELF file"
    assert data[5] == 1, "little-endian expected"
    bits = {1: 32, 2: 64}[data[4]]
    (machine,) = struct.unpack_from("<H", data, 18)
    if bits == 64:
        (phoff,) = struct.unpack_from("<Q", data, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    else:
        (phoff,) = struct.unpack_from("<I", data, 0x1C)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x2A)
    types = [struct.unpack_from("<I", data, phoff + i * phentsize)[0] for i in range(phnum)]
    return bits, machine, types


def shipped(arch: str) -> Path:
    if arch in CROSS_COMPILER and probe_arch(platform.machine()) != arch:
        require_executable(CROSS_COMPILER[arch], "make deps")
    path = BIN / f"platperf-probe-{arch}"
    if not path.exists():
        if probe_arch(platform.machine()) == arch or arch in CROSS_COMPILER:
            pytest.fail(f"{path} is missing although it can be built here: pip install -e . must ship it")
        missing(f"no {arch} probe can be built on this machine")
    return path


@pytest.mark.parametrize("arch", ARCHES)
def test_each_shipped_probe_is_a_static_elf_of_its_machine(arch, monkeypatch):
    path = shipped(arch)
    bits, machine, types = elf_header(path)
    assert machine == E_MACHINE[arch]
    assert bits == (32 if arch == "armv7" else 64)
    assert PT_INTERP not in types          # no dynamic loader: runs on a bare root file system
    assert os.access(path, os.X_OK)
    monkeypatch.delenv(f"PLATPERF_PROBE_{arch.upper()}", raising=False)
    assert find_probe(arch) == path


def test_the_native_name_is_still_this_machines_probe():
    arch = probe_arch(platform.machine())
    native = BIN / "platperf-probe"
    if not native.exists():
        missing("the package has no _bin/platperf-probe (pip install -e .)")
    assert elf_header(native)[1] == E_MACHINE[arch]
    assert native.read_bytes() == shipped(arch).read_bytes()


@pytest.mark.parametrize("arch", ARCHES)
def test_each_shipped_probe_lists_its_kernels(arch):
    path = shipped(arch)
    runner = []
    if arch != probe_arch(platform.machine()):
        if arch not in QEMU:
            missing(f"no qemu-user runner for {arch} probes is set up here")
        runner = [require_executable(QEMU[arch], "make deps")]
    proc = subprocess.run([*runner, str(path), "list", "--json"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    names = {k["name"] for k in json.loads(proc.stdout)["kernels"]}
    assert {"mem-latency", "mem-bandwidth"} <= names
