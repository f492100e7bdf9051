"""What ``platperf run --repeat auto`` and ``platperf run --against REF`` decide, look after look
(issue 24): the library of the gate, apart from the measuring loop (:mod:`platperf.measure.until`).

A :class:`Goal` says how sure to be and how long measuring may take; with a baseline (the
stored runs of REF, loaded once: :meth:`Goal.against`) it is a gate. At each look
:func:`judge` takes the runs measured so far: without a baseline a key is *settled* when the
smallest change its runs detect lies within the tolerance
(:func:`platperf.compare.decisions.settling`); against one it is regressed, improved,
equivalent or undecided (:func:`platperf.compare.decisions.decide`, intervals that stay valid
under repeated looks), and a key once decided stays so. At the end :func:`comparison` is
``platperf compare``'s comparison of the last look's runs with the baseline, from the pools
already loaded, each key's decision the gate's own.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

from ..events import is_counter_metric
from ..records import ResultKey
from ..stats.sequential import BLOCK, LOOKS
from . import decisions, shared_cache
from .keyed import ALPHA, Comparison, comparability, compare_sides
from .pools import Pool, Side, load_pools, pool_sessions, session_of

@dataclass
class Goal:
    """How sure to be and how long it may take; ``baseline`` (key -> Pool of the stored
    runs of ``baseline_ref``) makes it a gate."""

    tolerance: float                     # %
    budget_s: float
    baseline: dict | None = None
    baseline_ref: str | None = None
    alpha: float = ALPHA
    baseline_runs: list = field(default_factory=list)      # the stored runs of baseline_ref
    baseline_metrics: list = field(default_factory=list)   # their metrics, in order of appearance

    @classmethod
    def against(cls, store, ref: str, tolerance: float, budget_s: float) -> "Goal":
        """A gate against the stored runs of ``ref``, read once (StoreError: there are none)."""
        runs = store.runs_for(ref)
        pools, metrics = load_pools(store, [r["id"] for r in runs])
        return cls(tolerance, budget_s, pools, ref, baseline_runs=runs, baseline_metrics=metrics)

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
    new: Side | None = None          # the runs of the last look, as loaded for it

    @classmethod
    def start(cls, goal: Goal, fingerprint: dict | None) -> "Verdict":
        """Before the first look at a board of ``fingerprint``: against a baseline, the keys a
        VM's shared cache moves are held (:mod:`platperf.compare.shared_cache`)."""
        verdict = cls(goal)
        if goal.baseline is not None:
            fingerprints = [r.get("fingerprint") for r in goal.baseline_runs] + [fingerprint]
            verdict.shared = shared_cache.zone(fingerprints)
        return verdict

    def held(self) -> list:
        """The keys left undecided for good (a VM's shared cache moves them: shared_cache)."""
        return [k for k, d in self.decided.items() if d.final]

    def open_keys(self) -> set:
        if self.goal.baseline is not None:
            return {k for k, d in self.decided.items() if d.word == "undecided" and not d.final}
        return {k for k, s in self.settled.items() if not s.settled}


def counted(key) -> bool:
    """A counted event's key (docs/events.md): it explains its figure and is never gated."""
    return (isinstance(key, tuple) and len(key) == len(ResultKey._fields)
            and is_counter_metric(ResultKey(*key).metric))


def judge(verdict: Verdict, pools: dict[tuple, Pool]):
    """Each key's settling, or its decision against the baseline; a key once decided stays so
    (the repeated intervals hold at every look together, so stopping a key there is allowed)."""
    goal = verdict.goal
    if goal.baseline is None:
        verdict.settled = {k: decisions.settling(p.run_medians, goal.tolerance, goal.alpha)
                           for k, p in pools.items() if p.runs and not counted(k)}
        return
    both = [k for k, p in pools.items() if p.runs and goal.baseline.get(k) is not None
            and goal.baseline[k].runs]
    held = {k for k in both if verdict.shared is not None and verdict.shared.moves(k)}
    for k in held - set(verdict.held()):    # a VM's shared cache moves them (shared_cache)
        verdict.decided[k] = decisions.Decision("undecided", runs=len(pools[k].runs),
                                                why=verdict.shared.why(), final=True, sequential=True)
    # counted events explain a figure and are compared once at the end, never gated
    gated = [k for k in both if k not in held and not counted(k)]
    for k in gated:
        if verdict.decided.get(k) is None or verdict.decided[k].word == "undecided":
            verdict.decided[k] = decisions.decide(goal.baseline[k].run_medians, pools[k].run_medians,
                                                  goal.tolerance, pools[k].direction,
                                                  alpha=goal.alpha, keys=len(gated),
                                                  sessions=goal.sessions(goal.baseline[k]))


def comparison(verdict: Verdict, new_ref: str) -> Comparison:
    """``platperf compare``'s comparison of the last look's runs with the baseline, from the
    pools both were loaded into, each key's decision the gate's own."""
    goal = verdict.goal
    keys = max(1, len(verdict.decided) - len(verdict.held()))
    method = (f"repeated confidence intervals at {', '.join(map(str, LOOKS))} new runs, "
              f"alpha {goal.alpha:g} spent evenly over the looks, Jennison & Turnbull 1989; "
              f"a regression at alpha/{keys} a key, over the {keys} keys; " + drift_text(goal))
    base = Side(goal.baseline_ref, goal.baseline_runs, goal.baseline, goal.baseline_metrics)
    return compare_sides(base, replace(verdict.new, ref=new_ref), tolerance=goal.tolerance,
                         decided=verdict.decided, method=method)


def drift_text(goal: Goal) -> str:
    """Whether the gate's intervals count the drift between sessions."""
    n = goal.session_count()
    if n >= 2:
        return (f"the drift between sessions counted from the baseline's {n} sessions and the new "
                f"runs in blocks of {BLOCK}, each a session (one-way random effects, Searle et al. "
                "1992; the fewer degrees of freedom of the two sides, Mickey & Brown 1966)")
    return ("the baseline is one session: drift between sessions is not counted -- measure it "
            "in several (platperf run --label REF, at different times) to have it counted")
