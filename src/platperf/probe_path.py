"""Where a probe binary is, for this machine or for a board of another architecture.

The package ships one static probe per architecture in ``platperf/_bin/``
(``platperf-probe-<arch>``, plus ``platperf-probe``: the one for the machine it was built
on). A checkout also finds them in the CMake build tree (``build/probe/<arch>/``).
Environment variables override both: ``PLATPERF_PROBE`` for this machine,
``PLATPERF_PROBE_<ARCH>`` (e.g. ``PLATPERF_PROBE_AARCH64``) for one architecture.
"""
from __future__ import annotations

import os
import platform
from pathlib import Path

ARCHES = ("x86_64", "aarch64", "armv7")

_HERE = Path(__file__).resolve().parent
_BIN = _HERE / "_bin"
_BUILD = _HERE.parent.parent / "build" / "probe"

# `uname -m` spellings of each architecture the package has a probe for. armv8l is a
# 32-bit userland on a 64-bit core: it runs armv7 binaries, not aarch64 ones.
_MACHINES = {
    "x86_64": "x86_64", "amd64": "x86_64",
    "aarch64": "aarch64", "arm64": "aarch64",
    "armv7l": "armv7", "armv7": "armv7", "armv8l": "armv7",
}

# What provides the cross compiler of each architecture (Debian package names).
_CROSS_PACKAGES = {"aarch64": "gcc-aarch64-linux-gnu", "armv7": "gcc-arm-linux-gnueabihf"}


class ProbeNotFound(RuntimeError):
    pass


def probe_arch(uname_m: str) -> str:
    """The probe architecture ('x86_64', 'aarch64' or 'armv7') for a `uname -m` answer."""
    arch = _MACHINES.get(uname_m.strip())
    if arch is None:
        raise ProbeNotFound(f"no probe for machine '{uname_m.strip()}' "
                            f"(platperf ships {', '.join(ARCHES)})")
    return arch


def machines_of(arch: str) -> list[str]:
    """The `uname -m` answers of a machine that runs ``arch``'s probe (a LAVA job checks them)."""
    return sorted(m for m, a in _MACHINES.items() if a == arch)


def _host_arch() -> str | None:
    try:
        return probe_arch(platform.machine())
    except ProbeNotFound:
        return None


def _from_env(name: str) -> Path:
    value = os.environ[name]
    if not os.access(value, os.X_OK) or not os.path.isfile(value):
        raise ProbeNotFound(f"{name}={value} is not an executable file")
    return Path(value)


def _newest_executable(paths) -> Path | None:
    """The most recently built of ``paths`` that exist (the first on a tie): in a checkout,
    `make probe` rebuilds build/probe/ after the editable install copied the probe into
    _bin/, and the stale copy must not shadow it."""
    found = [p for p in paths if os.path.isfile(p) and os.access(p, os.X_OK)]
    return max(found, key=lambda p: os.stat(p).st_mtime) if found else None


def _native_candidates() -> tuple[Path, ...]:
    return (_BIN / "platperf-probe", _BUILD / "native" / "platperf-probe")


def find_probe(arch: str | None = None) -> Path:
    """The probe for this machine (arch None) or for one of :data:`ARCHES`.

    None: $PLATPERF_PROBE, else the package's native probe or the build tree's, whichever
    was built last. An arch: $PLATPERF_PROBE_<ARCH>, else the newest of
    ``_bin/platperf-probe-<arch>`` and ``build/probe/<arch>/platperf-probe`` (and the native
    locations when arch is this machine's). Raises :class:`ProbeNotFound` saying what to build or install.
    """
    if arch is None:
        if os.environ.get("PLATPERF_PROBE"):
            return _from_env("PLATPERF_PROBE")
        found = _newest_executable(_native_candidates())
        if found is None:
            raise ProbeNotFound("platperf-probe is not built; run 'make probe' or reinstall platperf")
        return found
    if arch not in ARCHES:
        raise ProbeNotFound(f"no probe for architecture '{arch}' (platperf ships {', '.join(ARCHES)})")
    env = f"PLATPERF_PROBE_{arch.upper()}"
    if os.environ.get(env):
        return _from_env(env)
    candidates = [_BIN / f"platperf-probe-{arch}", _BUILD / arch / "platperf-probe"]
    if arch == _host_arch():
        candidates += _native_candidates()
    found = _newest_executable(candidates)
    if found is not None:
        return found
    if arch in _CROSS_PACKAGES:
        raise ProbeNotFound(f"no {arch} probe is built; run 'make probe-cross' (needs "
                            f"'apt install {_CROSS_PACKAGES[arch]}') and reinstall platperf, "
                            f"or set {env}")
    raise ProbeNotFound(f"no {arch} probe is built; run 'make probe' on an {arch} machine, "
                        f"or set {env}")
