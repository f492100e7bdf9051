"""The memory-latency section of a board that describes no cache sizes (most arm64 device
trees give none): the curve's own steps are marked and said, instead of a bare "no cache
sizes" (issue 20, the QEMU arm64 guest)."""
from __future__ import annotations

from test_report_store import JUNO_FP, LAT_SIZES, write_run

from platperf.report.data import load
from platperf.report.sections import build_document
from platperf.report.sections.memory_latency import latency_steps
from platperf.store import Store


def section(tmp_path, fingerprint):
    store = Store(str(tmp_path / "r.db"))
    run_id = write_run(store, "board", fingerprint=fingerprint)
    doc = build_document(load(store, [str(run_id)]))
    return next(s for s in doc.sections if s.title == "Memory latency")


def test_a_board_without_cache_sizes_gets_the_steps_of_its_curve(tmp_path):
    without = {k: v for k, v in JUNO_FP.items() if k != "caches"}
    shown = section(tmp_path, without)
    # the synthetic curve: 1.5 ns to 32 KiB, 10 ns to 2 MiB, 100 ns beyond, measured at 4K,
    # 16K, 64K, 256K, 1M, 4M, 16M (write_run)
    assert "describes no cache sizes" in shown.text
    assert "between 16K and 64K, between 1M and 4M." in shown.text
    assert ".." not in shown.text                                        # no doubled full stop
    assert "step 16K-64K" in shown.plots[0].svg and "step 1M-4M" in shown.plots[0].svg


def test_a_board_with_cache_sizes_marks_them_not_the_steps(tmp_path):
    shown = section(tmp_path, JUNO_FP)
    assert "Cache sizes from the fingerprint of board." in shown.text
    assert "step " not in shown.plots[0].svg


def test_steps_are_rises_of_one_and_a_half_between_neighbouring_sizes():
    flat = [(s, 10.0) for s in LAT_SIZES]
    assert latency_steps([("random/64", flat)]) == []
    rising = [(1024, 1.0), (2048, 1.04), (4096, 1.6), (8192, 1.7), (16384, 9.0)]
    assert latency_steps([("random/64", rising)]) == [(2048, 4096), (8192, 16384)]
    assert latency_steps([("seq/64", rising[:3])]) == []                    # too few sizes
