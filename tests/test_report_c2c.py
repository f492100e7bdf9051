"""The core-to-core latency section: runs written into a real store with the topologies of
real boards (fixture sysfs trees of Juno r1 2+4, Juno with the A53s numbered first, Agilex 5
A55 + A76 in one cluster, AM62x 4 x A53), read back by the report. The matrix follows
(cluster, core) order, the heatmap draws a thick line where a cluster starts and a dashed one
where the core type changes inside a cluster, and the tables give median and minimum."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from platperf.fingerprint.collect import collect
from platperf.records import Result
from platperf.report import render
from platperf.report.data import load
from platperf.report.sections import build_document
from platperf.report.sections.c2c import boundaries, matrix
from platperf.store import Store
from platperf.topology import read_topology
from test_report_renderers import docutils_messages

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
SVG = "{http://www.w3.org/2000/svg}"


def one_way_ns(topo, a: int, b: int) -> float:
    """Within a cluster 40 ns (+1 per CPU number, to tell cells apart), across 120 ns."""
    same = topo.place(a)[:2] == topo.place(b)[:2]    # (package, cluster)
    return (40.0 if same else 120.0) + a + b / 10


def write_c2c_run(store: Store, board: str, label: str = "v1", scale: float = 1.0) -> int:
    topo = read_topology(SYSFS / board)
    run = store.begin_run(label=label, suite="full", fingerprint=collect(SYSFS / board))
    cpus = topo.online()
    for a in cpus:
        for b in cpus:
            if a < b:
                v = one_way_ns(topo, a, b) * scale
                res = Result(benchmark="c2c-latency", params={"peer": b}, metric="latency", unit="ns",
                             direction="lower", samples=[v, v * 1.1, v * 1.2], cpu=a, mode="serial")
                res.set_place(topo.place(a))
                store.add_result(run, res)
    store.finish_run(run, "complete")
    return run


@pytest.fixture
def store(db_url):
    return Store(db_url)


def heatmap_of(html: str):
    start = html.index('<svg xmlns="http://www.w3.org/2000/svg" class="plot heatmap"')
    return ET.fromstring(html[start:html.index("</svg>", start) + len("</svg>")])


@pytest.mark.parametrize("board,order,clusters,core_types", [
    ("juno", [0, 1, 2, 3, 4, 5], [2], []),
    ("juno-a53-first", [1, 2, 0, 3, 4, 5], [2], []),
    ("agilex5", [0, 1, 2, 3], [], [2]),
    ("am62x", [0, 1, 2, 3], [], []),
    ("qemu-virt-2pkg", [0, 1, 2, 3, 4, 5, 6, 7], [2, 4, 6], []),   # a line at each (package, cluster)
])
def test_matrix_is_in_cluster_order_with_its_boundaries(store, board, order, clusters, core_types):
    write_c2c_run(store, board)
    data = load(store, ["v1"])
    cpus, med, low = matrix(data.columns[0])
    assert [c["cpu"] for c in cpus] == order
    assert boundaries(cpus) == (clusters, core_types)
    html = render(build_document(data), "html")
    svg = heatmap_of(html)
    paths = svg.findall(f"{SVG}path")
    assert len([p for p in paths if p.get("class") == "cluster-boundary"]) == len(clusters)
    assert len([p for p in paths if p.get("class") == "core-type-boundary"]) == len(core_types)
    n = len(order)
    assert len(svg.findall(f"{SVG}rect[@class='cell']")) == n * n


def test_cells_are_symmetric_medians_and_minima_of_each_pair(store):
    write_c2c_run(store, "juno")
    topo = read_topology(SYSFS / "juno")
    cpus, med, low = matrix(load(store, ["v1"]).columns[0])
    assert med[(0, 2)] == med[(2, 0)] == pytest.approx(one_way_ns(topo, 0, 2) * 1.1)
    assert low[(4, 5)] == low[(5, 4)] == pytest.approx(one_way_ns(topo, 4, 5))
    assert (3, 3) not in med


def test_two_packages_name_their_clusters_with_the_package(store):
    write_c2c_run(store, "qemu-virt-2pkg")
    doc = build_document(load(store, ["v1"]))
    section = next(s for s in doc.sections if s.title == "Core-to-core latency")
    median = section.tables[0]
    assert median.headers[:3] == ["Package", "Cluster", "CPU"]
    assert [row[:3] for row in median.rows] == [[p, cl, cpu] for cpu, (p, cl) in
                                                enumerate((p, cl) for p in (0, 1) for cl in (0, 1) for _ in (0, 1))]
    assert "package 1 cluster 0 (Cortex-A57)" in render(doc, "html")


def test_pooled_runs_give_median_of_medians_and_least_minimum(store):
    write_c2c_run(store, "am62x", label="v2", scale=1.0)
    write_c2c_run(store, "am62x", label="v2", scale=2.0)
    write_c2c_run(store, "am62x", label="v2", scale=4.0)
    topo = read_topology(SYSFS / "am62x")
    cpus, med, low = matrix(load(store, ["v2"]).columns[0])
    assert med[(1, 2)] == pytest.approx(one_way_ns(topo, 1, 2) * 1.1 * 2)
    assert low[(1, 2)] == pytest.approx(one_way_ns(topo, 1, 2))


def test_tables_in_rst_and_markdown_carry_every_pair(store):
    write_c2c_run(store, "juno")
    topo = read_topology(SYSFS / "juno")
    doc = build_document(load(store, ["v1"]))
    section = next(s for s in doc.sections if s.title == "Core-to-core latency")
    median = section.tables[0]
    assert median.headers == ["Cluster", "CPU"] + [f"CPU {c}" for c in range(6)]
    assert median.rows[0][:2] == [0, 0] and median.rows[0][2] == ""        # the diagonal is empty
    assert median.rows[5][2] == f"{one_way_ns(topo, 0, 5) * 1.1:.2f}"
    assert "minimum" in section.tables[1].title
    for fmt in ("rst-grid", "rst-csv"):
        text = render(doc, fmt)
        assert "Core-to-core latency, one-way median in ns" in text
        assert docutils_messages(text) == ""
    md = render(doc, "md")
    assert re.search(rf"\|\s+{one_way_ns(topo, 2, 3) * 1.1:.2f}\s+\|", md)


def test_no_c2c_results_no_section(store):
    run = store.begin_run(label="empty", suite="quick", fingerprint=collect(SYSFS / "juno"))
    store.finish_run(run, "complete")
    doc = build_document(load(store, ["empty"]))
    assert all(s.title != "Core-to-core latency" for s in doc.sections)


def test_a_server_sized_matrix_stays_one_well_formed_plot():
    """64 CPUs in two sockets: every cell drawn, one boundary, every fourth CPU labelled."""
    from platperf.report.svg import heatmap
    n = 64
    values = [[None if i == j else (30.0 if (i < 32) == (j < 32) else 140.0) for j in range(n)] for i in range(n)]
    svg = ET.fromstring(heatmap("c2c <64>", [str(i) for i in range(n)], values, unit="ns", boundaries=[32],
                                groups=[("socket 0", 0, 31), ("socket 1", 32, 63)]))
    assert len(svg.findall(f"{SVG}rect[@class='cell']")) == n * n
    assert len(svg.findall(f"{SVG}path[@class='cluster-boundary']")) == 1
    labels = [t.text for t in svg.findall(f"{SVG}text")]
    assert "4" in labels and "5" not in labels and "socket 1" in labels
    assert svg.find(f"{SVG}title").text == "c2c <64>"
