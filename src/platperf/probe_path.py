"""Where the probe binary is: $PLATPERF_PROBE, the one installed with the package, or a build tree.

``find_probe(arch)`` gives the static probe for another architecture (a board over SSH):
``_bin/platperf-probe-<arch>``, else ``build/probe/<arch>/platperf-probe``.
"""
from __future__ import annotations

import os
import platform
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_BUILD = _HERE.parent.parent / "build" / "probe"

# `uname -m` spellings -> the probe's build name.
_ARCHES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64",
           "armv7l": "armv7", "armv7": "armv7", "armv8l": "armv7", "armhf": "armv7"}


class ProbeNotFound(RuntimeError):
    pass


def probe_arch(uname_m: str) -> str:
    """The probe build for a machine whose ``uname -m`` is ``uname_m``; ValueError if none is built."""
    arch = _ARCHES.get(uname_m.strip())
    if arch is None:
        raise ValueError(f"no platperf-probe for architecture '{uname_m.strip()}' "
                         f"(known: {', '.join(sorted(set(_ARCHES.values())))})")
    return arch


def find_probe(arch: str | None = None) -> Path:
    """The probe for ``arch`` (a :func:`probe_arch` name); None or the host's arch: the native one."""
    native = arch is None or arch == _ARCHES.get(platform.machine())
    env = os.environ.get("PLATPERF_PROBE")
    if env and native:
        if not os.access(env, os.X_OK):
            raise ProbeNotFound(f"PLATPERF_PROBE={env} is not an executable file")
        return Path(env)
    if native:
        candidates = (_HERE / "_bin" / "platperf-probe", _BUILD / "native" / "platperf-probe")
    else:
        candidates = (_HERE / "_bin" / f"platperf-probe-{arch}", _BUILD / arch / "platperf-probe")
    for path in candidates:
        if os.access(path, os.X_OK):
            return path
    if native:
        raise ProbeNotFound("platperf-probe is not built; run 'make probe' or reinstall platperf")
    raise ProbeNotFound(f"platperf-probe for {arch} is not built; run 'make probe-cross'")
