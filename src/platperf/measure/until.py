"""Measuring until every key is settled, or decided against a baseline (issue 24): the loop.

``platperf run --repeat auto`` measures the suite :data:`platperf.stats.sequential.LOOKS`\\[0]
times, steps interleaved, then looks at each key's run medians (:func:`platperf.compare.gate.judge`:
settled, or against ``--against REF`` decided). Only the suite steps whose keys are still open
run again, in rounds of interleaved runs (:func:`more_runs`), until no key is open, the looks
run out or the next round would not fit in the budget. The budget is wall time on the host,
used only to plan rounds from how long each step took: kernels are timed by the probe.
"""
from __future__ import annotations

import time
from collections import defaultdict

from .. import stats
from ..compare.gate import Goal, Verdict, judge
from ..compare.pools import Side, load_pools
from ..records import canonical_params
from ..runner.executor import Progress
from ..runner.suite import MAX_REPEAT
from ..stats.sequential import LOOKS


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
    verdict = Verdict.start(goal, description.fingerprint)
    todo, runs, pools, metrics, looked = list(steps), LOOKS[0], {}, [], []

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
        looked = list(run_ids)
        pools, metrics = load_pools(store, looked)
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
    if goal.baseline is not None and pools:    # the last look's runs as it loaded them, for gate.comparison
        verdict.new = Side("", [store.run(i) for i in looked], pools, metrics)
    return outcomes, verdict
