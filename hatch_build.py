"""Build hook: compile the probes with CMake and install them inside the package.

The wheel carries ``platperf/_bin/platperf-probe`` (this machine's) and one static
``platperf/_bin/platperf-probe-<arch>`` per architecture it could build: this machine's,
and aarch64 / armv7 when Debian's cross compilers are installed (``make deps``). An
editable install finds the same files in ``src/platperf/_bin``; platperf.probe_path
locates them at run time.
"""
import platform
import shutil
import subprocess
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# probe architecture -> (cross compiler, CMake toolchain file under probe/)
CROSS = {
    "aarch64": ("aarch64-linux-gnu-gcc", "cmake/aarch64-linux-gnu.cmake"),
    "armv7": ("arm-linux-gnueabihf-gcc", "cmake/arm-linux-gnueabihf.cmake"),
}
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
        native = cmake_build(root, root / "build" / "probe" / "native")
        shipped = {"platperf-probe": native}
        native_arch = NATIVE.get(platform.machine())
        if native_arch:
            shipped[f"platperf-probe-{native_arch}"] = native
        for arch, (compiler, toolchain) in CROSS.items():
            if arch == native_arch or shutil.which(compiler) is None:
                continue
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
        build_data["infer_tag"] = True
