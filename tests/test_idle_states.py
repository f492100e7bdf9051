"""An idle state the firmware rejected, or that the CPU never entered, has no figure anywhere.

What a QEMU guest with idle states in its device tree shows: PSCI CPU_SUSPEND to the power-down
state is denied every time, the kernel counts it in the state's ``rejected`` counter, and the
CPU wakes from WFI instead: the lateness measured is not that state's. The real probe runs
cpu-idle on a copy of the Juno tree whose counters a watcher moves as a kernel would while each
state is the only one enabled; its output is ingested with the tree and shown by every report
format, ``show`` and ``compare``."""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import require_probe

from platperf.compare import keyed as compare
from platperf.store import Store

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
STATES = ("WFI", "cpu-sleep-0", "cluster-sleep-0")


def platperf(*args, columns: int | None = None):
    env = {**os.environ, "COLUMNS": str(columns)} if columns else None
    done = subprocess.run([sys.executable, "-m", "platperf", *map(str, args)], capture_output=True, text=True,
                          env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def measured(tmp_path: Path, name: str, counters: dict[int, str]) -> Path:
    """The probe's cpu-idle records on CPU 1 of a Juno copy where, while state ``s`` is the only
    one enabled, its ``counters[s]`` ("usage" or "rejected") keeps moving."""
    root = tmp_path / name
    shutil.copytree(SYSFS / "juno", root)
    state = root / "sys/devices/system/cpu/cpu1/cpuidle"
    for s in range(3):
        (state / f"state{s}/rejected").write_text("0\n")
    done = threading.Event()

    def kernel():
        moved = {s: 0 for s in range(3)}
        while not done.wait(0.005):
            enabled = [s for s in range(3) if (state / f"state{s}/disable").read_text().strip() == "0"]
            if len(enabled) == 1 and enabled[0] in counters:
                s = enabled[0]
                moved[s] += 1
                # whole, as sysfs shows a counter: never a half-written file to the probe
                counter = state / f"state{s}/{counters[s]}"
                counter.with_suffix(".new").write_text(f"{moved[s]}\n")
                os.replace(counter.with_suffix(".new"), counter)

    watcher = threading.Thread(target=kernel)
    watcher.start()
    try:
        out = subprocess.run([require_probe(), "run", "cpu-idle", "--root", str(root), "--cpus", "1",
                              "--samples", "3", "--sleep", "50000"], capture_output=True, text=True, timeout=60)
    finally:
        done.set()
        watcher.join()
    assert out.returncode == 0, out.stderr
    stream = tmp_path / f"{name}.jsonl"
    stream.write_text(out.stdout)
    return stream


def records(stream: Path) -> list[dict]:
    return [json.loads(line) for line in stream.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """v1: every state entered; v2: the firmware rejects cluster-sleep-0, and cpu-sleep-0's
    counters never move."""
    tmp = tmp_path_factory.mktemp("idle")
    db = tmp / "runs.db"
    for label, counters in (("v1", {0: "usage", 1: "usage", 2: "usage"}),
                            ("v2", {0: "usage", 2: "rejected"})):
        stream = measured(tmp, label, counters)
        platperf("ingest", "probe-jsonl", stream, "--root", SYSFS / "juno", "--label", label, "--db", db)
    return db


def test_the_probe_says_which_states_were_rejected_or_never_entered(tmp_path):
    recs = records(measured(tmp_path, "v2", {0: "usage", 2: "rejected"}))
    lateness = {r["params"]["state"]: r for r in recs if r.get("metric") == "wakeup_lateness"}
    assert lateness["WFI"]["usage_delta"] > 0 and lateness["WFI"]["rejected_delta"] == 0
    assert (lateness["cluster-sleep-0"]["usage_delta"], lateness["cpu-sleep-0"]["usage_delta"]) == (0, 0)
    assert lateness["cluster-sleep-0"]["rejected_delta"] > 0
    warnings = {r["code"]: r["message"] for r in recs if r["type"] == "warning"}
    assert "idle state cluster-sleep-0 of CPU 1 was rejected" in warnings["idle-state-rejected"]
    assert "CPU 1 never entered idle state cpu-sleep-0" in warnings["idle-state-not-entered"]


def tfa_rows(text: str, title: str) -> list[list[str]]:
    grid = text.split(title, 1)[1].split(".. table::", 1)[0]
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in grid.splitlines()
            if line.strip().startswith("|")]


@pytest.mark.parametrize("state, shown", [("WFI", None), ("cpu-sleep-0", "not entered"),
                                          ("cluster-sleep-0", "rejected")])
def test_the_tf_a_table_shows_the_state_as_such_without_figures(db, state, shown):
    text = platperf("report", "v2", "--db", db, "--format", "rst-grid")
    rows = tfa_rows(text, f".. table:: Idle state {state} wake-up latency (µs) from Linux, other states "
                          "disabled in serial (v2)")
    assert rows[0] == ["Cluster", "Core", "Wakeup Lateness", "Exit Latency", "Target Residency"]
    lateness = rows[1][2]
    if shown is None:
        float(lateness)
    else:
        assert lateness == shown
    for fmt in ("md", "html", "rst-csv"):
        assert (shown or "rejected") in platperf("report", "v2", "--db", db, "--format", fmt)


def test_the_exports_keep_the_result_without_its_figures(db):
    doc = json.loads(platperf("report", "v2", "--db", db, "--format", "json"))
    rows = {r["params_json"]["state"]: r for r in doc["results"] if r["metric"] == "wakeup_lateness"}
    assert rows["cluster-sleep-0"]["not_measured"] == "rejected" and rows["cluster-sleep-0"]["median"] is None
    assert rows["cpu-sleep-0"]["not_measured"] == "not entered" and rows["WFI"]["not_measured"] is None
    assert rows["WFI"]["median"] is not None
    table = list(csv.DictReader(io.StringIO(platperf("report", "v2", "--db", db, "--format", "csv"))))
    [line] = [r for r in table if r["params"] == "state=cluster-sleep-0" and r["metric"] == "wakeup_lateness"]
    assert (line["not_measured"], line["median"]) == ("rejected", "")
    shown = platperf("show", "v2", "--db", db, columns=300)     # wide: a result's row is one line
    [row] = [r for r in shown.splitlines() if "state=cluster-sleep-0" in r and "wakeup_lateness" in r]
    assert "rejected" in row
    # the samples are kept in the store
    [stored] = [r for r in Store(str(db)).results(2) if r.params.get("state") == "cluster-sleep-0"
                and r.metric == "wakeup_lateness"]
    assert len(stored.samples) == 3 and stored.not_measured == "rejected"


def test_compare_shows_the_state_and_no_change(db):
    cmp = compare.compare_refs(Store(str(db)), "v1", "v2")
    rows = {r.key.params: r for r in cmp.rows if r.metric == "wakeup_lateness"}
    rejected = rows["state=cluster-sleep-0"]
    assert (rejected.status, rejected.new_not_measured, rejected.new, rejected.delta_pct) == \
        ("not measured", "rejected", None, None)
    assert rejected.base is not None and not rejected.regression and not rejected.shown
    assert rows["state=cpu-sleep-0"].new_not_measured == "not entered"
    assert rows["state=WFI"].status == "both"
    table = platperf("compare", "v1", "v2", "--db", db).splitlines()   # 80 columns: key line, then its row
    [at] = [i for i, r in enumerate(table) if "cluster-sleep-0" in r and "wakeup_lateness" in r]
    assert "rejected" in table[at + 1] and "%" not in table[at + 1]
    text = platperf("compare", "v1", "v2", "--db", db, "--format", "rst-grid")
    assert "Not measured" in text and "v2: rejected" in text
    rows = tfa_rows(text, ".. table:: Idle state cluster-sleep-0 wake-up latency")
    assert rows[1][2] == "rejected"
    data = json.loads(platperf("compare", "v1", "v2", "--db", db, "--format", "json"))
    [row] = [r for r in data["rows"] if r["params"] == "state=cluster-sleep-0" and r["metric"] == "wakeup_lateness"]
    assert (row["status"], row["new"], row["new_not_measured"]) == ("not measured", None, "rejected")
