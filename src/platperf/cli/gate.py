"""What ``platperf run --repeat auto`` and ``platperf run --against REF`` say at the end:
the keys settled (and a finding on the label's last run, for ``platperf show``), or the
gate's comparison with each key's decision and its exit code."""
from __future__ import annotations

import json
import sys

from .common import EXIT_REGRESSION, EXIT_UNDECIDED


def report_verdict(store, board, label: str | None, *, json_out: bool, quiet: bool):
    verdict = board.verdict
    if verdict is None:        # the board failed before measuring; _report said so
        return
    if verdict.goal.baseline is None:
        from ..measure.until import settle_finding, settle_lines
        last = board.run_ids[-1]
        finding = settle_finding(verdict)
        store.update_run(last, findings=[*(store.run(last)["findings"] or []), finding])
        if not json_out and not quiet:
            print("\n".join(settle_lines(verdict)), file=sys.stderr)
        return
    from ..measure.until import gate_comparison
    from ..report import render
    from ..report.sections import compare as presentation
    from ..compare import to_json
    cmp = gate_comparison(store, verdict, board.run_ids, label or f"run {board.run_ids[0]}")
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
