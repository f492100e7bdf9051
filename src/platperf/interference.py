"""Latency under interference: the matrix of ``platperf interference``.

One victim CPU runs the probe's latency loop (variants plain, 2ki, 2kl) while aggressor
CPUs run a pattern (none, way_hammer, set_crawler, bw-read, bw-write, memcpy), under each
requested set of mitigations (``platperf.mitigations``). Every cell is one probe
invocation; all cells go into one run of the store, their results and histogram keyed by
params ``variant``, ``pattern``, ``aggressors``, ``duration``, ``threshold`` and
``mitigation``. What each mitigation actually did is kept with every record
(``mitigations``) and with the run (its findings).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import mitigations

BENCHMARK = "latency-loop"
PATTERNS = ("none", "way_hammer", "set_crawler", "bw-read", "bw-write", "memcpy")
LOOPS = ("plain", "2ki", "2kl")


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
    cells: list[Cell] = field(default_factory=list)

    def argv(self, cell: Cell, extra: list[str]) -> list[str]:
        argv = ["run", BENCHMARK, "--cpus", str(self.victim), "--variant", cell.loop,
                "--duration", f"{self.duration:g}", "--threshold", f"{self.threshold:g}",
                "--pattern", cell.pattern]
        if cell.pattern != "none":
            argv += ["--aggressor-cpus", ",".join(map(str, self.aggressors))]
        if self.raw:
            argv += ["--raw", str(self.raw)]
        return argv + extra


def _items(text: str, valid: tuple[str, ...], what: str) -> list[str]:
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise InterferenceError(f"no {what} given (valid: {', '.join(valid)})")
    for item in items:
        if item not in valid:
            raise InterferenceError(f"unknown {what[:-1]} '{item}' (valid: {', '.join(valid)})")
    return list(dict.fromkeys(items))


def _cpus(text: str, what: str) -> list[int]:
    from .mitigations.isolated import cpu_list
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or any(not p.replace("-", "").isdigit() for p in parts):
        raise InterferenceError(f"{what} '{text}' is not a CPU list (examples: 0, 2-3, 0,2)")
    return sorted(cpu_list(text))


def make_plan(*, victim: int, aggressors: str, patterns: str = "none,way_hammer",
              loops: str = "plain", mitigation_sets: str = "none", duration: float = 10.0,
              threshold: float = 1000.0, raw: int = 0, online: list[int] | None = None) -> Plan:
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
    plan = Plan(victim, aggressor_cpus, pattern_list, loop_list, sets, float(duration),
                float(threshold), int(raw))
    plan.cells = [Cell(m, loop, pattern) for m in sets for loop in loop_list for pattern in pattern_list]
    return plan


class _CellStore:
    """The store as runner.execute sees it for one cell: records get the cell's mitigation
    in their params and what was applied; finishing is left to run_matrix."""

    def __init__(self, store, cell: Cell, applied: list[mitigations.Applied]):
        self._store = store
        self._extra = {"mitigation": cell.mitigation}
        self._applied = [a.as_dict() for a in applied]
        self.finished = None

    def add_result(self, run_id, res, conn=None):
        res.params = {**res.params, **self._extra}
        res.extra = {**res.extra, "mitigations": self._applied}
        self._store.add_result(run_id, res, conn=conn)

    def add_histogram(self, run_id, rec, cluster=None, core=None, conn=None):
        rec = {**rec, "params": {**rec["params"], **self._extra}, "mitigations": self._applied}
        self._store.add_histogram(run_id, rec, cluster=cluster, core=core, conn=conn)

    def finish_run(self, run_id, status, error=None, conn=None):
        self.finished = (status, error)

    def __getattr__(self, name):
        return getattr(self._store, name)


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
               place=lambda cpu: (None, None), progress=None) -> MatrixOutcome:
    """Runs every cell of ``plan`` into run ``run_id`` and finishes the run. Mitigations are
    set up around each cell and undone whatever happens (Ctrl-C too)."""
    from .runner import Progress, Step, execute
    progress = progress or Progress()
    out = MatrixOutcome(run_id)
    noted = set()
    steps = [Step(i + 1, BENCHMARK, "serial", [], c.title) for i, c in enumerate(plan.cells)]
    try:
        for index, (cell, step) in enumerate(zip(plan.cells, steps)):
            with mitigations.applied(cell.mitigations, victim=plan.victim, aggressors=plan.aggressors,
                                     root=root, resctrl_root=resctrl_root) as (applied, extra):
                for a in applied:
                    said = [(f"mitigation-{a.name}-not-applied", f"{a.name} not applied: {a.detail}")] \
                        if not a.applied else []
                    if a.caveat:
                        said.append((f"mitigation-{a.name}-caveat", f"{a.name}: {a.caveat}"))
                    for code, message in said:
                        if message in noted:
                            continue
                        noted.add(message)
                        out.notes.append(message)
                        _add_finding(store, run_id, {"level": "warn", "code": code, "message": message,
                                                     "effect": None, "fix": None, "source": "interference"})
                step.argv = plan.argv(cell, extra)
                cell_store = _CellStore(store, cell, applied)
                progress.step_started(step, index, len(steps))
                done = execute(cell_store, run_id, target, [step], place, _Quiet(progress))
                progress.step_finished(step)
            out.cells += 1
            out.results += done.results
            out.histograms += done.histograms
            for w in done.warnings:
                message = f"rt not applied in the probe: {w.get('message')}"
                if w.get("code") == "rt-not-applied" and message not in noted:
                    noted.add(message)
                    out.notes.append(message)
            if done.status != "complete" or done.signal is not None:
                out.status, out.error, out.signal = done.status, done.error, done.signal
                if out.status == "complete":
                    out.status = "partial"
                break
    except BaseException as exc:
        status = "partial" if isinstance(exc, KeyboardInterrupt) else "failed"
        store.finish_run(run_id, status, f"{type(exc).__name__}: {exc}")
        raise
    store.finish_run(run_id, out.status, out.error)
    return out


def _add_finding(store, run_id: int, finding: dict):
    """A mitigation that could not be applied is recorded with the run, beside the
    doctor's findings and the probe's warnings."""
    findings = list(store.run(run_id).get("findings") or [])
    store.update_run(run_id, findings=findings + [finding])


class _Quiet:
    """Passes records on to the progress display, but not execute's per-step calls (the
    matrix reports its own cells)."""

    def __init__(self, progress):
        self._progress = progress

    def step_started(self, *args): ...
    def step_finished(self, *args): ...

    def record(self, rec):
        self._progress.record(rec)
