"""The wheel a user installs (`make wheel`, hatch_build.py): one file for any Python 3 of this
platform, carrying the probe of every architecture, installed into a fresh virtual
environment of each supported Python this machine has and used there: ``--version``, a small
suite, its report.

Where each Python 3.X (pyproject.toml's classifiers) comes from, on a developer's machine as
in CI, the first that runs of:

1. ``python3.X`` on PATH (a pyenv shim counts only when pyenv has that version selected);
2. ``$PYENV_ROOT/versions/3.X.*/bin/python3.X`` (PYENV_ROOT defaults to ``~/.pyenv``), the
   newest patch release.

A version with neither is skipped with that reason, and fails under CI=true (conftest).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import missing, require_module
from platperf import __version__
from platperf import toml as tomllib
from platperf.probe_path import ARCHES

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
PYTHONS = [c.rsplit(" :: ", 1)[1] for c in PYPROJECT["project"]["classifiers"]
           if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
CROSS_COMPILERS = {"aarch64": "aarch64-linux-gnu-gcc", "armv7": "arm-linux-gnueabihf-gcc"}
# What `python -m pip install WHEEL` may take, dependencies fetched included.
INSTALL_TIMEOUT_S = 600

SMALL_SUITE = """\
name = "small"
description = "two latency points, two runs: enough to store, pool and report"
repeat = 2

[[bench]]
kernel = "mem-latency"
pattern = "random"
size = ["16k", "1m"]
samples = 3
min_time = 0.002
"""


def find_python(version: str) -> str | None:
    """Python ``version`` ('3.10') by the lookup of this module's docstring, or None."""
    candidates = [shutil.which(f"python{version}")]
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    patches = sorted((pyenv / "versions").glob(f"{version}.*/bin/python{version}"),
                     key=lambda p: [int(n) if n.isdigit() else -1
                                    for n in p.parent.parent.name.split(".")], reverse=True)
    for python in [c for c in candidates if c] + [str(p) for p in patches]:
        probe = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return python
    return None


def build_wheel(source: Path, out: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """hatchling's build_wheel (the PEP 517 hook pip calls) on ``source``, into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    return subprocess.run([sys.executable, "-c", "import sys\nfrom hatchling.build import build_wheel\n"
                           "print(build_wheel(sys.argv[1]))", str(out)],
                          cwd=source, capture_output=True, text=True, env=env, timeout=900)


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    require_module("hatchling")
    for arch, compiler in CROSS_COMPILERS.items():
        if shutil.which(compiler) is None:
            missing(f"{compiler} is not installed: the wheel ships the {arch} probe (make deps-run)")
    out = tmp_path_factory.mktemp("dist")
    built = build_wheel(REPO, out)
    assert built.returncode == 0, built.stderr[-3000:]
    return out / built.stdout.split()[-1]


def platform_tag() -> str:
    import sysconfig
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


def test_one_wheel_for_any_python3_of_this_platform_carries_every_probe(wheel):
    assert wheel.name == f"platperf-{__version__}-py3-none-{platform_tag()}.whl"
    with zipfile.ZipFile(wheel) as whl:
        names = set(whl.namelist())
        assert f"platperf-{__version__}.dist-info/WHEEL" in names
        assert "Tag: py3-none-" in whl.read(f"platperf-{__version__}.dist-info/WHEEL").decode()
        for arch in ARCHES:
            # the very files the package's own tests check (tests/probe/test_probe_path.py)
            shipped = REPO / "src" / "platperf" / "_bin" / f"platperf-probe-{arch}"
            assert whl.read(f"platperf/_bin/platperf-probe-{arch}") == shipped.read_bytes(), arch
        assert "platperf/_bin/platperf-probe" in names
        assert not [n for n in names if n.endswith((".pyc", ".db"))]


def source_copy(tmp_path: Path) -> Path:
    """The files a wheel is built from, copied: a build here cannot touch the checkout."""
    copy = tmp_path / "src-copy"
    ignore = shutil.ignore_patterns("_bin", "__pycache__", "*.pyc")
    for name in ("src", "probe"):
        shutil.copytree(REPO / name, copy / name, ignore=ignore)
    for name in ("pyproject.toml", "hatch_build.py", "README.md"):
        shutil.copy2(REPO / name, copy / name)
    return copy


def path_without(tmp_path: Path, hidden: set[str]) -> str:
    """A PATH of one directory that links every program of this PATH but ``hidden``: a machine
    without those programs, otherwise the same."""
    bin_dir = tmp_path / "bin-without"
    bin_dir.mkdir()
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for entry in os.scandir(directory):
            link = bin_dir / entry.name
            if entry.name not in hidden and not link.exists() and os.access(entry.path, os.X_OK):
                link.symlink_to(entry.path)
    return str(bin_dir)


def test_a_build_without_a_cross_compiler_stops_in_one_line_naming_it_and_builds_nothing(tmp_path):
    require_module("hatchling")
    source = source_copy(tmp_path)
    env = {**os.environ, "PATH": path_without(tmp_path, {"aarch64-linux-gnu-gcc"})}
    env.pop("PLATPERF_HOST_ONLY", None)
    r = build_wheel(source, tmp_path / "dist", env)
    assert r.returncode != 0
    assert r.stderr.splitlines() == [
        "platperf: cannot build the aarch64 probe: aarch64-linux-gnu-gcc is not installed "
        "(apt install gcc-aarch64-linux-gnu, or PLATPERF_HOST_ONLY=1 for a wheel with this "
        "machine's probe only)"]
    assert not (source / "build").exists() and list((tmp_path / "dist").iterdir()) == []

    # The documented switch: a wheel with this machine's probe only, on purpose.
    r = build_wheel(source, tmp_path / "dist", {**env, "PLATPERF_HOST_ONLY": "1"})
    assert r.returncode == 0, r.stderr[-3000:]
    with zipfile.ZipFile(tmp_path / "dist" / r.stdout.split()[-1]) as whl:
        probes = sorted(n for n in whl.namelist() if n.startswith("platperf/_bin/"))
    native = next(a for a in ARCHES if f"platperf/_bin/platperf-probe-{a}" in probes)
    assert probes == ["platperf/_bin/platperf-probe", f"platperf/_bin/platperf-probe-{native}"]


@pytest.mark.parametrize("version", PYTHONS)
def test_the_wheel_installs_and_measures_on_every_supported_python(wheel, version, tmp_path):
    python = find_python(version)
    if python is None:
        missing(f"Python {version} not found: no working python{version} on PATH nor "
                f"$PYENV_ROOT/versions/{version}.*/bin/python{version} (pyenv install {version})")
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV") and not k.startswith("PLATPERF_")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    install = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                              "--disable-pip-version-check", "--no-compile", str(wheel)],
                             capture_output=True, text=True, env=env, timeout=INSTALL_TIMEOUT_S)
    assert install.returncode == 0, install.stderr[-3000:]

    def platperf(*args):
        r = subprocess.run([str(venv / "bin" / "platperf"), *args], capture_output=True, text=True,
                           env=env, cwd=tmp_path, timeout=600)
        assert r.returncode == 0, (args, r.stderr[-3000:])
        return r.stdout

    lines = platperf("--version").splitlines()
    assert lines[0] == f"platperf {__version__}"
    assert re.fullmatch(rf"probe {re.escape(__version__)} build [0-9a-f]{{16}} \(\w+, .+\)", lines[1])
    # found inside the installed package: nothing of the checkout is on this venv's path
    assert lines[2] == f"probes for boards: {', '.join(ARCHES)}"

    (tmp_path / "small.toml").write_text(SMALL_SUITE)
    label = f"py{version}"
    platperf("run", "--suite", "small.toml", "--cpus", "0", "--label", label, "--db", "r.db", "--quiet")
    platperf("report", label, "--db", "r.db", "--format", "all", "-o", "report")
    guide = (tmp_path / "report" / "guide.md").read_text()
    assert re.search(r"\| Runs +\| 2 \(runs 1, 2; complete; ", guide), guide[:3000]
    assert (tmp_path / "report" / "index.html").stat().st_size > 0
