"""The first screen of a report: the machine in one line, the figures people quote of it
(latency per cache level in ns and cycles, bandwidth per level and from DRAM, the key OS
rows, core-to-core), and the findings that bear on them, bad first and counted. The detail
follows in the sections after it.

The figures are picked by :mod:`platperf.report.glance` and written as people say them
(``random 16 MiB``); a figure a run does not have is no row, a group with none no table.
With several columns each is one column of the tables, read at the keys of the newest.
"""
from __future__ import annotations

from ... import stats
from ...findings import collapse
from ...vocab.figures import number
from ..data import ReportData, RunColumn
from ..document import Section, Table
from ..glance import Figures, Quoted, quoted
from ..machine_line import machine_lines
from . import c2c

TITLE = "Summary"
LEVELS = ("bad", "warn", "info", "ok")
SAID = {"bad": "bad", "warn": "warning", "info": "note", "ok": "ok"}
MAX_FINDINGS = 8        # listed on the first screen; the Findings section has them all
GROUPS = (("Latency", "Latency per cache level"), ("Bandwidth", "Bandwidth per level and from DRAM"),
          ("OS", "Operating system"))


def gbs(mbs: float) -> str:
    """MB/s (10^6 B/s, as the probe and STREAM count) as GB/s with three figures."""
    v = mbs / 1000.0
    return f"{v:.0f} GB/s" if v >= 100 else f"{v:.1f} GB/s" if v >= 10 else f"{v:.2f} GB/s"


def value_text(q: Quoted, figures: Figures) -> str:
    found = figures.get(q.benchmark, q.params, q.metric)
    if found is None:
        return ""
    value = found[0]
    if q.unit == "MB/s":
        return gbs(value)
    text = f"{number(value)} {'µs' if q.unit == 'us' else q.unit}"
    also = figures.get(q.benchmark, q.params, q.also) if q.also else None
    return text + (f", {number(also[0])} cycles" if also else "")


def _cpus(q: Quoted, figures: Figures) -> int:
    found = figures.get(q.benchmark, q.params, q.metric)
    return found[1] if found else 0


def figure_tables(data: ReportData) -> list[Table]:
    """The quoted figures as one table a group, a column per run column; how many CPUs each
    figure is the median of in the title when they are all alike, else in its row."""
    newest = data.columns[-1]
    rows = quoted(newest)
    figures = [Figures(col) for col in data.columns]
    heads = [col.name for col in data.columns]
    out = []
    for group, title in GROUPS:
        members = [q for q in rows if q.group == group]
        if not members:
            continue
        cpus = {_cpus(q, figures[-1]) for q in members}
        alike = len(cpus) == 1
        if alike and max(cpus) > 1:
            title += f", median of {max(cpus)} CPUs"
        lines = [[q.name] + [value_text(q, f) for f in figures]
                 + [q.said if alike or _cpus(q, figures[-1]) < 2 else f"{q.said}, median of {_cpus(q, figures[-1])} CPUs"]
                 for q in members]
        out.append(Table(title, ["Level" if group != "OS" else "Row", *heads, "Measured at"], lines,
                         optional=("Measured at",)))
    core = c2c_table(data.columns)
    return out + ([core] if core else [])


def _c2c_cells(col: RunColumn) -> dict[str, str]:
    found = c2c.matrix(col)
    if found is None:
        return {}
    cpus, med, _ = found
    place = {c["cpu"]: (c["package"], c["cluster"]) for c in cpus}
    groups: dict[str, list[float]] = {}
    for (a, b), v in med.items():
        if a < b and v is not None:
            name = "same cluster" if place.get(a) == place.get(b) else "across clusters"
            groups.setdefault(name, []).append(v)
    return {name: f"{number(stats.median(v))} ns (min {number(min(v))}, max {number(max(v))}; "
                  f"{len(v)} pair{'s' * (len(v) > 1)})" for name, v in groups.items()}


def c2c_table(columns: list[RunColumn]) -> Table | None:
    cells = [_c2c_cells(col) for col in columns]
    names = [n for n in ("same cluster", "across clusters") if any(n in c for c in cells)]
    if not names:
        return None
    heads = [col.name for col in columns]
    return Table("Core-to-core latency, one-way median over pairs", ["Pairs", *heads],
                 [[n] + [c.get(n, "") for c in cells] for n in names])


def findings_table(data: ReportData) -> tuple[str, Table | None]:
    """(the count line, the table of bad and warning findings, bad first)."""
    found = []
    for col in data.columns:
        merged = collapse([{**f, "run": run["id"]} for run in col.runs
                           for f in run.get("findings") or [] if isinstance(f, dict)])
        found += [(col.name, f) for f in merged]
    if not found:
        return "", None
    counts = {level: sum(f.get("level") == level for _, f in found) for level in LEVELS}
    said = ", ".join(f"{n} {SAID[level]}{'s' * (n > 1 and level != 'ok')}"
                     for level, n in counts.items() if n)
    shown = sorted(((c, f) for c, f in found if f.get("level") in ("bad", "warn")),
                   key=lambda cf: LEVELS.index(cf[1]["level"]))
    if not shown:
        return f"Findings: {said}.", None
    several = len(data.columns) > 1
    rows = [[f["level"]] + [c] * several + [f.get("message", ""), f.get("effect") or ""]
            for c, f in shown[:MAX_FINDINGS]]
    more = len(shown) - MAX_FINDINGS
    table = Table(f"Worst findings first: {said}", ["Level"] + ["Column"] * several + ["Finding", "What it does to the figures"],
                  rows, caption=f"{more} more in Findings below." if more > 0 else "",
                  optional=("What it does to the figures",))
    return f"Findings: {said}.", table


def build(data: ReportData) -> Section | None:
    if not data.columns:
        return None
    tables = figure_tables(data)
    said, findings = findings_table(data)
    if not tables and findings is None:
        return None
    text = "\n\n".join(machine_lines(data.columns))
    if not tables:
        text += "\n\nNo figure of the usual summary (memory latency and bandwidth, OS rows, " \
                "core-to-core) was measured; the tables below hold every figure."
    return Section(TITLE, text=text + ("" if findings is not None or not said else f"\n\n{said}"),
                   tables=tables + ([findings] if findings is not None else []))
