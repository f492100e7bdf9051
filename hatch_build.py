"""Build hook: compile the probe with CMake and install it inside the package.

The wheel carries ``platperf/_bin/platperf-probe``; an editable install finds the same
file in ``src/platperf/_bin``. platperf.probe_path locates it at run time.
"""
import shutil
import subprocess
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class ProbeBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        build = root / "build" / "probe" / "native"
        subprocess.run(["cmake", "-S", str(root / "probe"), "-B", str(build),
                        "-DCMAKE_BUILD_TYPE=Release"], check=True)
        subprocess.run(["cmake", "--build", str(build), "--parallel"], check=True)
        dest = root / "src" / "platperf" / "_bin"
        dest.mkdir(exist_ok=True)
        shutil.copy2(build / "platperf-probe", dest / "platperf-probe")
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version != "editable":
            build_data["force_include"][str(dest / "platperf-probe")] = "platperf/_bin/platperf-probe"
