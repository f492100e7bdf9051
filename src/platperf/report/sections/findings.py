"""What ``doctor`` found at run time, the probe's warnings, and what the results themselves
show (code placement, :mod:`platperf.code_placement`): each finding, what it does to results, how
to fix it. What repeats (the probe warns per CPU and kernel) is one row, with where it was
seen and the results it touches (:func:`platperf.findings.collapse`)."""
from __future__ import annotations

from ... import code_placement
from ...findings import collapse
from ...machine.sysroot import format_cpu_list
from ..data import ReportData, unread_columns
from ..document import Section, Table

MAX_NAMED = 2     # results named in a row (a cell shows 160 characters); the rest are counted


def _touched(code: str, results) -> list:
    """The results a probe warning is about: those whose samples it describes."""
    def hit(r) -> bool:
        extra = r.extra if isinstance(getattr(r, "extra", None), dict) else {}
        if code == "sample-preempted":
            return bool(extra.get("preempted"))
        if code == "sample-steal":
            return bool((extra.get("steal") or {}).get("samples"))
        return False
    return [r for r in results if hit(r)]


def _results_text(results) -> str:
    names = list(dict.fromkeys(" ".join(p for p in (r.benchmark, r.params_key, r.mode) if p)
                               for r in results))
    more = len(names) - MAX_NAMED
    return "; ".join(names[:MAX_NAMED]) + (f"; and {more} more results" if more > 0 else "")


def _seen(f: dict) -> str:
    runs = f.get("runs") or ([f["run"]] if "run" in f else [])
    parts = [("run " if len(runs) == 1 else "runs ") + ", ".join(map(str, runs))] if runs else []
    cpus = f.get("cpus") or ([f["cpu"]] if isinstance(f.get("cpu"), int) else [])
    if cpus:
        parts.append(("CPU " if len(cpus) == 1 else "CPUs ") + format_cpu_list(cpus))
    if f.get("count", 1) > max(1, len(runs)):      # more than once a run
        parts.append(f"{f['count']} times")
    return ", ".join(parts)


def build(data: ReportData) -> Section:
    rows = []
    for col in data.columns:
        found, placed = [], []
        for run in col.runs:
            found += [{**f, "run": run["id"]} for f in run.get("findings") or [] if isinstance(f, dict)]
            results = [r for r in col.results if getattr(r, "run_id", None) == run["id"]]
            # one per kernel swept, each its own words: listed as they are
            placed += [{"level": f.level, "code": f.code, "message": f.message, "effect": f.effect,
                        "fix": f.fix, "run": run["id"]} for f in code_placement.findings(results)]
        for f in collapse(found) + placed:
            touched = _touched(f.get("code"), col.results)
            rows.append([col.name, f.get("level", ""), f.get("code", ""), f.get("message", ""),
                         f.get("effect") or "", f.get("fix") or "", _seen(f), _results_text(touched)])
    # a column whose machine was never read (an imported file): no doctor looked at it, and
    # "no findings" would claim a check that never ran
    unchecked, _ = unread_columns(data)
    said = [f"No doctor checked the machine{'s' * (len(unchecked) > 1)} of {', '.join(unchecked)}: "
            f"{'they were' if len(unchecked) > 1 else 'it was'} never read."] if unchecked else []
    if not rows:
        if len(unchecked) < len(data.columns):
            said.append(f"No findings were recorded with {'the other' if unchecked else 'these'} runs.")
        return Section(title="Findings", text=" ".join(said))
    table = Table(title="Findings", headers=["Column", "Level", "Code", "Finding", "Effect on results",
                                             "Fix", "Seen", "Results touched"], rows=rows)
    return Section(title="Findings", text=" ".join(said), tables=[table])
