"""What the commands that measure (run, interference) share: the machine's description stored
with a run, the CPU -> (cluster, core) placement, the findings printed before a run, the
progress bar."""
from __future__ import annotations

import dataclasses
import sys


def placer(topology):
    def place(cpu):
        try:
            return topology.place(cpu)
        except ValueError:  # a CPU the topology does not list: the result is kept unplaced
            return None, None
    return place


def describe(root, meta):
    """The fingerprint and the doctor's findings, both stored with the run."""
    from ..doctor import check
    from ..fingerprint import collect
    fingerprint = collect(root=root, probe_meta=meta)
    findings = [dataclasses.asdict(f) for f in check(root=root, fingerprint=fingerprint, probe_meta=meta)]
    return fingerprint, findings


def print_findings(findings):
    """The findings that matter, one line each; effects and fixes are in 'platperf show'."""
    shown = [f for f in findings if f.get("level") not in ("ok", "info")]
    for f in shown:
        print(f"{f.get('level')}: {f.get('message', '')}", file=sys.stderr)
    if shown:
        print("(what each does to results and how to fix it: platperf doctor)", file=sys.stderr)


class RichProgress:
    """One bar over the suite's probe invocations, naming the one running."""

    def __init__(self):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        self.bar = Progress(TextColumn("{task.description}", markup=False), BarColumn(),
                            MofNCompleteColumn(), TextColumn("{task.fields[records]} records"),
                            TimeElapsedColumn(), console=Console(stderr=True))
        self.task = None
        self.records = 0

    def step_started(self, step, index, total):
        if self.task is None:
            self.task = self.bar.add_task(step.title, total=total, records=0)
        self.bar.update(self.task, description=step.title)

    def record(self, rec):
        if rec["type"] in ("result", "histogram"):
            self.records += 1
            self.bar.update(self.task, records=self.records)

    def step_finished(self, step):
        self.bar.advance(self.task)
