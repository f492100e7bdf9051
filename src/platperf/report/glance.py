"""The figures people quote of a machine, picked from a run's results: latency at each cache
level (ns and cycles), bandwidth at each level and from DRAM, the key OS rows.

A cache level is quoted at a working set well inside it, as LMBench's readers read
lat_mem_rd's plateaus: of the sizes measured above the level before, the largest at most half
the level (a chase of the whole level meets its neighbours' conflict misses), else the
smallest above the level before; DRAM at the largest size of at least twice the last-level
cache (LMBench's rule: below that, part of the chase still hits). Where the machine describes
no caches (most Arm device trees, an imported file), the levels are the plateaus between the
latency curve's steps (report.sections.memory_latency.latency_steps), named by their sizes,
never by a cache the machine did not name.

Each figure is the median over CPUs of the results' medians, serial where the run has them:
the board-level figure of the guide (compare.board_level). A figure a run does not have is
no row.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import stats
from ..records import canonical_params
from ..vocab.spoken import iec, params_text
from .data import RunColumn, data_caches

# bandwidth kernels by what they do, the ones people quote first
BANDWIDTH_KINDS = (("read", ("peak-read", "rd", "frd")),
                   ("write", ("peak-write", "wr", "fwr", "bzero")),
                   ("copy", ("peak-copy", "bcopy", "cp", "fcp", "copy")),
                   ("triad", ("triad",)))
# the LMBench OS rows a guide's reader looks for first: (name, benchmark, params, metric)
OS_ROWS = (("null syscall", "os-syscall", {"op": "null"}, "latency"),
           ("read syscall", "os-syscall", {"op": "read"}, "latency"),
           ("context switch, 2 processes", "os-ctx", {"procs": 2, "size": 0}, "latency"),
           ("pipe latency", "os-ipc", {"kind": "pipe"}, "latency"),
           ("AF_UNIX latency", "os-ipc", {"kind": "unix"}, "latency"),
           ("fork + exit", "os-proc", {"op": "fork"}, "latency"),
           ("fork + exec", "os-proc", {"op": "exec"}, "latency"),
           ("page fault", "os-pagefault", {}, "latency"),
           ("pipe bandwidth", "os-ipc-bw", {"kind": "pipe"}, "bandwidth"))


@dataclass(frozen=True)
class Level:
    name: str               # "L1d 32 KiB", "DRAM", "up to 16 KiB"
    above: int              # sizes above this ...
    upto: int | None        # ... and at most this (None: DRAM, the last plateau)
    cache: int | None = None    # the cache's own size (None: a plateau or DRAM)


@dataclass(frozen=True)
class Quoted:
    """One row of the summary: what is quoted, and the key it is read from."""
    group: str              # "Latency", "Bandwidth", "OS"
    name: str               # "L2 1 MiB", "DRAM read", "null syscall"
    benchmark: str
    params: str             # the canonical params key
    metric: str
    unit: str
    said: str               # the key as people say it: "random 16 KiB"
    also: str = ""          # a second metric of the same key shown beside (latency_cycles)


class Figures:
    """A column's board-level medians by (benchmark, params key, metric): serial results
    where the benchmark has them, the median over CPUs and pooled runs."""

    def __init__(self, col: RunColumn):
        modes: dict[str, set] = {}
        for r in col.results:
            modes.setdefault(r.benchmark, set()).add(r.mode)
        raw: dict[tuple, list[float]] = {}
        self.places: dict[tuple, set] = {}
        self.units: dict[tuple, str] = {}
        self.params: dict[tuple, dict] = {}
        for r in col.results:
            mode = "serial" if "serial" in modes[r.benchmark] else r.mode
            median = r.summary.get("median")
            if r.mode != mode or median is None or r.not_measured:
                continue
            k = (r.benchmark, r.params_key, r.metric)
            raw.setdefault(k, []).append(median)
            self.places.setdefault(k, set()).add((r.cpu, r.package, r.cluster, r.core))
            self.units[k] = r.unit
            self.params[k] = r.params
        self.values = {k: (stats.median(v), len(self.places[k])) for k, v in raw.items()}

    def get(self, benchmark: str, params: str, metric: str) -> tuple[float, int] | None:
        """(the board-level median, how many CPUs it is the median over) or None."""
        return self.values.get((benchmark, params, metric))

    def sweep(self, benchmark: str, metric: str, **fixed) -> dict[int, str]:
        """size -> params key of the results of ``benchmark`` whose params hold ``fixed``."""
        out = {}
        for (bench, params, m), p in self.params.items():
            if bench == benchmark and m == metric and isinstance(p.get("size"), int) \
                    and all(p.get(k) == v for k, v in fixed.items()):
                out[p["size"]] = params
        return out


def levels(col: RunColumn, figures: Figures) -> list[Level]:
    """The cache levels of the column's machine and DRAM, or the latency curve's plateaus."""
    caches = data_caches(col.fingerprint)
    if caches:
        out, below = [], 0
        for name, size in caches:
            out.append(Level(f"{name} {iec(size)}", below, size, size))
            below = size
        return out + [Level("DRAM", 2 * below - 1, None)]
    from .sections.memory_latency import latency_steps
    chase = figures.sweep("mem-latency", "latency", pattern="random")
    points = sorted((s, figures.get("mem-latency", p, "latency")[0]) for s, p in chase.items())
    steps = latency_steps([("random", points)])
    out, below = [], 0
    for before, _after in steps:
        out.append(Level(f"{iec(below)}-{iec(before)}" if below else f"up to {iec(before)}", below, before))
        below = before
    return out + [Level(f"above {iec(below)}", below, None)] if out else []


def pick(sizes, level: Level, plateau: bool = False) -> int | None:
    """The size that quotes ``level`` (module docstring); None when none was measured there."""
    inside = sorted(s for s in sizes if s > level.above and (level.upto is None or s <= level.upto))
    if not inside:
        return None
    if level.upto is None or plateau:
        return inside[-1]
    well = [s for s in inside if s <= level.upto // 2]
    return well[-1] if well else inside[0]


def quoted(col: RunColumn) -> list[Quoted]:
    """Every figure the summary quotes for ``col``'s machine, in the order it prints them."""
    figures = Figures(col)
    found = levels(col, figures)
    plateau = not data_caches(col.fingerprint)
    out = []
    chase = figures.sweep("mem-latency", "latency", pattern="random")
    for level in found:
        size = pick(chase, level, plateau)
        if size is not None:
            params = chase[size]
            cycles = "latency_cycles" if figures.get("mem-latency", params, "latency_cycles") else ""
            out.append(Quoted("Latency", level.name, "mem-latency", params, "latency", "ns",
                              params_text("mem-latency", params), cycles))
    for level in found:
        for kind, kernels in BANDWIDTH_KINDS:
            for kernel in kernels:
                sweep = figures.sweep("mem-bandwidth", "bandwidth", kernel=kernel)
                size = pick(sweep, level, plateau)
                if size is not None:
                    out.append(Quoted("Bandwidth", f"{level.name} {kind}", "mem-bandwidth", sweep[size],
                                      "bandwidth", "MB/s", params_text("mem-bandwidth", sweep[size])))
                    break
    for name, benchmark, params, metric in OS_ROWS:
        key = canonical_params(params)
        if figures.get(benchmark, key, metric):
            out.append(Quoted("OS", name, benchmark, key, metric, figures.units[(benchmark, key, metric)],
                              " ".join(p for p in (benchmark, params_text(benchmark, params)) if p)))
    return out
