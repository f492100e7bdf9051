"""Renderers on a synthetic Document: the TF-A grid layout to the character, the TI guide's
csv-table read back with the csv module, docutils parsing the RST, and escaping of a hostile
label in every format."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest
from conftest import require_module

from platperf.report import FORMATS, render, renderer, terminal
from platperf.report import markdown, rst_csv, rst_grid, terminal
from platperf.report.document import Document, Plot, Section, Table, cell_text, spread_cell
from platperf.report.svg import line_plot

HOSTILE = 'v2.12|<b>x</b>,"y"'


def docutils_core():
    """docutils is in the test extra."""
    return require_module("docutils.core")


# The v2.10 parallel CPU_SUSPEND table of tf-a-psci-performance-juno-v2.10.rst, as published.
TFA_V210 = """\
.. table:: CPU_SUSPEND latencies (us) to deepest power level in parallel (v2.10)

    +---------+------+-------------------+--------+-------------+
    | Cluster | Core |     Powerdown     | Wakeup | Cache Flush |
    +---------+------+-------------------+--------+-------------+
    |    0    |  0   | 242.66 (+132.03%) | 245.1  |     5.4     |
    +---------+------+-------------------+--------+-------------+
    |    0    |  1   |  522.08 (+35.87%) | 26.24  |    138.32   |
    +---------+------+-------------------+--------+-------------+
    |    1    |  0   |  104.36 (-57.33%) |  27.1  |     5.32    |
    +---------+------+-------------------+--------+-------------+
    |    1    |  1   |  382.56 (-42.95%) | 23.34  |     4.42    |
    +---------+------+-------------------+--------+-------------+
    |    1    |  2   |       807.74      | 271.54 |     4.64    |
    +---------+------+-------------------+--------+-------------+
    |    1    |  3   |       981.36      | 221.8  |    79.48    |
    +---------+------+-------------------+--------+-------------+
"""


def tfa_table() -> Table:
    rows = [[0, 0, "242.66 (+132.03%)", "245.1", "5.4"], [0, 1, "522.08 (+35.87%)", "26.24", "138.32"],
            [1, 0, "104.36 (-57.33%)", "27.1", "5.32"], [1, 1, "382.56 (-42.95%)", "23.34", "4.42"],
            [1, 2, "807.74", "271.54", "4.64"], [1, 3, "981.36", "221.8", "79.48"]]
    return Table(title="CPU_SUSPEND latencies (us) to deepest power level in parallel (v2.10)",
                 headers=["Cluster", "Core", "Powerdown", "Wakeup", "Cache Flush"], rows=rows)


def guide_table(label=HOSTILE) -> Table:
    return Table(title="LMBench Benchmarks", headers=["Benchmarks", "am62xx_sk-fs: perf", f"{label}: perf"],
                 rows=[["bw_mem-bcopy-16mb (MB/s)", "758.69", "702.31"],
                       ["bw_mem-bzero-1mb (MB/s)", spread_cell([810.64, 1735.81]), spread_cell([731.40, 1767.72])]],
                 layout="guide")


def hostile_document() -> Document:
    plot = line_plot(f"latency {HOSTILE}", [(HOSTILE, [(1024, 1.0), (1 << 20, 9.0)])],
                     x_label="size", y_label="ns", vlines=[(32768, "L1d 32K")])
    section = Section(title=f"Run {HOSTILE}", text=f"Note: {HOSTILE} *not emphasis* v2.12_",
                      items=[("label", HOSTILE), ("hostname", "<script>alert(1)</script>")],
                      tables=[guide_table(), tfa_table()], plots=[Plot(title=HOSTILE, svg=plot)])
    return Document(title=f"report {HOSTILE}", sections=[section],
                    data={"runs": [{"id": 1, "label": HOSTILE}],
                          "results": [{"run_id": 1, "label": HOSTILE, "benchmark": "mem-latency",
                                       "params": "pattern=seq,size=1024,stride=128", "median": 1.5}]})


def docutils_messages(text: str) -> str:
    core = docutils_core()
    err = io.StringIO()
    core.publish_doctree(text, settings_overrides={"warning_stream": err, "report_level": 2,
                                                  "halt_level": 5})
    return err.getvalue()


def test_rst_grid_matches_the_tfa_layout_to_the_character():
    assert rst_grid.render_table(tfa_table()) == TFA_V210


def test_rst_grid_sizes_columns_to_any_cell_text():
    grid = rst_grid.grid(["a", "a much longer header"], [["x" * 30, ""], ["", 1.5]])
    lines = grid.splitlines()
    assert len({len(line) for line in lines}) == 1                    # a rectangle
    assert lines[0] == "+" + "-" * 32 + "+" + "-" * 22 + "+"
    assert "|  1.50  " not in grid and "1.50" in grid


def test_guide_cells_show_avg_min_max_only_when_several_values():
    assert spread_cell([758.69]) == "758.69"
    assert spread_cell([731.40, 1767.72]) == "1249.56 (min 731.40, max 1767.72)"   # as the TI guide prints
    assert spread_cell([]) == "" and cell_text(None) == "" and cell_text("a\nb") == "a b"


def test_csv_table_reads_back_with_the_csv_module():
    text = rst_csv.render_table(guide_table())
    lines = text.splitlines()
    assert lines[0] == ".. csv-table:: LMBench Benchmarks"
    header = next(csv.reader([lines[1].split(":header: ", 1)[1]]))
    body = list(csv.reader(line.strip() for line in lines[3:]))
    assert header == ["Benchmarks", "am62xx_sk-fs: perf", 'v2.12\\|<b>x</b>,"y": perf']
    assert body == [["bw_mem-bcopy-16mb (MB/s)", "758.69", "702.31"],
                    ["bw_mem-bzero-1mb (MB/s)", "1273.22 (min 810.64, max 1735.81)",
                     "1249.56 (min 731.40, max 1767.72)"]]


def test_rst_of_a_hostile_document_parses_and_keeps_the_label():
    for fmt in ("rst-grid", "rst-csv"):
        text = render(hostile_document(), fmt)
        assert docutils_messages(text) == "", fmt
        from docutils.core import publish_doctree
        plain = publish_doctree(text).astext()
        assert HOSTILE in plain and "v2.12_" in plain and "*not emphasis*" in plain


def test_html_escapes_every_text():
    html = render(hostile_document(), "html")
    assert "<b>x</b>" not in html and "<script>" not in html
    assert "v2.12|&lt;b&gt;x&lt;/b&gt;,&quot;y&quot;" in html
    assert html.count("<svg") == 1 and "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")


def test_markdown_keeps_table_columns_and_shows_the_label():
    md = render(hostile_document(), "md")
    table_lines = [line for line in md.splitlines() if line.startswith("| ")]
    unescaped_pipes = {len(re.findall(r"(?<!\\)\|", line)) for line in table_lines}
    assert unescaped_pipes == {4, 6}          # 3 and 5 columns: the label's pipe is escaped
    assert "<b>" not in md and "v2.12\\|&lt;b&gt;x&lt;/b&gt;,\"y\"" in md


def test_csv_and_json_give_the_label_back_exactly():
    doc = hostile_document()
    rows = list(csv.DictReader(io.StringIO(render(doc, "csv"))))
    assert rows[0]["label"] == HOSTILE and rows[0]["median"] == "1.5"
    data = json.loads(render(doc, "json"))
    assert data["runs"][0]["label"] == HOSTILE and data["title"] == f"report {HOSTILE}"
    assert data["tables"][1]["rows"][0][2] == "242.66 (+132.03%)"


def test_csv_without_results_exports_the_tables():
    doc = Document(title="compare", sections=[Section(title="s", tables=[tfa_table()])])
    rows = list(csv.reader(io.StringIO(render(doc, "csv"))))
    assert rows[1] == ["Cluster", "Core", "Powerdown", "Wakeup", "Cache Flush"]
    assert rows[2] == ["0", "0", "242.66 (+132.03%)", "245.1", "5.4"]


def test_every_format_has_a_renderer_and_unknown_ones_are_named():
    assert set(FORMATS) == {"rst-grid", "rst-csv", "md", "html", "json", "csv", "table"}
    for fmt in FORMATS:          # an empty document has no result rows for csv, a title elsewhere
        assert ("empty" in render(Document(title="empty"), fmt)) == (fmt != "csv")
    with pytest.raises(ValueError, match="choose one of rst-grid, rst-csv, md, html, json, csv, table"):
        renderer("pdf")


def test_markdown_table_alone_for_other_sections():
    text = markdown.render_table(tfa_table())
    assert text.splitlines()[3] == "|---------|------|-------------------|--------|-------------|"
    assert "| 0       | 0    | 242.66 (+132.03%) |" in text


# -- the terminal: every line fits, a row stays one line ---------------------------------------
def wide_table() -> Table:
    rows = [["mem-latency", f"pattern=random,size={s},stride=64", "serial", "0", str(c), f"{s / 7:.2f}",
             "1.2%", "unstable, pages huge -> 4k"] for s in (4096, 262144) for c in (0, 1)]
    return Table("t", ["Benchmark", "Params", "Mode", "Cluster", "Core", "Median", "Change", "Note"],
                 rows, fold=3, optional=("Note", "Change"))


def test_terminal_table_as_is_when_it_fits():
    lines = terminal.render_table(wide_table(), 200)
    assert lines[1].split() == ["Benchmark", "Params", "Mode", "Cluster", "Core", "Median", "Change",
                                "Note"]
    assert len(lines) == 6 and "left out" not in "\n".join(lines)
    assert lines[2].endswith("1.2%  unstable, pages huge -> 4k")
    assert lines[1].index("Median") + 6 == lines[2].index("585.14") + 6     # figures right-aligned


def test_terminal_table_folds_then_drops_then_cuts():
    folded = terminal.render_table(wide_table(), 70)
    assert max(map(len, folded)) <= 70
    # the key's first columns became a heading over the rows sharing them
    assert folded[2] == "mem-latency pattern=random,size=4096,stride=64 serial"
    assert folded[3].split() == ["0", "0", "585.14", "1.2%", "unstable,", "pages", "huge", "->", "4k"]
    dropped = terminal.render_table(wide_table(), 40)
    assert max(map(len, dropped)) <= 40 and dropped[-1] == "(left out to fit 40 columns: Note)"
    assert dropped[1].split() == ["Cluster", "Core", "Median", "Change"]
    assert [l.split() for l in dropped if l.startswith("       ")][0] == ["0", "0", "585.14", "1.2%"]
    # too narrow for any table: the widest cells are cut, the rows stay one line each
    cut = [l for l in terminal.render_table(wide_table(), 20) if l.split()[0] in ("0", "Cl…er")]
    assert len(cut) == 5 and max(map(len, cut)) <= 20 and all(len(l.split()) == 3 for l in cut)


def test_terminal_width_is_columns_else_80(monkeypatch):
    monkeypatch.setenv("COLUMNS", "123")
    assert terminal.width() == 123
    monkeypatch.delenv("COLUMNS")
    assert terminal.width() == 80      # pytest's stdout is no terminal


# -- plots a person can read -------------------------------------------------------------------
def test_latency_sweep_joins_only_neighbouring_sizes_and_draws_sparse_series_as_points():
    sizes = [4096 << (2 * i) for i in range(6)]               # 4K 16K 64K 256K 1M 4M
    svg = line_plot("t", [("random/64", [(s, 1.3 * 3 ** i) for i, s in enumerate(sizes)]),
                          ("seq/128", [(sizes[1], 1.4), (sizes[3], 1.5), (sizes[5], 1.5)]),
                          ("stream", [(sizes[5], 2.0)])],
                    x_label="x", y_label="y", log_y=True, sweep=True)
    assert svg.count("<polyline") == 1              # random/64: every size; seq/128 skips sizes
    assert svg.count('r="4.0"') == 4                # seq/128's three and stream's one stand alone
    # log latency axis: 1, 2, 5, 10 ... so an L1 hit (1.3 ns) and L2 (4 ns) are apart
    assert all(f">{t}</text>" in svg for t in ("1", "2", "5", "10", "100"))


def test_points_on_one_size_are_set_side_by_side():
    svg = line_plot("t", [(k, [(64 << 20, 19000.0 + i)]) for i, k in enumerate(("add", "copy", "scale"))],
                    x_label="x", y_label="y", sweep=True)
    xs = re.findall(r'<circle class="point" cx="([\d.]+)"', svg)
    assert len(set(xs)) == 3 and float(xs[1]) - float(xs[0]) == 8.0


def test_a_long_legend_widens_the_plot_instead_of_being_cut():
    name = "v2.12-rc3-with-the-new-ddr-timings random/64"
    svg = line_plot("t", [(name, [(1, 1.0), (2, 2.0)])], x_label="x", y_label="y")
    width = int(re.search(r'viewBox="0 0 (\d+)', svg).group(1))
    assert f">{name}</text>" in svg and width >= 70 + 520 + 10 + 22 + len(name) * 6
