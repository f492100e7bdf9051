"""One real sample file per ingest format (tests/fixtures/ingest), shared by the fuzz and
streaming tests and by bench/import_speed.py."""
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "ingest"
SAMPLES = {
    "tftf-rt-instr": FIXTURES / "tftf" / "v2.10.log",
    "lmbench": FIXTURES / "lmbench" / "run.log",
    "stream": FIXTURES / "stream" / "stream.txt",
    "cyclictest-json": FIXTURES / "rt-tests" / "cyclictest.json",
    "oslat-json": FIXTURES / "rt-tests" / "oslat.json",
    "rst-csv-table": FIXTURES / "rst" / "guide.rst",
    "tfa-rst": FIXTURES / "tfa" / "psci-performance.rst",
    "probe-jsonl": FIXTURES / "probe" / "board.jsonl",
    "instr": FIXTURES / "instr" / "juno-like.jsonl",
    "lava": FIXTURES / "lava" / "job-990002.yaml",
    "systemd-analyze": FIXTURES / "systemd" / "boots.log",
    "latency-table": FIXTURES / "latency" / "study.txt",
}
# The formats read line by line (the JSON ones are one document each).
LINE_BASED = {name: path for name, path in SAMPLES.items() if not name.endswith("-json")}


def many_keys(fmt: str, keys: int) -> str:
    """A log of ``fmt`` naming about ``keys`` distinct keys, each once (issue 39: memory bounded
    by the file, not by its keys): lat_mem_rd sizes, TFTF tests on many cores, STREAM arrays
    of many sizes, a guide's table of many rows, TF-A tables of many cores."""
    if fmt == "lmbench":
        return '"stride=64\n' + "".join(f"{i * 512 / 1048576:.5f} {1 + i % 97 / 10:.3f}\n"
                                        for i in range(1, keys + 1)) + "\n"
    if fmt == "tftf-rt-instr":
        return "".join(f"<RT_INSTR:test_rt_instr_psci_version_parallel\t{i // 1000}\t{i % 1000}\t{900 + i % 50}/>\n"
                       for i in range(keys))
    if fmt == "stream":
        block = ("Array size = {n} (elements), Offset = 0 (elements)\n"
                 "Function    Best Rate MB/s  Avg time     Min time     Max time\n"
                 "Copy:           10000.0     0.010000     0.010000     0.010000\n"
                 "Scale:          10000.0     0.010000     0.010000     0.010000\n"
                 "Add:            11000.0     0.010000     0.010000     0.010000\n"
                 "Triad:          11000.0     0.010000     0.010000     0.010000\n")
        return "".join(block.format(n=1_000_000 + i) for i in range(keys // 4 + 1))
    if fmt == "rst-csv-table":
        rows = "".join(f'    "row {i} (us)","{1 + i % 97 / 10:.2f}"\n' for i in range(keys))
        return f'.. csv-table:: Many rows\n    :header: "Benchmarks","board: perf"\n\n{rows}'
    if fmt == "tfa-rst":
        rule = "+---+---+---+\n"
        rows = "".join(f"| {i // 1000} | {i % 1000} | {1 + i % 97 / 10:.2f} |\n{rule}" for i in range(keys))
        return (".. table:: ``CPU_VERSION`` latency (µs) in parallel on all cores (v2.10)\n\n"
                f"{rule}| Cluster | Core | Latency |\n{rule}{rows}")
    raise ValueError(f"no many-keys log for {fmt}")
