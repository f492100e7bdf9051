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
