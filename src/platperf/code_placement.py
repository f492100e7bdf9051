"""Code placement (``platperf-probe run align-sweep``): did moving the same loop move its figure?

align-sweep times the L1 chase and the add chain from copies at several code offsets, in
rounds (every offset once per round, the rounds one after the other). For each (kernel,
cpu, mode) the rounds' medians go through :func:`platperf.stats.placement_spread` — a
two-way analysis of variance, placements x rounds — and the verdict is a doctor
:class:`~platperf.doctor.Finding`: ``warn`` when placement moves the figure beyond the
run-to-run noise of one measurement (p < :data:`ALPHA`), ``info`` when it does not. The
report's Findings section lists them.
"""
from __future__ import annotations

from .doctor import Finding
from .stats import placement_spread

BENCHMARK = "align-sweep"
CODE = "code-placement"
ALPHA = 0.05


def _round_medians(result) -> list[float]:
    rounds = result.extra.get("rounds") or []
    return [r["median_ns"] for r in rounds if isinstance(r, dict) and isinstance(r.get("median_ns"), (int, float))
            and not isinstance(r.get("median_ns"), bool)]


def findings(results) -> list[Finding]:
    """One finding per (kernel, cpu, mode) swept at two offsets or more in two rounds or more
    (the ns records: the rounds' medians are in ns)."""
    groups: dict[tuple, list] = {}
    for res in results:
        if res.benchmark == BENCHMARK and res.metric == "latency" and "offset" in res.params:
            groups.setdefault((str(res.params.get("kernel")), res.cpu, res.mode), []).append(res)
    out = []
    for (kernel, cpu, mode), sweep in groups.items():
        sweep.sort(key=lambda r: r.params["offset"])
        table = [_round_medians(r) for r in sweep]
        rounds = min(len(row) for row in table)   # an interrupted run: the rounds all finished
        if len(sweep) < 2 or rounds < 2:
            continue
        try:
            test = placement_spread([row[:rounds] for row in table])
        except ValueError:
            continue
        means = [sum(row[:rounds]) / rounds for row in table]
        best = min(range(len(sweep)), key=means.__getitem__)
        worst = max(range(len(sweep)), key=means.__getitem__)
        where = f"{BENCHMARK} {kernel}" + (f" on CPU {cpu}" if cpu is not None else "") + \
            (f" ({mode})" if mode == "parallel" else "")
        figures = (f"{test.spread * 100:.1f}% apart ({means[best]:.4g} ns at offset "
                   f"{sweep[best].params['offset']} to {means[worst]:.4g} ns at offset "
                   f"{sweep[worst].params['offset']}; {len(sweep)} offsets x {rounds} rounds, "
                   f"run-to-run noise {test.noise * 100:.1f}%, F test p = {test.p:.2g})")
        if test.p < ALPHA:
            out.append(Finding(
                "warn", CODE, f"{where}: code placement alone moves the figure: offsets {figures}",
                effect="this loop's figure depends on where its code lands: a rebuild or a link "
                       "change can move it this much with no change to the platform",
                fix="compare runs of one probe build (same build_id); quote the sweep's range for "
                    "this loop, not one placement"))
        else:
            out.append(Finding(
                "info", CODE, f"{where}: placement moves the figure no more than its run-to-run "
                              f"noise: offsets {figures}"))
    return out
