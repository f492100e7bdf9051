"""A comparison as JSON (``compare --format json``, ``run --against --json``): every row's
fields, the counts the first line gives, the sequential decisions."""
from __future__ import annotations

import math
from dataclasses import asdict

from .. import stats
from ..compare import decisions
from ..compare.keyed import Comparison
from ..records import KEY_FIELDS

ROW_FIELDS = ("unit", "direction", "base", "new", "n_base", "n_new", "runs_base", "runs_new",
              "delta_pct", "p_value", "raw_p", "ratio_ci", "basis", "significant", "shown", "confirmed",
              "unconfirmed", "regression", "improvement", "spread_pct", "spread_basis", "mde_pct",
              "runs_needed", "base_ci", "new_ci", "unstable", "status", "pages_base", "pages_new",
              "decision", "decision_ci", "decided_runs", "decision_why", "sessions",
              "base_not_measured", "new_not_measured", "page_delta_pct", "page_verdict")


def _json_value(value):
    if isinstance(value, float) and math.isinf(value):
        return None
    if isinstance(value, tuple):
        return list(value)
    return value


def to_json(cmp: Comparison) -> dict:
    rows = [{**dict(zip(KEY_FIELDS, r.key)), **{f: _json_value(getattr(r, f)) for f in ROW_FIELDS}}
            for r in cmp.rows]
    return {"base": cmp.base_ref, "new": cmp.new_ref, "tolerance_pct": cmp.tolerance,
            "test": cmp.test, "alpha": cmp.alpha, "power": stats.POWER,
            "differences": [asdict(d) for d in cmp.differences],
            "rows": rows, "regressions": len(cmp.failing),     # figures; counted events explain
            "counter_regressions": len(cmp.regressions) - len(cmp.failing),
            "improvements": len(cmp.improvements), "unchanged": len(cmp.unchanged),
            "added": sum(r.status == "added" for r in cmp.rows),
            "removed": sum(r.status == "removed" for r in cmp.rows),
            "pages_differ": len(cmp.pages_differ),
            "page_disagrees": sum(bool(r.page and r.page.disagrees) for r in cmp.rows),
            "unconfirmed": len(cmp.unconfirmed),
            "decisions": {word: len(cmp.decided(word)) for word in decisions.DECISIONS},
            "sequential": cmp.sequential or None}
