"""TF-A's tables as its PSCI performance page lays them out: the firmware latencies per
(cluster, core), a test's releases one after the other under the page's heading for it, for
what the ``psci`` suite measured from Linux (hotplug, its cpuhp phases, idle-state wake-ups)
and for imported TFTF runs (``ingest tftf-rt-instr``, ``ingest tfa-rst``).

A published page's figures print as the page printed them: its precision (``245.1``), its
``(+x.xx%)`` annotations, its release as spelt in its titles (``(2.9)``), its caption rows.
Where the report holds the release before a page's, the page's deltas stand beside
platperf's own for the same key, and the section says where they disagree
(:mod:`platperf.compare.annotations`). ``platperf compare`` builds the same tables
(``platperf.report.tfa``)."""
from __future__ import annotations

from dataclasses import dataclass

from ... import stats
from ...compare import annotations, board_level, keyed as compare
from ...vocab.figures import number
from ...vocab.tfa import BENCHMARKS, METRIC_ORDER, TFTF_BENCHMARK, TFTF_HEADINGS
from ..data import ReportData
from ..document import Section, Table
from ..intervals import with_interval
from ..tfa import keyed_tables, place

TEXT = ("One table per test as TF-A's PSCI performance page lays them out, each release of a "
        "test after the other: medians of each core's samples (the median of the run medians "
        "when a label pools several runs); a published page's figures as it printed them, with "
        "its own (+x.xx%) annotations.")
# said only where the psci suite measured from Linux: TFTF's figures (a page, a log) are the
# firmware's own instrumentation, with no kernel share in them
LINUX_TEXT = (" Hotplug and idle-state figures are measured from Linux on "
              "the issuing or sleeping CPU, so they hold the kernel's share as well as the firmware's; "
              "the cpuhp phase tables separate the steps that stop or start the CPU (cpu_stop, "
              "cpu_start: PSCI CPU_OFF / CPU_ON are inside) from the kernel's own.")
COMPARE_TEXT = " Compare two releases with platperf compare."


@dataclass
class Figure:
    """One key of one column: platperf's figure, and what a page printed for it."""

    value: float | None
    interval: object = None
    text: str | None = None          # the page's number as printed (one imported cell)
    page_delta: float | None = None  # the page's (+x.xx%)
    release: str | None = None       # the release as the page's title spells it
    caption: str | None = None       # the page's caption row over the table
    title: str | None = None         # the page's title of a table no TFTF test has
    why: str | None = None           # no figure: an idle state "rejected" or "not entered"
    headers: tuple | None = None     # the header of the page's historic per-CPU table


def cell(fig: Figure) -> str:
    if fig.why is not None:
        return fig.why
    if fig.text is not None:
        return fig.text + (f" ({fig.page_delta:+.2f}%)" if fig.page_delta is not None else "")
    return with_interval(number(fig.value), fig.interval)


def _figures(col, data: ReportData) -> list[tuple[tuple, str, Figure]]:
    pooled: dict[tuple, tuple[str, list]] = {}
    for res in col.results:
        if res.benchmark in BENCHMARKS:
            pooled.setdefault(res.key, (res.unit, []))[1].append(res)
    out = []
    for key, (unit, every) in pooled.items():
        # an idle state never entered: no figure, the reason
        results = [r for r in every if not r.not_measured]
        if not results:
            out.append((key, unit, Figure(None, why=" / ".join(sorted({r.not_measured for r in every})))))
            continue
        # several runs pooled under one label: the median of their medians
        fig = Figure(stats.median([r.summary["median"] for r in results]),
                     data.intervals.get((col.name, key)) if data.ci else None)
        if len(results) == 1 and results[0].summary.get("n") == 1:
            one = results[0]
            text = board_level.published(one, "published")
            # a page's ns figures are stored in µs: its number as printed would be another unit
            fig.text = text if isinstance(text, str) and not board_level.published(one, "published_unit") else None
            fig.page_delta = annotations.published_delta(one.extra)
            fig.release, fig.caption, fig.title = (_text(board_level.published(one, name))
                                                   for name in ("release", "caption", "title"))
            headers = board_level.published(one, "headers")
            if isinstance(headers, list) and all(isinstance(h, str) for h in headers):
                fig.headers = tuple(headers)
        out.append((key, unit, fig))
    return out


def _text(value) -> str | None:
    return value if isinstance(value, str) else None


def _published(figures: list[Figure]) -> dict:
    """What the page printed over a table, where its cells agree on it."""
    out = {}
    for name in ("release", "caption", "title", "headers"):
        values = {getattr(f, name) for f in figures}
        if len(values) == 1 and None not in values:
            out[name] = values.pop()
    return out


def build(data: ReportData) -> Section | None:
    tests: dict[tuple, list] = {}      # (benchmark, params, mode) -> [(column, figures, table)]
    metrics: dict[str, None] = {}
    for col in data.columns:
        for res in col.results:
            if res.benchmark in BENCHMARKS:
                metrics.setdefault(res.metric, None)
    order = list(dict.fromkeys(METRIC_ORDER + tuple(metrics)))
    for col in data.columns:
        figures = _figures(col, data)
        for group, table in keyed_tables(figures, col.name, cell, order, published=_published):
            mine = {tuple(k): f for k, _, f in figures if tuple(k[:3]) == group}
            tests.setdefault(group, []).append((col.name, mine, table))
    if not tests:
        return None
    linux = any(benchmark != TFTF_BENCHMARK for benchmark, *_ in tests)
    section = Section(title="Firmware latencies per core (TF-A layout)",
                      text=TEXT + (LINUX_TEXT if linux else "") + COMPARE_TEXT)
    section.subsections += _board_tables(data)
    placed = set()
    for heading, (names, text) in TFTF_HEADINGS.items():
        groups = [g for g in tests if g[0] == TFTF_BENCHMARK and g[1] == f"test={names[0]}"] + \
                 [g for name in names[1:] for g in tests if g[0] == TFTF_BENCHMARK and g[1] == f"test={name}"]
        if groups:
            sub = Section(title=heading, text=text, markup=True)
            for group in groups:
                sub.tables += _test_tables(tests[group])
                placed.add(group)
            section.subsections.append(sub)
    for group, releases in tests.items():
        if group not in placed:
            section.tables += _test_tables(releases)
    disagreements = sum(row[-1] != "agrees" for sub in [section, *section.subsections] for t in sub.tables
                        if t.headers[-1:] == ["Verdict"] for row in t.rows)
    if disagreements:
        section.text += (f" The page's own deltas disagree with platperf's for {disagreements} key(s): "
                         "its script pairs a release's rows with the previous release's by their "
                         "position, platperf by (cluster, core) (see the Deltas tables).")
    tables = [t for sub in [section, *section.subsections] for t in sub.tables]
    if any(c in ("rejected", "not entered") for t in tables for row in t.rows for c in row):
        section.text += (" An idle state marked rejected (the firmware refused it: the state's rejected "
                         "counter moved) or not entered (its usage did not move) while it was the only "
                         "one enabled has no figure: its samples are another state's wake-up.")
    return section


def _board_tables(data: ReportData) -> list[Section]:
    """The page's tables of words (its board: *Method*, ``Domain | Frequency (MHz)``), once
    however many of its releases are reported, under their heading as the page prints them."""
    tables: dict[str, dict] = {}
    for col in data.columns:
        for run in col.runs:
            for w in (run.get("meta") or {}).get("published") or []:
                if isinstance(w, dict) and w.get("layout") == "tfa" and isinstance(w.get("title"), str):
                    t = tables.setdefault(w["title"], {"lead": (w.get("row_header") or [""])[0], "rows": {}})
                    t["rows"].setdefault(str(w.get("row")), {})[str(w.get("header"))] = str(w.get("text"))
    out = []
    for title, t in tables.items():
        headers = list(dict.fromkeys(h for cells in t["rows"].values() for h in cells))
        rows = [[row] + [cells.get(h, "") for h in headers] for row, cells in t["rows"].items()]
        out.append(Section(title=title, tables=[Table("", [t["lead"]] + headers, rows, layout="grid")]))
    return out


def _test_tables(releases: list) -> list[Table]:
    """A test's table of each release, each page's followed by its deltas beside platperf's
    from the release before it in the report."""
    out = []
    for i, (label, figures, table) in enumerate(releases):
        out.append(table)
        if i and any(f.text is not None for f in figures.values()):
            deltas = _deltas(releases[i - 1], (label, figures, table))
            if deltas:
                out.append(deltas)
    return out


def _deltas(before: tuple, after: tuple) -> Table | None:
    """Each key where the page annotates a change or where its silence disagrees with the
    change platperf finds: the page's delta, platperf's, and the verdict."""
    base_label, base, _ = before
    _, new, table = after
    annotated = {key[:3] + key[-1:] for key, f in new.items() if f.page_delta is not None}
    rows = []
    for key, fig in sorted(new.items(), key=lambda kv: (kv[0][-3], kv[0][-2], kv[0][-1])):
        previous = base.get(key)
        own = annotations.delta(previous.value if previous else None, fig.value)
        said = annotations.judge(fig.page_delta, own, key[:3] + key[-1:] in annotated, compare.TOLERANCE)
        if said is not None:
            rows.append([key[-1], place(key[-3]), place(key[-2]), said.page_text, said.own_text, said.verdict])
    if not rows:
        return None
    return Table(f"Deltas of {table.title} from {base_label}: the page's and platperf's",
                 ["Metric", "Cluster", "Core", "The page", "platperf", "Verdict"], rows, layout="grid",
                 markup=True,
                 caption=f"platperf pairs each key with the same (cluster, core) of {base_label}")
