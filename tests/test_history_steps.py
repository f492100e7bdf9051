"""History that shows what changed (issue 38 part 2), on TF-A's real Juno pages: four releases
(v2.10 and v2.11 from the page of May 2024, v2.12 and v2.13 from the page of May 2025) are too
few for a change-point test, and the history still puts first the step a release manager must
see -- the cache flush of cluster 0 core 0 in the parallel deep-suspend test, 5.54 µs at v2.12
and 138.88 µs at v2.13 -- flagged far beyond its key's spread, with the test that says so, the
page's own annotation beside platperf's, and the series as small multiples laid out as TF-A's
tables. ``platperf show`` piped to a file pads no line.

The figures are the pages' (tests/fixtures/corpus/tfa/juno-2024-05.rst, juno-2025-05.rst):
cluster 0 core 0's cache flush is 5.4, 5.48, 5.54 and 138.88 µs; its steps are log ratios
0.01471, 0.01089 and 3.2216; the usual step of the last is the median of the other two,
0.01280 (1.29%), and its modified z-score 0.6745 x 3.2216 / 0.01280 = 170."""
from __future__ import annotations

import json
import math
import re

import pytest
from typer.testing import CliRunner

from platperf import history
from platperf.cli import app
from platperf.compare.steps import judge
from platperf.report.sections.history import section
from platperf.stats.steps import OUTLIER_Z, log_steps, others_medians, step_scores, typical_steps_pct
from platperf.store import Store

from corpus import entry

RELEASES = ["v2.10", "v2.11", "v2.12", "v2.13"]
FLUSH = ["TF-A PSCI CPU_SUSPEND deepest, parallel", "cluster 0 core 0", "cache flush", "v2.12→v2.13",
         "5.54 µs", "138.88 µs", "+2,407%"]


@pytest.fixture(scope="module")
def juno(tmp_path_factory) -> str:
    db = str(tmp_path_factory.mktemp("juno") / "juno.db")
    for page in ("juno-2024-05.rst", "juno-2025-05.rst"):
        out = CliRunner().invoke(app, ["ingest", "tfa-rst", str(entry("tfa", page).local), "--db", db])
        assert out.exit_code == 0, out.output
    return db


def view(db: str, labels: list[str]):
    store = Store(db)
    return section(history.analyse(history.load_series(store, labels)), store)


def test_the_step_statistic_by_hand():
    values = [5.4, 5.48, 5.54, 138.88]
    steps = log_steps(values)
    assert steps == pytest.approx([math.log(5.48 / 5.4), math.log(5.54 / 5.48), math.log(138.88 / 5.54)])
    scores = step_scores(steps)
    assert scores[2] == pytest.approx(0.6745 * 3.22158 / 0.012797, rel=1e-3) and round(scores[2]) == 170
    assert typical_steps_pct(steps)[2] == pytest.approx(1.288, abs=1e-3)
    # leave one out, in O(n log n): each value against the median of all the others
    import random
    import statistics
    rng = random.Random(7)
    for n in (2, 3, 4, 5, 10, 11):
        values = [rng.choice([0.5, 1.0, 2.0, rng.random()]) for _ in range(n)]
        assert others_medians(values) == pytest.approx(
            [statistics.median(values[:i] + values[i + 1:]) for i in range(n)])
    # the small steps measured against the big one are nothing
    assert scores[0] < OUTLIER_Z and scores[1] < OUTLIER_Z
    # one step: no other to measure it by; flat others: any step is infinitely beyond them
    assert step_scores([0.5]) == [None] and step_scores([0.0, 0.0, 0.1])[2] == math.inf
    (only,) = judge([5.54, 138.88], "lower", [1, 1])
    assert only.basis == "none" and only.big and not only.far
    assert only.why() == "one figure a release: no spread known; +2,407%"
    assert judge([10.0, 10.1, 10.0, 10.1], "lower", [1] * 4)[1].far is False   # under the 2% tolerance


def test_four_releases_put_the_cache_flush_of_cluster_0_core_0_first(juno):
    shown = view(juno, RELEASES)
    assert shown.text.startswith("Board ingested: 96 series over 4 points (v2.10 to v2.13). The change-point "
                                 "test (e-divisive means, Matteson & James 2014) needs 6 points, 3 each side of a "
                                 "change; with 4 it cannot split a series")
    steps = shown.tables[0]
    assert steps.title == "Largest steps"
    assert steps.headers == ["Benchmark", "Where", "Metric", "Step", "Before", "After", "Change", "Flag",
                             "What can be said", "Compare", "Page", "Page says"]
    first = steps.rows[0]
    assert first[:8] == FLUSH + ["FLAGGED"]
    assert first[8] == ("one figure a release: +2,407% against the key's usual step of 1.29%, far beyond it "
                        "(modified z 170 > 8.9)")
    # compare's own word for one run a side; the page printed 138.88 with no delta: TF-A's
    # script pairs rows by position, and its silence here is a miss platperf says
    assert first[9:] == ["undecided (unconfirmed)", "none", "not annotated"]
    # the serial test's cluster 1 core 3: 4.38 -> 76.86 µs is +1,655%; the page says +1542.31%
    serial = [r for r in steps.rows if r[:3] == ["TF-A PSCI CPU_SUSPEND deepest, serial", "cluster 1 core 3",
                                                  "cache flush"]]
    assert [r[4:7] + r[10:] for r in serial] == [["4.38 µs", "76.86 µs", "+1,655%", "+1542.31%", "differs"]]


def test_two_releases_say_no_spread_is_known_and_still_list_it_first(juno):
    steps = view(juno, ["v2.12", "v2.13"]).tables[0]
    assert steps.rows[0][:8] == FLUSH + [""]
    assert steps.rows[0][8] == "one figure a release: no spread known; +2,407%"


def test_small_multiples_are_laid_out_as_the_tfa_tables(juno):
    shown = view(juno, RELEASES)
    (tfa,) = shown.subsections
    assert tfa.title == "TF-A PSCI"
    # six tests, the parallel deep suspend first: it holds the flagged steps (TF-A's order after)
    assert len(tfa.tables) == 6
    deep = tfa.tables[0]
    assert deep.title == "TF-A PSCI CPU_SUSPEND deepest, parallel (µs), v2.10 to v2.13"
    assert deep.headers == ["Cluster", "Core", "Powerdown", "Wakeup", "Cache Flush"]
    assert [r[:2] for r in deep.rows] == [["0", "0"], ["0", "1"], ["1", "0"], ["1", "1"], ["1", "2"], ["1", "3"]]
    assert deep.rows[0][4] == "▁▁▁█ 5.40 → 138.88; v2.13 +2,407%!"
    # a sparkline in every cell of the 96 series, the flagged step drawn thick
    assert sum(len(t.graphics) for t in tfa.tables) == 96
    assert deep.graphics[(0, 4)].count('class="flagged"') == 1
    assert deep.graphics[(0, 4)].count('class="point"') == 4


def test_the_html_history_opens_on_the_flagged_step(juno):
    html = CliRunner().invoke(app, ["history", "--db", juno, "--labels", ",".join(RELEASES),
                                    "--format", "html"]).output
    first_table = html[html.index("<table>"):html.index("</tr>", html.index("<tbody>"))]
    assert "<caption>Largest steps</caption>" in first_table
    assert all(text in first_table for text in ("cluster 0 core 0", "cache flush", "5.54 µs", "138.88 µs",
                                                "+2,407%", "FLAGGED", "not annotated"))
    assert html.count('class="plot spark"') == 96


def test_the_terminal_history_lists_it_first_within_80_columns(juno):
    out = CliRunner().invoke(app, ["history", "--db", juno, "--labels", ",".join(RELEASES)],
                             env={"COLUMNS": "80"}).output
    lines = out.splitlines()
    assert lines[0] == "Largest steps, board ingested" and all(len(line) <= 80 for line in lines)
    assert lines[2] == "TF-A PSCI CPU_SUSPEND deepest, parallel"
    assert re.fullmatch(r"\s+cluster 0 core 0\s+cache flush\s+v2\.12→v2\.13\s+138\.88 µs\s+\+2,407%\s+FLAGGED",
                        lines[3]), lines[3]
    assert "too few points (4 < 6)" in out


def test_show_piped_to_a_file_pads_no_line(juno):
    out = CliRunner().invoke(app, ["show", "v2.13", "--db", juno]).output
    lines = out.splitlines()
    assert lines and not any(line != line.rstrip() for line in lines)
    # the run's own table: as long as its text (the note names the page, as long as its path)
    page = str(entry("tfa", "juno-2025-05.rst").local)
    assert max(len(line) for line in lines[:8] if page not in line) < 80
    assert [line.split() for line in lines[:8] if page in line] == [["note:", "ingested", "from", page]]


def test_history_json_carries_each_step_as_the_views_judge_it(juno):
    out = CliRunner().invoke(app, ["history", "--db", juno, "--labels", ",".join(RELEASES), "--json"]).output
    series = json.loads(out)["series"]
    assert all(len(s["steps"]) == len(s["points"]) - 1 for s in series)
    (flush,) = [s for s in series if s["params"] == "test=test_rt_instr_susp_deep_parallel"
                and s["metric"] == "cache_flush" and (s["cluster"], s["core"]) == (0, 0)]
    last = flush["steps"][-1]
    assert (last["from"], last["to"], last["before"], last["after"]) == ("v2.12", "v2.13", 5.54, 138.88)
    assert last["basis"] == "steps" and last["far_beyond_spread"] and last["worse"]
    assert round(last["change_pct"]) == 2407 and "far beyond it" in last["said"]
    assert not any(st["far_beyond_spread"] for st in flush["steps"][:-1])


def test_an_unchanged_key_is_flagged_on_at_most_half_a_percent_of_its_steps():
    """Seeded series of a key that did not change (2% normal noise, one figure a release): the
    thresholds by number of other steps keep the flagged share near 0.5% at every length, where
    Iglewicz & Hoaglin's 3.5 alone flags 1-11% of them (bench/history_flags.py)."""
    import random

    from platperf.stats import steps as step_stats
    rng = random.Random(11)
    for n in (3, 4, 5, 6, 10):
        flagged = plain = steps = 0
        for _ in range(3000):
            values = [100 * math.exp(rng.gauss(0, 0.02)) for _ in range(n)]
            judged = judge(values, "lower", [1] * n)
            flagged += sum(s.far for s in judged)
            plain += sum(s.big and s.score is not None and s.score > step_stats.OUTLIER_Z for s in judged)
            steps += len(judged)
        assert flagged / steps <= 0.01, (n, flagged / steps)
        assert plain / steps >= (0.02 if n <= 6 else 0.01), (n, plain / steps)
    # the striking step of a short page is still flagged: +2,407% against steps of about 1%
    assert judge([5.6, 5.54, 138.88], "lower", [1] * 3)[1].far
