"""Where the probe binary is: $PLATPERF_PROBE, the one installed with the package, or a build tree."""
from __future__ import annotations

import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_CANDIDATES = (
    _HERE / "_bin" / "platperf-probe",
    _HERE.parent.parent / "build" / "probe" / "native" / "platperf-probe",
)


class ProbeNotFound(RuntimeError):
    pass


def find_probe() -> Path:
    env = os.environ.get("PLATPERF_PROBE")
    if env:
        if not os.access(env, os.X_OK):
            raise ProbeNotFound(f"PLATPERF_PROBE={env} is not an executable file")
        return Path(env)
    for path in _CANDIDATES:
        if os.access(path, os.X_OK):
            return path
    raise ProbeNotFound("platperf-probe is not built; run 'make probe' or reinstall platperf")
