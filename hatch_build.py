"""Build hook: compile the probes with CMake and install them inside the package.

The wheel carries ``platperf/_bin/platperf-probe`` (this machine's) and one static
``platperf/_bin/platperf-probe-<arch>`` per architecture: x86_64, aarch64 and armv7, the
ones this machine does not run built with Debian's cross compilers (``make deps-run``
installs them). A build that lacks one stops with one line naming it; ``PLATPERF_HOST_ONLY=1``
builds a wheel with this machine's probe only, on purpose. An editable install finds the
same files in ``src/platperf/_bin``; platperf.probe_path locates them at run time.

The Python code is pure and the probes are static, so the wheel is tagged for any Python 3
on this machine's platform (``py3-none-linux_x86_64``), not for the interpreter building it.
"""
import os
import platform
import shutil
import subprocess
import sysconfig
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# probe architecture -> (cross compiler, CMake toolchain file under probe/, Debian package)
CROSS = {
    "aarch64": ("aarch64-linux-gnu-gcc", "cmake/aarch64-linux-gnu.cmake", "gcc-aarch64-linux-gnu"),
    "armv7": ("arm-linux-gnueabihf-gcc", "cmake/arm-linux-gnueabihf.cmake", "gcc-arm-linux-gnueabihf"),
}
HOST_ONLY = "PLATPERF_HOST_ONLY"
# `uname -m` of a build machine -> the architecture of its native probe
NATIVE = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64",
          "armv7l": "armv7", "armv8l": "armv7"}
ARCHES = ("x86_64", "aarch64", "armv7")


def cmake_build(root: Path, build: Path, *extra: str) -> Path:
    subprocess.run(["cmake", "-S", str(root / "probe"), "-B", str(build),
                    "-DCMAKE_BUILD_TYPE=Release", *extra], check=True)
    subprocess.run(["cmake", "--build", str(build), "--parallel"], check=True)
    return build / "platperf-probe"


class ProbeBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        dest = root / "src" / "platperf" / "_bin"
        dest.mkdir(exist_ok=True)
        native_arch = NATIVE.get(platform.machine())
        cross = {arch: how for arch, how in CROSS.items() if arch != native_arch}
        if os.environ.get(HOST_ONLY) == "1":
            cross = {}
        absent = [(arch, compiler, package) for arch, (compiler, _, package) in cross.items()
                  if shutil.which(compiler) is None]
        if absent:
            # Before anything is built: one line, not a wheel that silently lacks a board's probe.
            raise SystemExit(
                "platperf: cannot build the " + " and the ".join(
                    f"{arch} probe: {compiler} is not installed" for arch, compiler, _ in absent)
                + f" (apt install {' '.join(p for *_, p in absent)}, or {HOST_ONLY}=1 for a "
                "wheel with this machine's probe only)")
        native = cmake_build(root, root / "build" / "probe" / "native")
        shipped = {"platperf-probe": native}
        if native_arch:
            shipped[f"platperf-probe-{native_arch}"] = native
        for arch, (_, toolchain, _) in cross.items():
            shipped[f"platperf-probe-{arch}"] = cmake_build(
                root, root / "build" / "probe" / arch, f"-DCMAKE_TOOLCHAIN_FILE={toolchain}")
        # a probe left from an earlier build with a compiler since removed would be stale
        for arch in ARCHES:
            name = f"platperf-probe-{arch}"
            if name not in shipped:
                (dest / name).unlink(missing_ok=True)
        for name, binary in shipped.items():
            shutil.copy2(binary, dest / name)
            if version != "editable":
                build_data["force_include"][str(dest / name)] = f"platperf/_bin/{name}"
        build_data["pure_python"] = False
        build_data["tag"] = "py3-none-" + sysconfig.get_platform().replace("-", "_").replace(".", "_")
