"""Importers for the results people already have: one module per foreign format.

Each module has ``parse(text, name) -> list[Result]`` (the records the probe would have
written) and raises :class:`IngestError` naming ``name:line`` for anything it cannot read;
nothing else escapes (the test suite fuzzes every parser). A module may also have
``histograms(text, name) -> list[dict]`` (``histogram`` records of
docs/results-format.md). Adding a format = one module + one row in :data:`FORMATS`.

A line-based module also has ``read(lines, name) -> Iterator[Result]``: the CLI feeds it the
file line by line and pools each result as it comes (:class:`Pool`), so a 50 MB log is
never held whole, nor as a million Result objects; memory grows with the distinct keys
and their samples only. Formats without ``read`` (JSON documents) are read whole.

An importer never drops a table in silence: what it recognises as a table of its format it
takes whole or refuses (IngestError); a table it sees and does not take (not of its format)
it yields as :class:`Skipped` among the results of ``read``, and the import says so. A
module may order its runs (``column_order(column)``: TF-A's releases, oldest first).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Iterable, Iterator

from ..records import Result
from .errors import IngestError, Note, Skipped, Words
from .pooling import Pool, pool
from . import (cyclictest_json, instr, latency_table, lava, lmbench, oslat_json, probe_jsonl, rst_csv_table,
               stream, systemd_analyze, tfa_rst, tftf_rt_instr)

__all__ = ["FORMATS", "Format", "IngestError", "LeftOut", "Note", "Pool", "Skipped", "Words", "pool", "read_lines",
           "results_of"]


@dataclass(frozen=True)
class Format:
    module: ModuleType
    help: str
    # rst-csv-table: one run per published column, named by Result.extra["column"]
    run_per_column: bool = False
    # probe-jsonl: the probe's own records, with meta, status and histograms (ProbeStream)
    probe_run: bool = False
    # instr: intervals named by a TOML (--intervals), results placed per (cluster, core)
    takes_intervals: bool = False
    # lava: a platperf LAVA job's log, or its id on a LAVA server (cli/lava.py)
    lava_job: bool = False
    # what an implausible figure's refusal tells the user to do where its unit is likely {unit}
    # (tfa-rst: its titles' unit can be overridden); "" for formats whose files carry no unit choice
    unit_remedy: str = ""

    def parse(self, text: str, name: str) -> list[Result]:
        return self.module.parse(text, name)

    def histograms(self, text: str, name: str) -> list[dict]:
        read = getattr(self.module, "histograms", None)
        return read(text, name) if read else []

    def read_file(self, path: Path, said: list | None = None, **options) -> tuple[Iterator[Result], list[dict]]:
        """(results as they are read, histograms) of one file; OSError if it cannot be read.

        Line-based formats stream the file; the others read it whole (one JSON document
        cannot be parsed in pieces). ``options`` go to the module's read (instr: intervals);
        what the module says besides its results (:class:`Skipped` tables, :class:`Words`
        cells) goes to ``said``."""
        name = str(path)
        if hasattr(self.module, "read"):
            return _results(self.module.read(read_lines(path), name, **options), said), []
        text = path.read_text(encoding="utf-8", errors="replace")
        return iter(self.parse(text, name)), self.histograms(text, name)

    def column_order(self, column: str):
        """Where a run of this column goes among the import's runs (the order read, unless
        the module orders them)."""
        order = getattr(self.module, "column_order", None)
        return order(column) if order else ()


def _results(items: Iterable, said: list | None) -> Iterator[Result]:
    for item in items:
        if isinstance(item, (Skipped, Words)):
            if said is not None:
                said.append(item)
        else:
            yield item


class LeftOut:
    """What an import said besides its results: the tables it left out (:class:`Skipped`) and
    how it took others (:class:`Note`), the first ``limit`` of each and how many in all; a 50 MB
    page repeating a historic table a thousand times is told in a few lines and a count, in
    bounded memory."""

    _WORDS = {Note: ("note", "more note(s) of the same kinds"),
              Skipped: ("not imported", "more table(s) of the same kinds")}

    def __init__(self, limit: int = 8):
        self.limit = limit
        self.first: dict[type, list] = {Note: [], Skipped: []}
        self.counts: dict[type, int] = {Note: 0, Skipped: 0}

    @property
    def count(self) -> int:
        return sum(self.counts.values())

    def append(self, item: Skipped):
        kind = Note if isinstance(item, Note) else Skipped
        self.counts[kind] += 1
        if len(self.first[kind]) < self.limit:
            self.first[kind].append(item)

    def lines(self) -> list[str]:
        out = []
        for kind, (word, more) in self._WORDS.items():
            out += [f"{word}: {item}" for item in self.first[kind]]
            if self.counts[kind] > len(self.first[kind]):
                out.append(f"{word}: {self.counts[kind] - len(self.first[kind])} {more}")
        return out


def results_of(items: Iterable) -> list[Result]:
    """The results of a module's ``read``, without what it says it skipped."""
    return list(_results(items, None))


def read_lines(path: Path) -> Iterator[str]:
    """The lines of ``path`` as ``str.splitlines`` would cut the whole text, read lazily.

    Universal newlines turn \r\n and \r into \n; splitting each line again cuts at the
    rarer breaks (\v, \f, \x1c..\x1e, \x85, \u2028, \u2029) exactly as splitlines does,
    so a line number is the same whether the file was parsed whole or streamed."""
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            yield from line.splitlines()


FORMATS: dict[str, Format] = {
    "tftf-rt-instr": Format(tftf_rt_instr, "TF-A TFTF runtime-instrumentation log (<RT_INSTR:...> lines)"),
    "tfa-rst": Format(tfa_rst, "TF-A's published PSCI performance pages of every year (Juno, N1SDP): grid "
                      "and csv-tables `Cluster | Core | ...`, one run per release (v2.9, v2.10, ...)",
                      run_per_column=True, unit_remedy="if so, import the page with --unit {unit}"),
    "lmbench": Format(lmbench, "LMBench 2 and 3 as published: summary tables (make summary / make see, one run "
                      "per host row), results files and run logs (lat_mem_rd, bw_mem, lat_ctx, lat_fs, bw_file_rd, "
                      "`name: N microseconds`)", run_per_column=True),
    "stream": Format(stream, "STREAM 5.4 to 5.10 output (Function / Rate / Avg / Min / Max time table), "
                     "single- or multi-threaded"),
    "cyclictest-json": Format(cyclictest_json, "cyclictest --json=FILE output (rt-tests 2.x): latency per thread"),
    "oslat-json": Format(oslat_json, "oslat --json=FILE output (rt-tests 2.x): latency per thread"),
    "systemd-analyze": Format(systemd_analyze, "systemd-analyze outputs or a board's journal: one boot time "
                              "per system `Startup finished in ... (kernel) + ...` line, keyed by --media"),
    "rst-csv-table": Format(rst_csv_table, "published RST csv-tables (TI's performance guides of every device and "
                            "year), one run per `platform: ...` column",
                            run_per_column=True),
    "instr": Format(instr, "points timestamped with probe/include/platperf_instr.h, as the intervals "
                    "--intervals TOML names (END - START), per (cluster, core)", takes_intervals=True),
    "latency-table": Format(latency_table, "a latency study's mitigation tables `Applied Mitigation | "
                            "Maximum Latency | Minimum Latency` (the Agilex 5 study's web page as copied, "
                            "or platperf's Markdown report)"),
    "probe-jsonl": Format(probe_jsonl, "platperf-probe JSON Lines saved on a board "
                          "(`platperf-probe run ... > board.jsonl`, invocations appended), stored as "
                          "`platperf run` stores them", probe_run=True),
    "lava": Format(lava, "a `platperf lava job` job: its id on a LAVA server (--identity) or its saved "
                   "log (`lavacli jobs logs ID --raw`, lava-run's output); the probe's records and "
                   "the board's description, with the LAVA job id, device and URL", lava_job=True),
}

