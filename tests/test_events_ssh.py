"""Events over SSH as on this machine (issue 37 part 5): `platperf run --target ssh://board --events`
passes the list to the board's probe, whose counts are stored beside each figure, and the board's
own event sources (read through its /sys by the snapshot) are what `doctor --target` lists. The
"board" is this machine behind a real sshd on 127.0.0.1 (tests/sshd_server.py): no PMU."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import missing, require_probe

SMALL = ('[[bench]]\nkernel = "mem-latency"\npattern = "random"\nsize = ["16k", "64k"]\n'
         'samples = 2\nwarmup = 0\nmin_time = 0.002\n')


def test_a_board_over_ssh_counts_the_events_asked_and_doctor_reads_its_pmu(sshd, tmp_path):
    probe = require_probe()
    asks = subprocess.run([probe, "run", "mem-latency", "--cpus", "0", "--size", "4k", "--samples", "1",
                           "--min-time", "0.001", "--events", "page_faults"], capture_output=True, text=True)
    if asks.returncode != 0 or '"events"' not in asks.stdout:
        missing(f"{probe} does not count --events yet (make probe)")
    (tmp_path / "small.toml").write_text(SMALL)
    env = dict(os.environ, PLATPERF_SSH_CONFIG=str(sshd.client_config))
    env.pop("PLATPERF_PROBE", None)

    def platperf(*args):
        return subprocess.run([sys.executable, "-m", "platperf", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)

    proc = platperf("run", "--suite", "small.toml", "--target", "ssh://board", "--cpus", "0", "--db", "s.db",
                    "--label", "board", "--events", "cycles,page_faults", "--json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    # 2 sizes x (latency, latency_cycles, page_faults per access): the counter stored once a size
    assert json.loads(proc.stdout)["results"] == 6
    shown = json.loads(platperf("show", "board", "--db", "s.db", "--json").stdout)
    assert [r["metric"] for r in shown["results"]] == ["latency", "page_faults_per_access", "latency_cycles"] * 2
    assert [f["code"] for f in shown["findings"]].count("events-unavailable") == 1
    doctor = json.loads(platperf("doctor", "--target", "ssh://board", "--no-probe", "--json").stdout)
    pmu = {f["code"]: f for f in doctor["findings"] if f["code"] in ("pmu-none", "perf-paranoid")}
    local = open("/proc/sys/kernel/perf_event_paranoid").read().strip()
    assert pmu["perf-paranoid"]["message"].startswith(f"perf_event_paranoid is {local}")
    sources = sorted(os.listdir("/sys/bus/event_source/devices"))
    if not any(s in sources for s in ("cpu", "cpu_core")) and not any(s.startswith("armv") for s in sources):
        assert pmu["pmu-none"]["message"].startswith(f"no hardware events: the event sources are {', '.join(sources)}")
