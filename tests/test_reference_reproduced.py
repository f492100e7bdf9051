"""The reference documents round trip (issue 23, part 7): each published page is imported,
reported and imported again to the same keys and values, and its tables are counted that
the report reproduces exactly (title, column names, row order, every cell as printed), read
by tests/reference_tables.py, not by platperf's importers. The tables still not reproduced
are named with why; a table reproduced that was not, or one lost, fails the test."""
import subprocess
import sys

from platperf.ingest import Words, latency_table, rst_csv_table, tfa_rst

from reference_tables import AGILEX, TFA, TI, markdown_tables, page_tables, reference, reproduced, rst_tables

# The tables of each page platperf does not print again, and why.
TFA_NOT_REPRODUCED: dict[str, str] = {}
TI_NOT_REPRODUCED: dict[str, str] = {}
AGILEX_NOT_REPRODUCED: dict[str, str] = {}


def platperf(*args) -> str:
    done = subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def count(document: str, report: str, known: dict[str, str], page=rst_tables, rendered=rst_tables) -> tuple[int, int]:
    """(tables reproduced, tables of the page); every other table must be a known one."""
    published = page(reference(document).read_text())
    found, gaps = reproduced(published, rendered(report))
    left = {published[n].title: why for n, why in gaps.items()}
    assert set(left) == set(known), {title: left.get(title, "reproduced now") for title in set(left) ^ set(known)}
    print(f"{document}: {len(found)} of {len(published)} tables reproduced exactly")
    return len(found), len(published)


def values(results, column=lambda r: r.extra["column"]) -> dict:
    return {(column(r), r.key): (r.samples, r.extra.get("published"), r.extra.get("published_delta_pct"))
            for r in results}


def test_tfa_page_round_trips_and_its_tables_are_reproduced(tmp_path):
    page = reference(TFA)
    db = str(tmp_path / "tfa.db")
    platperf("ingest", "tfa-rst", str(page), "--target", "juno", "--db", db)
    # the page's releases, and its historic per-CPU tables (TF master of 2017) as a run of their own
    report = platperf("report", "historic", "v2.9", "v2.10", "--db", db, "--format", "rst-grid")
    found, total = count(TFA, report, TFA_NOT_REPRODUCED)
    assert found == total - len(TFA_NOT_REPRODUCED)
    # import -> report -> import: the same keys, values, precision and annotations, and the
    # page's table of words (its board, under Method)
    assert values(tfa_rst.parse(report, "report.rst")) == values(tfa_rst.parse(page.read_text(), "page.rst"))
    def words(text, name):
        return {(w.title, w.row, w.header, w.text) for w in tfa_rst.read(text.splitlines(), name)
                if isinstance(w, Words)}
    assert words(report, "report.rst") == words(page.read_text(), "page.rst") != set()


def test_a_copied_tfa_page_reports_the_same_tables(tmp_path):
    """The page as a browser copy makes it (titles wrapped flush left, bodies unindented, the
    µ lost) reports the tables the page does."""
    from test_published_pages import lose_non_ascii, unindent, wrap_titles
    copy = tmp_path / "copy.rst"
    copy.write_text(lose_non_ascii(unindent(wrap_titles(reference(TFA).read_text(), 3, "")), ""))
    db = str(tmp_path / "copy.db")
    platperf("ingest", "tfa-rst", str(copy), "--target", "juno", "--db", db)
    # the page's releases, and its historic per-CPU tables (TF master of 2017) as a run of their own
    report = platperf("report", "historic", "v2.9", "v2.10", "--db", db, "--format", "rst-grid")
    count(TFA, report, TFA_NOT_REPRODUCED)


def test_ti_guide_round_trips_and_its_tables_are_reproduced(tmp_path):
    page = reference(TI)
    db = str(tmp_path / "ti.db")
    platperf("ingest", "rst-csv-table", str(page), "--db", db)
    boards = ["am62xx_lp_sk-fs", "am62xx_sk-fs", "am62xxsip_sk-fs", "am62x-linux-performance-guide"]
    report = platperf("report", *boards, "--db", db, "--format", "rst-csv")
    found, total = count(TI, report, TI_NOT_REPRODUCED)
    assert found == total
    # import -> report -> import: the same keys and values per board (the guide's own
    # columns, its power tables, print unprefixed and read back as the document's)
    def board(r):
        return r.extra["column"] or "am62x-linux-performance-guide"
    again = values(rst_csv_table.parse(report, "report.rst"), board)
    first = values(rst_csv_table.parse(page.read_text(), "page.rst"), lambda r: r.extra["column"] or
                   "am62x-linux-performance-guide")
    assert again == first


def test_agilex_study_round_trips_and_its_tables_are_reproduced(tmp_path):
    """The study's web page as copied: its mitigation tables imported, reported (Markdown, as
    a web page is written) and imported again."""
    page = reference(AGILEX)
    db = str(tmp_path / "agilex.db")
    platperf("ingest", "latency-table", str(page), "--label", "agilex5", "--db", db)
    report = platperf("report", "agilex5", "--db", db, "--format", "md")
    found, total = count(AGILEX, report, AGILEX_NOT_REPRODUCED, page_tables, markdown_tables)
    assert found == total - len(AGILEX_NOT_REPRODUCED)
    # import -> report -> import: the same keys and values (the Markdown report's table of
    # words, EMIF's HIGH and LOW, is not read back: latency-table says it leaves it out)
    def kept(results):
        return {(r.key, tuple(r.samples), r.extra["published"], r.extra["title"]) for r in results}
    assert kept(latency_table.parse(report, "report.md")) == kept(latency_table.parse(page.read_text(), "page"))
