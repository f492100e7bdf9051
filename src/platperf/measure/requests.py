"""What a measuring command measures on each board, and under which name, checked once.

A request has ``name`` (the run's suite), ``label``, ``note``, ``repeat`` (runs per board),
``goal`` (measure until settled or decided, measure.until, or None), ``around`` (a step's
setup, runner.executor.Around, or None) and ``steps(target, description)``: the board's plan,
checked against what the board is (its CPUs, its probe's kernels, a gate's baseline machine);
a board it refuses is not measured (measure.boards). Its checks that need no board run when it
is made, before any board is reached.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..runner.probe import probe_kernels
from ..runner.suite import (Suite, check_mode, check_repeat, check_suite, choose_cpus, count_events, load_suite,
                            plan)


@dataclass
class SuiteRequest:
    """A suite on each board: on the CPUs asked (all online by default), in the mode asked
    (each entry's by default), ``repeat`` runs under one label."""

    suite: Suite
    cpus: str | None = None
    mode: str | None = None
    repeat: int = 1
    label: str | None = None
    note: str | None = None
    around: object = field(default=None, repr=False)
    goal: object = None       # compare.gate.Goal: measure until settled or decided (repeat "auto")

    @classmethod
    def load(cls, ref: str, *, cpus: str | None = None, mode: str | None = None,
             repeat: int | None = None, tool_params: dict | None = None, label: str | None = None,
             note: str | None = None, events: str | None = None) -> "SuiteRequest":
        """The suite ``ref`` (a built-in name or a TOML path) with the command's options;
        SuiteError for what is wrong with them. ``tool_params`` fill its [[tool]] entries'
        unset keys (--guide-dir, --peer); ``repeat`` defaults to the suite's; "auto" leaves the
        number of runs to a :class:`platperf.compare.gate.Goal` the command sets as ``goal``;
        ``events`` (--events) are counted in every step instead of the suite's."""
        suite = load_suite(ref)
        count_events(suite, events)
        suite.tool_params = dict(tool_params or {})
        check_mode(mode)
        runs = suite.repeat if repeat is None else repeat
        if runs != "auto":
            check_repeat(runs)
        return cls(suite, cpus, mode, runs, label, note)

    @property
    def name(self) -> str:
        return self.suite.name

    def steps(self, target, description) -> list:
        """The board's plan: the suite on its CPUs, every kernel and parameter checked against
        the probe on the board; a board of another machine than a gate's baseline (another CPU
        model or architecture) has none (ValueError)."""
        steps = plan(self.suite, choose_cpus(self.cpus, description.online()), self.mode)
        check_suite(self.suite, probe_kernels(target))
        if self.goal is not None:
            from ..compare.gate import refused
            why = refused(self.goal, description)
            if why:
                raise ValueError(f"--against {self.goal.baseline_ref} ran on another machine ({why})")
        return steps
