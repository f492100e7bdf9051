"""LMBench outputs as other projects keep them (tests/fixtures/corpus/lmbench): LMBench 3 summary
tables of make summary / make see (one host, one host run four times, one host name printed by two
kernels), a results file, a run log of single programs, lat_mem_rd blocks.

Each file: how many figures each run holds and some of them, written by hand from the file (the
summary's cells as printed: ``341.`` is 341, ``11.7K`` 11700, File & VM creates in microseconds per
file turned into files per second), blank cells absent, and no figure pooled with another (n = 1)."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from platperf.cli import app
from platperf.ingest import FORMATS, IngestError, Note, Skipped
from platperf.measure.streams import read_imported

from corpus import CORPUS, by_key, find, imported, said

VM04, VM06, X64, RHEL = "demo-vm04 Linux 5.15.0-", "demo-vm06 Linux 6.5.0-1", "X64-Linux Linux 5.8.0-1", \
    "rhel-vm01 Linux 4.18.0-"
LPI4A, SYZ = "revyos-lp Linux 6.6.108", "syzkaller Linux 6.8.0-g"

# file -> {run: figures}, counted by hand table by table (a figure printed twice, Mhz and 2p/0K ctxsw,
# counted once; the run of a file without a summary is named by the file)
COUNTS = {
    # ctx 7 + local 3 (UDP, TCP, TCP conn) + File & VM 5 + bandwidths 9 + memory 5 (Mhz, L1, L2, Main, Rand)
    "virtualclient-x64-linux-5.8.txt": {X64: 29},
    # basic 5 + processor 10 + int 5 + int64 4 (add blank) + float 4 + double 4 + ctx 7 + local 5 + remote 0
    # + File & VM 8 + bandwidths 9 + memory 4
    "virtualclient-demo-vm04-aarch64.txt": {VM04: 65},
    # as vm04, File & VM 3 (Mmap, Prot, 100fd selct)
    "virtualclient-demo-vm06-x64.txt": {VM06: 60},
    # basic 5 + ctx 7 + local 3 + File & VM 5 + bandwidths 9 + memory 4; processor and the ops tables blank
    "virtualclient-rhel-vm01.txt": {RHEL: 33},
    # basic 4 (tlb blank) + ctx 7 + local 3 + File & VM 5 + bandwidths 9 + memory 4, for each of 4 rows
    "revyos-lpi4a-summary.txt": {LPI4A: 32, f"{LPI4A} #2": 32, f"{LPI4A} #3": 32, f"{LPI4A} #4": 32},
    # processor 11 + ctx 7 + local 5 + File & VM 4 + bandwidths 9; the third processor row alone
    "ozz-oemu-make-see.txt": {SYZ: 36, f"{SYZ} #2": 36, f"{SYZ} #3": 11},
    # 35 + 35 + 35 + 34 lat_mem_rd points
    "virtualclient-lat-mem-rd-4-strides.txt": {"virtualclient-lat-mem-rd-4-strides": 139},
    # bw_mem 3 + bw_tcp 1 + bw_pipe 1 + lat_syscall 6 + lat_fs 4 sizes x 2 + lat_ctx 4
    "masumi-programs.log": {"masumi-programs": 23},
    # 23 `name: value unit` lines + mappings 14 + lat_fs 8 + UDP, TCP, TCP/IP 3 + socket bandwidth 8
    # + AF_UNIX and pipe bandwidth 2 + 4 file/mmap read blocks of 24 + bw_mem blocks 236 + lat_ctx 6 x 8
    "masumi-results.txt": {"masumi-results": 438},
}

# (file, run, benchmark, params, metric, value, unit, as printed)
FIGURES = [
    ("virtualclient-x64-linux-5.8.txt", X64, "os-ctx", {"procs": 16, "size": 65536}, "latency", 15.0, "us", "15.0"),
    ("virtualclient-x64-linux-5.8.txt", X64, "os-ipc", {"kind": "connect"}, "latency", 71.0, "us", "71."),
    ("virtualclient-x64-linux-5.8.txt", X64, "lmbench", {"test": "Mmap Latency"}, "latency", 111500.0, "us", "111.5K"),
    ("virtualclient-x64-linux-5.8.txt", X64, "os-fs", {"size": 0}, "delete", 1e6 / 9.8942, "files/s", "9.8942"),
    ("virtualclient-x64-linux-5.8.txt", X64, "mem-latency", {"pattern": "seq", "size": 131072, "stride": 128},
     "latency", 5.061, "ns", "5.0610"),
    ("virtualclient-x64-linux-5.8.txt", X64, "lmbench", {"test": "Rand mem"}, "latency", 142.8, "ns", "142.8"),
    ("virtualclient-demo-vm04-aarch64.txt", VM04, "os-syscall", {"op": "null"}, "latency", 0.28, "us", "0.28"),
    ("virtualclient-demo-vm04-aarch64.txt", VM04, "os-proc", {"op": "fork"}, "latency", 341.0, "us", "341."),
    ("virtualclient-demo-vm04-aarch64.txt", VM04, "os-ipc", {"kind": "select-tcp", "fds": 100}, "latency", 2.61,
     "us", "2.61"),
    ("virtualclient-demo-vm04-aarch64.txt", VM04, "cpu-ops", {"type": "int64", "op": "mul"}, "latency", 1.36, "ns",
     "1.3600"),
    ("virtualclient-demo-vm04-aarch64.txt", VM04, "lmbench", {"test": "double bogomflops"}, "latency", 1.8, "ns",
     "1.8000"),
    ("virtualclient-demo-vm04-aarch64.txt", VM04, "os-pagefault", {}, "latency", 1.6182, "us", "1.61820"),
    ("virtualclient-demo-vm04-aarch64.txt", VM04, "lmbench", {"test": "Mem read"}, "bandwidth", 10000.0, "MB/s",
     "10.K"),
    ("virtualclient-demo-vm04-aarch64.txt", VM04, "lmbench", {"test": "Main mem"}, "latency", 9.256, "ns",
     "9.256000"),
    ("virtualclient-demo-vm04-aarch64.txt", VM04, "lmbench", {"test": "mem par"}, "parallelism", 11.2, "x", "11.2"),
    ("virtualclient-demo-vm06-x64.txt", VM06, "lmbench", {"test": "Mmap Latency"}, "latency", 3549800.0, "us",
     "3549.8K"),
    ("virtualclient-demo-vm06-x64.txt", VM06, "os-signal", {"op": "prot"}, "latency", 0.582, "us", "0.582"),
    ("virtualclient-demo-vm06-x64.txt", VM06, "lmbench", {"test": "Select on 100 fd's"}, "latency", 2.597, "us",
     "2.597"),
    ("virtualclient-demo-vm06-x64.txt", VM06, "os-ctx", {"procs": 16, "size": 16384}, "latency", 8.93, "us",
     "8.93000"),
    ("virtualclient-rhel-vm01.txt", RHEL, "lmbench", {"test": "Mhz"}, "clock", 1320.0, "MHz", "1320"),
    ("virtualclient-rhel-vm01.txt", RHEL, "os-ipc-bw", {"kind": "unix"}, "bandwidth", 5515.0, "MB/s", "5515"),
    ("revyos-lpi4a-summary.txt", LPI4A, "lmbench", {"test": "mem par"}, "parallelism", 7.82, "x", "7.8200"),
    ("revyos-lpi4a-summary.txt", f"{LPI4A} #2", "os-ctx", {"procs": 2, "size": 0}, "latency", 11.9, "us", "11.9"),
    ("revyos-lpi4a-summary.txt", f"{LPI4A} #3", "os-ipc-bw", {"kind": "pipe"}, "bandwidth", 636.0, "MB/s", "636."),
    ("revyos-lpi4a-summary.txt", f"{LPI4A} #4", "lmbench", {"test": "Rand mem"}, "latency", 167.9, "ns", "167.9"),
    ("revyos-lpi4a-summary.txt", f"{LPI4A} #4", "os-fs", {"size": 10240}, "create", 1e6 / 134.6, "files/s",
     "134.6"),
    ("ozz-oemu-make-see.txt", SYZ, "os-proc", {"op": "shell"}, "latency", 60000.0, "us", "60.K"),
    ("ozz-oemu-make-see.txt", f"{SYZ} #2", "os-proc", {"op": "shell"}, "latency", 612000.0, "us", "612K"),
    ("ozz-oemu-make-see.txt", f"{SYZ} #2", "os-ipc", {"kind": "unix"}, "latency", 3074.0, "us", "3074"),
    ("ozz-oemu-make-see.txt", f"{SYZ} #3", "lmbench", {"test": "Mhz"}, "clock", 2964.0, "MHz", "2964"),
    ("ozz-oemu-make-see.txt", f"{SYZ} #2", "lmbench", {"test": "Mmap Latency"}, "latency", 8014200.0, "us",
     "8014.2K"),
]

# per-benchmark files: (file, benchmark, params, metric, value, unit)
POINTS = [
    ("virtualclient-lat-mem-rd-4-strides.txt", "mem-latency", {"pattern": "seq", "size": 512, "stride": 128},
     "latency", 1.186, "ns"),
    ("virtualclient-lat-mem-rd-4-strides.txt", "mem-latency", {"pattern": "seq", "size": 4294967296, "stride": 128},
     "latency", 32.861, "ns"),
    ("virtualclient-lat-mem-rd-4-strides.txt", "mem-latency", {"pattern": "seq", "size": 4294967296, "stride": 256},
     "latency", 102.455, "ns"),
    ("virtualclient-lat-mem-rd-4-strides.txt", "mem-latency", {"pattern": "seq", "size": 1024, "stride": 1024},
     "latency", 1.186, "ns"),
    ("masumi-programs.log", "mem-bandwidth", {"kernel": "cp", "size": 1073741824}, "bandwidth", 11845.05, "MB/s"),
    ("masumi-programs.log", "lmbench", {"test": "Socket bandwidth using localhost", "size": 1073741824},
     "bandwidth", 5434.25, "MB/s"),
    ("masumi-programs.log", "os-syscall", {"op": "open"}, "latency", 2.1441, "us"),     # Simple open/close
    ("masumi-programs.log", "os-fs", {"size": 10240}, "create", 51758.0, "files/s"),
    ("masumi-programs.log", "os-ctx", {"procs": 16, "size": 1024}, "latency", 4.25, "us"),
    ("masumi-results.txt", "os-ipc", {"kind": "select-tcp", "fds": 500}, "latency", 19.4667, "us"),
    ("masumi-results.txt", "lmbench", {"test": "File /var/tmp/XXX write bandwidth"}, "bandwidth", 899118.0, "KB/s"),
    ("masumi-results.txt", "os-mmap", {"size": 4294967296}, "latency", 41378.0, "us"),
    ("masumi-results.txt", "os-fs", {"size": 4096}, "delete", 110566.0, "files/s"),
    ("masumi-results.txt", "lmbench", {"test": "Socket bandwidth using localhost", "size": 1437}, "bandwidth",
     1558.71, "MB/s"),
    ("masumi-results.txt", "os-file-read", {"method": "mmap", "scope": "o2c", "size": 4294967296}, "bandwidth",
     8703.29, "MB/s"),
    ("masumi-results.txt", "mem-bandwidth", {"kernel": "bcopy", "layout": "conflict", "size": 1048576},
     "bandwidth", 59859.24, "MB/s"),
    ("masumi-results.txt", "mem-bandwidth", {"kernel": "bcopy", "size": 1048576}, "bandwidth", 58243.29, "MB/s"),
    ("masumi-results.txt", "mem-bandwidth", {"kernel": "rdwr", "size": 512}, "bandwidth", 73592.60, "MB/s"),
    ("masumi-results.txt", "os-ctx", {"procs": 96, "size": 65536}, "latency", 6.66, "us"),
]


def runs(file: str) -> dict:
    return imported("lmbench", file, None)


@pytest.mark.parametrize("file", sorted(COUNTS))
def test_every_figure_of_a_file_is_read_once(file):
    got = runs(file)
    assert {name: len(results) for name, results in got.items()} == COUNTS[file]
    for results in got.values():
        by_key(results)
        assert all(len(r.samples) == 1 for r in results), [r.key for r in results if len(r.samples) > 1]


@pytest.mark.parametrize("file, run, benchmark, params, metric, value, unit, printed", FIGURES,
                         ids=[f"{f[0]}:{f[2]}:{f[5]}" for f in FIGURES])
def test_summary_figures_keep_their_key_value_and_cell(file, run, benchmark, params, metric, value, unit, printed):
    res = find(runs(file)[run], benchmark, metric, **params)
    assert res.params == params and res.unit == unit
    assert res.samples[0] == pytest.approx(value, rel=1e-12)
    assert res.extra["published"] == [printed]


@pytest.mark.parametrize("file, benchmark, params, metric, value, unit", POINTS,
                         ids=[f"{p[0]}:{p[1]}:{p[4]}" for p in POINTS])
def test_per_benchmark_figures(file, benchmark, params, metric, value, unit):
    (results,) = runs(file).values()
    (res,) = [r for r in results if (r.benchmark, r.metric, r.params) == (benchmark, metric, params)]
    assert res.unit == unit and res.samples == [value]


def test_blank_cells_are_absent_not_zero():
    vm06 = runs("virtualclient-demo-vm06-x64.txt")[VM06]
    assert not [r for r in vm06 if r.benchmark in ("os-pagefault", "os-fs")]      # File & VM: 3 cells of 8
    assert not [r for r in vm06 if r.benchmark == "cpu-ops" and r.params == {"type": "int64", "op": "add"}]
    assert not [r for r in vm06 if r.extra["table"] == ["*Remote* Communication latencies"]]
    rhel = runs("virtualclient-rhel-vm01.txt")[RHEL]
    assert not [r for r in rhel if r.benchmark in ("os-syscall", "os-proc", "cpu-ops")]
    assert all(r.samples[0] > 0 for results in runs("revyos-lpi4a-summary.txt").values() for r in results)


def test_a_host_with_several_rows_is_several_runs_and_said():
    got = runs("revyos-lpi4a-summary.txt")
    ctx = [find(got[name], "os-ctx", "latency", procs=16, size=65536).samples[0] for name in sorted(got)]
    assert ctx == [35.3, 29.2, 30.5, 31.3]
    notes = [n for n in said("lmbench", "revyos-lpi4a-summary.txt", None) if isinstance(n, Note)]
    assert len(notes) == 1 and "`revyos-lp Linux 6.6.108` has several rows" in str(notes[0])


def test_a_figure_printed_in_two_tables_is_read_from_the_first():
    vm04 = runs("virtualclient-demo-vm04-aarch64.txt")[VM04]
    mhz = [r for r in vm04 if r.params == {"test": "Mhz"}]
    assert len(mhz) == 1 and mhz[0].extra["table"] == ["Basic system parameters"]
    ctx0 = find(vm04, "os-ctx", "latency", procs=2, size=0)
    assert (ctx0.samples, ctx0.extra["published"]) == ([9.68], ["9.6800"])        # not the local table's 9.680


def test_a_label_names_each_host_run_and_the_cli_says_the_rows():
    out = CliRunner().invoke(app, ["ingest", "lmbench", str(CORPUS / "lmbench" / "ozz-oemu-make-see.txt"),
                                   "--label", "oemu", "--db", ":memory:"])
    assert out.exit_code == 0, out.output
    assert [line.split(":")[0] for line in out.stdout.splitlines() if line.startswith("run ")] == \
        ["run 1 (oemu", "run 2 (oemu", "run 3 (oemu"]
    assert f"(oemu:{SYZ} #2): 36 results" in out.stdout and "note: " in out.stdout


def _cut(tmp_path, file: str, keep: int):
    """``file`` cut ``keep`` characters before its end, no newline after: the last figure half there."""
    text = (CORPUS / "lmbench" / file).read_text().rstrip("\n")
    path = tmp_path / file
    path.write_text(text[:len(text) - keep])
    return path


@pytest.mark.parametrize("file, keep, line, words", [
    ("virtualclient-lat-mem-rd-4-strides.txt", 2, 146, ["'85.3'", "3 decimals", "cut"]),
    ("masumi-programs.log", 1, 35, ["'4.2'", "2 decimals", "cut"]),
    ("revyos-lpi4a-summary.txt", 3, 124, ["ends inside a row", "cut"]),
])
def test_a_file_cut_in_its_last_figure_is_refused_in_one_line(tmp_path, file, keep, line, words):
    path = _cut(tmp_path, file, keep)
    with pytest.raises(IngestError) as err:
        read_imported(FORMATS["lmbench"], [path], None)
    assert err.value.where == f"{path}:{line}"
    assert all(w in err.value.message for w in words) and "\n" not in str(err.value)
    out = CliRunner().invoke(app, ["ingest", "lmbench", str(path), "--db", ":memory:"])
    assert out.exit_code == 2 and len(out.output.strip().splitlines()) == 1, out.output


def test_a_figure_line_cut_before_its_unit_is_refused(tmp_path):
    text = (CORPUS / "lmbench" / "masumi-results.txt").read_text()
    path = tmp_path / "cut.txt"
    path.write_text(text[:text.index("Simple stat: 1.0156 microseconds") + len("Simple stat: 1.01")])
    with pytest.raises(IngestError, match="no unit after the figure"):
        read_imported(FORMATS["lmbench"], [path], None)


def test_getpercent_tables_are_said_not_read():
    text = (CORPUS / "lmbench" / "virtualclient-x64-linux-5.8.txt").read_text()
    percent = ("\n                L M B E N C H  1 . 0   S U M M A R Y\n"
               "                  Comparison to best of the breed\n"
               "        *Local* Communication latencies - factor slower than the best\n"
               "Host                 OS  Pipe       UDP    RPC/     TCP    RPC/\n"
               "--------- ------------- ------- ------- ------- ------- -------\n"
               "X64-Linux Linux 5.8.0-1     *12     1.0                        \n")
    items = list(FORMATS["lmbench"].module.read((text + percent).splitlines(), "see.txt"))
    assert len([r for r in items if not isinstance(r, Skipped)]) == 29
    assert [str(s) for s in items if isinstance(s, Skipped)] == \
        ["see.txt:46: getpercent's tables (factors of the best host, not figures) not imported"]


SUMMARY = (CORPUS / "lmbench" / "virtualclient-demo-vm04-aarch64.txt").read_text().splitlines(keepends=True)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_mutated_summary_reads_or_is_refused(data):
    """A summary with a line replaced, cut or spliced: results or IngestError, never another exception."""
    lines = list(SUMMARY)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["cut", "splice", "drop", "repeat"]))
        if action == "cut":
            lines[i] = lines[i][:data.draw(st.integers(0, len(lines[i])))]
        elif action == "splice":
            at = data.draw(st.integers(0, len(lines[i])))
            piece = data.draw(st.sampled_from(["  ", "K", "1e999", "-", "--- ", "999999999999", "x", "\t"]))
            lines[i] = lines[i][:at] + piece + lines[i][at:]
        elif action == "drop":
            del lines[i]
        else:
            lines.insert(i, lines[i])
    try:
        results = FORMATS["lmbench"].parse("".join(lines), "m.txt")
    except IngestError:
        return
    assert all(len(r.samples) == 1 and r.samples[0] == r.samples[0] for r in results)


# LMBench 2.0's summary as Paolo Ciarrocchi posted it to linux-kernel on 8 Sep 2002 ("2.5.33-mm5"):
# five kernels of one host. The mail is kept by the lore archive's git (one file `m` a commit,
# ammarfaizi2/lore-inbox), too large to fetch here, so it is no corpus file: its summary is kept as
# the post printed it in tests/fixtures/ingest/lmbench.
LMBENCH2 = CORPUS.parent / "ingest" / "lmbench" / "lmbench2-summary-lkml-2002.txt"


def test_an_lmbench2_summary_is_one_run_per_kernel_in_its_own_columns():
    got = {name: res for name, (res, _h, _m) in read_imported(FORMATS["lmbench"], [LMBENCH2], None).items()}
    # basic 1 (Mhz) + processor 9 (selct blank) + ctx 7 + local 2 (Pipe, AF UNIX) + File & VM 7 (no 100fd
    # selct in 2.0) + bandwidths 8 (TCP blank) + memory 2 (L1, L2) + Main mem 1 (no Rand mem in 2.0)
    assert {name: len(res) for name, res in got.items()} == {
        f"frodo Linux {k}": 37 for k in ("2.4.18", "2.4.19", "2.5.33", "2.5.33x", "2.5.33M")}
    for results in got.values():
        by_key(results)
        assert all(len(r.samples) == 1 for r in results)
    old, x = got["frodo Linux 2.4.18"], got["frodo Linux 2.5.33x"]
    assert find(old, "os-proc", "latency", op="fork").samples == [115.0]
    assert find(old, "os-proc", "latency", op="shell").extra["published"] == ["13.K"]
    assert find(x, "mem-latency", "latency", size=131072).samples == [45.5]
    assert find(x, "os-pagefault", "latency").samples == [3.0]
    assert find(x, "lmbench", "latency", test="Main mem").samples == [160.2]
    assert not [r for r in old if r.params in ({"test": "Socket bandwidth using localhost"}, {"test": "Rand mem"})]


def test_a_summary_then_a_run_log_reads_both():
    from platperf.ingest import lmbench
    results = lmbench.parse(lmbench.EXAMPLE, "example")
    assert [r.extra.get("column") for r in results] == ["revyos-lp Linux 6.6.108"] * 7 + [None] * 4
    assert (results[7].params, results[8].params) == ({"op": "null"}, {"kernel": "bcopy", "size": 16777216})


def test_a_summary_table_of_unknown_columns_is_refused():
    lines = (CORPUS / "lmbench" / "virtualclient-demo-vm04-aarch64.txt").read_text().splitlines()
    lines[52] = lines[52][:-8]          # the context switching table's dash line, one column short
    with pytest.raises(IngestError, match="a `Context switching` table of 6 columns after Host and OS"):
        FORMATS["lmbench"].parse("\n".join(lines), "x.txt")


def test_the_helper_modules_examples_read():
    from platperf.ingest import lmbench, lmbench_blocks, lmbench_summary
    blocks = lmbench.parse(lmbench_blocks.EXAMPLE, "blocks")
    assert [(r.benchmark, r.samples[0]) for r in blocks] == [
        ("os-syscall", 0.1303), ("os-file-read", 17993.09), ("os-file-read", 17652.11), ("os-ctx", 3.40),
        ("os-ctx", 3.65), ("os-fs", 84505.0), ("os-fs", 138552.0)]
    summary = lmbench.parse(lmbench_summary.EXAMPLE, "summary")
    assert [(r.params.get("kind", r.params.get("test")), r.samples[0]) for r in summary] == [
        (None, 11.2), ("UDP latency using localhost", 66.9), ("tcp", 87.4), ("connect", 174.0)]


def test_a_programs_output_and_a_summary_of_its_host_pair_key_for_key():
    """LMBench's programs print `Simple syscall: 0.1303 microseconds`; its summary prints the
    same measurement under `null call`: both are os-syscall op null, as TI's guide keys it."""
    from platperf.ingest import lmbench
    programs = {r.key[:2] for r in lmbench.parse((CORPUS / "lmbench" / "masumi-results.txt").read_text(), "r")}
    summary = {r.key[:2] for r in lmbench.parse(
        (CORPUS / "lmbench" / "virtualclient-demo-vm04-aarch64.txt").read_text(), "s")}
    shared = programs & summary
    assert {("os-syscall", "op=null"), ("os-syscall", "op=stat"), ("os-signal", "op=install"),
            ("os-proc", "op=fork"), ("os-ipc", "kind=pipe")} <= shared, sorted(shared)


def test_a_syscall_of_a_millisecond_is_said_with_its_likely_unit(tmp_path):
    """A results file whose `Simple syscall` says 130 microseconds where LMBench measured 0.13:
    the import is refused in one line naming the unit that would make it plausible."""
    from platperf.ingest import FORMATS, IngestError
    from platperf.measure.streams import read_imported
    log = tmp_path / "slow.txt"
    log.write_text("Simple syscall: 1303.0 microseconds\nSimple read: 0.2135 microseconds\n")
    with pytest.raises(IngestError, match=r"slow.txt:1: 1303 µs is implausible for a system call .*1 of 2 .*"
                                          r"look like ns"):
        read_imported(FORMATS["lmbench"], [log], "slow")
