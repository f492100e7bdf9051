"""The field's words, at the bottom of the package: benchmark names, table titles, sizes
and figures as LMBench, STREAM, TF-A and the performance guides write them.

Nothing here imports the rest of platperf; domain code, importers and renderers all read
it, so a name is written once and a title never needs an importer to be printed:

    lmbench   lat_mem_rd / bw_mem names, the LMBench OS/CPU rows, STREAM's kernels
    tfa       TF-A's table titles (TFTF runtime instrumentation, the psci suite)
    sizes     the one size parser and the size texts (``4k``, ``32K``)
    figures   the one number format of reports (two decimals, small values kept)
"""
