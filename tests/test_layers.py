"""The shape of the code, derived from the code itself: layers, circles and sizes.

The Python package is read with ``ast``: every ``import`` (in functions too) is an arrow from
one module to another. The layers below go from the bottom (the field's words, imported by
all) to the top (the commands); an arrow may point down or sideways, never up, and no two
modules may import each other, directly or round a longer loop. The probe's C files are read
the same way through their ``#include "..."`` lines (``x.c`` and ``x.h`` are one module).

Files stay under MAX_FILE_LINES lines and functions under MAX_FUNCTION_LINES (the probe's
assembly aside). What is over today is listed below, to come down; anything new over fails.

Run it as a script to see the figures::

    python tests/test_layers.py            # arrows, circles, largest files and functions
    python tests/test_layers.py --root DIR # the same for another checkout (e.g. a worktree of main)
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_FILE_LINES = 450
MAX_FUNCTION_LINES = 80

# Bottom first. A module belongs to the layer of its longest matching prefix.
LAYERS = [
    ("words", ("platperf", "platperf.vocab", "platperf.records", "platperf.stats",
               "platperf.machine", "platperf.probe_path", "platperf.bounded", "platperf.toml",
               "platperf.atomic", "platperf.findings", "platperf.levels")),
    ("description", ("platperf.topology", "platperf.fingerprint", "platperf.doctor",
                     "platperf.code_placement", "platperf.mitigations", "platperf.shared_cache")),
    ("data", ("platperf.store", "platperf.ingest", "platperf.adapters", "platperf.guide",
              "platperf.placement", "platperf.decisions", "platperf.pools", "platperf.compare", "platperf.compare_json",
              "platperf.gate", "platperf.history",
              "platperf.lava.log", "platperf.annotations")),
    ("running", ("platperf.targets", "platperf.runner", "platperf.interference",
                 "platperf.measure", "platperf.lava", "platperf.suites")),
    ("presentation", ("platperf.report",)),
    ("commands", ("platperf.cli", "platperf.__main__")),
]

# Arrows that still run up, each to be taken away (issue 22): (from, to).
KNOWN_UPWARD: set[tuple[str, str]] = set()
# Import circles that still exist, each a sorted tuple of its modules.
KNOWN_CIRCLES: set[tuple[str, ...]] = set()
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
    assert set(circles(python_graph(ROOT))) | set(circles(c_graph(ROOT))) == KNOWN_CIRCLES


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


def main(argv: list[str]) -> int:
    root = Path(argv[argv.index("--root") + 1]).resolve() if "--root" in argv else ROOT
    py, c = python_graph(root), c_graph(root)
    up, loops = upward(py), circles(py) + circles(c)
    print(f"arrows up the layers: {len(up)}")
    for a, b in up:
        print(f"  {a} -> {b}  ({LAYERS[layer_of(a)][0]} -> {LAYERS[layer_of(b)][0]})")
    print(f"import circles: {len(loops)}")
    for loop in loops:
        print("  " + " <-> ".join(loop))
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
