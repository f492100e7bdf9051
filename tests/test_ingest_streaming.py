"""Importers read a log line by line and pool as they go: memory and time grow with the
log, never with its square (issue 8 part 6). Checked by counting, never by timing."""
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from platperf.cli import app
from platperf.ingest import FORMATS, Pool, read_lines
from platperf.records import Result
from platperf.store import Store

from ingest_samples import FIXTURES, SAMPLES

# probe-jsonl streams too, but is not pooled: these tests are about the pooled importers
LINE_BASED = {name: SAMPLES[name] for name in ("tftf-rt-instr", "lmbench", "stream", "rst-csv-table", "tfa-rst")}


@pytest.mark.parametrize("fmt", sorted(LINE_BASED))
def test_results_come_before_the_file_is_read(fmt):
    """The importer yields a result having pulled at most one repetition of the log, whatever
    follows: it does not need the whole file."""
    block = LINE_BASED[fmt].read_text().splitlines()
    pulled = 0

    def endless():
        nonlocal pulled
        while True:
            for line in block:
                pulled += 1
                yield line

    first = next(FORMATS[fmt].module.read(endless(), "endless.log"))
    assert isinstance(first, Result)
    assert pulled <= len(block)


@pytest.mark.parametrize("fmt", sorted(LINE_BASED))
def test_streamed_and_whole_text_give_the_same_results(fmt, tmp_path):
    log = tmp_path / "twice.log"
    log.write_text(LINE_BASED[fmt].read_text() * 2)
    streamed, _ = FORMATS[fmt].read_file(log)
    assert list(streamed) == FORMATS[fmt].parse(log.read_text(), str(log))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \r\n\v\f\x1c\x85\u2028"), max_size=40))
def test_read_lines_cuts_as_splitlines(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("lines") / "t.log"
    path.write_bytes(text.encode("utf-8"))
    assert list(read_lines(path)) == text.splitlines()


def _result(i):
    return Result("tftf-rt-instr", {"test": "t"}, "wakeup", "us", "lower", [float(i)], cluster=0, core=0,
                  extra={"source": f"a.log:{i}"})


def test_adding_to_a_big_pool_allocates_what_one_result_needs():
    """Merging a result costs the same whether the key holds 10 or 200,000 samples (the pool
    once rebuilt a list as long as every sample so far for each line: quadratic)."""
    def allocated_by_one_add(size):
        pool = Pool().add_all(_result(i) for i in range(size))
        extra = _result(size)
        tracemalloc.start()
        pool.add(extra)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return peak

    small, big = allocated_by_one_add(10), allocated_by_one_add(200_000)
    assert big < 64 * 1024, big          # a list of 200,000 pointers alone is 1.6 MB
    assert small < 64 * 1024, small


def test_error_at_the_last_line_of_a_long_log_stores_nothing(tmp_path):
    log = tmp_path / "long.log"
    good = (FIXTURES / "tftf" / "v2.10.log").read_text()
    log.write_text(good * 50 + "<RT_INSTR:test_rt_instr_cpu_off_serial\t0\t0\t12\t13/>\n")
    db = tmp_path / "r.db"
    Store(str(db))
    out = CliRunner().invoke(app, ["ingest", "tftf-rt-instr", str(log), "--label", "x", "--db", str(db)])
    assert out.exit_code == 2
    assert f"{log}:{len(good.splitlines()) * 50 + 1}: 5 tab-separated fields" in out.output
    assert Store(str(db)).runs() == []
