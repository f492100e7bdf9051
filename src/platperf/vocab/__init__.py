"""The field's words, at the bottom of the package: benchmark names, table titles, sizes
and figures as LMBench, STREAM, TF-A and the performance guides write them.

Nothing here imports the rest of platperf; domain code, importers and renderers all read
it, so a name is written once and a title never needs an importer to be printed:

    lmbench   lat_mem_rd / bw_mem names, the LMBench OS/CPU rows, STREAM's kernels
    tfa       TF-A's table titles (TFTF runtime instrumentation, the psci suite)
    sizes     the one size parser and the size texts (``4k``, ``32K``)
    figures   the one number format of reports (two decimals, small values kept)
"""

# Benchmarks a report lays out in a section of their own, as their field prints them: the
# per-core firmware latencies in TF-A's tables (tfa.BENCHMARKS) and the latency loop in the
# interference study's. The guide's and the per-core tables leave them out: averaging a
# firmware latency over cores, or listing a loop's cells under parameter strings, means
# nothing to their readers.
from .tfa import BENCHMARKS as _TFA  # noqa: E402

OWN_SECTION = _TFA + ("latency-loop",)
