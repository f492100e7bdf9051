"""Plots a person can read (issue 38 part 4): axes in the units people use (KiB/MiB, GB/s),
lines that stay apart in a grey-scale print (a dash per series), every point's figure under
the pointer, and every bandwidth plot's numbers one click under it."""
from __future__ import annotations

import re

from platperf.report import render
from platperf.report.data import load
from platperf.report.sections import build_document
from platperf.report.svg import line_plot
from platperf.store import Store

from test_report_store import write_run


def test_bandwidth_in_gb_per_s_with_its_numbers_one_click_away(tmp_path):
    store = Store(str(tmp_path / "r.db"))
    write_run(store, "v2.11")
    html = render(build_document(load(store, ["v2.11"])), "html")
    section = html[html.index('<section id="memory-bandwidth"'):]
    section = section[:section.index("</section>")]
    assert "GB/s (10^9 B/s)" in section and "MB/s (10^6" not in section
    # 1 and 16 MiB on the axis as people write them; the numbers behind the LMBench plot
    assert ">1 MiB</text>" in section and ">16 MiB</text>" in section
    (numbers, _) = re.findall(r"<details><summary>The numbers</summary>(.*?)</details>", section, re.S)
    assert "<caption>Bandwidth (MB/s), median over CPUs</caption>" in numbers
    # the median over six CPUs of 8000 x 0.998 / (1.00 .. 1.05): 8000 x 0.998 x (1/1.02 + 1/1.03) / 2
    assert '<td class="num">1 MiB</td><td class="num">7789.45</td>' in numbers, numbers[:600]


def test_lines_differ_by_dash_and_points_say_their_figure():
    svg = line_plot("t", [("a", [(1024, 1.0), (2048, 2.0)]), ("b", [(1024, 3.0), (2048, 4.0)])],
                    x_label="x", y_label="y")
    first, second = re.findall(r'<polyline class="series"[^>]*>', svg)
    assert "stroke-dasharray" not in first and 'stroke-dasharray="6 3"' in second
    assert "<title>b: 2K, 4</title>" in svg
