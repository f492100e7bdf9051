"""platperf.machine is the one way to read a machine: it sits below topology and fingerprint,
and every reader goes through SysRoot, so a remote target's snapshot reads like this machine."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

from platperf.doctor import check
from platperf.fingerprint import collect
from platperf.machine import SysRoot
from platperf.mitigations import isolated, rt
from platperf.targets.local import LocalTarget
from platperf.topology import online_cpus, read_topology

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
SRC = Path(__file__).parent.parent / "src" / "platperf"


def modules_after_import(module: str) -> set[str]:
    """The platperf modules a fresh interpreter holds after importing ``module``."""
    code = f"import sys, {module}; print('\\n'.join(m for m in sys.modules if m.split('.')[0] == 'platperf'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


# -- the import graph --------------------------------------------------------------------------
def test_machine_imports_nothing_else_of_platperf():
    loaded = modules_after_import("platperf.machine")
    assert "platperf.machine.sysroot" in loaded
    assert {m for m in loaded if m != "platperf" and not m.startswith("platperf.machine")} == set()


def test_topology_does_not_import_fingerprint_but_fingerprint_imports_topology():
    assert not any(m.startswith("platperf.fingerprint") for m in modules_after_import("platperf.topology"))
    assert "platperf.topology" in modules_after_import("platperf.fingerprint.collect")


def test_no_shims_are_left_in_fingerprint():
    for name in ("sysroot", "cpuinfo", "cpu_models"):
        assert not (SRC / "fingerprint" / f"{name}.py").exists()
        assert (SRC / "machine" / f"{name}.py").exists()


# -- SysRoot -------------------------------------------------------------------------------------
def test_of_takes_a_sysroot_as_it_is_or_a_path():
    machine = SysRoot(SYSFS / "juno")
    assert SysRoot.of(machine) is machine
    assert SysRoot.of(SYSFS / "juno").root == SYSFS / "juno"
    hostname = machine.read("proc/sys/kernel/hostname")
    assert hostname and SysRoot.of(str(SYSFS / "juno")).read("proc/sys/kernel/hostname") == hostname
    with pytest.raises(TypeError):
        SysRoot.of(3)


def test_a_live_tree_later_is_itself():
    machine = SysRoot("/")
    assert machine.later(0.01) is machine


def test_local_target_gives_its_sysroot():
    assert LocalTarget().sysroot().root == Path("/")
    target = LocalTarget(root=SYSFS / "am62x")
    assert online_cpus(target.sysroot()) == [0, 1, 2, 3]
    assert read_topology(target.sysroot()).to_dict() == read_topology(SYSFS / "am62x").to_dict()


class InMemory(SysRoot):
    """A machine held in a dict, with no directory behind it: anything that reads files other
    than through SysRoot's methods finds nothing (or fails on the path that does not exist)."""

    def __init__(self, tree: Path):
        super().__init__("/nonexistent/platperf-in-memory")
        self.files = {p.relative_to(tree).as_posix(): p.read_bytes().decode("utf-8", "replace")
                      for p in tree.rglob("*") if p.is_file()}
        self.dirs = {p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_dir()}

    def path(self, rel):
        raise AssertionError(f"read {rel} around SysRoot")

    def read(self, rel):
        text = self.files.get(rel.strip("/"))
        return None if text is None else text.rstrip("\n\0 ")

    def exists(self, rel):
        rel = rel.strip("/")
        return rel in self.files or rel in self.dirs

    def listdir(self, rel):
        prefix = rel.strip("/") + "/"
        return sorted({k[len(prefix):].split("/")[0] for k in (*self.files, *self.dirs) if k.startswith(prefix)})


@pytest.mark.parametrize("board", ["juno", "agilex5", "x86vm"])
def test_every_reader_goes_through_sysroot(board):
    machine = InMemory(SYSFS / board)
    assert collect(machine) == collect(SYSFS / board)
    assert [f.code for f in check(machine, sample_s=0)] == [f.code for f in check(SYSFS / board, sample_s=0)]
    assert isolated.check(0, machine) == isolated.check(0, SYSFS / board)
    assert rt.throttling(machine) == rt.throttling(SYSFS / board)


# -- no file access around SysRoot ---------------------------------------------------------------
READERS = [*sorted((SRC / "machine").glob("*.py")), SRC / "topology.py",
           *sorted((SRC / "fingerprint").glob("*.py")), *sorted((SRC / "doctor").glob("*.py")),
           *sorted((SRC / "mitigations").glob("*.py"))]
# Where files may be touched directly: SysRoot itself, and what WRITES to this machine
# (the PM QoS hold on /dev/cpu_dma_latency, resctrl group creation).
ALLOWED = {("machine/sysroot.py", "*"), ("mitigations/rt.py", "dma_latency_held"),
           ("mitigations/resctrl.py", "*"), ("mitigations/__init__.py", "applied")}
FILE_METHODS = {"read_text", "read_bytes", "iterdir", "glob", "rglob", "is_file", "is_dir", "stat", "open",
                "path", "write_text", "write_bytes", "mkdir", "unlink"}
OS_FUNCTIONS = {"listdir", "scandir", "walk", "isfile", "isdir"}


def file_accesses(path: Path) -> list[tuple[str, int, str]]:
    """(function, line, call) for each call in ``path`` that can read a file directly."""
    found = []

    def visit(node, function):
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.Call):
                func = child.func
                if isinstance(func, ast.Attribute):   # Path(...).read_text(), os.listdir(), sysroot.path()
                    bad = func.attr in FILE_METHODS or (func.attr in OS_FUNCTIONS
                                                        and ast.unparse(func.value) in ("os", "os.path"))
                else:                                 # open(...), Path(...)
                    bad = getattr(func, "id", "") in ("open", "Path")
                if bad:
                    found.append((name, child.lineno, ast.unparse(func)))
            visit(child, name)

    visit(ast.parse(path.read_text()), "<module>")
    return found


def test_file_access_check_finds_a_direct_read(tmp_path):
    sample = tmp_path / "reader.py"
    sample.write_text("import os\nfrom pathlib import Path\n\n"
                      "def cmdline(root):\n    return (Path(root) / 'proc/cmdline').read_text()\n\n"
                      "def pids(sysroot):\n    return os.listdir('/proc') + sysroot.listdir('proc')\n")
    assert [(f, call) for f, _, call in file_accesses(sample)] == [
        ("cmdline", "(Path(root) / 'proc/cmdline').read_text"), ("cmdline", "Path"), ("pids", "os.listdir")]


@pytest.mark.parametrize("path", READERS, ids=lambda p: p.relative_to(SRC).as_posix())
def test_readers_touch_files_only_through_sysroot(path):
    rel = path.relative_to(SRC).as_posix()
    direct = [f"{rel}:{line} {function}: {call}" for function, line, call in file_accesses(path)
              if (rel, "*") not in ALLOWED and (rel, function) not in ALLOWED]
    assert direct == []
