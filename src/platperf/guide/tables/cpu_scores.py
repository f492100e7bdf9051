"""TI's CPU score tables -- Dhrystone, Whetstone, Linpack, NBench, CoreMarkPro and
CoreMarkProTwoCore (FourCore, EightCore on the J7 and AM62A guides) -- and the keys the
adapters of the same names store.

Every row is ``name (unit as the guide prints it)`` in the one ``perf`` column; the key's
metric is the row's name and its unit platperf's (``DhrystoneP`` is Dhrystones/s, NBench's
``Iterations`` iterations/s, CoreMark-Pro's truncated ``workloads/`` workloads/s). Linpack's
guide figure is linpackc's default 200 x 200 array. The printed unit is read in any case
(TI's guides since 2025: ``cpu_clock (mhz)``, ``linpack (kflops)``).
"""
from __future__ import annotations

from ..keys import Cell, Key

COLUMN = "perf"
HIGHER = "higher"
# title: (benchmark, params, {metric: (unit printed in the row, platperf unit)}), section
TABLES = {
    "Dhrystone Benchmarks": ("dhrystone", (), {
        "cpu_clock": ("MHz", "MHz"), "dhrystone_per_mhz": ("DMIPS/MHz", "DMIPS/MHz"),
        "dhrystone_per_second": ("DhrystoneP", "Dhrystones/s")}, "Dhrystone"),
    "Whetstone Benchmarks": ("whetstone", (), {"whetstone": ("MIPS", "MIPS")}, "Whetstone"),
    "Linpack Benchmarks": ("linpack", (("array_size", 200),), {"linpack": ("Kflops", "KFLOPS")}, "Linpack"),
    "NBench Benchmarks": ("nbench", (), {
        test: ("Iterations", "iterations/s") for test in (
            "assignment", "fourier", "fp_emulation", "huffman", "idea", "lu_decomposition",
            "neural_net", "numeric_sort", "string_sort")}, "NBench"),
}
COREMARK_WORKLOADS = ("cjpeg-rose7-preset", "core", "linear_alg-mid-100x100-sp", "loops-all-mid-10k-sp",
                      "nnet_test", "parser-125k", "radix2-big-64k", "sha-test", "zip-test")
for _title, _contexts in (("CoreMarkPro Benchmarks", 1), ("CoreMarkProTwoCore Benchmarks", 2),
                          ("CoreMarkProFourCore Benchmarks", 4), ("CoreMarkProEightCore Benchmarks", 8)):
    _metrics = {w: ("workloads/", "workloads/s") for w in COREMARK_WORKLOADS}
    _metrics["coremark-pro"] = ("", "score")
    TABLES[_title] = ("coremark-pro", (("contexts", _contexts),), _metrics, "CoreMarkPro")

TITLES = tuple(TABLES)
SECTIONS = {title: ("System Benchmarks", spec[3]) for title, spec in TABLES.items()}
SORTED = set(TITLES)
ROW_HEADER = {title: "Benchmarks" for title in TITLES}


def to_key(title: str, row: str, column: str) -> Key | None:
    spec = TABLES.get(title)
    if spec is None or column != COLUMN or not row.endswith(")") or " (" not in row:
        return None
    benchmark, params, metrics, _ = spec
    metric, printed = row[:-1].rsplit(" (", 1)
    if metric not in metrics or metrics[metric][0].lower() != printed.lower():
        return None
    return Key(benchmark, params, metric, metrics[metric][1], HIGHER)


def to_cell(key: Key) -> Cell | None:
    for title, (benchmark, params, metrics, _) in TABLES.items():
        if (key.benchmark, key.params, key.direction) == (benchmark, params, HIGHER) \
                and metrics.get(key.metric, (None, None))[1] == key.unit:
            return Cell(title, f"{key.metric} ({metrics[key.metric][0]})", COLUMN)
    return None
