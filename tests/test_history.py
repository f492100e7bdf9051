"""platperf history: series per key and e-divisive change points (seeded, deterministic)."""
from __future__ import annotations

import json
import math
import random

from typer.testing import CliRunner

from platperf import history
from platperf.cli import app
from platperf.records import Result
from platperf.store import Store


def test_energy_split_matches_the_definition():
    """The O(n^2) running sums give the Q of Matteson & James computed pair by pair."""
    def brute(z, min_size):
        best = (-1, -math.inf)
        for tau in range(min_size, len(z) - min_size + 1):
            x, y = z[:tau], z[tau:]
            m, k = len(x), len(y)
            cross = sum(abs(a - b) for a in x for b in y)
            wx = sum(abs(x[i] - x[j]) for i in range(m) for j in range(i + 1, m))
            wy = sum(abs(y[i] - y[j]) for i in range(k) for j in range(i + 1, k))
            q = m * k / (m + k) * (2 * cross / (m * k) - wx / (m * (m - 1) / 2) - wy / (k * (k - 1) / 2))
            if best[0] < 0 or q > best[1] + 1e-12 * abs(best[1]):
                best = (tau, q)
        return best
    rng = random.Random(2)
    for _ in range(40):
        n = rng.randint(6, 30)
        step = rng.randint(0, n)
        z = [rng.gauss(0, 1) + (3 if i >= step else 0) for i in range(n)]
        tau, q = history.energy_split(z, 3)
        btau, bq = brute(z, 3)
        assert tau == btau and math.isclose(q, bq, rel_tol=1e-9, abs_tol=1e-9)


def test_step_is_found_where_it_is():
    rng = random.Random(1)
    z = [rng.gauss(100, 1) for _ in range(30)] + [rng.gauss(104, 1) for _ in range(30)]
    assert history.change_points(z) == [30]
    # Two steps, up then down.
    z = ([rng.gauss(50, 0.5) for _ in range(20)] + [rng.gauss(55, 0.5) for _ in range(20)]
         + [rng.gauss(51, 0.5) for _ in range(20)])
    assert history.change_points(z) == [20, 40]


def test_flat_noisy_series_has_no_change_point():
    rng = random.Random(1)
    z = [rng.gauss(100, 3) for _ in range(60)]
    assert history.change_points(z) == []
    assert history.change_points([5.0] * 10) == []


def test_permutation_test_is_seeded():
    rng = random.Random(4)
    z = [rng.gauss(10, 1) for _ in range(15)] + [rng.gauss(14, 1) for _ in range(15)]
    a = history.change_points(z, test="permutation", max_p=0.05, seed=9, permutations=99)
    assert a == history.change_points(z, test="permutation", max_p=0.05, seed=9, permutations=99)
    assert a == [15]
    flat = [rng.gauss(10, 1) for _ in range(30)]
    assert history.change_points(flat, test="permutation", max_p=0.05, seed=9, permutations=99) == []


def _store(where, values_per_run, labels=None):
    # where: a directory for a new SQLite file, or a database URL (the db_url fixture)
    store = Store(where if isinstance(where, str) else str(where / "h.db"))
    for i, values in enumerate(values_per_run):
        run = store.begin_run(label=labels[i] if labels else f"r{i}", source="test")
        for key, v in values.items():
            store.add_result(run, Result("mem-latency", {"size": 4096}, key, "ns", "lower", [v, v],
                                         cluster=0, core=0))
        store.finish_run(run, "complete")
    return store


def test_history_cli_reports_the_step_with_its_direction(db_url):
    rng = random.Random(3)
    runs = [{"latency": rng.gauss(10, 0.1) + (2 if i >= 8 else 0), "other": rng.gauss(5, 0.1)}
            for i in range(16)]
    store = _store(db_url, runs)
    db = store.url.removeprefix("sqlite:///")
    out = CliRunner().invoke(app, ["history", "--db", db, "--format", "json"])
    assert out.exit_code == 0, out.output
    data = {s["metric"]: s for s in json.loads(out.output)["series"]}
    assert len(data["latency"]["points"]) == 16
    (cp,) = data["latency"]["change_points"]
    assert cp["label"] == "r8" and cp["index"] == 8 and cp["regression"] is True
    assert cp["change_pct"] > 15
    assert data["other"]["change_points"] == []
    table = CliRunner().invoke(app, ["history", "--db", db, "--metric", "latency"]).output
    assert "r8 (+" in table and "worse" in table and "other" not in table


def test_history_labels_in_the_order_given(tmp_path):
    runs = [{"latency": v} for v in (10, 10.1, 9.9, 10, 13, 13.1, 12.9, 13)]
    store = _store(tmp_path, runs, labels=[f"v{i}" for i in range(8)])
    db = store.url.removeprefix("sqlite:///")
    order = ",".join(f"v{i}" for i in (4, 5, 6, 7, 0, 1, 2, 3))
    data = json.loads(CliRunner().invoke(app, ["history", "--db", db, "--labels", order,
                                               "--format", "json"]).output)
    (s,) = data["series"]
    assert [p["label"] for p in s["points"]][:2] == ["v4", "v5"]
    (cp,) = s["change_points"]
    assert cp["label"] == "v0" and cp["regression"] is False     # 13 -> 10 ns: better


def test_history_markdown_and_html_plot_the_change_points(tmp_path):
    runs = [{"latency": 10 + (3 if i >= 5 else 0) + 0.01 * (i % 3)} for i in range(10)]
    store = _store(tmp_path, runs)
    db = store.url.removeprefix("sqlite:///")
    md = CliRunner().invoke(app, ["history", "--db", db, "--format", "md"])
    assert md.exit_code == 0 and "r5" in md.output
    html = CliRunner().invoke(app, ["history", "--db", db, "--format", "html"]).output
    # the key's sparkline among the small multiples, and its change point's full plot
    assert html.count('class="plot spark"') == 1 and html.count("<svg") == 2
    assert 'class="marker"' in html and "r5 (+" in html


def test_history_bad_input_exits_2(tmp_path):
    store = _store(tmp_path, [{"latency": 1.0}])
    db = store.url.removeprefix("sqlite:///")
    for args, needle in ((["--labels", "nope"], "nope"), (["--format", "xml"], "unknown format"),
                         (["--metric", "bandwidth"], "no results match"),
                         (["--test", "x"], "unknown test")):
        out = CliRunner().invoke(app, ["history", "--db", db, *args])
        assert out.exit_code == 2 and needle in out.output, (args, out.output)


def test_report_has_a_history_section_over_enough_runs(tmp_path):
    runs = [{"latency": 10 + (3 if i >= 5 else 0) + 0.01 * (i % 3)} for i in range(10)]
    store = _store(tmp_path, runs)
    db = store.url.removeprefix("sqlite:///")
    out = CliRunner().invoke(app, ["report", *[str(i) for i in range(1, 11)], "--db", db, "--format", "md"])
    assert out.exit_code == 0, out.output
    assert "History" in out.output and "r5 (+" in out.output
    # Too few runs for a change point: no section.
    out = CliRunner().invoke(app, ["report", "1", "2", "--db", db, "--format", "md"])
    assert out.exit_code == 0 and "Change points (e-divisive" not in out.output


def test_the_shortcut_for_flat_series_never_changes_a_result(monkeypatch):
    """change_points skips the energy statistic where no split can pass the t test
    (history._split_possible): the same change points with and without it, on series whose
    steps lie on both sides of the threshold."""
    rng = random.Random(36)
    series = []
    for _ in range(400):
        n = rng.randint(6, 160)
        step, at = rng.choice((0.0, 0.5, 1.0, 1.5, 2.0, 3.0)), rng.randint(1, n - 1)
        level, noise = rng.uniform(-1e4, 1e4), rng.uniform(0.01, 5.0)
        series.append([level + rng.gauss(0, noise) + (step * noise if i >= at else 0.0) for i in range(n)])
    with_shortcut = [history.change_points(z) for z in series]
    monkeypatch.setattr(history, "_split_possible", lambda *args: True)
    assert [history.change_points(z) for z in series] == with_shortcut
    assert sum(1 for found in with_shortcut if found) > 100    # steps were found, not only flat series


def test_student_tail_shrinks_as_the_degrees_of_freedom_grow():
    """What _split_possible's floor rests on: P(|T_df| > t) decreases with df for every t > 0."""
    from platperf import stats
    for t in (0.1, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0):
        tails = [2 * stats.student_t_cdf(-t, df) for df in (1, 2, 3, 5, 8, 13, 30, 100, 400)]
        assert all(a > b for a, b in zip(tails, tails[1:])), t
