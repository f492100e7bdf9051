"""``platperf run --repeat auto`` and ``platperf run --against REF`` in the command: their
options read, and what they say at the end -- the keys settled (and a finding on the label's
last run, for ``platperf show``), or the gate's comparison with each key's decision and its
exit code."""
from __future__ import annotations

import json
import sys

from .common import EXIT_REGRESSION, EXIT_UNDECIDED


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


def report_verdict(store, board, label: str | None, *, json_out: bool, quiet: bool):
    verdict = board.verdict
    if verdict is None:        # the board failed before measuring; _report said so
        return
    if verdict.goal.baseline is None:
        from ..report.settle import settle_finding, settle_lines
        last = board.run_ids[-1]
        finding = settle_finding(verdict)
        store.update_run(last, findings=[*(store.run(last)["findings"] or []), finding])
        if not json_out and not quiet:
            print("\n".join(settle_lines(verdict)), file=sys.stderr)
        return
    from ..compare.gate import comparison
    from ..report import render
    from ..report.sections import compare as presentation
    from ..report.compare_json import to_json
    cmp = comparison(verdict, label or f"run {board.run_ids[0]}")
    if json_out:
        print(json.dumps({**to_json(cmp), "runs": verdict.runs, "seconds": round(verdict.seconds, 1),
                          "stopped": verdict.why_stopped or None}))
    else:
        print(render(presentation.terminal_document(cmp), "table"), end="")
        print(f"gate: {verdict.runs} run(s) in {verdict.seconds:.0f} s of a "
              f"{verdict.goal.budget_s:.0f} s budget" + (f"; {verdict.why_stopped}" if cmp.decided("undecided") else ""))
    if cmp.decided("regressed"):
        raise SystemExit(EXIT_REGRESSION)
    if cmp.decided("undecided"):
        raise SystemExit(EXIT_UNDECIDED)
