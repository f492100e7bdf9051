"""``platperf interference --events``: the victim's counts per pass stored with every cell
(pattern x mitigation) and shown as columns of the Agilex study's mitigation table.

A fake probe writes what the real one writes with ``--events`` (docs/results-format.md,
"events"): each latency-loop result carries the victim's counters, ``per`` "pass", its
``iterations`` the passes. Each counter becomes one stored result ``<name>_per_pass``.
"""
from __future__ import annotations

import json

import pytest
from test_interference import FakeProbe, FakeTarget, options

from platperf.interference import InterferenceError, make_plan, run_matrix
from platperf.report.data import load
from platperf.report.sections import interference as section
from platperf.store import Store

PASSES = 1000
# L2D refills over a cell's 1000 passes: idle 2, a way_hammer 250; rt halves them
REFILLS = {"none": 2, "way_hammer": 250}
L3_REFILLS = {"none": 0, "way_hammer": 40}


def counter(name, asked, event, code, counts, running=None, pmu="armv8_pmuv3_0"):
    return {"name": name, "asked": asked, "event": event, "pmu": pmu, "code": code,
            "unit": "events", "counts": counts, "enabled_ns": [1000000],
            "running_ns": [running if running is not None else 1000000]}


class EventsProbe(FakeProbe):
    """FakeProbe's records with the victim's L2D and L3D refills; L3D took turns with the
    others (running half the time) when ``half`` is set."""

    def __init__(self, argv, half=False, dsu=False):
        super().__init__(argv)
        o = options(argv)
        scale = 2 if o.get("rt") == "1" else 1
        l2d, l3d = REFILLS[o["pattern"]] // scale, L3_REFILLS[o["pattern"]] // scale
        counters = [counter("l2d_refill", "l2d", "L2D_CACHE_REFILL", "0x17", [l2d]),
                    counter("l3d_refill", "llc", "L3D_CACHE_REFILL", "0x2a", [l3d], 500000 if half else None)]
        if dsu:      # the cluster's L3 refills, counted CPU-wide by the DSU's PMU
            counters.append(counter("arm_dsu_l3d_cache_refill", "arm_dsu/l3d_cache_refill/",
                                    "arm_dsu/l3d_cache_refill/", "l3d_cache_refill", [8 * l3d], pmu="arm_dsu_0"))
        lines = []
        for line in self.lines:
            rec = json.loads(line)
            if rec["type"] == "meta":
                rec["events"] = {"asked": o["events"], "pmu": {"cpu1": "armv8_pmuv3_0"}}
            if rec["type"] == "result":
                rec.update(iterations=PASSES, events={"per": "pass", "counters": counters})
            lines.append(json.dumps(rec))
        self.lines = lines


class EventsTarget(FakeTarget):
    def __init__(self, half=False, dsu=False):
        super().__init__()
        self.half, self.dsu = half, dsu

    def run(self, argv):
        self.argvs.append(argv)
        return EventsProbe(argv, self.half, self.dsu)


def _run(tmp_path, events="l2d,llc", half=False, mitigation_sets="none,rt", dsu=False):
    store = Store(str(tmp_path / "e.db"))
    plan = make_plan(victim=1, aggressors="2,3", patterns="none,way_hammer", loops="plain",
                     mitigation_sets=mitigation_sets, duration=1, events=events)
    run_id = store.begin_run(label="v2.12", suite="interference")
    (tmp_path / "dev").mkdir(exist_ok=True)
    (tmp_path / "dev" / "cpu_dma_latency").write_bytes(b"")
    target = EventsTarget(half, dsu)
    out = run_matrix(store, target, plan, run_id, root=str(tmp_path))
    return store, run_id, target, out


def test_every_cell_asks_the_probe_for_the_events_and_stores_the_refills_per_pass(tmp_path):
    store, run_id, target, out = _run(tmp_path)
    assert out.status == "complete" and out.cells == 4
    assert all(argv[argv.index("--events") + 1] == "l2d,llc" for argv in target.argvs)
    stored = {(r.params["pattern"], r.params["mitigation"], r.metric): (r.summary["median"], r.unit)
              for r in store.results(run_id) if r.metric.endswith("_per_pass")}
    # two counters of 4 cells, each stored once though six latency results carried them
    assert len(stored) == 8
    assert stored[("way_hammer", "none", "l2d_refill_per_pass")] == (250 / PASSES, "events/pass")
    assert stored[("way_hammer", "rt", "l2d_refill_per_pass")] == (125 / PASSES, "events/pass")
    assert stored[("none", "none", "l3d_refill_per_pass")] == (0.0, "events/pass")
    assert stored[("way_hammer", "rt", "l3d_refill_per_pass")] == (20 / PASSES, "events/pass")


def test_the_mitigation_table_gets_a_column_per_event_in_the_studys_layout(tmp_path):
    store, _, _, _ = _run(tmp_path)
    main = section.build(load(store, ["v2.12"])).tables[0]
    assert main.headers == ["Applied Mitigation", "Maximum Latency", "Minimum Latency",
                            "L2D_CACHE_REFILL per pass", "L3D_CACHE_REFILL per pass"]
    by_row = {row[0]: row[3:] for row in main.rows}
    assert by_row == {"none (default), plain loop, no aggressor": ["0.002", "0"],
                      "rt, plain loop, no aggressor": ["0.001", "0"],
                      "none (default), plain loop, way_hammer": ["0.25", "0.04"],
                      "rt, plain loop, way_hammer": ["0.125", "0.02"]}
    # the fake board has no DSU PMU: its cluster events are said to be absent, not left out in silence
    assert "no DSU PMU (arm_dsu_*) counted" in main.caption
    assert "not counted on this board" not in main.caption


def test_a_count_that_ran_part_of_the_cell_says_its_share_and_is_not_scaled(tmp_path):
    store, _, _, _ = _run(tmp_path, half=True, mitigation_sets="none")
    main = section.build(load(store, ["v2.12"])).tables[0]
    hammer = [row for row in main.rows if row[0].endswith("way_hammer")][0]
    assert hammer[3:] == ["0.25", "0.04 (counted 50% of it)"]


def test_a_dsu_pmu_counted_gives_the_clusters_column(tmp_path):
    """Where the board has a DSU PMU (arm_dsu_0), the cluster's L3 refills it counted around
    the victim's cells are one more column, and the caption no longer says it is absent."""
    store, _, _, _ = _run(tmp_path, events="l2d,llc,arm_dsu/l3d_cache_refill/", mitigation_sets="none", dsu=True)
    main = section.build(load(store, ["v2.12"])).tables[0]
    assert main.headers[3:] == ["L2D_CACHE_REFILL per pass", "L3D_CACHE_REFILL per pass",
                                "arm_dsu/l3d_cache_refill/ per pass"]
    hammer = [row for row in main.rows if row[0].endswith("way_hammer")][0]
    assert hammer[3:] == ["0.25", "0.04", "0.32"]
    assert "DSU" not in main.caption


def test_an_event_asked_and_counted_nowhere_is_said_in_the_caption(tmp_path):
    """bus asked, the fake PMU counting only l2d and llc: no column, one clause in the caption."""
    store, _, _, _ = _run(tmp_path, events="l2d,llc,bus", mitigation_sets="none")
    main = section.build(load(store, ["v2.12"])).tables[0]
    assert len(main.headers) == 5
    assert "not counted on this board: bus" in main.caption


def test_without_events_the_table_is_the_studys_three_columns(tmp_path):
    store = Store(str(tmp_path / "n.db"))
    plan = make_plan(victim=1, aggressors="2", patterns="none,way_hammer", loops="plain", duration=1)
    assert "--events" not in plan.argv(plan.cells[0], [])
    run_id = store.begin_run(label="plain", suite="interference")
    run_matrix(store, FakeTarget(), plan, run_id, root=str(tmp_path), resctrl_root=tmp_path / "none")
    main = section.build(load(store, ["plain"])).tables[0]
    assert main.headers == ["Applied Mitigation", "Maximum Latency", "Minimum Latency"]
    assert "DSU" not in main.caption


def test_an_unknown_event_is_refused_before_anything_runs():
    with pytest.raises(InterferenceError, match="unknown event 'l9d'"):
        make_plan(victim=1, aggressors="2", patterns="none", loops="plain", duration=1, events="l2d,l9d")


def test_count_text_keeps_three_figures():
    assert [section.count_text(v) for v in (0, 0.00125, 11.0004, 2.5, 1234.4, None)] == \
        ["0", "0.00125", "11", "2.5", "1234", ""]
