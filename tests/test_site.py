"""A static site for a whole lab (issue 38 part 3): ``platperf site -o DIR`` writes an index of
boards x labels, a page per board, each label's guide and its comparison with the label
before, and each board's history; offline (no script, nothing fetched), every link resolving
to a file of the site, links made of names that stay as runs are added, pages rewritten only
when their runs changed, pages of bounded size. Opened in Chromium: no console message, the
guide opens on its summary.

The lab: board juno-r1 with v2.11 (two runs), v2.12 (two runs, 20% slower) and v2.13 (one
run), board am62x-07 with v2.12 alone (test_report_store's runs), and TF-A's Juno page of May
2025 imported as board "ingested" (v2.12 and v2.13, 96 figures each)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from platperf.cli import app
from platperf.report.site.pages import slug
from platperf.store import Store

from conftest import missing
from corpus import entry
from test_report_store import write_run

MAX_PAGE = 1_000_000      # bytes: a page opens quickly


def add(store, board: str, label: str, scale: float = 1.0) -> int:
    run = write_run(store, label, scale=scale)
    store.update_run(run, target=board)
    return run


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("lab")
    db = str(tmp / "lab.db")
    store = Store(db)
    for label, scale in (("v2.11", 1.0), ("v2.11", 1.0), ("v2.12", 1.2), ("v2.12", 1.2), ("v2.13", 1.2)):
        add(store, "juno-r1", label, scale)
    add(store, "am62x-07", "v2.12")
    out = CliRunner().invoke(app, ["ingest", "tfa-rst", str(entry("tfa", "juno-2025-05.rst").local), "--db", db])
    assert out.exit_code == 0, out.output
    return tmp


def site(lab: Path, *args) -> str:
    out = CliRunner().invoke(app, ["site", "-o", str(lab / "site"), "--db", str(lab / "lab.db"), "-q", *args])
    assert out.exit_code == 0, out.output
    return out.output


def pages(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in root.rglob("*.html")}


def test_the_site_has_a_page_per_board_label_comparison_and_history(lab):
    said = site(lab)
    assert re.search(r"index.html: 3 boards, 9 runs, [\d,]+ results; 18 pages written, 0 unchanged", said), said
    found = set(pages(lab / "site"))
    assert found == {
        "index.html",
        *(f"boards/{b}/{p}.html" for b in ("juno-r1", "am62x-07", "ingested") for p in ("index", "history")),
        *(f"boards/juno-r1/labels/{v}.html" for v in ("v2.11", "v2.12", "v2.13")),
        "boards/juno-r1/compare/v2.12.html", "boards/juno-r1/compare/v2.13.html",
        "boards/am62x-07/labels/v2.12.html",
        # the page's historic per-CPU tables are a label of their own, first
        *(f"boards/ingested/labels/{v}.html" for v in ("historic", "v2.12", "v2.13")),
        "boards/ingested/compare/v2.12.html", "boards/ingested/compare/v2.13.html"}


def test_every_link_resolves_and_nothing_is_fetched(lab):
    site(lab)
    root = lab / "site"
    for name, html in pages(root).items():
        assert "<script" not in html and "<link" not in html and " src=" not in html and "url(" not in html, name
        # the only URLs are the SVG namespace, never a place to fetch from
        assert set(re.findall(r"https?://[^\s\"'<>]+", html)) <= {"http://www.w3.org/2000/svg"}, name
        assert len(html.encode()) < MAX_PAGE, name
        for href in re.findall(r'href="([^"]+)"', html):
            if href.startswith("#"):
                assert f'id="{href[1:]}"' in html, (name, href)
                continue
            assert (root / name).parent.joinpath(href).resolve().is_file(), (name, href)


def test_the_index_says_what_changed_at_each_board_s_newest_label(lab):
    site(lab)
    index = (lab / "site" / "index.html").read_text()
    # juno-r1: v2.12 is 20% slower on every key than v2.11, two runs a side: regressed;
    # and each of its 480 keys steps by 20% where its only other step (v2.12 -> v2.13, the
    # same figures) is 0: far beyond it; v2.13 is v2.12 again: equivalent is not shown with
    # one run, it is undecided, and nothing is flagged
    board = (lab / "site" / "boards" / "juno-r1" / "index.html").read_text()
    assert re.search(r'<a href="labels/v2.12.html">v2.12</a>.*?<a href="compare/v2.12.html">regressed; 480 '
                     r'flagged</a>', board)
    assert re.search(r'<a href="labels/v2.13.html">v2.13</a>.*?<a href="compare/v2.13.html">undecided</a>', board)
    assert '<a href="boards/juno-r1/index.html">juno-r1</a>' in index
    # TF-A's page: v2.13 against v2.12, one run a side, the cache flush steps flagged
    ingested = (lab / "site" / "boards" / "ingested" / "history.html").read_text()
    first = ingested[ingested.index("<caption>Largest steps</caption>"):]
    first = first[:first.index("</tr>", first.index("<tbody>"))]
    assert "cluster 0 core 0" in first and "+2,407%" in first and "not annotated" in first


def test_links_stay_and_only_pages_whose_runs_changed_are_written_again(lab):
    site(lab)
    before = {k: v for k, v in pages(lab / "site").items()}
    said = site(lab)
    # the index and the three board pages only: the 14 others' runs did not change
    assert "4 pages written, 14 unchanged" in said, said
    store = Store(str(lab / "lab.db"))
    add(store, "juno-r1", "v2.14", 1.0)
    said = site(lab)
    # v2.14's guide and comparison, juno-r1's history and the index and board pages
    assert "7 pages written, 13 unchanged" in said, said
    after = pages(lab / "site")
    assert set(before) <= set(after)
    assert after["boards/juno-r1/labels/v2.12.html"] == before["boards/juno-r1/labels/v2.12.html"]
    assert "boards/juno-r1/labels/v2.14.html" in after
    manifest = json.loads((lab / "site" / "site.json").read_text())
    # one run a side (v2.13, v2.14): 17% faster, unconfirmed: undecided
    assert manifest["notes"]["boards/juno-r1/compare/v2.14.html"] == "undecided"


def test_slugs_are_names_and_never_collide():
    assert slug("v2.10") == "v2.10" and slug("juno-r1") == "juno-r1"
    assert slug("Nightly #5").startswith("nightly-5-") and slug("nightly #5") != slug("Nightly #5")
    assert slug("../etc") != ".." and "/" not in slug("a/b")


def test_the_pages_open_in_chromium_without_a_console_message_or_text_out_of_its_box(lab):
    from test_html_chromium import CHROMIUM, console_messages, chromium, probed
    if CHROMIUM is None:
        missing("chromium is not installed (make deps installs it)")
    site(lab)
    root = lab / "site"
    for name in ("index.html", "boards/juno-r1/index.html", "boards/juno-r1/labels/v2.12.html",
                 "boards/ingested/history.html", "boards/juno-r1/compare/v2.12.html"):
        assert console_messages(chromium((root / name).as_uri(), "--dump-dom").stderr) == [], name
        assert probed(root / name)["spill"] == "", name
    guide = probed(root / "boards/juno-r1/labels/v2.12.html")
    assert guide["first"] == "Summary"


def test_serve_shows_the_site_on_localhost(lab, tmp_path):
    """--serve: Python's static file server on 127.0.0.1 (port 0: one the system picks), the
    index served as written; stopped by the test (SIGINT, as Ctrl-C)."""
    import signal
    import subprocess
    import sys
    import urllib.request
    proc = subprocess.Popen([sys.executable, "-m", "platperf", "site", "-o", str(tmp_path / "served"), "--db",
                             str(lab / "lab.db"), "-q", "--serve", "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        proc.stdout.readline()                                  # the site's line
        url = re.search(r"at (http://127\.0\.0\.1:\d+/)", proc.stdout.readline()).group(1)
        with urllib.request.urlopen(url + "index.html", timeout=30) as page:
            assert page.read().decode() == (tmp_path / "served" / "index.html").read_text()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


SPARK_PROBE = """<script>
const out = [], overlaps = [];
for (const svg of document.querySelectorAll('svg.spark')) {
  const box = svg.viewBox.baseVal, boxes = [];
  for (const t of svg.querySelectorAll('text.step')) {
    const b = t.getBBox();
    if (b.width === 0 || b.x < 0 || b.y < 0 || b.x + b.width > box.width || b.y + b.height > box.height)
      out.push(t.textContent);
    for (const o of boxes)
      if (b.x < o.x + o.width && o.x < b.x + b.width && b.y < o.y + o.height && o.y < b.y + b.height)
        overlaps.push(t.textContent);
    boxes.push(b);
  }
}
document.body.dataset.sparks = document.querySelectorAll('svg.spark').length + '/' + out.join('|') +
  '/' + overlaps.join('|');
</script>"""


def test_no_step_label_leaves_its_sparkline_or_covers_another(lab):
    """Laid out by Chromium in its own font: every step label of the TF-A history inside its
    picture, none over another."""
    import html as html_lib
    from test_html_chromium import CHROMIUM, chromium
    if CHROMIUM is None:
        missing("chromium is not installed (make deps installs it)")
    site(lab)
    page = lab / "site" / "boards" / "ingested" / "history.html"
    probe = page.with_name("probe-history.html")
    probe.write_text(page.read_text().replace("</body>", SPARK_PROBE + "</body>"))
    dom = chromium(probe.as_uri(), "--dump-dom").stdout
    found = html_lib.unescape(re.search(r'data-sparks="([^"]*)"', dom).group(1))
    # the page's 96 release keys and its historic per-CPU tables' own: the first 150 drawn
    assert found == "150//", found
