"""TF-A's PSCI performance pages as TF-A published them, Juno and N1SDP from 2023 to 2026
(tests/fixtures/corpus/tfa: grid tables, tables without release, ns under µs titles, a core's
rows repeated, csv-tables whose rows are in data files beside the page).

Each page: how many figures each release holds and some of them, written by hand from the
page (µs; a page in ns divided by 1000), and that no figure pools with another (n = 1)."""
from __future__ import annotations

import pytest

from platperf.ingest import IngestError, Note
from platperf.vocab.tfa import TFTF_BENCHMARK

from corpus import by_key, imported, said

DEEP_PAR, DEEP_SER = "test_rt_instr_susp_deep_parallel", "test_rt_instr_susp_deep_serial"
OFF, VERSION = "test_rt_instr_cpu_off_serial", "test_rt_instr_psci_version_parallel"
CURRENT = {"current": "v2.15", "previous": "v2.14"}

# file, reading options, {release: figures}, [(release, test, cluster, core, metric, µs, page's delta %)]
# Juno: 6 tests of 6 cores, 3 figures each but CPU_VERSION's 1: 96 a release; N1SDP's 4 cores: 64.
PAGES = [
    ("juno-2023-02.rst", {}, {"historic": 96}, []),
    ("juno-2023-05.rst", {"label": "v2.9"}, {"historic": 96, "v2.9": 96}, [
        ("v2.9", DEEP_PAR, 0, 1, "powerdown", 663.5, None),
        ("v2.9", DEEP_PAR, 1, 3, "wakeup", 220.9, None),        # the page's header says Wakekup
        ("v2.9", OFF, 0, 1, "cache_flush", 167.48, None),
        ("v2.9", VERSION, 1, 3, "latency", 1.04, None)]),
    ("juno-2023-11.rst", {}, {"historic": 96, "v2.9": 96, "v2.10": 96}, [
        ("v2.9", DEEP_PAR, 0, 1, "powerdown", 384.24, None),
        ("v2.9", DEEP_PAR, 1, 3, "cache_flush", 79.62, None),
        ("v2.9", OFF, 1, 3, "powerdown", 101.36, None)]),
    ("juno-2024-05.rst", {}, {"historic": 96, "v2.10": 96, "v2.11": 96}, [
        ("v2.11", DEEP_PAR, 0, 1, "wakeup", 438.88, 1572.56),
        ("v2.11", DEEP_PAR, 1, 3, "wakeup", 98.12, -55.76),
        ("v2.11", OFF, 0, 1, "wakeup", 29.54, None)]),
    ("juno-2024-11.rst", {}, {"historic": 96, "v2.11": 96, "v2.12": 96}, [
        ("v2.12", DEEP_PAR, 0, 1, "powerdown", 526.18, 105.12),
        ("v2.12", DEEP_PAR, 0, 1, "cache_flush", 138.52, 2011.59),
        ("v2.12", OFF, 0, 1, "wakeup", 30.5, -29.23)]),
    ("juno-2025-05.rst", {}, {"historic": 96, "v2.12": 96, "v2.13": 96}, [
        ("v2.13", DEEP_PAR, 1, 3, "powerdown", 1112.48, None),
        ("v2.13", DEEP_PAR, 0, 1, "cache_flush", 136.94, 1987.50),
        ("v2.13", OFF, 1, 3, "wakeup", 21.68, None)]),
    ("juno-2025-11.rst", {"unit": "ns"}, {"historic": 96, "v2.13": 96, "v2.14": 96}, [
        ("v2.14", DEEP_PAR, 0, 1, "powerdown", 624.52, -1.01),
        ("v2.14", DEEP_PAR, 1, 3, "powerdown", 1106.3, None),
        ("v2.14", OFF, 1, 3, "cache_flush", 4.64, 6.91)]),
    ("juno-2026-05-us/psci-performance-juno.rst", {"unit": "ns", "releases": {"current": "v2.14", "previous": "v2.13"}},
     {"historic": 96, "v2.13": 96, "v2.14": 96}, [
        ("v2.14", DEEP_PAR, 0, 0, "wakeup", 270.64, 1031.44),
        ("v2.13", DEEP_PAR, 0, 0, "powerdown", 333.0, -52.92),
        ("v2.14", VERSION, 0, 0, "latency", 1.2, 20.0)]),
    ("juno-2026-05/psci-performance-juno.rst", {"releases": CURRENT}, {"historic": 96, "v2.14": 96, "v2.15": 96}, [
        ("v2.15", OFF, 1, 0, "powerdown", 185.7, -30.51),
        ("v2.15", OFF, 0, 0, "cache_flush", 168.14, 3508.15),
        ("v2.15", VERSION, 1, 0, "latency", 0.68, -43.33),
        ("v2.14", DEEP_PAR, 1, 3, "powerdown", 1106.3, None)]),
    ("n1sdp-2023-05.rst", {"label": "v2.9"}, {"v2.9": 64}, [
        ("v2.9", DEEP_PAR, 0, 1, "powerdown", 4.98, None),
        ("v2.9", DEEP_PAR, 1, 1, "wakeup", 17.78, None),
        ("v2.9", DEEP_SER, 0, 1, "powerdown", 1.96, None)]),
    ("n1sdp-2025-11.rst", {}, {"v2.13": 64, "v2.14": 64}, [
        ("v2.14", DEEP_PAR, 0, 1, "wakeup", 17.94, -1.10),
        ("v2.14", DEEP_PAR, 1, 1, "cache_flush", 0.14, -46.15),
        ("v2.13", DEEP_PAR, 0, 1, "powerdown", 4.02, None)]),
]

# N1SDP's pages that print each cluster's two cores as core 0 twice: rows kept apart, in order
REPEATED = [
    ("n1sdp-2023-11.rst", {"v2.9": 64, "v2.10": 64}, [
        ("v2.9", DEEP_PAR, 0, 2, "powerdown", 4.14), ("v2.9", DEEP_PAR, 1, 1, "wakeup", 12.96),
        ("v2.10", DEEP_PAR, 0, 2, "wakeup", 42.08)]),
    ("n1sdp-2024-05.rst", {"v2.10": 64, "v2.11": 64}, [
        ("v2.11", DEEP_PAR, 0, 1, "cache_flush", 1.2), ("v2.11", DEEP_PAR, 1, 2, "wakeup", 38.1)]),
    ("n1sdp-2024-11.rst", {"v2.11": 64, "v2.12": 64}, []),
    ("n1sdp-2025-05.rst", {"v2.12": 64, "v2.13": 64}, []),
]


def runs_of(file: str, options: dict) -> dict:
    return imported("tfa", file, None, options=options)


@pytest.mark.parametrize("file, options, counts, figures", PAGES, ids=[p[0] for p in PAGES])
def test_every_figure_of_a_page_is_read_once_in_µs(file, options, counts, figures):
    runs = runs_of(file, options)
    assert {name: len(results) for name, results in runs.items()} == counts
    for results in runs.values():
        by_key(results)
        assert all(len(r.samples) == 1 and r.unit in ("us", "ns") for r in results)
        assert all(r.benchmark == TFTF_BENCHMARK for r in results)
    for release, test, cluster, core, metric, value, delta in figures:
        (res,) = [r for r in runs[release] if (r.params, r.cluster, r.core, r.metric)
                  == ({"test": test}, cluster, core, metric)]
        assert res.samples[0] == pytest.approx(value, rel=1e-12), (release, test, cluster, core, metric)
        assert res.unit == "us"
        # pooled extras are lists aligned with the samples: one figure, one item
        assert res.extra.get("published_delta_pct", [None]) == [delta]


@pytest.mark.parametrize("file, counts, figures", REPEATED, ids=[p[0] for p in REPEATED])
def test_a_page_that_repeats_a_core_keeps_its_rows_apart_and_says_so(file, counts, figures):
    runs = runs_of(file, {})
    assert {name: len(results) for name, results in runs.items()} == counts
    for results in runs.values():
        by_key(results)
    for release, test, cluster, row, metric, value in figures:
        (res,) = [r for r in runs[release] if (r.params, r.cluster, r.core, r.metric)
                  == ({"test": test, "row": row}, cluster, 0, metric)]
        assert res.samples == [value]
    notes = [n for n in said("tfa", file, None) if isinstance(n, Note)]
    assert notes and all("repeats cluster 0 core 0, cluster 1 core 0" in str(n) for n in notes)


def test_the_2026_n1sdp_page_keeps_the_repeated_current_rows_apart_and_the_previous_by_core():
    runs = runs_of("n1sdp-2026-05/psci-performance-n1sdp.rst", {"releases": CURRENT})
    assert {name: len(r) for name, r in runs.items()} == {"v2.14": 64, "v2.15": 64}
    current = {(r.params.get("row"), r.cluster, r.core, r.metric): r.samples[0] for r in runs["v2.15"]
               if r.params["test"] == OFF}
    # data/n1sdp/current/test_rt_instr_cpu_off_serial.csv: rows 0,0 / 1,0 / 0,0 / 1,0
    assert current[(1, 1, 0, "powerdown")] == pytest.approx(13.66)
    assert current[(2, 0, 0, "powerdown")] == pytest.approx(13.94)
    previous = {(r.cluster, r.core, r.metric): r.samples[0] for r in runs["v2.14"] if r.params == {"test": OFF}}
    assert previous[(0, 1, "powerdown")] == pytest.approx(14.44)


@pytest.mark.parametrize("first, first_options, second, second_options, release", [
    ("juno-2023-11.rst", {}, "juno-2024-05.rst", {}, "v2.10"),
    ("juno-2024-11.rst", {}, "juno-2025-05.rst", {}, "v2.12"),
    ("juno-2025-05.rst", {}, "juno-2025-11.rst", {"unit": "ns"}, "v2.13"),
    ("juno-2025-11.rst", {"unit": "ns"}, "juno-2026-05/psci-performance-juno.rst", {"releases": CURRENT}, "v2.14"),
    ("n1sdp-2024-11.rst", {}, "n1sdp-2025-05.rst", {}, "v2.12"),
    ("n1sdp-2025-11.rst", {}, "n1sdp-2026-05/psci-performance-n1sdp.rst", {"releases": CURRENT}, "v2.14"),
])
def test_a_release_read_from_two_pages_gives_the_same_figures(first, first_options, second, second_options,
                                                              release):
    """Each page prints the release before it again: grid or csv, µs or ns, the figures agree key by key."""
    a = {r.key: r.samples for r in runs_of(first, first_options)[release]}
    b = {r.key: r.samples for r in runs_of(second, second_options)[release]}
    assert a.keys() == b.keys() and len(a) in (64, 96)
    assert all(a[k] == pytest.approx(b[k], rel=1e-12) for k in a)


def test_every_juno_release_pairs_cell_for_cell():
    """Whatever the form (grid, csv, no release, µs or ns titles, Wakekup), Juno's releases
    from v2.9 to v2.15 have the same 96 keys."""
    keys = {}
    for file, options, _, _ in PAGES:
        if file.startswith("juno"):
            for release, results in runs_of(file, options).items():
                if release != "historic":
                    keys.setdefault(release, {r.key for r in results})
    assert sorted(keys, key=lambda v: tuple(map(int, v[1:].split(".")))) == \
        [f"v2.{n}" for n in range(9, 16)]
    assert len({frozenset(k) for k in keys.values()}) == 1


def test_ns_under_µs_titles_is_refused_naming_the_likely_unit():
    """TF-A's Juno page of late 2025 printed ns under µs titles: a power-down of a third of a
    second is said, not stored."""
    with pytest.raises(IngestError) as err:
        runs_of("juno-2025-11.rst", {})
    message = str(err.value)
    assert "juno-2025-11.rst:" in message and "implausible for a PSCI" in message
    assert "look like ns" in message and "--unit ns" in message


def test_current_and_previous_releases_must_be_named():
    with pytest.raises(IngestError, match=r"`current` release: say which .* --release current="):
        runs_of("juno-2026-05/psci-performance-juno.rst", {})


def test_a_page_without_release_asks_for_the_label():
    with pytest.raises(IngestError, match=r"names no release .* --label"):
        runs_of("juno-2023-05.rst", {})


def test_the_2026_page_given_as_rst_csv_table_is_refused_naming_tfa_rst():
    """Today's Juno page through the TI guides' reader: one line naming the right format, the
    table's title whole or cut at a word, never mid-word."""
    from platperf.ingest import FORMATS
    from corpus import entry
    page = entry("tfa", "juno-2026-05/psci-performance-juno.rst").local
    with pytest.raises(IngestError) as err:
        list(FORMATS["rst-csv-table"].module.read(page.read_text().splitlines(), str(page)))
    message = str(err.value)
    assert "ingest tfa-rst" in message and "\n" not in message
    title = message.split("`")[1]
    assert title.endswith(" …") and "CPU_SUSPEND latencies (ns) to deepest power level in parallel (current release)".startswith(
        title[:-2]), title
