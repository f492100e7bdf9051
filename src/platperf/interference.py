"""Latency under interference: the matrix of ``platperf interference``.

One victim CPU runs the probe's latency loop (variants plain, 2ki, 2kl) while aggressor
CPUs run a pattern (none, way_hammer, set_crawler, bw-read, bw-write, memcpy), under each
requested set of mitigations (``platperf.mitigations``). Every cell is one probe
invocation; all cells go into one run of the store, their results and histogram keyed by
params ``variant``, ``pattern``, ``aggressors``, ``duration``, ``threshold`` and
``mitigation``. What each mitigation actually did is kept with every record
(``mitigations``) and with the run (its findings).

With ``--events`` (issue 37) the probe counts the victim's events around its loop, the
passes being the operations (``per`` "pass"): each cell then also stores the victim's
L2/L3 refills per pass (``l2d_refill_per_pass``, ``l3d_refill_per_pass``...), which the
report puts beside the study's Maximum and Minimum Latency.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from . import mitigations

BENCHMARK = "latency-loop"
PATTERNS = ("none", "way_hammer", "set_crawler", "bw-read", "bw-write", "memcpy")
LOOPS = ("plain", "2ki", "2kl")
GEOMETRY = ("cache-sets", "cache-ways", "line-size")     # the latency loop's overrides


class InterferenceError(ValueError):
    """Bad matrix input: one line naming what is wrong and the valid choices; exit 2."""


@dataclass
class Cell:
    mitigations: list[str]
    loop: str
    pattern: str

    @property
    def mitigation(self) -> str:
        return mitigations.label(self.mitigations)

    @property
    def title(self) -> str:
        return f"{self.loop} / {self.pattern} / {self.mitigation}"


@dataclass
class Plan:
    victim: int
    aggressors: list[int]
    patterns: list[str]
    loops: list[str]
    mitigation_sets: list[list[str]]
    duration: float
    threshold: float = 1000.0
    raw: int = 0
    cache: dict = field(default_factory=dict)   # --cache-sets/--cache-ways/--line-size given
    cells: list[Cell] = field(default_factory=list)
    events: str = ""                            # the probe's --events list, as given

    def argv(self, cell: Cell, extra: list[str]) -> list[str]:
        argv = ["run", BENCHMARK, "--cpus", str(self.victim), "--variant", cell.loop,
                "--duration", f"{self.duration:g}", "--threshold", f"{self.threshold:g}",
                "--pattern", cell.pattern]
        if cell.pattern != "none":
            argv += ["--aggressor-cpus", ",".join(map(str, self.aggressors))]
        if self.raw:
            argv += ["--raw", str(self.raw)]
        for option, value in self.cache.items():
            argv += [f"--{option}", str(value)]
        if self.events:
            argv += ["--events", self.events]
        return argv + extra

    def check_geometry(self, caches) -> None:
        """The aggressors size their buffers and walk their sets from the last-level cache's
        geometry: a board that describes none (most Arm device trees) needs it given, and is
        told so before anything runs, not after the first cell."""
        if all(p == "none" for p in self.patterns):
            return
        known = {}
        if caches:
            llc = max(caches, key=lambda c: (c.level, c.type == "unified"))
            known = {"cache-sets": llc.sets or (llc.size // (llc.ways * llc.line)
                                                if llc.size and llc.ways and llc.line else None),
                     "cache-ways": llc.ways, "line-size": llc.line}
        missing = [o for o in GEOMETRY if not (self.cache.get(o) or known.get(o))]
        if missing:
            raise InterferenceError(
                f"the board describes no last-level cache geometry ({', '.join(missing)} unknown: "
                f"its device tree gives no cache sizes); give it, e.g. --cache-sets 2048 "
                f"--cache-ways 16 --line-size 64 for a 2 MiB 16-way cache, or use --patterns none")


def _items(text: str, valid: tuple[str, ...], what: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise InterferenceError(f"no {what} given (valid: {', '.join(valid)})")
    for item in items:
        if item not in valid:
            raise InterferenceError(f"unknown {what[:-1]} '{item}' (valid: {', '.join(valid)})")
    return list(dict.fromkeys(items))


def _cpus(text: str, what: str) -> list[int]:
    from .runner.suite import SuiteError, parse_cpulist
    try:
        return parse_cpulist(text)
    except SuiteError:
        raise InterferenceError(f"{what} '{text}' is not a CPU list (examples: 0, 2-3, 0,2)") from None


def make_plan(*, victim: int, aggressors: str, patterns: str = "none,way_hammer",
              loops: str = "plain", mitigation_sets: str = "none", duration: float = 10.0,
              threshold: float = 1000.0, raw: int = 0, online: list[int] | None = None,
              cache: dict | None = None, events: str = "") -> Plan:
    """Checks the matrix input and lists its cells (mitigations outermost, then loop
    variant, then pattern)."""
    if not duration > 0:
        raise InterferenceError(f"--duration {duration:g} must be > 0 seconds")
    if threshold < 0:
        raise InterferenceError(f"--threshold {threshold:g} must be >= 0 ns")
    if raw < 0:
        raise InterferenceError(f"--raw {raw} must be >= 0")
    pattern_list = _items(patterns, PATTERNS, "patterns")
    loop_list = _items(loops, LOOPS, "loops")
    aggressor_cpus = _cpus(aggressors, "--aggressors") if aggressors.strip() else []
    if victim in aggressor_cpus:
        raise InterferenceError(f"victim CPU {victim} is also listed in --aggressors "
                                f"{aggressors}; the victim must not run an aggressor")
    if any(p != "none" for p in pattern_list) and not aggressor_cpus:
        raise InterferenceError("patterns other than none need --aggressors CPUS")
    if online is not None:
        offline = [c for c in [victim, *aggressor_cpus] if c not in online]
        if offline:
            raise InterferenceError(f"CPU {', '.join(map(str, offline))} not online "
                                    f"(online: {', '.join(map(str, online))})")
    try:
        sets = [mitigations.parse(s) for s in mitigation_sets.split(",") if s.strip()] or [[]]
    except mitigations.MitigationError as exc:
        raise InterferenceError(str(exc)) from None
    cache = {k: v for k, v in (cache or {}).items() if v is not None}
    bad = [f"--{k} {v}" for k, v in cache.items() if k not in GEOMETRY or not isinstance(v, int) or v < 1]
    if bad:
        raise InterferenceError(f"{bad[0]}: give a whole number of at least 1")
    if events:
        from .events import check_list
        try:
            events = check_list(events)
        except ValueError as exc:
            raise InterferenceError(f"--events: {exc}") from None
    plan = Plan(victim, aggressor_cpus, pattern_list, loop_list, sets, float(duration),
                float(threshold), int(raw), cache, events=events)
    plan.cells = [Cell(m, loop, pattern) for m in sets for loop in loop_list for pattern in pattern_list]
    return plan


class Matrix:
    """The cells of a plan as steps of the measurement pipeline.

    Around each cell the requested mitigations are applied (and undone whatever happens);
    the cell's records get its mitigation in their params and what was applied beside them,
    through the record transform the pipeline calls before storing each record.
    """

    def __init__(self, plan: Plan, *, root="/", resctrl_root=None, local: bool = True):
        from .runner.suite import Step
        self.plan = plan
        self.root, self.resctrl_root, self.local = root, resctrl_root, local
        self.steps = [Step(i + 1, BENCHMARK, "serial", [], c.title) for i, c in enumerate(plan.cells)]
        self._cells = dict(zip(map(id, self.steps), plan.cells))
        self.notes: list[str] = []       # one line per mitigation not applied
        self._noted: set[str] = set()

    @contextlib.contextmanager
    def around(self, sink, step):
        cell = self._cells[id(step)]
        with mitigations.applied(cell.mitigations, victim=self.plan.victim,
                                 aggressors=self.plan.aggressors, root=self.root,
                                 resctrl_root=self.resctrl_root, local=self.local) as (applied, extra):
            for a in applied:
                said = [(f"mitigation-{a.name}-not-applied", f"{a.name} not applied: {a.detail}")] \
                    if not a.applied else []
                if a.caveat:
                    said.append((f"mitigation-{a.name}-caveat", f"{a.name}: {a.caveat}"))
                for code, message in said:
                    if self._note(message):
                        sink.finding({"level": "warn", "code": code, "message": message,
                                      "effect": None, "fix": None, "source": "interference"})
            step.argv = self.plan.argv(cell, extra)
            yield _cell_transform(cell, [a.as_dict() for a in applied], self.plan.events)

    def _note(self, message: str) -> bool:
        if message in self._noted:
            return False
        self._noted.add(message)
        self.notes.append(message)
        return True

    def outcome(self, out) -> "MatrixOutcome":
        """The pipeline's outcome as the matrix tells it: cells, and the probe's rt warnings."""
        for w in out.warnings:
            if w.get("code") == "rt-not-applied":
                self._note(f"rt not applied in the probe: {w.get('message')}")
        return MatrixOutcome(out.run_id, out.status, out.error, out.steps, out.results,
                             out.histograms, self.notes, out.signal)


class MatrixRequest:
    """The matrix as a measuring request (platperf.measure.requests): one run on one board,
    the plan checked against the board's online CPUs, mitigations applied around each cell on
    the board's own /sys and /proc (what platperf would write on this machine, a dma-latency
    hold or resctrl groups, is recorded as not applied on a board)."""

    name, repeat, goal = "interference", 1, None    # no --repeat auto or --against (measure.until)

    def __init__(self, label: str | None = None, **plan_args):
        self.plan = make_plan(**plan_args)     # the checks that need no board, at once
        self.label, self._args = label, plan_args
        self.note = (f"interference victim {self.plan.victim}, aggressors "
                     f"{','.join(map(str, self.plan.aggressors)) or 'none'}")
        self.matrix: Matrix | None = None

    def steps(self, target, description) -> list:
        self.plan = make_plan(**self._args, online=description.online())
        self.plan.check_geometry(description.topology.caches)
        self.matrix = Matrix(self.plan, root=description.sysroot, local=target.local)
        return self.matrix.steps

    def around(self, sink, step):
        return self.matrix.around(sink, step)

    def outcome(self, out) -> "MatrixOutcome":
        return self.matrix.outcome(out)


def _cell_transform(cell: Cell, applied: list[dict], events: str = ""):
    """Each record of a cell gets the cell's mitigation in its params and what was applied; its
    histogram (the cell's own record) the --events asked, so that the report can say which
    were counted nowhere."""
    def transform(rec: dict) -> dict:
        out = {**rec, "params": {**rec["params"], "mitigation": cell.mitigation}, "mitigations": applied}
        if events and rec.get("type") == "histogram":
            out["events_asked"] = events
        return out
    return transform


@dataclass
class MatrixOutcome:
    run_id: int
    status: str = "complete"
    error: str | None = None
    cells: int = 0
    results: int = 0
    histograms: int = 0
    notes: list[str] = field(default_factory=list)   # one line per mitigation not applied
    signal: int | None = None


def run_matrix(store, target, plan: Plan, run_id: int, *, root: str = "/", resctrl_root=None,
               place=lambda cpu: (None, None, None), progress=None, stop=None) -> MatrixOutcome:
    """Runs every cell of ``plan`` into the begun run ``run_id`` and finishes the run.
    Mitigations are set up around each cell and undone whatever happens (Ctrl-C too)."""
    from .runner.executor import execute_runs
    from .runner.sink import RunSink
    matrix = Matrix(plan, root=root, resctrl_root=resctrl_root)
    begun = store.run(run_id)        # begun by the caller: its findings and meta as they are
    sink = RunSink(store, run_id, place, findings=begun["findings"], has_meta=begun["meta"] is not None)
    return matrix.outcome(execute_runs([sink], target, matrix.steps, progress, stop=stop,
                                       around=matrix.around)[0])
