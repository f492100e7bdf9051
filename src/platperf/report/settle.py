"""What ``platperf run --repeat auto`` says at the end: the keys settled and those not, with the
change each can detect (:func:`platperf.compare.decisions.settling`), and the same as a finding of the
label's last run, so that ``platperf show`` lists it."""
from __future__ import annotations

from ..compare.gate import Verdict
from ..records import key_text


def settle_lines(verdict: Verdict) -> list[str]:
    """``platperf run --repeat auto``'s summary: what settled, what did not and the detectable
    change each reached."""
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
