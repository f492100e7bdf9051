"""Measuring until every key is settled, or decided against a baseline (issue 24).

``platperf run --repeat auto`` measures the suite :data:`platperf.stats.sequential.LOOKS`\\[0]
times, steps interleaved, then looks at each key's run medians: a key is *settled* when the
smallest change its runs detect lies within the tolerance (:func:`platperf.decisions.settling`).
``platperf run --against REF`` decides each key against the stored runs of REF instead:
regressed, improved, equivalent or undecided (:func:`platperf.decisions.decide`, intervals
that stay valid under these repeated looks). Either way only the suite steps whose keys are
still open run again, in rounds of interleaved runs, until no key is open, the looks run out
or the next round would not fit in the budget. The budget is wall time on the host, used
only to plan rounds from how long each step took: kernels are timed by the probe.
"""
from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property

from .. import decisions, shared_cache, stats
from ..compare import ALPHA
from ..pools import Pool, load_pools, pool_sessions, session_of
from ..records import canonical_params
from ..runner.executor import Progress
from ..runner.suite import MAX_REPEAT
from ..stats.sequential import BLOCK, LOOKS


@dataclass
class Goal:
    """How sure to be and how long it may take; ``baseline`` (key -> Pool of the stored
    runs of ``baseline_ref``) makes it a gate."""

    tolerance: float                     # %
    budget_s: float
    baseline: dict | None = None
    baseline_ref: str | None = None
    alpha: float = ALPHA
    baseline_runs: list = field(default_factory=list)   # the stored runs of baseline_ref

    @cached_property
    def session_by_run(self) -> dict:
        """Run id -> its session (:func:`session_of`), of every baseline run."""
        return {r["id"]: session_of(r) for r in self.baseline_runs}

    def sessions(self, pool) -> list | None:
        """The session of each of a baseline pool's runs."""
        return pool_sessions(pool, self.session_by_run)

    def session_count(self) -> int:
        return len(set(self.session_by_run.values()))


def refused(goal: Goal, description) -> str:
    """Why the board cannot be gated against the baseline (another CPU model or architecture,
    as ``compare`` refuses without --force), or ""."""
    from ..compare import comparability
    if goal.baseline is None:
        return ""
    here = [{"fingerprint": description.fingerprint, "meta": description.meta}]
    return "; ".join(f"{d.key}: {d.base} vs {d.new}" for d in comparability(goal.baseline_runs, here)
                     if d.refuse)


@dataclass
class Verdict:
    """What the measuring reached: a Settling (or, for a gate, a Decision) per key."""

    goal: Goal
    runs: int = 0                    # runs made under the label
    seconds: float = 0.0
    why_stopped: str = ""            # "" every key settled / decided
    settled: dict = field(default_factory=dict)    # key -> decisions.Settling
    decided: dict = field(default_factory=dict)    # key -> decisions.Decision
    shared: shared_cache.Zone | None = None        # keys a shared cache moves are not decided

    def held(self) -> list:
        """The keys left undecided for good (a VM's shared cache moves them: shared_cache)."""
        return [k for k, d in self.decided.items() if d.final]

    def open_keys(self) -> set:
        if self.goal.baseline is not None:
            return {k for k, d in self.decided.items() if d.word == "undecided" and not d.final}
        return {k for k, s in self.settled.items() if not s.settled}


class StepKeys(Progress):
    """Passes everything to ``inner`` and learns which keys each step gives and how long it
    takes, so that a round runs only the steps of open keys and fits in the budget."""

    def __init__(self, inner: Progress | None):
        self.inner = inner or Progress()
        self.keys: dict = defaultdict(set)
        self.seconds: dict = {}
        self._step, self._t0 = None, 0.0

    @staticmethod
    def ident(step) -> tuple:
        return type(step).__name__, step.number, getattr(step, "mode", "")

    def step_started(self, step, index, total):
        self._step, self._t0 = self.ident(step), time.monotonic()
        self.inner.step_started(step, index, total)

    def record(self, rec):
        if rec.get("type") == "result" and self._step is not None:
            params = rec.get("params")
            self.keys[self._step].add((rec.get("benchmark"),) if params is None else
                                      (rec["benchmark"], canonical_params(params), rec.get("mode"),
                                       rec.get("metric")))
        self.inner.record(rec)

    def step_finished(self, step):
        self.seconds[self.ident(step)] = max(self.seconds.get(self.ident(step), 0.0),
                                             time.monotonic() - self._t0)
        self.inner.step_finished(step)

    def steps_for(self, steps: list, keys: set) -> list:
        """The steps that gave any of ``keys`` (a tool step's by benchmark alone)."""
        wanted = {(k.benchmark, k.params, k.mode, k.metric) for k in keys} | {(k.benchmark,) for k in keys}
        return [s for s in steps if self.keys[self.ident(s)] & wanted]

    def cost(self, steps: list) -> float:
        return sum(self.seconds.get(self.ident(s), 0.0) for s in steps)


def judge(verdict: Verdict, pools: dict[tuple, Pool]):
    """Each key's settling, or its decision against the baseline; a key once decided stays so
    (the repeated intervals hold at every look together, so stopping a key there is allowed)."""
    goal = verdict.goal
    if goal.baseline is None:
        verdict.settled = {k: decisions.settling(p.run_medians, goal.tolerance, goal.alpha)
                           for k, p in pools.items() if p.runs}
        return
    both = [k for k, p in pools.items() if p.runs and goal.baseline.get(k) is not None
            and goal.baseline[k].runs]
    held = {k for k in both if verdict.shared is not None and verdict.shared.moves(k)}
    for k in held - set(verdict.held()):    # a VM's shared cache moves them (shared_cache)
        verdict.decided[k] = decisions.Decision("undecided", runs=len(pools[k].runs),
                                                why=verdict.shared.why(), final=True, sequential=True)
    gated = [k for k in both if k not in held]
    for k in gated:
        if verdict.decided.get(k) is None or verdict.decided[k].word == "undecided":
            verdict.decided[k] = decisions.decide(goal.baseline[k].run_medians, pools[k].run_medians,
                                                  goal.tolerance, pools[k].direction,
                                                  alpha=goal.alpha, keys=len(gated),
                                                  sessions=goal.sessions(goal.baseline[k]))


def more_runs(verdict: Verdict, pools: dict, open_keys: set) -> int:
    """Runs the next round adds: to the next look for a gate; for settling, the runs a
    tolerance-sized change needs at the spread seen (stats.runs_needed), at most doubling."""
    have = min(len(pools[k].runs) for k in open_keys)
    if verdict.goal.baseline is not None:
        later = [g for g in LOOKS if g > have]
        return later[0] - have if later else 0
    need = []
    for k in open_keys:
        s = verdict.settled[k]
        n = None if s.spread_pct is None else stats.runs_needed(verdict.goal.tolerance, s.spread_pct,
                                                                alpha=verdict.goal.alpha)
        need.append(MAX_REPEAT if n is None else n)
    return max(0, min(max(need), 2 * have, MAX_REPEAT) - have)


def measure_until(store, target, description, steps: list, goal: Goal, *, measure_runs,
                  progress: Progress | None = None, stop=None, begun=None, **run_options):
    """(outcomes of every run made, Verdict): rounds of ``measure_runs`` (measure.boards) until
    no key is open, the looks run out, or the next round does not fit in the budget."""
    watch, started, run_ids, outcomes = StepKeys(progress), time.monotonic(), [], []
    verdict = Verdict(goal)
    if goal.baseline is not None:
        verdict.shared = shared_cache.zone([r.get("fingerprint") for r in goal.baseline_runs]
                                           + [description.fingerprint])
    todo, runs = list(steps), LOOKS[0]

    def begin(run_id):
        run_ids.append(run_id)
        if begun is not None:
            begun(run_id)

    while True:
        outs = measure_runs(store, target, description, todo, repeat=runs, progress=watch,
                            stop=stop, begun=begin, **run_options)
        outcomes += outs
        verdict.runs += runs
        if stop is not None and stop.is_set() or any(o.status != "complete" for o in outs):
            verdict.why_stopped = "the runs did not complete"
            break
        pools, _ = load_pools(store, run_ids)
        judge(verdict, pools)
        open_keys = verdict.open_keys()
        if not open_keys:
            held = len(verdict.held())
            verdict.why_stopped = f"{held} key(s) cannot be decided here" if held else ""
            break
        todo, runs = watch.steps_for(steps, open_keys), more_runs(verdict, pools, open_keys)
        left = goal.budget_s - (time.monotonic() - started)
        if runs <= 0 or not todo:
            verdict.why_stopped = ("the last look was reached" if goal.baseline is not None
                                   else f"{MAX_REPEAT} runs were reached")
            break
        if goal.baseline is None:       # settling: as many runs as fit
            runs = min(runs, int(left // max(watch.cost(todo), 1e-3)))
        if runs <= 0 or runs * watch.cost(todo) > left:
            verdict.why_stopped = (f"the budget ended: the next round, {runs or 1} run(s) of "
                                   f"{len(todo)} step(s), needs {watch.cost(todo) * max(runs, 1):.0f} s, "
                                   f"{max(left, 0):.0f} s were left")
            break
    verdict.seconds = time.monotonic() - started
    return outcomes, verdict


# -- what a person reads ----------------------------------------------------------------------

def parse_budget(text: str) -> float:
    """``15m``, ``90s``, ``1h`` or plain seconds -> seconds (ValueError with one line)."""
    scale = {"s": 1, "m": 60, "h": 3600}.get(text[-1:].lower(), None) if text else None
    number = text[:-1] if scale else text
    try:
        seconds = float(number) * (scale or 1)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= 7 * 86400:
        raise ValueError(f"--budget '{text}': give a time such as 90s, 15m or 2h (up to 7 days)")
    return seconds


def parse_tolerance(text: str) -> float:
    """``3%`` or ``3`` -> 3.0 (ValueError with one line)."""
    try:
        value = float(text.rstrip().removesuffix("%"))
    except ValueError:
        value = -1.0
    if not 0 < value < 100:
        raise ValueError(f"--tolerance '{text}': give a percentage above 0 and under 100, e.g. 3%")
    return value


def settle_lines(verdict: Verdict) -> list[str]:
    """``platperf run --repeat auto``'s summary: what settled, what did not and the detectable
    change each reached."""
    from ..records import key_text
    goal, s = verdict.goal, verdict.settled
    done = sum(x.settled for x in s.values())
    lines = [f"settled: {done} of {len(s)} keys (smallest detectable change within "
             f"{goal.tolerance:g}%) after {verdict.runs} run(s) in {verdict.seconds:.0f} s"
             f" of a {goal.budget_s:.0f} s budget"]
    left = sorted((k for k, x in s.items() if not x.settled), key=lambda k: -(s[k].detectable_pct or 1e9))
    if left:
        lines.append(f"not settled: {len(left)} key(s); {verdict.why_stopped}")
        lines += [f"  {key_text(k)}: detectable "
                  + (f"{s[k].detectable_pct:.2f}%" if s[k].detectable_pct is not None else "unknown")
                  + f" after {s[k].runs} run(s)" for k in left]
    return lines


def settle_finding(verdict: Verdict) -> dict:
    """The summary as a finding of the label's last run, so that ``platperf show`` lists it."""
    lines = settle_lines(verdict)
    left = [k for k, x in verdict.settled.items() if not x.settled]
    return {"level": "warning" if left else "info", "code": "repeat-auto",
            "message": f"repeat auto: {lines[0]}",
            "effect": "; ".join(line.strip() for line in lines[1:]) or "every key settled",
            "fix": _fix(max((verdict.settled[k].detectable_pct or 100.0 for k in left), default=0.0))}


def _fix(reached: float) -> str:
    """What would settle the keys left: more time, or the tolerance their runs reached (a
    tolerance is under 100%: beyond that the runs are too spread for any, see doctor)."""
    if not reached:
        return ""
    if reached < 100:
        return f"a larger --budget, or a tolerance of {reached:.1f}%"
    return "a larger --budget on a quieter machine: platperf doctor says what moves the runs"


def gate_comparison(store, verdict: Verdict, new_run_ids: list[int], new_ref: str):
    """``platperf compare``'s comparison of the gate's runs with its baseline, each key's
    decision the gate's own (:func:`platperf.decisions.rule`)."""
    from ..compare import compare_runs
    goal = verdict.goal
    keys = max(1, len(verdict.decided) - len(verdict.held()))
    method = (f"repeated confidence intervals at {', '.join(map(str, LOOKS))} new runs, "
              f"alpha {goal.alpha:g} spent evenly over the looks, Jennison & Turnbull 1989; "
              f"a regression at alpha/{keys} a key, over the {keys} keys; " + drift_text(goal))
    return compare_runs(store, store.runs_for(goal.baseline_ref), [store.run(i) for i in new_run_ids],
                        goal.baseline_ref, new_ref, tolerance=goal.tolerance, decided=verdict.decided,
                        method=method)


def drift_text(goal: Goal) -> str:
    """Whether the gate's intervals count the drift between sessions (measure.until.Goal)."""
    n = goal.session_count()
    if n >= 2:
        return (f"the drift between sessions counted from the baseline's {n} sessions and the new "
                f"runs in blocks of {BLOCK}, each a session (one-way random effects, Searle et al. "
                "1992; the fewer degrees of freedom of the two sides, Mickey & Brown 1966)")
    return ("the baseline is one session: drift between sessions is not counted -- measure it "
            "in several (platperf run --label REF, at different times) to have it counted")
