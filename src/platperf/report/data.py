"""The stored runs a report is about: one column per RUN argument (a label pools its runs).

Results are read without their samples: a report quotes summaries, and a run of a million
samples must not be unpacked to print its medians.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..vocab.sizes import size_or_none


@dataclass
class RunColumn:
    name: str                   # the column header: the label, or "run 7"
    runs: list[dict]            # stored runs pooled in this column, oldest first
    results: list = field(default_factory=list)    # StoredResult, samples not loaded

    @property
    def fingerprint(self) -> dict:
        """The newest run's fingerprint (a label's runs are of one target)."""
        return self.runs[-1].get("fingerprint") or {}


@dataclass
class ReportData:
    columns: list[RunColumn]
    store: object = None        # for sections that read more (histograms)
    ci: bool = False            # figures in tables with their 95% intervals (report --ci)
    _intervals: dict | None = None
    _pools: dict | None = None
    _comparison: tuple | None = None

    @property
    def pools(self) -> dict:
        """Column name -> {key: :class:`platperf.compare.pools.Pool`}: every key's samples, run by
        run, read once (for the sections that need more than summaries)."""
        if self._pools is None:
            from ..compare.pools import load_pools
            self._pools = {col.name: load_pools(self.store, [run["id"] for run in col.runs])[0]
                           for col in self.columns} if self.store is not None else {}
        return self._pools

    @property
    def comparison(self):
        """The last column against the one before (:func:`platperf.compare.keyed.compare_runs`),
        computed once for the sections that show it (the summary's verdict, the comparison);
        None with one column, without a store, or when the two ran on different machines (a
        guide's columns are different boards: nothing to compare)."""
        if self._comparison is None:
            found = None
            if len(self.columns) >= 2 and self.store is not None:
                from ..compare import keyed
                base, new = self.columns[-2], self.columns[-1]
                found = keyed.compare_runs(self.store, base.runs, new.runs, base.name, new.name)
                found = None if found.refused else found
            self._comparison = (found,)
        return self._comparison[0]

    @property
    def intervals(self) -> dict:
        """(column name, key) -> :class:`platperf.report.intervals.Interval`, computed once."""
        if self._intervals is None:
            from .intervals import column_intervals
            self._intervals = column_intervals(self)
        return self._intervals


def load(store, refs: list[str], ci: bool = False) -> ReportData:
    """Columns for ``refs`` (id, label or ``latest``); StoreError if one does not exist.
    ``ci``: tables show each figure's 95% interval."""
    columns = []
    for ref in refs:
        runs = store.runs_for(ref)
        labels = {r.get("label") for r in runs}
        name = labels.pop() if len(labels) == 1 and None not in labels else None
        name = name or ", ".join(f"run {r['id']}" for r in runs)
        results = [res for r in runs for res in store.results(r["id"], with_samples=False)]
        columns.append(RunColumn(name=name, runs=runs, results=results))
    seen: dict[str, int] = {}
    for col in columns:              # two columns of one label: tell them apart by run id
        seen[col.name] = seen.get(col.name, 0) + 1
    for col in columns:
        if seen[col.name] > 1:
            col.name = f"{col.name} (run {', '.join(str(r['id']) for r in col.runs)})"
    return ReportData(columns=columns, store=store, ci=ci)


def pooled_summaries(results) -> list[tuple[object, dict]]:
    """A label's runs as one: (the first result, its summary over the runs) per (benchmark,
    params, mode, package, cluster, core, cpu, metric) -- the key compare and the report pair
    by --, in order of first appearance. The median is the median of the runs' medians (as
    compare and the report take a label's figure), min and max are over every sample, n
    counts them, ``runs`` the runs behind it.

    The place is (package, cluster, core) as well as cpu: an imported page (TF-A's per-core
    tables) gives each figure its (cluster, core) and no Linux CPU number, and its 96 figures
    must stay 96 rows, not pool into one per test and metric."""
    from .. import stats
    groups: dict[tuple, list] = {}
    for r in results:
        groups.setdefault((r.benchmark, r.params_key, r.mode, r.package, r.cluster, r.core, r.cpu, r.metric),
                          []).append(r)
    out = []
    for same in groups.values():
        sums = [r.summary for r in same]
        n = sum(s.get("n") or 0 for s in sums)
        mean = (sum((s.get("mean") or 0) * (s.get("n") or 0) for s in sums) / n) if n else None
        out.append((same[0], {"n": n, "min": min((s["min"] for s in sums if s.get("min") is not None), default=None),
                              "median": stats.median([s["median"] for s in sums]), "mean": mean,
                              "max": max((s["max"] for s in sums if s.get("max") is not None), default=None),
                              "stdev": sums[0].get("stdev") if len(sums) == 1 else None,
                              "runs": len({getattr(r, "run_id", None) for r in same})}))
    return out


def machine_read(run: dict) -> bool:
    """Whether a run's fingerprint was read from its machine's /sys and /proc: a measured run,
    a LAVA job's board, an import given ``--root``. An imported file's run has no fingerprint,
    and a probe stream saved without its board's tree holds only what the probe said of itself
    (arch, toolchain, build: ``fingerprint.from_probe_meta``); neither tells a frequency, SMT,
    a kernel, nor had a doctor look at its machine."""
    fp = run.get("fingerprint") or {}
    return isinstance(fp, dict) and any(fp.get(key) for key in ("cpu", "kernel", "topology"))


def unread_columns(data: ReportData) -> tuple[list[str], bool]:
    """The names of the columns none of whose machines was read (:func:`machine_read`), each
    with where its runs came from (``v2.10 (ingest:tfa-rst)``, shortened as a cell), and
    whether they all came from ``platperf ingest``."""
    from .document import cell_text
    cols = [col for col in data.columns if not any(machine_read(run) for run in col.runs)]
    names = [f"{cell_text(col.name)} ({', '.join(dict.fromkeys(str(r.get('source')) for r in col.runs))})"
             for col in cols]
    return names, all(str(r.get("source") or "").startswith("ingest:") for col in cols for r in col.runs)


def data_caches(fingerprint: dict) -> list[tuple[str, int]]:
    """(name, bytes) of the data and unified caches, smallest first: ``("L1d", 32768)``.

    One entry per distinct (level, size): a big.LITTLE board has two L2 sizes (Juno r1: 2 MiB
    on the A57 cluster, 1 MiB on the A53 cluster) and both are marked."""
    out = set()
    for c in fingerprint.get("caches") or []:
        if not isinstance(c, dict) or str(c.get("type", "")).lower().startswith("instr"):
            continue
        size = size_or_none(c.get("size"))
        if size:
            kind = "d" if str(c.get("type", "")).lower().startswith("data") else ""
            out.add((f"L{c.get('level', '?')}{kind}", size))
    return sorted(out, key=lambda kv: (kv[1], kv[0]))
