"""STREAM outputs as other projects keep them (tests/fixtures/corpus/stream): 5.10 with 4 and 8 OpenMP
threads, 5.9 (``Array size = N, Offset = 0``, ``Rate (MB/s)``, threads requested only) with a
script's Triad-only tables, and the tables a user may hand over that are not a whole STREAM run.

Each file: how many figures it holds and some of them, written by hand from the file, the array
size in bytes (elements x 8) and the thread count in the key, no figure pooled with another."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from platperf.cli import app
from platperf.ingest import FORMATS, IngestError, Note
from platperf.measure.streams import read_imported

from corpus import CORPUS, by_key, imported, said

# file -> figures; (kernel, threads, bytes of one array, best MB/s, avg, min, max time in s)
FILES = {
    "virtualclient-5.10-4-threads.txt": (4, [
        ("copy", 4, 268435456 * 8, 18514.5, 0.242368, 0.231979, 0.317779),
        ("triad", 4, 268435456 * 8, 23314.0, 0.291828, 0.276334, 0.337149)]),
    "revyos-lpi4a-5.10-8-threads.txt": (4, [
        ("copy", 8, 80000000, 8239.8, 0.019513, 0.019418, 0.019651),
        ("add", 8, 80000000, 6132.5, 0.039332, 0.039136, 0.039464)]),
    "revyos-lpi4a-5.10-4-threads.txt": (4, [
        ("scale", 4, 80000000, 8225.3, 0.019492, 0.019452, 0.019564),
        ("triad", 4, 80000000, 6155.0, 0.039501, 0.038993, 0.040612)]),
    # one whole run of 1 thread, then Triad alone at 2 to 8 threads requested: 4 + 7
    "stream-scaling-5.9.txt": (11, [
        ("copy", 1, 31576436 * 8, 9663.6238, 0.0524, 0.0523, 0.0527),
        ("triad", 1, 31576436 * 8, 10108.3413, 0.0753, 0.0750, 0.0758),
        ("triad", 2, 31576436 * 8, 13095.9151, 0.0579, 0.0579, 0.0580),
        ("triad", 4, 31576436 * 8, 14293.3696, 0.0532, 0.0530, 0.0537),
        ("triad", 8, 31576436 * 8, 13230.8312, 0.0575, 0.0573, 0.0583)]),
}


def results_of(file: str) -> list:
    (results,) = imported("stream", file, "corpus").values()
    return results


@pytest.mark.parametrize("file", sorted(FILES))
def test_every_row_is_read_once_with_its_array_and_threads(file):
    count, figures = FILES[file]
    results = results_of(file)
    assert len(results) == count
    by_key(results)
    assert all(len(r.samples) == 1 and r.benchmark == "mem-bandwidth" and r.unit == "MB/s" for r in results)
    for kernel, threads, size, best, avg, low, high in figures:
        params = {"kernel": kernel, "size": size, **({"threads": threads} if threads > 1 else {})}
        (res,) = [r for r in results if r.params == params]
        assert res.samples == [best]
        assert (res.extra["avg_time_s"], res.extra["min_time_s"], res.extra["max_time_s"]) == ([avg], [low], [high])


def test_a_script_keeping_the_triad_line_is_read_and_said():
    notes = [n for n in said("stream", "stream-scaling-5.9.txt") if isinstance(n, Note)]
    assert len(notes) == 7
    assert all("holds Triad only: Copy, Scale, Add not in the file" in str(n) for n in notes)


@pytest.mark.parametrize("file, line, words", [
    ("daizhiyuan-5.10-no-array-size.txt", 4, ["`Array size = N (elements)`", "before the Function table"]),
    ("virtualclient-no-rows.txt", 26, ["no Copy, Scale, Add, Triad rows"]),
    ("virtualclient-streammsft.txt", 12, ["not McCalpin's STREAM output"]),
])
def test_a_table_that_is_not_a_whole_stream_run_is_refused_in_one_line(file, line, words):
    path = CORPUS / "stream" / file
    with pytest.raises(IngestError) as err:
        read_imported(FORMATS["stream"], [path], "x")
    assert err.value.where == f"{path}:{line}" and all(w in err.value.message for w in words), err.value
    out = CliRunner().invoke(app, ["ingest", "stream", str(path), "--label", "x", "--db", ":memory:"])
    assert out.exit_code == 2 and len(out.output.strip().splitlines()) == 1, out.output


def test_stream_cut_after_two_rows_is_refused(tmp_path):
    text = (CORPUS / "stream" / "revyos-lpi4a-5.10-8-threads.txt").read_text()
    path = tmp_path / "cut.txt"
    path.write_text(text[:text.index("Add:")])
    with pytest.raises(IngestError) as err:
        read_imported(FORMATS["stream"], [path], "x")
    assert err.value.where == f"{path}:26"      # the table's header
    assert "stops after Copy, Scale: the file ends before Add, Triad" in err.value.message
    out = CliRunner().invoke(app, ["ingest", "stream", str(path), "--label", "x", "--db", ":memory:"])
    assert out.exit_code == 2 and "stops after Copy, Scale" in out.output and len(out.output.strip().splitlines()) == 1


def test_stream_cut_inside_its_last_figure_is_refused(tmp_path):
    text = (CORPUS / "stream" / "virtualclient-5.10-4-threads.txt").read_text()
    path = tmp_path / "cut.txt"
    path.write_text(text[:text.index("0.337149") + len("0.33")])
    with pytest.raises(IngestError) as err:
        read_imported(FORMATS["stream"], [path], "x")
    assert err.value.where == f"{path}:30" and "'0.33'" in err.value.message and "cut" in err.value.message


def test_two_files_of_one_run_pool_as_two_samples(tmp_path):
    """The same array and threads read from two outputs is two samples of one key (n = 2); the
    same output given twice is one measurement (read once, a note says so)."""
    path = CORPUS / "stream" / "revyos-lpi4a-5.10-8-threads.txt"
    again = tmp_path / "second-run.txt"         # another run: its Copy rate 8239.8 -> 8301.2
    again.write_text(path.read_text().replace("Copy:            8239.8", "Copy:            8301.2"))
    (results,) = [r for r, _h, _m in read_imported(FORMATS["stream"], [path, again], "x").values()]
    assert len(results) == 4 and all(len(r.samples) == 2 for r in results)
    assert [r.samples for r in results if r.params["kernel"] == "copy"] == [[8239.8, 8301.2]]
    notes = []
    (results,) = [r for r, _h, _m in read_imported(FORMATS["stream"], [path, path], "x", skipped=notes).values()]
    assert len(results) == 4 and all(len(r.samples) == 1 for r in results)
    assert [str(n) for n in notes] == [f"{path}: its figures: the same 4 figures as {path}: one measurement, "
                                       f"read once"]


def test_the_help_example_reads():
    from platperf.ingest import stream
    results = stream.parse(stream.EXAMPLE, "example")
    assert [(r.params["kernel"], r.params["threads"], r.samples[0]) for r in results] == \
        [("copy", 2, 1455.4), ("scale", 2, 1595.7), ("add", 2, 1415.0), ("triad", 2, 1384.6)]
