"""The HTML report in headless Chromium: it loads offline without a console message, every
plot is drawn (an SVG of real size with lines, points or bars), a person reads the results
first (the first heading is a results section, environment and findings after), no legend
text runs out of its plot, and a screenshot is taken.

Skipped only when chromium is not installed and CI is not set; in CI it must run.
"""
from __future__ import annotations

import shutil
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

import pytest
from conftest import missing

from platperf.report import render
from platperf.report.data import load
from platperf.report.sections import build_document
from platperf.store import Store
from test_report_store import write_run

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]

# Appended to a copy only (the report itself has no scripts): counts the plots that were
# laid out at a real size and hold drawn lines, points or bars; names the first section
# heading; and lists the legend texts whose laid-out box (getBBox, the text as the browser
# set it in its font) leaves their plot's picture. All written into the DOM.
PLOT_PROBE = """<script>
const plots = [...document.querySelectorAll('svg.plot')];
const drawn = plots.filter(s => s.getBoundingClientRect().width > 100 &&
                                s.querySelector('polyline, rect.bar, circle.point') !== null);
document.body.dataset.plots = plots.length + '/' + drawn.length;
const legends = [...document.querySelectorAll('svg.plot text.legend')];
const out = legends.filter(t => {
  const b = t.getBBox(), box = t.ownerSVGElement.viewBox.baseVal;
  return b.width === 0 || b.x < 0 || b.y < 0 || b.x + b.width > box.width || b.y + b.height > box.height;
});
document.body.dataset.legends = legends.length + '/' + out.map(t => t.textContent).join('|');
const first = document.querySelector('h2');
document.body.dataset.first = first ? first.textContent : '';
// text out of its box: an element (outside the plots, not a scroller of its own) whose content
// is wider than it, and the page wider than the window
const spill = [...document.querySelectorAll('body *')].filter(e => {
  if (e.closest('svg')) return false;
  const s = getComputedStyle(e);
  return s.display !== 'inline' && s.overflowX === 'visible' && e.clientWidth > 0 &&
         e.scrollWidth > e.clientWidth + 1;
}).map(e => e.tagName.toLowerCase() + ':' + e.textContent.trim().slice(0, 40));
if (document.documentElement.scrollWidth > window.innerWidth) spill.push('page:' + document.documentElement.scrollWidth);
document.body.dataset.spill = spill.join('|');
</script>"""

@pytest.fixture(autouse=True)
def _needs_chromium():
    if CHROMIUM is None:
        missing("chromium is not installed (make deps installs it)")


def chromium(url: str, *args: str) -> subprocess.CompletedProcess:
    assert CHROMIUM, "chromium is required in CI: run 'make deps'"
    with tempfile.TemporaryDirectory(prefix="platperf-chromium-") as profile:
        return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args, url],
                              capture_output=True, text=True, timeout=180)


def console_messages(stderr: str) -> list[str]:
    """Page console output and failed loads as Chromium logs them (``INFO:CONSOLE...``)."""
    return [line for line in stderr.splitlines()
            if ":CONSOLE" in line or "net::ERR" in line or "Failed to load resource" in line]


def probed(html_path: Path) -> dict:
    """The page's ``data-*`` values PLOT_PROBE wrote, as laid out by Chromium."""
    import html as html_lib
    import re
    probe = html_path.with_name("probe-" + html_path.name)
    probe.write_text(html_path.read_text().replace("</body>", PLOT_PROBE + "</body>"))
    dom = chromium(probe.as_uri(), "--dump-dom").stdout
    body = re.search(r"<body([^>]*)>", dom)
    return {k: html_lib.unescape(v) for k, v in re.findall(r'data-(\w+)="([^"]*)"', body.group(1) if body else "")}


def check_page(html_path: Path) -> tuple[list[str], str]:
    """(console messages, "plots/drawn") for the page at ``html_path``."""
    messages = console_messages(chromium(html_path.as_uri(), "--dump-dom").stderr)
    return messages, probed(html_path).get("plots", "none")


def png_colours(path: Path) -> int:
    """Distinct byte values in the decoded image data: 1-2 for a blank page, many when drawn."""
    data, pos, idat = path.read_bytes(), 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    return len(set(zlib.decompress(idat)))


@pytest.fixture(scope="module")
def report_html(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("html")
    store = Store(str(tmp / "runs.db"))
    write_run(store, "v2.11", findings=[{"level": "warn", "code": "vm", "message": "running in a VM",
                                         "effect": "noisy neighbours", "fix": "use bare metal"}])
    run = write_run(store, 'v2.12|<b>x</b>,"y"', scale=1.2, note="<script>alert(1)</script>")
    store.add_histogram(run, {"benchmark": "latency-loop", "params": {"variant": "plain"}, "cpu": 1,
                              "mode": "serial", "unit": "ns", "count": 100101, "min": 10.0, "max": 900.0,
                              "buckets": [[10.0, 11.0, 100000], [11.0, 20.0, 100], [800.0, 900.0, 1]]})
    doc = build_document(load(store, ["v2.11", 'v2.12|<b>x</b>,"y"']))
    path = tmp / "index.html"
    path.write_text(render(doc, "html"))
    return path


def test_report_loads_offline_without_console_messages_and_draws_every_plot(report_html):
    html = report_html.read_text()
    expected = html.count('class="plot"')
    # latency curve, 2 bandwidth plots per run column, the latency-loop cell's 1-CDF and histogram
    assert expected == 7
    messages, counted = check_page(report_html)
    assert messages == []
    assert counted == f"{expected}/{expected}"


def test_results_come_first_and_no_legend_leaves_its_plot(report_html):
    seen = probed(report_html)
    # a person opens the report to see results: two labels of one machine open on the verdict,
    # then the figures people quote; the guide (its Evaluation Modules first, as TI's) after
    # them, environment and findings last
    assert seen["first"] == "Verdict"
    html = report_html.read_text()
    assert html.index("<h2>Verdict") < html.index("<h2>Summary") < html.index("<h2>Evaluation Modules") \
        < html.index("<h2>System Benchmarks")
    assert html.index("<h2>Memory latency") < html.index("<h2>Environment") < html.index("<h2>Findings")
    # two columns: legend entries name the column (a long, hostile label) and the pattern
    count, overflowing = seen["legends"].split("/", 1)
    assert int(count) >= 4 and overflowing == ""
    assert seen["spill"] == ""          # no text out of its box, the page no wider than the window


def test_the_layout_check_catches_a_legend_out_of_its_plot(tmp_path):
    page = tmp_path / "clipped.html"
    page.write_text('<html><body><h2>Environment</h2><svg class="plot" viewBox="0 0 200 100" width="200" '
                    'height="100"><circle class="point" cx="5" cy="5" r="3"/>'
                    '<text class="legend" x="150" y="20">v2.12 seq/128 stride</text></svg></body></html>')
    seen = probed(page)
    assert seen["legends"] == "1/v2.12 seq/128 stride" and seen["first"] == "Environment"


def test_the_layout_check_catches_text_out_of_its_box_and_a_page_wider_than_the_window(tmp_path):
    page = tmp_path / "spilt.html"
    page.write_text('<html><body><h2>Summary</h2><div style="width:100px">' + "x" * 80 + '</div>'
                    '<div style="overflow-x:auto;width:100px">' + "y" * 80 + '</div>'
                    '<table><tr><td style="white-space:nowrap">' + "z " * 3000 + '</td></tr></table></body></html>')
    spill = probed(page)["spill"].split("|")
    # the div too narrow for its word, and the page the table widened; the scroller is its own box
    assert spill[0] == "div:" + "x" * 40 and spill[-1].startswith("page:") and len(spill) == 2, spill


def test_screenshot_shows_a_drawn_page(report_html):
    shot = report_html.with_name("screenshot.png")
    r = chromium(report_html.as_uri(), f"--screenshot={shot}", "--window-size=1200,3000")
    assert shot.exists(), r.stderr[-2000:]
    assert png_colours(shot) > 16
    assert console_messages(r.stderr) == []


def test_the_check_catches_console_errors_and_undrawn_plots(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text('<html><body><svg class="plot" width="400" height="100"></svg>'
                    '<script>console.error("boom")</script></body></html>')
    messages, counted = check_page(page)
    assert any('"boom"' in m for m in messages)
    assert counted == "1/0"
