"""The shape of the code, derived from the code itself: layers, circles and sizes.

The Python package is read with ``ast``: every ``import`` (in functions too) is an arrow from
one module to another. The layers below go from the bottom (the field's words, imported by
all) to the top (the commands); an arrow may point down or sideways, never up, and no two
modules may import each other, directly or round a longer loop; nor may two folders (a
package under platperf: ``lava/``, ``ingest/``), whichever of their modules the arrows join. The
probe's C files are read the same way through their ``#include "..."`` lines (``x.c`` and
``x.h`` are one module), and through their calls: the symbols each object file of the native
build (``make probe``) uses and defines, read with ``nm``, for a file split for size that calls
back into the file it came from shows no include of it.

Files stay under MAX_FILE_LINES lines and functions under MAX_FUNCTION_LINES (the probe's
assembly aside). What is over today is listed below, to come down; anything new over fails.

Run it as a script to see the figures::

    python tests/test_layers.py            # arrows, circles, largest files and functions
    python tests/test_layers.py --root DIR # the same for another checkout (e.g. a worktree of main)
"""
from __future__ import annotations

import ast
import contextlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_FILE_LINES = 450
MAX_FUNCTION_LINES = 80

# Bottom first. A module belongs to the layer of its longest matching prefix.
LAYERS = [
    ("words", ("platperf", "platperf.vocab", "platperf.records", "platperf.stats",
               "platperf.machine", "platperf.probe_path", "platperf.bounded", "platperf.toml",
               "platperf.atomic", "platperf.findings", "platperf.events")),
    # compare.shared_cache is a fact of the machine (which keys its shared cache moves), read
    # by the doctor: it lives with the comparison that holds those keys, a layer below it
    ("description", ("platperf.topology", "platperf.fingerprint", "platperf.doctor",
                     "platperf.code_placement", "platperf.mitigations", "platperf.compare.shared_cache")),
    ("data", ("platperf.store", "platperf.ingest", "platperf.adapters", "platperf.guide",
              "platperf.compare", "platperf.history")),
    ("running", ("platperf.targets", "platperf.runner", "platperf.interference",
                 "platperf.measure", "platperf.lava", "platperf.suites")),
    ("presentation", ("platperf.report",)),
    ("commands", ("platperf.cli", "platperf.__main__")),
]

# Arrows that still run up, each to be taken away (issue 22): (from, to).
KNOWN_UPWARD: set[tuple[str, str]] = set()
# Import circles that still exist, each a sorted tuple of its modules.
KNOWN_CIRCLES: set[tuple[str, ...]] = set()
# Circles of calls between the probe's files, each a sorted tuple of its modules.
KNOWN_CALL_CIRCLES: set[tuple[str, ...]] = set()
# Files and functions over the limits today: path (and function) -> lines.
KNOWN_LONG_FILES: set[str] = set()
KNOWN_LONG_FUNCTIONS: set[str] = set()


# -- the graphs ---------------------------------------------------------------------------
def python_modules(root: Path) -> dict[str, Path]:
    """{dotted name: file} of the package under ``root``/src."""
    src = root / "src"
    out = {}
    for path in sorted((src / "platperf").rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if "versions" in parts:      # alembic's migration scripts, loaded by alembic
            continue
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def python_graph(root: Path) -> dict[str, set[str]]:
    """{module: the platperf modules it imports}; ``from .pkg import mod`` points at ``mod``."""
    modules = python_modules(root)
    graph = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[:len(package) - node.level + 1] + ([node.module] if node.module else [])
                    module = ".".join(base)
                else:
                    module = node.module or ""
                for alias in node.names:
                    sub = f"{module}.{alias.name}"
                    targets.add(sub if sub in modules else module)
            elif isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def folder_graph(graph: dict[str, set[str]], modules: dict[str, Path]) -> dict[str, set[str]]:
    """{folder: folders it imports} from :func:`python_graph`: a module's folder is its package
    right under platperf ("src/platperf/lava/" for platperf.lava.job), a module right under
    platperf its own ("src/platperf/history.py")."""
    def folder(module: str) -> str:
        top = module.split(".")[:2]
        package = len(module.split(".")) > 2 or modules[module].name == "__init__.py"
        return "src/" + "/".join(top) + ("/" if package else ".py")
    out: dict[str, set[str]] = {}
    for module, targets in graph.items():
        mine = folder(module)
        out.setdefault(mine, set()).update(folder(t) for t in targets if folder(t) != mine)
    return out


_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def c_graph(root: Path) -> dict[str, set[str]]:
    """{module: modules it includes} of the probe; a module is a path without its .c/.h."""
    probe = root / "probe"
    files = [p for p in sorted(probe.rglob("*")) if p.suffix in (".c", ".h") and "test" not in p.parts]
    name = {p.resolve(): str(p.relative_to(root).with_suffix("")) for p in files}
    graph: dict[str, set[str]] = {n: set() for n in name.values()}
    for path in files:
        me = name[path.resolve()]
        for include in _INCLUDE.findall(path.read_text(errors="replace")):
            for where in (path.parent, probe / "src", probe / "include"):
                target = name.get((where / include).resolve())
                if target is not None:
                    if target != me:
                        graph[me].add(target)
                    break
    return graph


class ProbeNotBuilt(Exception):
    """The native probe's object files are missing or older than a source (``make probe``)."""


def _inputs(obj: Path, source: Path, root: Path) -> list[Path]:
    """The files under ``root`` an object was built from: its compiler's depfile (x.c.o.d),
    else its source alone (an assembly file)."""
    depfile = obj.with_name(obj.name + ".d")
    if not depfile.exists():
        return [source]
    words = depfile.read_text().replace("\\\n", " ").split(":", 1)[1].split()
    return [Path(w) for w in words if Path(w).resolve().is_relative_to(root.resolve())]


def probe_objects(root: Path) -> dict[str, Path]:
    """{module: object file} of the native build (build/probe/native), modules named as in
    :func:`c_graph`; ProbeNotBuilt when a source the build compiles has no object or one of
    an object's inputs is newer than it."""
    build = root / "build" / "probe" / "native" / "CMakeFiles"
    objects = {}
    for obj in sorted(build.glob("*.dir/**/*.o")):       # CMakeFiles/<target>.dir/<source>.o
        source = root / "probe" / Path(*obj.relative_to(build).parts[1:]).with_suffix("")
        if source.exists() and "test" not in source.relative_to(root / "probe").parts:
            objects[str(source.relative_to(root).with_suffix(""))] = (obj, source)
    src = root / "probe" / "src"
    arches = {Path(m).parts[3] for m in objects if m.startswith("probe/src/arch/")}
    sources = [*src.glob("*.c"), *src.glob("kernels/*.c"),
               *(p for arch in arches for p in sorted((src / "arch" / arch).glob("*.[cS]")))]
    if not sources or not arches:
        raise ProbeNotBuilt(f"the native probe is not built in {build.parent} (make probe)")
    for source in sources:
        obj, _ = objects.get(str(source.relative_to(root).with_suffix("")), (None, None))
        if obj is None:
            raise ProbeNotBuilt(f"{source.relative_to(root)} has no object file in {build.parent} (make probe)")
        newer = [p for p in _inputs(obj, source, root) if p.exists() and p.stat().st_mtime > obj.stat().st_mtime]
        if newer:
            raise ProbeNotBuilt(f"{obj.relative_to(root)} is older than {newer[0]} (make probe)")
    return {module: obj for module, (obj, _) in objects.items()}


def probe_calls(root: Path) -> dict[str, set[str]]:
    """{module: the modules whose symbols it uses} of the native probe: ``nm -P`` on each
    object file, a global symbol defined by one (T, D, B, R, W...) and undefined in another
    (U, w) an arrow from the user to the definer. The C library's symbols are nobody's."""
    if shutil.which("nm") is None:
        raise ProbeNotBuilt("nm is not installed (binutils; make deps)")
    defines, uses = {}, {}
    for module, obj in probe_objects(root).items():
        listing = subprocess.run(["nm", "-P", str(obj)], capture_output=True, text=True, check=True).stdout
        uses[module] = set()
        for line in listing.splitlines():
            symbol, kind = line.split()[:2]
            if kind in ("U", "w"):
                uses[module].add(symbol)
            elif kind.isupper():
                defines[symbol] = module
    return {module: {defines[s] for s in symbols if s in defines} - {module}
            for module, symbols in uses.items()}


def circles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(tuple(sorted(comp)))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def layer_of(module: str) -> int | None:
    """The layer of ``module``: its longest prefix's (the package itself only by its name)."""
    best, found = -1, None
    for number, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            below = module.startswith(prefix + ".") and prefix != "platperf"
            if (module == prefix or below) and len(prefix) > best:
                best, found = len(prefix), number
    return found


def upward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted((a, b) for a, targets in graph.items() for b in targets
                  if layer_of(a) is not None and layer_of(b) is not None and layer_of(b) > layer_of(a))


# -- sizes --------------------------------------------------------------------------------
def source_files(root: Path) -> list[Path]:
    py = [p for p in (root / "src" / "platperf").rglob("*.py") if "versions" not in p.parts]
    c = [p for p in (root / "probe").rglob("*") if p.suffix in (".c", ".h") and "test" not in p.parts]
    return sorted(py + c)


def file_lines(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): len(p.read_text(errors="replace").splitlines())
            for p in source_files(root)}


_C_FUNCTION = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;]*$")


def function_lines(root: Path) -> dict[str, int]:
    """{path:function: lines from its ``def``/signature to its end}."""
    out = {}
    for path in source_files(root):
        rel = str(path.relative_to(root))
        text = path.read_text(errors="replace")
        if path.suffix == ".py":
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    key = f"{rel}:{node.name}"
                    out[key] = max(out.get(key, 0), node.end_lineno - node.lineno + 1)
            continue
        lines = text.splitlines()
        start = name = None
        for number, line in enumerate(lines):
            m = _C_FUNCTION.match(line)
            if start is None and m and not line.startswith(("static const", "const", "typedef", "struct")) \
                    and m.group(1) not in ("if", "for", "while", "switch", "return", "sizeof"):
                start, name = number, m.group(1)
            elif start is not None and line.startswith("}"):
                out[f"{rel}:{name}"] = number - start + 1
                start = None
            elif start is not None and (line.startswith("#") or line.strip() == "" and
                                        not any(ln.startswith("{") or ln.rstrip().endswith("{")
                                                for ln in lines[start:number])):
                start = None          # a prototype or a macro, not a definition
    return out


# -- the tests ----------------------------------------------------------------------------
def test_every_module_has_a_layer():
    assert [m for m in python_modules(ROOT) if layer_of(m) is None] == []
    assert layer_of("platperf.new_module") is None     # a new module must be given one


# The KNOWN_ lists are exact: a new entry fails, and so does one that is gone (take it off the
# list, so that it cannot come back unseen).
def test_no_arrow_runs_up_the_layers():
    assert set(upward(python_graph(ROOT))) == KNOWN_UPWARD


def test_no_new_import_circle():
    python = python_graph(ROOT)
    folders = folder_graph(python, python_modules(ROOT))
    assert set(circles(python)) | set(circles(folders)) | set(circles(c_graph(ROOT))) == KNOWN_CIRCLES


def test_no_circle_of_calls_in_the_probe():
    """Calls go one way between the probe's files: a file split for size along a seam (a
    raw-read header, a journal that owns its restore), never one calling back its other half."""
    from conftest import missing
    try:
        calls = probe_calls(ROOT)
    except ProbeNotBuilt as exc:
        missing(str(exc))
    assert set(circles(calls)) == KNOWN_CALL_CIRCLES


def test_files_and_functions_stay_small():
    assert {f for f, n in file_lines(ROOT).items() if n > MAX_FILE_LINES} == KNOWN_LONG_FILES
    assert {f for f, n in function_lines(ROOT).items() if n > MAX_FUNCTION_LINES} == KNOWN_LONG_FUNCTIONS


def test_the_readers_see_what_they_must():
    """The graph readers themselves: a circle and an arrow up are found when they are there."""
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [("a", "b", "c")]
    graph = python_graph(ROOT)
    assert "platperf.records" in graph["platperf.runner.sink"]
    assert upward({"platperf.vocab.lmbench": {"platperf.report.tfa"}}) == \
        [("platperf.vocab.lmbench", "platperf.report.tfa")]
    assert "probe/src/jsonl" in c_graph(ROOT)["probe/src/record"]
    modules = {"platperf.a.x": Path("x.py"), "platperf.b.y": Path("y.py"), "platperf.c": Path("c.py")}
    folders = folder_graph({"platperf.a.x": {"platperf.b.y"}, "platperf.b.y": {"platperf.c"},
                            "platperf.c": set()}, modules)
    assert folders == {"src/platperf/a/": {"src/platperf/b/"}, "src/platperf/b/": {"src/platperf/c.py"},
                       "src/platperf/c.py": set()}
    with contextlib.suppress(ProbeNotBuilt):
        calls = probe_calls(ROOT)
        assert "probe/src/jsonl" in calls["probe/src/record"]           # jsonl_* of records
        assert "probe/src/arch/x86_64/addchain" in calls.get("probe/src/counter", {"x86_64 only"}) \
            or not any(m.startswith("probe/src/arch/x86_64/") for m in calls)


def main(argv: list[str]) -> int:
    root = Path(argv[argv.index("--root") + 1]).resolve() if "--root" in argv else ROOT
    py, c = python_graph(root), c_graph(root)
    up, loops = upward(py), circles(py) + circles(folder_graph(py, python_modules(root))) + circles(c)
    print(f"arrows up the layers: {len(up)}")
    for a, b in up:
        print(f"  {a} -> {b}  ({LAYERS[layer_of(a)][0]} -> {LAYERS[layer_of(b)][0]})")
    print(f"import circles: {len(loops)}")
    for loop in loops:
        print("  " + " <-> ".join(loop))
    try:
        calls = circles(probe_calls(root))
        print(f"circles of calls in the probe: {len(calls)}")
        for loop in calls:
            print("  " + " <-> ".join(loop))
    except ProbeNotBuilt as exc:
        print(f"circles of calls in the probe: not read ({exc})")
    sizes, functions = file_lines(root), function_lines(root)
    over = sorted(((n, f) for f, n in sizes.items() if n > MAX_FILE_LINES), reverse=True)
    print(f"files over {MAX_FILE_LINES} lines: {len(over)}; largest:")
    for n, f in sorted(((n, f) for f, n in sizes.items()), reverse=True)[:8]:
        print(f"  {n:5d}  {f}")
    long_fn = sorted(((n, f) for f, n in functions.items() if n > MAX_FUNCTION_LINES), reverse=True)
    print(f"functions over {MAX_FUNCTION_LINES} lines: {len(long_fn)}; longest:")
    for n, f in sorted(((n, f) for f, n in functions.items()), reverse=True)[:8]:
        print(f"  {n:5d}  {f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
