"""Labels and notes of any length and content survive every report format (issue 8 part 7).

Runs with the text as label and note go through the real store, the report's data loading
and section builders, and every renderer: RST (grid and csv-table) parses in docutils at
halt level 2 with default settings, Markdown tables keep their columns, HTML shows the text
escaped, CSV and JSON give it back whole. Long text is shortened in table cells only.
"""
import csv
import io
import json
import re
from html.parser import HTMLParser

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from conftest import require_module
from platperf.records import Result
from platperf.report import render
from platperf.report.data import load
from platperf.report.document import CELL_LIMIT, cell_text
from platperf.report.sections import build_document
from platperf.store import Store

NASTY = ["`", "``", "|", "*", "**", "_", "__", "<script>alert(1)</script>", "\n", "\n\n", ".. raw:: html",
         "   ", "\t", "é", "→", "\u2028", "\x85", "#", "- ", "1. ", "[1]_", ":role:`x`", "\\", "=" * 5,
         "+-+", ".. |x| image:: y", "&amp;", '"', ",", "\r", "|a|", "::", "--", "**x", "v2.12_"]
# Any text a store keeps: UTF-8 without NUL (refused with one line on every backend, since
# PostgreSQL cannot store it; tests/test_store.py checks that refusal).
label_text = st.lists(st.one_of(st.sampled_from(NASTY),
                                st.text(alphabet=st.characters(codec="utf-8", blacklist_characters="\0"),
                                        max_size=6)), max_size=12).map("".join)


def _report(tmp_path_factory, label: str, note: str) -> dict:
    db = tmp_path_factory.mktemp("text") / "r.db"
    store = Store(str(db))
    run_id = store.begin_run(label=label, target="board", note=note)
    for cpu in (0, 1):
        store.add_result(run_id, Result("mem-latency", {"pattern": "seq", "size": 16384, "stride": 128},
                                        "latency", "ns", "lower", [1.5, 1.6], cpu=cpu, cluster=0, core=cpu))
        store.add_result(run_id, Result("mem-bandwidth", {"kernel": "bcopy", "size": 1 << 24},
                                        "bandwidth", "MB/s", "higher", [700.0, 710.0], cpu=cpu,
                                        cluster=0, core=cpu))
    store.finish_run(run_id, "complete")
    doc = build_document(load(store, [str(run_id)]))
    return {fmt: render(doc, fmt) for fmt in ("rst-grid", "rst-csv", "md", "html", "json", "csv")}


def _docutils_errors(text: str) -> str:
    core = require_module("docutils.core")
    err = io.StringIO()
    # halt_level=2: a warning would raise SystemMessage; default settings otherwise
    core.publish_doctree(text, settings_overrides={"warning_stream": err, "halt_level": 2})
    return err.getvalue()


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)


def check(tmp_path_factory, label: str, note: str):
    out = _report(tmp_path_factory, label, note)
    for fmt in ("rst-grid", "rst-csv"):
        assert _docutils_errors(out[fmt]) == "", fmt
    # Markdown: every line of a table has as many unescaped pipes as its header
    tables = re.findall(r"(?:^\| .*\n)+", out["md"], flags=re.M)
    assert tables
    for table in tables:
        counts = {len(re.findall(r"(?<!\\)\|", line)) for line in table.splitlines()}
        assert len(counts) == 1, table[:400]
    # HTML: the text never becomes markup
    parser = _Tags()
    parser.feed(out["html"])
    assert "script" not in parser.tags
    # CSV and JSON: the whole text, exactly
    rows = list(csv.DictReader(io.StringIO(out["csv"])))
    assert rows and {r["label"] for r in rows} == {label}
    data = json.loads(out["json"])
    assert (data["runs"][0]["label"], data["runs"][0]["note"]) == (label, note)
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(label=label_text.filter(lambda s: s.strip()), note=label_text)
@example(label="v2.12 " + "x" * 10_000, note=".. raw:: html\n\n   <script>alert(1)</script>\n" * 50)
@example(label="   leading `spaces` |x| *a* _b_", note="- not\n- a list\n\n#. nor this")
@example(label="é→" * 5000, note="|" * 10_000)
def test_any_label_and_note_survive_every_format(tmp_path_factory, label, note):
    check(tmp_path_factory, label, note)


def test_long_label_is_shortened_in_cells_and_whole_in_the_data(tmp_path_factory):
    label = "sdk-" + "9" * 10_000
    out = check(tmp_path_factory, label, note="n" * 10_000)
    for fmt in ("rst-grid", "rst-csv", "md", "html"):
        assert label not in out[fmt], fmt
        assert cell_text(label) in out[fmt], fmt
    assert cell_text(label).endswith("…") and len(cell_text(label)) == CELL_LIMIT
    assert json.loads(out["json"])["runs"][0]["label"] == label
