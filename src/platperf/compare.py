"""Keyed comparison of two runs or labels, with the TF-A release tables as its output.

The scripts behind published release tables pair rows by position and take one sample
per core: when a release prints cluster 1 before cluster 0, cores are compared with
other cores. Here every figure is paired by :attr:`platperf.records.Result.key`
(benchmark, canonical params, mode, cluster, core, metric) and nothing else.

A change is *shown* (``NEW (+x.xx%)``) only when |delta| >= the tolerance **and** it is
significant:

* both sides with enough samples: the two-sided Mann-Whitney U test, p < alpha (0.05) —
  the default because it needs no distribution and costs little for 10,000 keys; or,
  with ``test="bootstrap"``, a seeded 95% percentile bootstrap interval of
  median(new)/median(base) that excludes 1;
* one value on a side (TF-A's logs), or so few that the exact Mann-Whitney U test cannot
  reach p < alpha (2+2, 3+3, 2+6 samples...): the tolerance alone decides, and the
  output says so (``basis = "tolerance"``).

A shown change in the worse direction of the metric is a regression.
"""
from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, field

from . import placement, stats
from .fingerprint import Difference, diff
from .report.document import Document, Section, Table

TESTS = ("mwu", "bootstrap")
ALPHA = 0.05

@dataclass
class Row:
    """One key compared: medians, change, test and verdict."""

    key: tuple
    unit: str
    direction: str
    base: float | None
    new: float | None
    n_base: int = 0
    n_new: int = 0
    delta_pct: float | None = None
    p_value: float | None = None
    ratio_ci: tuple | None = None
    basis: str = ""          # mwu | bootstrap | tolerance | "" (key on one side only)
    significant: bool = False
    shown: bool = False      # the cell carries its delta
    regression: bool = False
    improvement: bool = False
    status: str = "both"     # both | added | removed

    @property
    def benchmark(self):
        return self.key[0]

    @property
    def metric(self):
        return self.key[5]


@dataclass
class Comparison:
    base_ref: str
    new_ref: str
    tolerance: float
    test: str
    rows: list[Row]
    differences: list[Difference] = field(default_factory=list)
    metric_order: list[str] = field(default_factory=list)

    @property
    def regressions(self) -> list[Row]:
        return [r for r in self.rows if r.regression]

    @property
    def refused(self) -> list[Difference]:
        return [d for d in self.differences if d.refuse]


# -- pooling ----------------------------------------------------------------------------

@dataclass
class Pool:
    """Every sample of one key on one side (all runs of a label concatenated)."""

    unit: str
    direction: str
    samples: list[float]


def pool_results(results) -> tuple[dict[tuple, Pool], list[str]]:
    """Key -> Pool for an iterable of Results; also the metrics in order of first appearance."""
    pools: dict[tuple, Pool] = {}
    metrics: dict[str, None] = {}
    for res in results:
        metrics.setdefault(res.metric, None)
        p = pools.get(res.key)
        if p is None:
            pools[res.key] = Pool(res.unit, res.direction, list(res.samples))
        else:
            p.samples.extend(res.samples)
    return pools, list(metrics)


def load_side(store, ref) -> tuple[list[dict], dict[tuple, Pool], list[str]]:
    """The runs behind ``ref`` (id, ``latest`` or label) and their pooled samples."""
    runs = store.runs_for(ref)
    pools, metrics = _load_pools(store, [run["id"] for run in runs])
    return runs, pools, metrics


def _load_pools(store, run_ids: list[int]) -> tuple[dict[tuple, Pool], list[str]]:
    """pool_results() straight from the results table: only the key columns and the
    samples, with the stored canonical params string as the key (no JSON to decode, no
    Result objects), so that 10,000 keys load in a fraction of a second."""
    from sqlalchemy import select

    from .store import unpack_samples
    from .store.schema import results as t
    cols = (t.c.benchmark, t.c.params, t.c.mode, t.c.cluster, t.c.core, t.c.metric, t.c.unit,
            t.c.direction, t.c.samples)
    pools: dict[tuple, Pool] = {}
    metrics: dict[str, None] = {}
    with store.engine.connect() as c:
        for run_id in run_ids:
            q = select(*cols).where(t.c.run_id == run_id).order_by(t.c.id)
            for bench, params, mode, cluster, core, metric, unit, direction, blob in c.execute(q):
                metrics.setdefault(metric, None)
                key = (bench, params, mode, cluster, core, metric)
                p = pools.get(key)
                if p is None:
                    pools[key] = Pool(unit, direction, unpack_samples(blob))
                else:
                    p.samples.extend(unpack_samples(blob))
    return pools, list(metrics)


# -- the comparison ---------------------------------------------------------------------

def _sort_key(key: tuple) -> tuple:
    # None (no cluster / core) sorts before 0 without comparing None with int.
    return tuple((0, "") if v is None else (1, v) for v in key)


def compare_pools(base: dict[tuple, Pool], new: dict[tuple, Pool], *, tolerance: float = 2.0,
                  test: str = "mwu", alpha: float = ALPHA, seed: int = 0) -> list[Row]:
    """Compare two keyed pools; rows sorted by key, never by position in either input."""
    if test not in TESTS:
        raise ValueError(f"unknown test '{test}'; choose one of {', '.join(TESTS)}")
    rows = []
    for key in sorted(base.keys() | new.keys(), key=_sort_key):
        b, n = base.get(key), new.get(key)
        if b is None or n is None:
            side = n if b is None else b
            rows.append(Row(key, side.unit, side.direction,
                            None if b is None else stats.median(b.samples),
                            None if n is None else stats.median(n.samples),
                            n_base=len(b.samples) if b else 0, n_new=len(n.samples) if n else 0,
                            status="added" if b is None else "removed"))
            continue
        rows.append(_compare_key(key, b, n, tolerance, test, alpha, seed))
    return rows


def _compare_key(key, b: Pool, n: Pool, tolerance, test, alpha, seed) -> Row:
    mb, mn = stats.median(b.samples), stats.median(n.samples)
    row = Row(key, n.unit, n.direction, mb, mn, n_base=len(b.samples), n_new=len(n.samples))
    row.delta_pct = (mn - mb) / abs(mb) * 100.0 if mb else (0.0 if mn == mb else None)
    nb, nn = row.n_base, row.n_new
    if nb < 2 or nn < 2 or test == "mwu" and stats.mwu_min_p(nb, nn) >= alpha:
        row.basis = "tolerance"
        row.significant = mn != mb
    elif test == "mwu":
        row.basis = "mwu"
        row.p_value = stats.mann_whitney_u(b.samples, n.samples)[1]
        row.significant = row.p_value < alpha
    else:
        row.basis = "bootstrap"
        lo, hi = stats.bootstrap_median_ratio(b.samples, n.samples, level=1 - alpha, seed=seed)
        row.ratio_ci = (lo, hi)
        row.significant = lo > 1.0 or hi < 1.0
    big = row.delta_pct is None or abs(row.delta_pct) >= tolerance
    row.shown = row.significant and big
    if row.shown:
        worse = mn > mb if n.direction == "lower" else mn < mb
        row.regression, row.improvement = worse, not worse
    return row


# -- comparability ----------------------------------------------------------------------

def comparability(base_runs: list[dict], new_runs: list[dict]) -> list[Difference]:
    """The fingerprint and probe facts that differ between the two sides (several runs a
    side: every value seen), by platperf.fingerprint.diff."""
    def facts(runs):
        return [{**(r.get("fingerprint") or {}), "meta": r.get("meta") or {}} for r in runs]
    return diff(facts(base_runs), facts(new_runs))


def compare_refs(store, base_ref, new_ref, *, tolerance: float = 2.0, test: str = "mwu",
                 seed: int = 0) -> Comparison:
    base_runs, base, base_metrics = load_side(store, base_ref)
    new_runs, new, new_metrics = load_side(store, new_ref)
    base, new = placement.pair_board_level(base, new)
    order = list(dict.fromkeys(new_metrics + base_metrics))
    rows = compare_pools(base, new, tolerance=tolerance, test=test, seed=seed)
    return Comparison(str(base_ref), str(new_ref), tolerance, test, rows,
                      comparability(base_runs, new_runs), order)


# -- presentation -----------------------------------------------------------------------

def number(value: float | None) -> str:
    """Two decimals as the TF-A tables print them; small values keep 3 significant digits."""
    if value is None:
        return ""
    if value != 0 and abs(value) < 0.1:
        return f"{value:.3g}"
    return f"{value:.2f}"


def delta_text(delta: float | None) -> str:
    return "" if delta is None else f"{delta:+.2f}%"


def cell(row: Row) -> str:
    """``242.66 (+132.03%)`` when the change is shown, else the new value alone."""
    if row.status == "removed":
        return f"removed (was {number(row.base)})"
    if row.status == "added":
        return f"{number(row.new)} (added)"
    if row.shown:
        return f"{number(row.new)} ({delta_text(row.delta_pct) or 'from 0'})"
    return number(row.new)


def _params_text(params_key: str) -> str:
    return f" [{params_key}]" if params_key else ""


def _metric_title(metric: str) -> str:
    return metric.replace("_", " ").replace("-", " ").title()


def table_title(benchmark: str, params_key: str, mode: str, unit: str, label: str) -> str:
    """The TF-A style title: what, unit, mode and the release it shows; the TF-A
    document's own titles for the TFTF runtime-instrumentation tests."""
    from .ingest import tftf_rt_instr
    test = params_key.removeprefix("test=")
    if benchmark == tftf_rt_instr.BENCHMARK and test in tftf_rt_instr.TITLES:
        return f"{tftf_rt_instr.TITLES[test]} ({label})"
    return f"{benchmark}{_params_text(params_key)} ({unit}) in {mode} ({label})"


@functools.lru_cache(maxsize=1024)
def _table_rank(benchmark: str, params_key: str) -> int:
    """TFTF tables in the TF-A document's order; everything else after them, by key."""
    from .ingest import tftf_rt_instr
    tests = list(tftf_rt_instr.TITLES)
    test = params_key.removeprefix("test=")
    if benchmark == tftf_rt_instr.BENCHMARK and test in tests:
        return tests.index(test)
    return len(tests)


def document(cmp: Comparison) -> Document:
    """The comparison as a Document: one grid table per (benchmark, params, mode), in the
    TF-A layout ``Cluster | Core | <metric>...``, cells annotated per :func:`cell`."""
    doc = Document(f"{cmp.new_ref} compared with {cmp.base_ref}")
    test = ("two-sided Mann-Whitney U, p < 0.05" if cmp.test == "mwu"
            else "95% bootstrap interval of the median ratio excluding 1")
    intro = Section("Method", text=(
        f"Figures are medians of every sample of {cmp.new_ref}; each is paired with "
        f"{cmp.base_ref} by benchmark, parameters, mode, cluster, core and metric, never by "
        f"row position. A cell reads NEW (+x.xx%) only when the change is at least "
        f"{cmp.tolerance:g}% and significant ({test}). Where a side has a single value, or too "
        f"few samples for the test to reach significance, the tolerance alone decides."))
    doc.sections.append(intro)
    if cmp.differences:
        doc.sections.append(Section("Not like for like", text=(
            "These differ between the two sides and change results:"),
            items=[(d.key + (" (refused without --force)" if d.refuse else ""),
                    f"{d.base} -> {d.new}") for d in cmp.differences]))
    groups: dict[tuple, list[Row]] = {}
    # cmp.rows are sorted by key already; the sort is stable.
    for row in sorted(cmp.rows, key=lambda r: _table_rank(r.key[0], r.key[1])):
        groups.setdefault(row.key[:3], []).append(row)
    results = Section("Results")
    order = {m: i for i, m in enumerate(cmp.metric_order)}
    for (benchmark, params_key, mode), rows in groups.items():
        metrics = sorted({r.metric for r in rows}, key=lambda m: (order.get(m, len(order)), m))
        places: dict[tuple, dict] = {}
        for r in rows:
            places.setdefault((r.key[3], r.key[4]), {})[r.metric] = r
        units = sorted({r.unit for r in rows})
        table_rows = [[_place(cl), _place(co)] + [cell(by[m]) if m in by else "" for m in metrics]
                      for (cl, co), by in places.items()]
        tolerance_only = [r for r in rows if r.basis == "tolerance"]
        caption = ""
        if tolerance_only:
            caption = ("Single-valued figures: the tolerance alone decides."
                       if len(tolerance_only) == len([r for r in rows if r.status == "both"])
                       else f"{len(tolerance_only)} figure(s) with too few samples: "
                            "the tolerance alone decides for those.")
        results.tables.append(Table(
            table_title(benchmark, params_key, mode, "/".join(units), cmp.new_ref),
            ["Cluster", "Core"] + [_metric_title(m) for m in metrics], table_rows,
            layout="grid", caption=caption))
    doc.sections.append(results)
    changed = [r for r in cmp.rows if r.status != "both"]
    if changed:
        doc.sections.append(Section("Added and removed", items=[
            (key_text(r.key), f"{r.status} ({number(r.new if r.status == 'added' else r.base)} "
                              f"{r.unit})") for r in changed]))
    if cmp.regressions:
        doc.sections.append(Section("Regressions", items=[
            (key_text(r.key), f"{number(r.base)} -> {number(r.new)} {r.unit} "
                              f"({delta_text(r.delta_pct)}, {r.direction} is better)")
            for r in cmp.regressions]))
    doc.data = to_json(cmp)
    return doc


def _place(value) -> str:
    return "-" if value is None else str(value)


def key_text(key: tuple) -> str:
    benchmark, params_key, mode, cluster, core, metric = key
    where = f" cluster {cluster} core {core}" if cluster is not None or core is not None else ""
    return f"{benchmark}{_params_text(params_key)} {mode}{where} {metric}"


def to_json(cmp: Comparison) -> dict:
    names = ("benchmark", "params", "mode", "cluster", "core", "metric")
    fields = ("unit", "direction", "base", "new", "n_base", "n_new", "delta_pct", "p_value",
              "ratio_ci", "basis", "significant", "shown", "regression", "improvement", "status")
    rows = [{**dict(zip(names, r.key)), **{f: getattr(r, f) for f in fields}} for r in cmp.rows]
    return {"base": cmp.base_ref, "new": cmp.new_ref, "tolerance_pct": cmp.tolerance,
            "test": cmp.test, "alpha": ALPHA,
            "differences": [asdict(d) for d in cmp.differences],
            "rows": rows, "regressions": len(cmp.regressions)}
