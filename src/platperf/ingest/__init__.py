"""Importers for the results people already have: one module per foreign format.

Each module has ``parse(text, name) -> list[Result]`` (the records the probe would have
written) and raises :class:`IngestError` naming ``name:line`` for anything it cannot read;
nothing else escapes (the test suite fuzzes every parser). A module may also have
``histograms(text, name) -> list[dict]`` (``histogram`` records of
docs/results-format.md). Adding a format = one module + one row in :data:`FORMATS`.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from ..records import Result
from .errors import IngestError
from . import cyclictest_json, lmbench, oslat_json, rst_csv_table, stream, tftf_rt_instr

__all__ = ["FORMATS", "Format", "IngestError", "pool"]


@dataclass(frozen=True)
class Format:
    module: ModuleType
    help: str
    # rst-csv-table: one run per published column, named by Result.extra["column"]
    run_per_column: bool = False

    def parse(self, text: str, name: str) -> list[Result]:
        return self.module.parse(text, name)

    def histograms(self, text: str, name: str) -> list[dict]:
        read = getattr(self.module, "histograms", None)
        return read(text, name) if read else []


FORMATS: dict[str, Format] = {
    "tftf-rt-instr": Format(tftf_rt_instr, "TF-A TFTF runtime-instrumentation log (<RT_INSTR:...> lines)"),
    "lmbench": Format(lmbench, "LMBench output: lat_mem_rd blocks, bw_mem lines, `name: N microseconds`"),
    "stream": Format(stream, "STREAM output (Function / Best Rate MB/s / Avg / Min / Max time table)"),
    "cyclictest-json": Format(cyclictest_json, "cyclictest --json=FILE output (rt-tests)"),
    "oslat-json": Format(oslat_json, "oslat --json=FILE output (rt-tests)"),
    "rst-csv-table": Format(rst_csv_table, "published RST csv-tables, one run per `platform: ...` column",
                            run_per_column=True),
}


def pool(results: list[Result]) -> list[Result]:
    """Merge results of equal key into one with all their samples, in the order given.

    Several logs of one label are samples of one measurement. Extra fields become
    lists aligned with the samples (``extra["source"][i]`` is where sample i came from),
    so nothing read is dropped.
    """
    pooled: dict[tuple, Result] = {}
    for res in results:
        into = pooled.get(res.key)
        if into is None:
            into = pooled[res.key] = Result(
                benchmark=res.benchmark, params=res.params, metric=res.metric, unit=res.unit,
                direction=res.direction, samples=[], cpu=res.cpu, mode=res.mode,
                cluster=res.cluster, core=res.core, extra={})
        before = len(into.samples)
        into.samples.extend(res.samples)
        for name in set(into.extra) | set(res.extra):
            values = into.extra.setdefault(name, [None] * before)
            values.extend([res.extra.get(name)] * len(res.samples))
    return list(pooled.values())
