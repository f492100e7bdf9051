"""Virtual boards: QEMU ``virt`` guests built from Debian's own Arm packages, reached over SSH.

A virtual board is what a real board is to platperf: a real Arm Linux kernel (Debian's
``linux-image-arm64`` / ``linux-image-armmp``) with PSCI, CPU hotplug, cpuidle, a cpu-map
topology, and an SSH server (dropbear) on 127.0.0.1. Nothing is built from source:

* :func:`build` downloads the Debian packages of one architecture (``apt-get download``, cached
  by file name, which carries the version) and writes a kernel and an initramfs: busybox-static,
  dropbear-bin and the libraries it loads (libgmp10 through libtomcrypt1, not in its own Depends),
  the virtio modules Debian builds as modules, a pre-generated host key (dropbear ``-R`` would
  make a new one each boot), the user's key, and the project's static probe. The images are
  cached too, keyed by the packages, the probe and this file.
* :class:`VirtualBoard` starts ``qemu-system-*`` with ``-smp N,sockets=S,clusters=C,cores=K``,
  optionally idle states and caches added to its device tree, its SSH port forwarded from 127.0.0.1 only
  (``-netdev user,restrict=on``: the guest reaches nothing else), and writes an ``ssh_config``
  whose Host alias (``vboard-aarch64``) ``platperf --target ssh://vboard-aarch64`` takes.
* The pytest fixtures (session scope, started on first use) and ``python tests/vboard.py
  start|stop`` (``make vboard``) use both. Under TCG timings mean nothing: these boards are
  for functional tests only.

The cache is ``$PLATPERF_VBOARD_CACHE``, else ``$XDG_CACHE_HOME/platperf/vboard``, else
``~/.cache/platperf/vboard``. apt must know Debian's arm64 and armhf packages:
``dpkg --add-architecture arm64``, the same for armhf, then ``apt-get update`` (the Makefile's
``deps`` does it).
"""
from __future__ import annotations

import argparse
import base64
import dataclasses
import gzip
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import pytest
from sshd_server import free_port

HERE = Path(__file__).resolve()
# The modules Debian builds as modules that virtio-net-pci needs, in load order (virtio and
# virtio_ring are built in; a module the kernel has built in is skipped).
MODULES = ("failover", "net_failover", "virtio_pci_legacy_dev", "virtio_pci_modern_dev",
           "virtio_pci", "virtio_net")
# The quick suite's parallel mem-latency runs 64 MiB on every CPU at once, within half the
# memory available (the probe's cap). QEMU allocates the guest's memory only as it is touched.
MEMORY_MB_PER_CPU, MEMORY_MB_MIN = 256, 1024
APT_LISTS = Path("/var/lib/apt/lists")
BOOT_TIMEOUT_S = 300     # TCG on a busy 2-core machine: an 8-CPU guest can take a minute


@dataclasses.dataclass(frozen=True)
class Guest:
    """One architecture's guest: which Debian packages, which QEMU and machine."""
    arch: str               # the probe's architecture name
    deb_arch: str
    kernel: str             # the Debian metapackage that names the current kernel
    qemu: str
    machine: str
    cpu: str
    # dropbear-bin's libraries: its Depends, and libgmp10, which libtomcrypt1 loads (not in dropbear-bin's list).
    packages: tuple[str, ...] = ("busybox-static", "dropbear-bin", "libc6", "libcrypt1", "zlib1g",
                                 "libtomcrypt1", "libtommath1", "libgmp10")
    a15_pmu: bool = False   # the device tree's PMU node filled (A15_PMU): QEMU's virt leaves it empty


GUESTS = {
    "aarch64": Guest("aarch64", "arm64", "linux-image-arm64", "qemu-system-aarch64", "virt",
                     "cortex-a57"),
    # highmem=off: a 32-bit kernel without LPAE cannot reach PCI above 4 GiB.
    "armv7": Guest("armv7", "armhf", "linux-image-armmp", "qemu-system-arm", "virt,highmem=off",
                   "cortex-a15", a15_pmu=True),
}


class VboardError(RuntimeError):
    """Something a virtual board needs is missing or failed: one line saying what and what to do."""


def cache_dir() -> Path:
    if os.environ.get("PLATPERF_VBOARD_CACHE"):
        return Path(os.environ["PLATPERF_VBOARD_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "platperf" / "vboard"


def missing_parts(arch: str = "aarch64") -> str | None:
    """What this machine lacks to build and start ``arch``'s virtual board, or None."""
    guest = GUESTS[arch]
    for tool, package in ((guest.qemu, "qemu-system-arm"), ("dtc", "device-tree-compiler"),
                          ("dpkg-deb", "dpkg"), ("apt-get", "apt"), ("readelf", "binutils"),
                          ("ssh", "openssh-client"), ("ssh-keygen", "openssh-client")):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian {package}; make deps)"
    if candidates(guest, cache_dir()) is None:
        return (f"Debian's {guest.deb_arch} packages are not known to apt "
                f"(dpkg --add-architecture {guest.deb_arch}; apt-get update; or make deps)")
    try:
        from platperf.probe_path import ProbeNotFound, find_probe
        find_probe(arch)
    except ProbeNotFound:
        return f"the {arch} probe is not built (make probe-cross)"
    return None


# -- the Debian packages ----------------------------------------------------------------------
def _show(names: list[str], deb_arch: str) -> list[dict] | None:
    """apt's candidate of each package: its fields (Package, Version, Depends, Filename)."""
    done = subprocess.run(["apt-cache", "show", "--no-all-versions", *(f"{n}:{deb_arch}" for n in names)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        return None
    out = []
    for block in done.stdout.strip().split("\n\n"):
        fields = dict(re.findall(r"^([\w-]+): (.*)$", block, re.M))
        if "Filename" in fields:
            out.append(fields)
    return out if len(out) == len(names) else None


def _lists_stamp() -> str:
    try:
        return str(max(p.stat().st_mtime_ns for p in APT_LISTS.iterdir()))
    except (OSError, ValueError):
        return "none"


def candidates(guest: Guest, cache: Path) -> tuple[str, list[dict]] | None:
    """The kernel package's name (the one the metapackage names) and apt's candidate of each
    package the guest is made of; remembered until apt's package lists change (apt-cache takes
    seconds on a busy machine). None when apt does not know them."""
    memo = cache / "debs" / f"candidates-{guest.deb_arch}.json"
    key = {"lists": _lists_stamp(), "kernel": guest.kernel, "packages": list(guest.packages)}
    try:
        saved = json.loads(memo.read_text())
        if saved["key"] == key:
            return saved["image"], saved["fields"]
    except (OSError, ValueError, KeyError):
        pass
    meta = _show([guest.kernel], guest.deb_arch)
    if not meta:
        return None
    image = meta[0]["Depends"].split()[0]     # linux-image-6.1.0-50-arm64 (= 6.1.176-1)
    fields = _show([image, *guest.packages], guest.deb_arch)
    if not fields:
        return None
    memo.parent.mkdir(parents=True, exist_ok=True)
    memo.write_text(json.dumps({"key": key, "image": image, "fields": fields}))
    return image, fields


def download(guest: Guest, into: Path) -> dict[str, Path]:
    """The guest's .deb files, fetched with apt-get when the cache lacks that version."""
    found = candidates(guest, into.parent)
    if found is None:
        raise VboardError(f"apt cannot show {guest.kernel}, {', '.join(guest.packages)} for {guest.deb_arch} "
                          f"(dpkg --add-architecture {guest.deb_arch}; apt-get update)")
    image, fields = found
    into.mkdir(parents=True, exist_ok=True)
    # apt-get download's file name: the version with its epoch, ':' written as %3a.
    debs = {f["Package"]: into / f"{f['Package']}_{f['Version'].replace(':', '%3a')}_{f['Architecture']}.deb"
            for f in fields}
    wanted = [f"{f['Package']}:{guest.deb_arch}={f['Version']}" for f in fields
              if not debs[f["Package"]].exists()]
    if wanted:
        done = subprocess.run(["apt-get", "download", "-q", *wanted], cwd=into, capture_output=True, text=True)
        absent = [p for p in debs.values() if not p.exists()]
        if done.returncode != 0 or absent:
            last = [line for line in done.stderr.splitlines() if line.startswith("E:")] or ["no message"]
            raise VboardError(f"apt-get download of {', '.join(wanted)} failed: {last[-1]}")
    return {"kernel": debs[image], **{n: debs[n] for n in guest.packages}}


def _kernel_files(deb: Path, into: Path) -> tuple[Path, dict[str, Path], set[str]]:
    """The kernel image, the wanted modules by name, and the names of those built in, streamed
    out of the kernel package (about 60 MB: only what the guest needs is written)."""
    wanted = {f"{m}.ko" for m in MODULES}
    kernel, modules, builtin = None, {}, set()
    proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
        for member in tar:
            name = member.name.rsplit("/", 1)[-1]
            if not member.isfile():
                continue
            if re.fullmatch(r"\./boot/vmlinuz-.*", member.name):
                kernel = into / name
            elif name in wanted:
                modules[name[:-3]] = into / name
            elif name == "modules.builtin":
                builtin = {Path(line).stem for line in tar.extractfile(member).read().decode().split()}
                continue
            else:
                continue
            (into / name).write_bytes(tar.extractfile(member).read())
    if proc.wait() != 0 or kernel is None:
        raise VboardError(f"{deb.name}: no kernel image in the package")
    return kernel, modules, builtin


def _readelf(path: Path, flag: str) -> str:
    return subprocess.run(["readelf", flag, "-W", str(path)], capture_output=True, text=True,
                          check=True).stdout


def _inside(root: Path, path: Path) -> Path:
    """``path`` with its symbolic links followed inside ``root`` (an absolute link there, such as
    /lib/ld-linux-armhf.so.3, points into the guest's tree, not this machine's)."""
    for _ in range(40):
        if not path.is_symlink():
            return path
        target = os.readlink(path)
        path = root / target.lstrip("/") if target.startswith("/") else path.parent / target
    raise VboardError(f"{path}: too many levels of symbolic links")


def _libraries(root: Path, program: Path) -> dict[str, Path]:
    """Every file ``program`` loads (its interpreter and the NEEDED closure), by its path on
    the guest, found in the extracted packages at ``root``."""
    interp = re.search(r"program interpreter: (\S+?)\]", _readelf(program, "-l"))
    found: dict[str, Path] = {}
    if interp:
        found[interp.group(1)] = _inside(root, root / interp.group(1).lstrip("/"))
    todo, seen = [program], set()
    while todo:
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", _readelf(todo.pop(), "-d"))
        for soname in needed:
            if soname in seen:
                continue
            seen.add(soname)
            hits = [p for d in ("lib", "usr/lib") for p in (root / d).glob(f"*/{soname}")]
            if not hits:
                raise VboardError(f"{program.name} needs {soname}, which none of the downloaded "
                                  f"packages has: add its package to Guest.packages")
            found["/" + str(hits[0].relative_to(root))] = _inside(root, hits[0])
            todo.append(found["/" + str(hits[0].relative_to(root))])
    for guest_path, path in found.items():
        if not path.exists():
            raise VboardError(f"{program.name}'s {guest_path} is not in the downloaded packages")
    return found


# -- keys -------------------------------------------------------------------------------------
def _ssh_string(blob: bytes, at: int) -> tuple[bytes, int]:
    (n,) = struct.unpack_from(">I", blob, at)
    return blob[at + 4:at + 4 + n], at + 4 + n


def dropbear_host_key(openssh_private: str) -> bytes:
    """An unencrypted OpenSSH ed25519 private key in dropbear's own format, so that the host key
    is made once by ssh-keygen here and known to the client before the guest first boots.

    OpenSSH keeps string "ssh-ed25519", string pub, string seed||pub in its private section;
    dropbear's key file is string "ssh-ed25519", string seed||pub."""
    body = "".join(line for line in openssh_private.splitlines() if not line.startswith("-----"))
    blob = base64.b64decode(body)
    magic = b"openssh-key-v1\0"
    if not blob.startswith(magic):
        raise VboardError("not an OpenSSH private key")
    at = len(magic)
    cipher, at = _ssh_string(blob, at)
    _kdf, at = _ssh_string(blob, at)
    _kdf_options, at = _ssh_string(blob, at)
    if cipher != b"none":
        raise VboardError("the host key must not have a passphrase")
    at += 4                                        # number of keys: 1
    _public, at = _ssh_string(blob, at)
    private, _ = _ssh_string(blob, at)
    kind, p = _ssh_string(private, 8)              # after checkint1, checkint2
    _pub, p = _ssh_string(private, p)
    secret, _ = _ssh_string(private, p)
    if kind != b"ssh-ed25519" or len(secret) != 64:
        raise VboardError("the host key must be ed25519")
    return struct.pack(">I", len(kind)) + kind + struct.pack(">I", 64) + secret


def _keygen(path: Path):
    if not path.exists():
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", path.name, "-f", str(path)],
                       check=True, stdin=subprocess.DEVNULL)


# -- the initramfs ----------------------------------------------------------------------------
INIT_RC = r'''#!/bin/busybox sh
# sysinit of the virtual board: the applets, the kernel's file systems, the network, the modules.
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
for m in @MODULES@; do insmod /lib/modules/vboard/$m.ko || echo "vboard: insmod $m failed"; done
hostname @HOSTNAME@
ip link set lo up
ip link set eth0 up
# QEMU's user network: the guest is 10.0.2.15, the forwarded port arrives there.
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
echo "vboard: up"
'''

INITTAB = '''::sysinit:/bin/busybox sh /etc/rc
::respawn:/usr/sbin/dropbear -F -E -s -p 22 -r /etc/dropbear/dropbear_ed25519_host_key
'''


def _cpio(entries: list[tuple[str, int, bytes]]) -> bytes:
    """A newc cpio archive (what the kernel unpacks as initramfs) of (path, mode, data);
    a character device's data is its b'major,minor'. Owner root, time 0: the same inputs give
    the same bytes."""
    out = bytearray()

    def pad():
        out.extend(b"\0" * (-len(out) % 4))

    for ino, (path, mode, data) in enumerate([*entries, ("TRAILER!!!", 0, b"")], start=1):
        rdev = (0, 0)
        if stat.S_ISCHR(mode):
            rdev, data = tuple(int(x) for x in data.split(b",")), b""
        name = path.lstrip("/").encode() + b"\0"
        fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name), 0)
        out += b"070701" + "".join(f"{v:08x}" for v in fields).encode() + name
        pad()
        out += data
        pad()
    return bytes(out)


@dataclasses.dataclass(frozen=True)
class Image:
    """What :func:`build` made: boot ``kernel`` with ``initramfs``; log in as root with
    ``user_key``; the guest's host key is ``host_key_pub``."""
    arch: str
    kernel: Path
    initramfs: Path
    user_key: Path
    host_key_pub: Path
    kernel_version: str


_BUILT: dict[tuple, Image] = {}     # what build() made in this process
KEEP_IMAGES = 4                     # per architecture: checkouts with other probes share the cache


def build(arch: str = "aarch64", probe: str | os.PathLike | None = None, cache: Path | None = None,
          log=None) -> Image:
    """The kernel and initramfs of ``arch``'s virtual board, built from Debian's packages (or
    taken from the cache when nothing they are made of changed). ``probe``: the static probe
    to put at /usr/bin/platperf-probe (default: the one platperf finds for ``arch``)."""
    from platperf.probe_path import find_probe
    guest = GUESTS[arch]
    cache = cache or cache_dir()
    probe = Path(probe) if probe else find_probe(arch)
    made = _BUILT.get((arch, probe, cache))
    if made is None or not made.initramfs.exists():
        _BUILT[(arch, probe, cache)] = made = _build(guest, probe, cache, log)
    return made


def _build(guest: Guest, probe: Path, cache: Path, log) -> Image:
    arch = guest.arch
    started = time.monotonic()
    debs = download(guest, cache / "debs")
    downloaded = time.monotonic()
    key = hashlib.sha256()
    for deb in sorted(p.name for p in debs.values()):
        key.update(deb.encode() + b"\0")
    key.update(hashlib.sha256(probe.read_bytes()).digest())
    key.update(hashlib.sha256(HERE.read_bytes()).digest())
    out = cache / "images" / f"{arch}-{key.hexdigest()[:16]}"
    if (out / "initramfs.cpio.gz").exists():
        _say(log, f"vboard {arch}: image {out.name} cached (packages {downloaded - started:.1f} s)")
        return _image(arch, out)
    tmp = Path(tempfile.mkdtemp(prefix=f".{arch}-", dir=cache))
    try:
        _assemble(guest, debs, probe, tmp)
        out.parent.mkdir(parents=True, exist_ok=True)
        try:
            tmp.rename(out)
        except OSError:          # another test session built the same image meanwhile
            if not (out / "initramfs.cpio.gz").exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    images = sorted((cache / "images").glob(f"{arch}-*"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in images[KEEP_IMAGES:]:
        shutil.rmtree(old, ignore_errors=True)
    _say(log, f"vboard {arch}: packages {downloaded - started:.1f} s, "
              f"image built in {time.monotonic() - downloaded:.1f} s")
    return _image(arch, out)


def _image(arch: str, out: Path) -> Image:
    return Image(arch, out / "vmlinuz", out / "initramfs.cpio.gz", out / "user_key",
                 out / "host_key.pub", (out / "kernel_version").read_text())


def _assemble(guest: Guest, debs: dict[str, Path], probe: Path, out: Path):
    root = out / "root"
    for name, deb in debs.items():
        if name != "kernel":
            subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    kdir = out / "kernel"
    kdir.mkdir()
    kernel, modules, builtin = _kernel_files(debs["kernel"], kdir)
    load = [m for m in MODULES if m not in builtin]
    for m in load:
        if m not in modules:
            raise VboardError(f"{debs['kernel'].name} has no {m}.ko and does not build it in")
    _keygen(out / "host_key")
    _keygen(out / "user_key")
    dropbear = root / "usr/sbin/dropbear"

    entries: list[tuple[str, int, bytes]] = []
    dirs = set()

    def add_dir(path: str, mode: int = 0o755):
        parts = path.strip("/").split("/")
        for i in range(1, len(parts) + 1):
            d = "/".join(parts[:i])
            if d and d not in dirs:
                dirs.add(d)
                entries.append((d, stat.S_IFDIR | (mode if i == len(parts) else 0o755), b""))

    def add_file(path: str, data: bytes, mode: int = 0o644):
        add_dir(path.rsplit("/", 1)[0])
        entries.append((path, stat.S_IFREG | mode, data))

    for d in ("bin", "sbin", "usr/bin", "usr/sbin", "proc", "sys", "dev", "run", "var/log",
              "etc/dropbear"):
        add_dir(d)
    add_dir("tmp", 0o1777)
    add_dir("root", 0o700)
    add_dir("root/.ssh", 0o700)
    entries.append(("dev/console", stat.S_IFCHR | 0o600, b"5,1"))
    add_file("bin/busybox", (root / "bin/busybox").read_bytes(), 0o755)
    entries.append(("init", stat.S_IFLNK | 0o777, b"/bin/busybox"))
    add_file("usr/sbin/dropbear", dropbear.read_bytes(), 0o755)
    for guest_path, path in sorted(_libraries(root, dropbear).items()):
        add_file(guest_path.lstrip("/"), path.read_bytes(), 0o755)
    for m in load:
        add_file(f"lib/modules/vboard/{m}.ko", modules[m].read_bytes())
    add_file("usr/bin/platperf-probe", probe.read_bytes(), 0o755)
    add_file("etc/rc", INIT_RC.replace("@MODULES@", " ".join(load))
             .replace("@HOSTNAME@", f"vboard-{guest.arch}").encode(), 0o755)
    add_file("etc/inittab", INITTAB.encode())
    add_file("etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n")
    add_file("etc/group", b"root:x:0:\n")
    add_file("etc/shells", b"/bin/sh\n")
    add_file("etc/dropbear/dropbear_ed25519_host_key",
             dropbear_host_key((out / "host_key").read_text()), 0o600)
    add_file("root/.ssh/authorized_keys", (out / "user_key.pub").read_bytes(), 0o600)
    # The kernel unpacks an archive in order: a directory must come before what it holds.
    entries.sort(key=lambda e: (e[0].count("/"), e[0]) if stat.S_ISDIR(e[1]) else (1 << 30, e[0]))
    (out / "initramfs.cpio.gz").write_bytes(gzip.compress(_cpio(entries), compresslevel=6, mtime=0))
    kernel.rename(out / "vmlinuz")
    (out / "kernel_version").write_text(kernel.name.split("-", 1)[1])
    shutil.rmtree(root)
    shutil.rmtree(kdir)


def _say(log, text: str):
    if log:
        log(text)


# -- the running board ------------------------------------------------------------------------
IDLE_STATES = '''
		idle-states {
			entry-method = "psci";
			cpu-retention {
				compatible = "arm,idle-state";
				arm,psci-suspend-param = <0x00000001>;
				entry-latency-us = <20>;
				exit-latency-us = <40>;
				min-residency-us = <100>;
				phandle = <0x7f01>;
			};
			cpu-power-down {
				compatible = "arm,idle-state";
				arm,psci-suspend-param = <0x00010000>;
				local-timer-stop;
				entry-latency-us = <100>;
				exit-latency-us = <250>;
				min-residency-us = <20000>;
				phandle = <0x7f02>;
			};
		};
'''


# Cortex-A57's caches (its TRM): L1d 32 KiB 2-way, L1i 48 KiB 3-way, 64-byte lines; one L2 per
# cluster, 2 MiB 16-way (Juno r1's A57 pair). QEMU describes none: Linux then knows the levels
# (CLIDR) but no sizes, as on most arm64 boards.
L1_CACHES = ("d-cache-size = <0x8000>", "d-cache-line-size = <64>", "d-cache-sets = <256>",
             "i-cache-size = <0xc000>", "i-cache-line-size = <64>", "i-cache-sets = <256>")
L2_CACHE = '''
		l2-cache{n} {{
			compatible = "cache";
			cache-unified;
			cache-level = <2>;
			cache-size = <0x200000>;
			cache-line-size = <64>;
			cache-sets = <2048>;
			phandle = <{phandle:#x}>;
		}};
'''
L2_PHANDLE = 0x7f10


# QEMU's Cortex-A15 has a PMU, but virt describes one only for Armv8 CPUs (an empty "pmu" node
# otherwise): filled as an A15 board's is, its overflow interrupt on PPI 7 (virt's PMU PPI) of
# each CPU. Debian's armmp kernel then says "enabled with armv7_cortex_a15 PMU driver, 7 counters".
A15_PMU = '\tpmu {{\n\t\tcompatible = "arm,cortex-a15-pmu";\n\t\tinterrupts = <0x01 0x07 {flags:#x}>;\n'


def board_dts(dts: str, idle_states: bool = False, cluster_cores: int | None = None, a15_pmu: bool = False) -> str:
    """The guest's device tree (dtc source) with what a real board's describes and QEMU's does
    not: two PSCI idle states for every CPU, a retention and a power-down state (QEMU's PSCI
    answers CPU_SUSPEND with a WFI, so Linux counts the power-down state as rejected every
    time: a firmware that refuses a state); ``cluster_cores``: the caches, an L2 shared by
    each cluster of that many CPUs; ``a15_pmu``: the Cortex-A15's PMU."""
    def cpu_properties(m):
        cpu = int(m.group(2), 16)
        props = ["cpu-idle-states = <0x7f01 0x7f02>"] if idle_states else []
        if cluster_cores:
            props += [*L1_CACHES, f"next-level-cache = <{L2_PHANDLE + cpu // cluster_cores:#x}>"]
        return m.group(1) + "".join(f"\t\t\t{p};\n" for p in props)

    dts, cpus = re.subn(r"(\n\t+cpu@([0-9a-f]+) \{\n)", cpu_properties, dts)
    if a15_pmu:     # GICv2 PPI flags: the CPUs it goes to (bits 8..15), level-high (4)
        dts, n = re.subn(r"\tpmu \{\n", A15_PMU.format(flags=((1 << cpus) - 1) << 8 | 4), dts)
        if n != 1:
            raise VboardError("the guest's device tree has no pmu node to describe the Cortex-A15's PMU in")
    nodes = IDLE_STATES.lstrip("\n") if idle_states else ""
    if cluster_cores:
        nodes += "".join(L2_CACHE.lstrip("\n").format(n=i, phandle=L2_PHANDLE + i)
                         for i in range(-(-cpus // cluster_cores)))
    # A node's properties come before its subnodes: the new nodes go before the first CPU.
    dts, n = re.subn(r"\n(?=\t+cpu@)", "\n" + nodes, dts, count=1)
    if n != 1 or cpus == 0:
        raise VboardError("the guest's device tree has no cpus node with cpu@N nodes")
    return dts


class VirtualBoard:
    """One QEMU guest and the ssh client config that reaches it as ``ssh://<alias>``."""

    def __init__(self, image: Image, workdir: str | os.PathLike, sockets: int = 1, clusters: int = 1,
                 cores: int = 2, idle_states: bool = False, caches: bool = False, alias: str | None = None,
                 icount: bool = False):
        self.image = image
        self.guest = GUESTS[image.arch]
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.smp = (sockets, clusters, cores)
        self.cpus = sockets * clusters * cores
        self.idle_states = idle_states
        self.caches = caches
        self.icount = icount
        self.alias = alias or f"vboard-{image.arch}"
        self.port = free_port()
        self.client_config = self.dir / "ssh_config"
        self.console = self.dir / "console.log"
        self.proc: subprocess.Popen | None = None
        self.boot_s: float | None = None

    def qemu_argv(self, *extra: str, machine: str = "") -> list[str]:
        s, c, k = self.smp
        return [self.guest.qemu, "-M", self.guest.machine + machine, "-cpu", self.guest.cpu,
                "-smp", f"{self.cpus},sockets={s},clusters={c},cores={k}", "-m", str(max(MEMORY_MB_MIN, MEMORY_MB_PER_CPU * self.cpus)),
                "-nodefaults", "-display", "none", "-no-reboot",
                "-kernel", str(self.image.kernel), "-initrd", str(self.image.initramfs),
                "-append", "console=ttyAMA0 panic=-1",
                "-netdev", f"user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:{self.port}-:22",
                # romfile=: no iPXE option ROM (the guest boots its kernel directly).
                "-device", "virtio-net-pci,netdev=net0,romfile=", *self._icount(), *extra]

    def _icount(self) -> list[str]:
        """-icount shift=0: each guest instruction advances the virtual clock by 1 ns. QEMU's PMU
        then counts INST_RETIRED (listed as inst_retired only with a precise icount), and
        CPU_CYCLES as 1 GHz of that clock; icount runs all CPUs on one host thread (no MTTCG)
        and counts their instructions as one (exact for a board of one CPU)."""
        return ["-icount", "shift=0"] if self.icount else []

    def _dtb(self) -> Path:
        """QEMU's own device tree for this machine, with idle states, caches and an A15's PMU added."""
        dumped, dtb = self.dir / "qemu.dtb", self.dir / "guest.dtb"
        subprocess.run(self.qemu_argv(machine=f",dumpdtb={dumped}"), check=True, capture_output=True)
        dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", str(dumped)], check=True,
                             capture_output=True, text=True).stdout
        subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(dtb)], input=board_dts(dts, self.idle_states, self.smp[2] if self.caches else None,
                                                self.guest.a15_pmu),
                       check=True, capture_output=True, text=True)
        return dtb

    def _write_client_config(self):
        host_pub = " ".join(self.image.host_key_pub.read_text().split()[:2])
        (self.dir / "known_hosts").write_text(f"[127.0.0.1]:{self.port} {host_pub}\n")
        self.client_config.write_text(f"""\
Host {self.alias}
  HostName 127.0.0.1
  Port {self.port}
  User root
  IdentityFile {self.image.user_key}
  IdentitiesOnly yes
  UserKnownHostsFile {self.dir}/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  LogLevel ERROR
""")

    def start(self, timeout: float = BOOT_TIMEOUT_S) -> "VirtualBoard":
        """Boot the guest and wait until its dropbear answers. QEMU runs in a session of its
        own: it outlives this process until :meth:`stop` (make vboard); its pid is in qemu.pid."""
        self._write_client_config()
        described = self.idle_states or self.caches or self.guest.a15_pmu
        extra = ["-dtb", str(self._dtb())] if described else []
        argv = self.qemu_argv(*extra, "-serial", f"file:{self.console}")
        started = time.monotonic()
        with open(self.dir / "qemu.log", "wb") as log:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                         start_new_session=True)
        (self.dir / "qemu.pid").write_text(f"{self.proc.pid}\n")
        try:
            self._wait_for_ssh(started + timeout)
        except BaseException:
            self.stop()
            raise
        self.boot_s = time.monotonic() - started
        return self

    def _wait_for_ssh(self, deadline: float):
        # QEMU accepts on the forwarded port at once; only dropbear's banner says the guest is up.
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise VboardError(f"{self.guest.qemu} exited {self.proc.returncode}: "
                                  f"{self._tail(self.dir / 'qemu.log') or self._tail(self.console)}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
                    s.settimeout(2)
                    if s.recv(64).startswith(b"SSH-"):
                        break
            except OSError:
                pass
            time.sleep(0.2)
        else:
            raise VboardError(f"vboard {self.image.arch}: no SSH answer in {BOOT_TIMEOUT_S} s; "
                              f"console: {self._tail(self.console)}")
        done = self.ssh("uname -m", timeout=60)
        if done.returncode != 0:
            raise VboardError(f"vboard {self.image.arch}: ssh login failed: {done.stderr.strip()}")

    @staticmethod
    def _tail(path: Path) -> str:
        try:
            lines = path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return " | ".join(lines[-3:])

    def ssh_options(self) -> tuple[str, ...]:
        return ("-F", str(self.client_config))

    def ssh(self, command: str, timeout: float = 120) -> subprocess.CompletedProcess:
        """``command`` run on the guest by its shell (not through platperf)."""
        return subprocess.run(["ssh", *self.ssh_options(), "-o", "BatchMode=yes", self.alias, command],
                              capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


# -- pytest fixtures: one guest per topology for the whole session, booted on first use --------
def _board(tmp_path_factory, arch: str, **topology) -> VirtualBoard:
    from conftest import missing
    why = missing_parts(arch)
    if why:
        missing(why)
    image = build(arch, log=print)
    return VirtualBoard(image, tmp_path_factory.mktemp(f"vboard-{arch}"), **topology).start()


@pytest.fixture(scope="session")
def vboard_aarch64(tmp_path_factory):
    """An aarch64 board: one package of 2 clusters x 2 cores, with PSCI idle states and its
    caches in the device tree."""
    board = _board(tmp_path_factory, "aarch64", sockets=1, clusters=2, cores=2, idle_states=True,
                   caches=True)
    yield board
    board.stop()


@pytest.fixture(scope="session")
def vboard_aarch64_2s(tmp_path_factory):
    """A multi-socket aarch64 board: 2 packages x 2 clusters x 2 cores, as -smp 8,sockets=2,
    clusters=2,cores=2; no cache sizes in its device tree, as on most arm64 boards."""
    board = _board(tmp_path_factory, "aarch64", sockets=2, clusters=2, cores=2)
    yield board
    board.stop()


@pytest.fixture(scope="session")
def vboard_aarch64_events(tmp_path_factory):
    """The events tests' board: one core with its caches in the device tree, under -icount
    shift=0, so INST_RETIRED is exact; it boots in seconds, and the other boards stay
    multi-threaded TCG. One core, because QEMU keeps one instruction count for all CPUs: a
    CPU's PMU counting user space also counts what another CPU runs meanwhile (an idle
    core's timer tick: ~3000 instructions), so on two cores the counts are not exact."""
    board = _board(tmp_path_factory, "aarch64", sockets=1, clusters=1, cores=1, caches=True, icount=True,
                   alias="vboard-aarch64-events")
    yield board
    board.stop()


@pytest.fixture(scope="session")
def vboard_armv7_events(tmp_path_factory):
    """vboard_aarch64_events' armv7 twin: one Cortex-A15 under -icount shift=0, its PMU described."""
    board = _board(tmp_path_factory, "armv7", sockets=1, clusters=1, cores=1, icount=True,
                   alias="vboard-armv7-events")
    yield board
    board.stop()


@pytest.fixture(scope="session")
def vboard_armv7(tmp_path_factory):
    """An armv7 board (armmp kernel, Cortex-A15): one cluster of 2 cores."""
    board = _board(tmp_path_factory, "armv7", sockets=1, clusters=1, cores=2)
    yield board
    board.stop()


# -- make vboard --------------------------------------------------------------------------------
def _state_dir(arch: str) -> Path:
    return HERE.parent.parent / "build" / "vboard" / arch


def _is_our_qemu(pid: int, guest: Guest) -> bool:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(guest.qemu.encode())
    except OSError:
        return False


def _shown(path: Path) -> Path:
    """``path`` relative to the current directory when it is below it (make vboard's output)."""
    try:
        return path.resolve().relative_to(Path.cwd())
    except ValueError:
        return path.resolve()


def cmd_stop(arch: str) -> int:
    pidfile = _state_dir(arch) / "qemu.pid"
    if not pidfile.exists():
        print(f"no virtual {arch} board is running (no {pidfile})")
        return 0
    pid = int(pidfile.read_text())
    if _is_our_qemu(pid, GUESTS[arch]):
        os.kill(pid, signal.SIGTERM)
        print(f"stopped the virtual {arch} board (QEMU pid {pid})")
    else:
        print(f"the virtual {arch} board had already stopped")
    pidfile.unlink()
    return 0


def cmd_start(arch: str, sockets: int, clusters: int, cores: int, idle_states: bool, caches: bool,
              icount: bool = False) -> int:
    why = missing_parts(arch)
    if why:
        print(f"vboard: {why}", file=sys.stderr)
        return 2
    cmd_stop(arch) if (_state_dir(arch) / "qemu.pid").exists() else None
    try:
        image = build(arch, log=print)
        board = VirtualBoard(image, _state_dir(arch), sockets=sockets, clusters=clusters, cores=cores,
                             idle_states=idle_states, caches=caches, icount=icount)
        board.start()
    except (VboardError, subprocess.CalledProcessError) as exc:
        print(f"vboard: {exc}", file=sys.stderr)
        return 2
    config = _shown(board.client_config)
    platperf = Path(sys.executable).with_name("platperf")
    platperf = _shown(platperf) if platperf.exists() else "platperf"
    print(f"vboard {arch}: {board.cpus} CPUs as {sockets} package x {clusters} cluster x {cores} core, "
          f"Debian kernel {image.kernel_version}; ssh answered {board.boot_s:.1f} s after start")
    print(f"  ssh -F {config} {board.alias}")
    print(f"  PLATPERF_SSH_CONFIG={config} {platperf} doctor --target ssh://{board.alias}")
    print(f"  PLATPERF_SSH_CONFIG={config} {platperf} run --suite quick --target ssh://{board.alias}")
    print(f"  (or add 'Include {config.resolve()}' to ~/.ssh/config)")
    print(f"stop it: make vboard-stop (QEMU pid {board.proc.pid}); figures under emulation mean nothing")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="vboard", description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=("start", "stop", "build"))
    parser.add_argument("--arch", choices=sorted(GUESTS), default="aarch64")
    parser.add_argument("--sockets", type=int, default=1)
    parser.add_argument("--clusters", type=int, default=2)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--idle-states", action=argparse.BooleanOptionalAction, default=True,
                        help="PSCI idle states (retention, power-down) in the device tree (aarch64 only)")
    parser.add_argument("--caches", action=argparse.BooleanOptionalAction, default=True,
                        help="the caches in the device tree: L1 per core, an L2 per cluster (aarch64 only)")
    parser.add_argument("--icount", action="store_true",
                        help="-icount shift=0: the PMU counts instructions exactly (one host thread)")
    args = parser.parse_args(argv)
    if args.action == "stop":
        return cmd_stop(args.arch)
    if args.action == "build":
        try:
            image = build(args.arch, log=print)
        except VboardError as exc:
            print(f"vboard: {exc}", file=sys.stderr)
            return 2
        print(json.dumps({k: str(v) for k, v in dataclasses.asdict(image).items()}))
        return 0
    arm64 = args.arch == "aarch64"     # the device tree additions are tried on aarch64 only
    return cmd_start(args.arch, args.sockets, args.clusters, args.cores, args.idle_states and arm64,
                     args.caches and arm64, args.icount)


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent.parent / "src"))
    sys.exit(main())
