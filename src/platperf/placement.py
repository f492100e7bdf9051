"""Code placement (``platperf-probe run align-sweep``): did moving the same loop move its figure?

align-sweep times the L1 chase and the add chain from copies at several code offsets; for
each (kernel, cpu, mode) this compares the spread of the offsets' medians with the
run-to-run noise of one offset (its rounds' medians) (:func:`platperf.stats.placement_spread`) and says so as a
doctor :class:`~platperf.doctor.Finding`: ``warn`` when placement alone moved the figure
more than its noise, ``info`` when it did not. The report's Findings section lists them.
"""
from __future__ import annotations

from .doctor import Finding
from .stats import placement_spread

BENCHMARK = "align-sweep"
CODE = "code-placement"


def _figure(result) -> tuple[float, list[float]]:
    """(median of every sample, the rounds' medians) of one placement's result."""
    summary = getattr(result, "summary", None) or {}
    med = summary.get("median")
    if med is None:
        from .stats import median
        med = median(result.samples)
    rounds = result.extra.get("rounds") or []
    return med, [r["median_ns"] for r in rounds if isinstance(r, dict)
                 and isinstance(r.get("median_ns"), (int, float))]


def findings(results) -> list[Finding]:
    """One finding per (kernel, cpu, mode) swept at two offsets or more, quoted in cycles
    when the run has them (ns otherwise: the same samples; the rounds' medians are in ns,
    and the noise is a ratio, so it is the same in either unit)."""
    groups: dict[tuple, dict[str, list]] = {}
    for res in results:
        if res.benchmark != BENCHMARK or res.direction != "lower" or "offset" not in res.params:
            continue
        key = (str(res.params.get("kernel")), res.cpu, res.mode)
        groups.setdefault(key, {}).setdefault(res.metric, []).append(res)
    out = []
    for (kernel, cpu, mode), by_metric in groups.items():
        metric = "latency_cycles" if "latency_cycles" in by_metric else "latency"
        sweep = sorted(by_metric.get(metric, []), key=lambda r: r.params["offset"])
        if len(sweep) < 2:
            continue
        figures = [_figure(r) for r in sweep]
        try:
            spread, noise = placement_spread(figures)
        except ValueError:
            continue
        best = min(range(len(sweep)), key=lambda i: figures[i][0])
        worst = max(range(len(sweep)), key=lambda i: figures[i][0])
        unit = sweep[0].unit
        where = f"{BENCHMARK} {kernel}" + (f" on CPU {cpu}" if cpu is not None else "") + \
            (f" ({mode})" if mode == "parallel" else "")
        moved = (f"code placement alone moves the median {spread * 100:.1f}% "
                 f"({figures[best][0]:.4g} {unit} at offset {sweep[best].params['offset']} to "
                 f"{figures[worst][0]:.4g} at offset {sweep[worst].params['offset']}, "
                 f"{len(sweep)} offsets)")
        if spread > noise:
            out.append(Finding(
                "warn", CODE, f"{where}: {moved}, more than measuring one placement again "
                              f"moves it ({noise * 100:.1f}%)",
                effect="this loop's figure depends on where its code lands: a rebuild or a link "
                       "change can move it this much with no change to the platform",
                fix="compare runs of one probe build (same build_id); quote the sweep's range for "
                    "this loop, not one placement"))
        else:
            out.append(Finding(
                "info", CODE, f"{where}: {moved}, within what measuring one placement again "
                              f"moves it ({noise * 100:.1f}%)"))
    return out
