"""Latency under interference (``platperf interference`` runs), as the Agilex 5 study
prints it: one table a victim CPU with the study's three columns, ``Applied Mitigation |
Maximum Latency | Minimum Latency``, the mitigations in the order they were applied
(``none`` is the study's ``none (default)``), latencies written as the study writes them
(``57ns``, ``10.780us``); a mitigation that could not be applied says why. Two victims in
one report (a little and a big core) sit side by side in one table. The other statistics
(p99, p99.99, the excursions over the threshold and the interference factor: maximum with
the aggressor pattern over the maximum with none, same loop and mitigation) are in a second
table. Then the histograms on a log-count axis; the CDF of each loop variant's cells as
1 - CDF on a log axis, so the tail stays visible; every cell's histogram, top excursions and
raw samples in the JSON export.

Counted with ``--events`` (issue 37 part 4), the victim's events per pass follow the study's
two columns in its table, one column an event (``L2D_CACHE_REFILL per pass``): the cause of
a maximum beside it. A count that ran for part of the cell (the PMU's counters took turns)
says its share, never scaled; an event asked for and counted nowhere, and the DSU's cluster
events when no ``arm_dsu_*`` PMU was counted, are said in the caption."""
from __future__ import annotations

from ...compare import board_level
from ...interference import BENCHMARK, LOOPS, PATTERNS
from ..data import ReportData
from ..document import Plot, Section, Table
from ..svg import histogram_plot, line_plot

MAX_HISTOGRAM_PLOTS = 24
HEADERS = ["Applied Mitigation", "Maximum Latency", "Minimum Latency"]
STATISTICS = ["p99", "p99.99", "Excursions", "Interference factor"]
DEFAULT = "none (default)"


def latency_text(ns) -> str:
    """As the study writes them: 57ns, 10.780us, 165.000us (never ms)."""
    if ns is None:
        return ""
    if ns < 1000:
        return f"{ns:.0f}ns"
    return f"{ns / 1e3:.3f}us"


def _cells(data: ReportData) -> list[dict]:
    """Every stored latency-loop histogram of the report's runs, with its results."""
    if data.store is None:
        return []
    cells = []
    for col in data.columns:
        metrics: dict[tuple, dict] = {}
        steps: dict[tuple, dict] = {}
        counted: dict[tuple, dict] = {}
        for res in col.results:
            if res.benchmark == BENCHMARK:
                metrics.setdefault((res.run_id, res.params_key, res.cpu), {})[res.metric] = res.summary["median"]
                if _is_per_pass(res):
                    counted.setdefault((res.run_id, res.params_key, res.cpu), {})[res.metric] = res
                if "resolution_steps" in (res.extra or {}):
                    steps.setdefault((res.run_id, res.params_key, res.cpu), {})[res.metric] = \
                        res.extra["resolution_steps"]
        imported: dict[tuple, dict] = {}     # a published table's rows: no histogram
        for res in col.results:
            title = board_level.published(res, "title") if res.benchmark == BENCHMARK else None
            if isinstance(title, str):
                cell = imported.setdefault((res.run_id, res.params_key, res.cpu), {
                    "column": col.name, "run_id": res.run_id, "cpu": res.cpu, "loop": "plain", "pattern": "none",
                    "mitigation": res.params.get("mitigation", "none"), "aggressors": "", "threshold": None,
                    "params": res.params, "record": {}, "metrics": {}, "title": title, "published": {}})
                cell["metrics"][res.metric] = res.summary["median"]
                text = board_level.published(res, "published")
                if isinstance(text, str):
                    cell["published"][res.metric] = text
                cell["line"] = min(cell.get("line", 1 << 30), _line(board_level.published(res, "source")))
        cells += imported.values()
        for run in col.runs:
            for h in data.store.histograms(run["id"]):
                if h["benchmark"] != BENCHMARK:
                    continue
                p = h["params_json"]
                cells.append({"column": col.name, "run_id": run["id"], "cpu": h["cpu"],
                              "loop": p.get("variant", "plain"), "pattern": p.get("pattern", "none"),
                              "mitigation": p.get("mitigation", "none"), "aggressors": p.get("aggressors", ""),
                              "threshold": p.get("threshold"), "params": p, "record": h["record"],
                              "metrics": metrics.get((run["id"], h["params"], h["cpu"]), {}),
                              "steps": steps.get((run["id"], h["params"], h["cpu"]), {}),
                              "counted": counted.get((run["id"], h["params"], h["cpu"]), {}),
                              "asked": h["record"].get("events_asked")})
    return cells


def _order(values, known):
    return sorted(set(values), key=lambda v: (known.index(v) if v in known else len(known), v))


def _mitigation_text(cell) -> str:
    """The mitigation as applied, in order; why one was not: ``rt (not applied: no
    /dev/cpu_dma_latency)``."""
    why = [f"{m['name']}: {m.get('detail') or 'not applied'}" for m in cell["record"].get("mitigations") or []
           if not m.get("applied")]
    rt = cell["record"].get("rt") or {}
    if rt.get("requested") and not rt.get("applied") and not any(w.startswith("rt:") for w in why):
        why.append(f"rt: {rt.get('message') or 'the probe could not take SCHED_FIFO'}")
    text = DEFAULT if cell["mitigation"] == "none" else cell["mitigation"].replace("+", " + ")
    return f"{text} (not applied: {'; '.join(why)})" if why else text


def _row_name(c: dict, several: bool) -> str:
    """A row: the mitigation, with the loop and pattern where a table holds several."""
    pattern = "no aggressor" if c["pattern"] == "none" else c["pattern"]
    return _mitigation_text(c) + (f", {c['loop']} loop, {pattern}" if several else "")


def _victim_tables(cells: list[dict], idle: dict) -> list[Table]:
    """The study's table (one a victim, or two victims side by side), then the statistics."""
    victims = list(dict.fromkeys((c["column"], c["cpu"]) for c in cells))
    several = len({(c["loop"], c["pattern"]) for c in cells}) > 1
    # rows in the order the mitigations were applied (the run's order), each loop and pattern
    rows: dict[str, dict] = {}
    for c in cells:
        rows.setdefault(_row_name(c, several), {})[(c["column"], c["cpu"])] = c
    side = len(victims) > 1
    def who(v):
        return f" (CPU {v[1]}, {v[0]})" if side else ""
    counters = _counter_columns(cells)
    headers = HEADERS[:1] + [h + who(v) for v in victims for h in HEADERS[1:] + [h for _, h in counters]]
    main, stats = [], []
    for name, by in rows.items():
        main.append([name] + [text for v in victims
                              for text in _extremes(by.get(v)) + _counts(by.get(v), counters)])
        for v in victims:
            if v in by:
                stats.append([name] + ([f"CPU {v[1]} ({v[0]})"] if side else []) + _statistics(by[v], idle))
    c0 = cells[0]
    title = " and ".join(f"CPU {v[1]}" for v in victims) + f" ({', '.join(dict.fromkeys(v[0] for v in victims))})"
    quantised = ("; (N counter steps): a pass within 4 steps of the counter's resolution, quantised by it"
                 if any(c.get("steps") for c in cells) else "")
    caption = (f"latency_loop on CPU {', '.join(str(v[1]) for v in victims)}, "
               + (f"patterns on CPUs {c0['aggressors']}" if c0["aggressors"] else "no aggressor") + quantised)
    return [Table(title=f"Mitigation results, {title}", headers=headers, rows=main, layout="grid",
                  caption=caption + _events_caption(cells, counters)),
            Table(title=f"Tail statistics, {title}",
                  headers=HEADERS[:1] + (["Victim"] if side else []) + STATISTICS, rows=stats, layout="grid",
                  caption=f"excursions: passes over {latency_text(c0.get('threshold'))}; "
                          "interference factor: maximum / maximum with no pattern" + quantised)]


def _is_per_pass(res) -> bool:
    """A counter the probe counted on the victim around its loop, stored per pass
    (events.counted: metric ``<name>_per_pass``, unit ``<unit>/pass``)."""
    return res.metric.endswith("_per_pass") and str(res.unit).endswith("/pass")


def _counter_columns(cells: list[dict]) -> list[tuple[str, str]]:
    """(metric, header) of each counter stored with the cells, in the order first counted:
    the event as the PMU names it (``L2D_CACHE_REFILL per pass``)."""
    columns: dict[str, str] = {}
    for c in cells:
        for metric, res in (c.get("counted") or {}).items():
            event = (res.extra or {}).get("event") or metric[:-len("_per_pass")]
            columns.setdefault(metric, f"{event} per pass")
    return list(columns.items())


def count_text(value) -> str:
    """Events per pass: three significant figures (0.00125, 11, 2.5), whole above 100."""
    if value is None:
        return ""
    return f"{value:.0f}" if value >= 100 or value == 0 else f"{value:.3g}"


def _counts(c: dict | None, counters: list[tuple[str, str]]) -> list[str]:
    """The cell's count per pass of each counter; one that ran for part of the cell says the
    share it ran (the PMU had fewer counters than asked: kept as counted, not scaled)."""
    out = []
    for metric, _ in counters:
        res = ((c or {}).get("counted") or {}).get(metric)
        if res is None:
            out.append("")
            continue
        shares = (res.extra or {}).get("running_share") or []
        share = min(shares) if shares else 1.0
        out.append(count_text(res.summary["median"]) + (f" (counted {share:.0%} of it)" if share < 0.999 else ""))
    return out


def _events_caption(cells: list[dict], counters: list[tuple[str, str]]) -> str:
    """What --events asked for and no cell counted (the PMU lacks it: the probe's
    events-unavailable warning says why), and the DSU's cluster events when none were."""
    asked = [a for c in cells if c.get("asked") for a in str(c["asked"]).split(",")]
    if not asked and not counters:
        return ""
    got = {(res.extra or {}).get("asked") for c in cells for res in (c.get("counted") or {}).values()}
    lost = [a for a in dict.fromkeys(asked) if a not in got]
    said = "; events per pass of the victim's loop" if counters else ""
    if lost:
        said += f"; not counted on this board: {', '.join(lost)}"
    pmus = {str((res.extra or {}).get("pmu", "")) for c in cells for res in (c.get("counted") or {}).values()}
    if not any(p.startswith("arm_dsu") for p in pmus):
        said += "; no DSU PMU (arm_dsu_*) counted: the cluster's snoops and L3 refills are not shown"
    return said


def _study_tables(data: ReportData, published: list[dict]) -> list[Table]:
    """A study's tables imported (``ingest latency-table``) in the study's order: its
    mitigation tables, and its tables of words (the EMIF table) as it printed them."""
    tables: dict[str, tuple[int, Table]] = {}
    for title in dict.fromkeys(c["title"] for c in published):
        mine = [c for c in published if c["title"] == title]
        tables[title] = (min(c.get("line", 0) for c in mine), _published_table(title, mine))
    words: dict[str, dict] = {}
    for col in data.columns:
        for run in col.runs:
            for w in (run.get("meta") or {}).get("published") or []:
                if isinstance(w, dict) and w.get("layout") == "latency" and isinstance(w.get("title"), str):
                    t = words.setdefault(w["title"], {"lead": (w.get("row_header") or [""])[0], "rows": {},
                                                      "line": _line(w.get("where"))})
                    t["rows"].setdefault(str(w.get("row")), {})[str(w.get("header"))] = str(w.get("text"))
    for title, t in words.items():
        if title not in tables:
            headers = list(dict.fromkeys(h for cells in t["rows"].values() for h in cells))
            rows = [[row] + [cells.get(h, "") for h in headers] for row, cells in t["rows"].items()]
            tables[title] = (t["line"], Table(title, [t["lead"]] + headers, rows, layout="grid"))
    return [table for _, table in sorted(tables.values(), key=lambda lt: lt[0])]


def _line(where) -> int:
    tail = str(where or "").rpartition(":")[2]
    return int(tail) if tail.isdigit() else 0


def _published_table(title: str, cells: list[dict]) -> Table:
    """A study's table imported (``ingest latency-table``): its title, rows and cells as printed."""
    columns = list(dict.fromkeys(c["column"] for c in cells))
    side = len(columns) > 1
    headers = HEADERS[:1] + [h + (f" ({column})" if side else "") for column in columns for h in HEADERS[1:]]
    rows: dict[str, dict] = {}
    for c in cells:
        rows.setdefault(_mitigation_text(c), {})[c["column"]] = c
    return Table(title=title, headers=headers, layout="grid",
                 rows=[[name] + [t for column in columns for t in _extremes(by.get(column))]
                       for name, by in rows.items()])


def _figure(c: dict, metric: str, value) -> str:
    """A pass time, and how many counter steps it is when the probe said it is within a few
    (docs/results-format.md resolution_steps): a figure that short is quantised."""
    steps = c.get("steps", {}).get(metric)
    return latency_text(value) + (f" ({steps:g} counter steps)" if steps is not None and value is not None else "")


def _extremes(c: dict | None) -> list[str]:
    if c is None:
        return ["", ""]
    m, rec, page = c["metrics"], c["record"], c.get("published") or {}
    return [page.get("latency_max") or _figure(c, "latency_max", m.get("latency_max", rec.get("max"))),
            page.get("latency_min") or _figure(c, "latency_min", m.get("latency_min", rec.get("min")))]


def _statistics(c: dict, idle: dict) -> list:
    m, rec = c["metrics"], c["record"]
    worst = m.get("latency_max", rec.get("max"))
    base = idle.get((c["column"], c["cpu"], c["loop"], c["mitigation"]))
    factor = worst / base if c["pattern"] != "none" and base and worst is not None else None
    return [_figure(c, "p99", m.get("p99")), _figure(c, "p99_99", m.get("p99_99")),
            int(m["excursions"]) if "excursions" in m else rec.get("over_threshold"),
            f"{factor:.2f}x" if factor is not None else ""]


def _cdf_points(buckets) -> list[tuple[float, float]]:
    total = sum(b[2] for b in buckets)
    points, seen = [], 0
    for lo, hi, count in sorted(buckets):
        seen += count
        if seen < total:
            points.append((hi, (total - seen) / total))
    return points


def build(data: ReportData) -> Section | None:
    cells = _cells(data)
    if not cells:
        return None
    idle = {(c["column"], c["cpu"], c["loop"], c["mitigation"]): c["metrics"].get("latency_max", c["record"].get("max"))
            for c in cells if c["pattern"] == "none"}
    section = Section(title="Latency under interference",
                      text="Each pass of a tiny loop on the victim CPU reads the counter; the tables give "
                           "the longest and shortest pass while the other CPUs run each aggressor pattern, "
                           "for every mitigation applied. A mitigation that could not be applied is "
                           "marked so.")
    section.tables += _study_tables(data, [c for c in cells if c.get("title")])
    cells = [c for c in cells if not c.get("title")]
    victims = list(dict.fromkeys((c["column"], c["cpu"]) for c in cells))
    # two victims (a little and a big core) side by side; more, one table each
    groups = [victims] if len(victims) == 2 else [[v] for v in victims]
    for group in groups:
        chosen = [c for c in cells if (c["column"], c["cpu"]) in group]
        chosen.sort(key=lambda c: (_order([c["loop"] for c in cells], LOOPS).index(c["loop"]),
                                   _order([c["pattern"] for c in cells], PATTERNS).index(c["pattern"])))
        section.tables += _victim_tables(chosen, idle)
    for column in _order([c["column"] for c in cells], []):
        for loop in _order([c["loop"] for c in cells if c["column"] == column], LOOPS):
            series = [(f"{c['pattern']}, {c['mitigation']}", _cdf_points(c["record"].get("buckets") or []))
                      for c in cells if (c["column"], c["loop"]) == (column, loop)]
            series = [(name, pts) for name, pts in series if pts]
            if series:
                title = f"1 - CDF, {loop} ({column})"
                section.plots.append(Plot(title=title, svg=line_plot(
                    title, series, x_label="pass time (ns)", y_label="fraction of passes longer (log)",
                    log_x=True, log_y=True, x_format=latency_text),
                    caption="the fraction of passes longer than x: the tail the maximum comes from"))
    for c in cells[:MAX_HISTOGRAM_PLOTS]:
        buckets = [tuple(b[:3]) for b in c["record"].get("buckets") or []]
        if not buckets:
            continue
        title = f"{c['loop']}, {c['pattern']}, {c['mitigation']} (CPU {c['cpu']}, {c['column']})"
        section.plots.append(Plot(title=title, svg=histogram_plot(title, buckets, x_label="pass time (ns)",
                                                                  log_x=True),
                                  caption=f"{c['record'].get('count')} passes, min "
                                          f"{latency_text(c['record'].get('min'))}, max "
                                          f"{latency_text(c['record'].get('max'))}"))
    return section


def export(data: ReportData) -> dict:
    """The raw data of every cell for the JSON export: histogram, top excursions with their
    times, raw samples when kept, what each mitigation did."""
    return {"interference": [{k: c[k] for k in ("column", "run_id", "cpu", "loop", "pattern", "mitigation",
                                                "aggressors", "params", "metrics")}
                             | {"histogram": c["record"]} for c in _cells(data)]} if _cells(data) else {}
