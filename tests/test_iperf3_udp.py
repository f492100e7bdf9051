"""The guide's UDP "0 loss" tables: the iperf3 adapter's search for the fastest rate without a
lost datagram (RFC 2544 section 26.1), its arithmetic on model links, then for real with iperf3
on loopback and through a link shaped by ``tc`` in network namespaces the test creates."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import missing, require_executable
from iperf3_peer import NamespaceTarget, iperf3_server, shaped_link
from test_adapters import TOOLS, cell_of, guide_cells, measured

from platperf import toml as tomllib
from platperf.adapters import ToolFailed, plan, run_step
from platperf.adapters import iperf3
from platperf.adapters.iperf3 import FRAME_OVERHEAD, PARAMS, Trial, next_rate
from platperf.guide.keys import Key
from platperf.guide.tables import ethernet
from platperf.runner.suite import SUITES_DIR
from platperf.targets.local import LocalTarget


# -- the search's arithmetic -------------------------------------------------------------------
def model_link(ceiling: float, line: float = 950.0, overloaded: float | None = None):
    """A link that loses datagrams above ``ceiling`` Mbit/s, whose sender reaches ``line`` at
    most, and whose receiver gets ``overloaded`` Mbit/s when nothing limits the sender (the
    guide's 1518-byte ingress rows: 13 Mbit/s received when flooded, 38 without loss)."""
    def trial(rate):
        offered = line if rate is None else min(rate, line)
        received = overloaded if rate is None and overloaded is not None else min(offered, ceiling)
        return Trial(rate, offered, received, int(offered > ceiling) * 100)
    return trial


def search(link, resolution=1.0, trials=30) -> list[Trial]:
    done = [link(None)]
    while len(done) < trials and (rate := next_rate(done, resolution)) is not None:
        done.append(link(rate))
    return done


@pytest.mark.parametrize("ceiling,overloaded,most", [
    (770.0, None, 10), (48.6, None, 6), (3.0, None, 3),       # the receiver's rate is the ceiling
    (38.0, 13.0, 11), (500.0, 0.0, 9), (600.0, 300.0, 14),    # flooding collapses it
])
def test_the_search_ends_within_its_resolution_below_the_ceiling(ceiling, overloaded, most):
    trials = search(model_link(ceiling, overloaded=overloaded))
    best = max(t.offered for t in trials if t.lost == 0)
    assert ceiling - 1.0 <= best <= ceiling
    assert next_rate(trials, 1.0) is None and len(trials) <= most
    assert trials[0].rate is None and all(t.rate is not None for t in trials[1:])
    assert len({t.rate for t in trials}) == len(trials)          # no rate is tried twice


def test_a_sender_that_loses_nothing_flooding_ends_the_search_at_once():
    trials = search(model_link(1000.0, line=950.0))
    assert len(trials) == 1 and trials[0].lost == 0


def test_a_rate_without_loss_above_one_with_loss_bounds_the_search_from_below():
    # Loss is noisy near the ceiling: 41.4 Mbit/s lost datagrams, then 45 lost none.
    trials = [Trial(None, 950, 46, 9), Trial(46, 46, 45.9, 3), Trial(41.4, 41.4, 41.4, 2),
              Trial(45, 45, 45, 0)]
    assert next_rate(trials, 0.5) == pytest.approx(45.5)
    assert next_rate(trials, 1.0) is None         # 45 and 46 are 1 Mbit/s apart
    with pytest.raises(ValueError):
        next_rate(trials[1:], 1.0)                # a search starts with the flood
    # The sender's flood lost datagrams but a rate above what it sent did not: done.
    assert next_rate([Trial(None, 40, 39, 5), Trial(41, 40, 40, 0)], 0.5) is None


# -- for real ----------------------------------------------------------------------------------
def test_a_search_on_loopback_fills_the_guides_0_loss_cells(tmp_path):
    """Functional, not a timing check: on loopback the ceiling is whatever this machine's load
    allows (a descheduled receiver overflows its socket buffer even at 100 Mbit/s on a busy
    machine), so the search stops at its first rate without loss (a resolution wider than any
    rate); what is checked is that the figures stored are those of that trial and that they
    land in the guide's 0-loss cells. The shaped link below checks where the search ends."""
    iperf3 = require_executable("iperf3", "make deps: iperf3")
    target = LocalTarget()
    with iperf3_server(iperf3, tmp_path / "iperf3.log") as port:
        for direction, title, frames in (("egress", "CPSW2g UDP Egress Throughput 0 loss", [1024, 1518]),
                                         ("ingress", "CPSW2g UDP Ingress Throughput 0 loss", [1518])):
            results = measured(target, adapter="iperf3", peer="127.0.0.1", port=port, duration=1,
                               protocol="udp", direction=direction, loss="zero", frame_sizes=frames,
                               trials=8, resolution=1e6)
            by = {(r.params["frame_size"], r.metric): r for r in results}
            assert sorted(by) == [(f, m) for f in frames for m in ("cpu_load", "packet_rate", "throughput")]
            for frame in frames:
                rate = by[(frame, "throughput")]
                assert rate.params == {"protocol": "udp", "direction": direction, "frame_size": frame,
                                       "loss": "zero"}
                assert cell_of(rate) == ethernet.Cell(title, str(frame), "THROUGHPUT (Mbits/sec)")
                assert cell_of(by[(frame, "cpu_load")]).column == "CPU Load % (LOCAL_CPU_UTIL)"
                [trials] = rate.extra["trials"]
                assert 1 <= len(trials) <= 8 and trials[0][0] is None        # the flood first
                clean = [t for t in trials if t[3] == 0]
                assert clean and rate.samples[0] == pytest.approx(max(clean, key=lambda t: t[0] or t[1])[2], abs=1e-3)
                packets = by[(frame, "packet_rate")].samples[0] * 1000
                assert packets * (frame - FRAME_OVERHEAD) * 8 / 1e6 == pytest.approx(rate.samples[0], rel=0.01)


def test_the_search_finds_the_ceiling_of_a_shaped_link(tmp_path):
    """A router shapes the link to 50 Mbit/s both ways (tbf, counted on Ethernet frames of
    1472 + 42 bytes, so 48.6 Mbit/s of datagrams). The 0-loss rate found must be below the
    shaped rate and within 10 % of 48.6 Mbit/s, egress and ingress.

    A functional check of the search, not of this machine's speed: 50 Mbit/s is far below
    what a veth pair carries even on a loaded machine (several Gbit/s), so the shaper, not the
    CPU, is the ceiling. The router's queue holds 50 ms at 50 Mbit/s: a sender descheduled on
    a loaded machine catches up with a burst (iperf3 paces the average rate), and that queue
    absorbs it, so that loss comes from the rate and not from the load. The figure stored is
    what the peer received, which the shaper caps whatever the queue holds."""
    iperf3 = require_executable("iperf3", "make deps: iperf3")
    require_executable("ip", "Debian iproute2; make deps")
    require_executable("tc", "Debian iproute2; make deps")
    if os.geteuid() != 0:
        missing("network namespaces and tc qdiscs need root")
    with shaped_link(rate_mbit=50, queue_ms=50) as link, \
            iperf3_server(iperf3, tmp_path / "iperf3.log", bind=link.peer_address, netns=link.peer) as port:
        board = NamespaceTarget(link.board)
        ceiling = link.rate_mbit * 1472 / (1472 + 42)
        for direction in ("egress", "ingress"):
            [rate] = [r for r in measured(board, adapter="iperf3", peer=link.peer_address, port=port,
                                          duration=1, protocol="udp", direction=direction, loss="zero",
                                          frame_sizes=[1518], trials=10, resolution=1.0)
                      if r.metric == "throughput"]
            [trials] = rate.extra["trials"]
            assert trials[0][3] > 0                 # flooding the link loses datagrams ...
            assert any(t[3] > 0 for t in trials[1:])  # ... and so does a rate the search tried
            assert 0.9 * ceiling <= rate.samples[0] < link.rate_mbit, trials


def test_a_search_that_never_stops_losing_is_one_error_finding(tmp_path):
    require_executable("iperf3", "make deps: iperf3")
    with iperf3_server(require_executable("iperf3"), tmp_path / "iperf3.log") as port:
        # One trial is the flood alone: 64-byte frames flooding loopback lose datagrams.
        [entry] = plan([{"adapter": "iperf3", "peer": "127.0.0.1", "port": port, "duration": 1,
                         "protocol": "udp", "direction": "egress", "loss": "zero", "frame_sizes": [64],
                         "trials": 1}])
        records, found = run_step(entry, LocalTarget())
    if records:
        pytest.skip("this machine's loopback took a 64-byte flood without loss")
    assert found["level"] == "error" and "every one of 1 trials lost datagrams" in found["message"]


def test_a_peer_that_goes_away_keeps_the_rows_measured_before(tmp_path):
    iperf3 = require_executable("iperf3", "make deps: iperf3")
    with iperf3_server(iperf3, tmp_path / "iperf3.log", once=True) as port:
        [entry] = plan([{"adapter": "iperf3", "peer": "127.0.0.1", "port": port, "duration": 1,
                         "protocol": "udp", "direction": "ingress", "frame_sizes": [1518, 1024]}])
        records, found = run_step(entry, LocalTarget())
    assert {r.params["frame_size"] for r in records} == {1518} and len(records) == 4
    assert found["level"] == "error" and f"127.0.0.1:{port}" in found["message"]


def test_loss_zero_is_for_udp_and_named_values_only():
    entry = {**PARAMS, "peer": "127.0.0.1", "protocol": "tcp", "loss": "zero"}
    with pytest.raises(ToolFailed, match="'zero' searches a UDP rate"):
        iperf3.measure(LocalTarget(), entry, "iperf3")
    with pytest.raises(ToolFailed, match="loss = 'none' is not one of"):
        iperf3.measure(LocalTarget(), {**entry, "protocol": "udp", "direction": "egress", "loss": "none"}, "iperf3")


def test_a_measured_run_pairs_with_the_published_guide_in_compare(tmp_path):
    """`platperf ingest` of the guide's Ethernet tables and `platperf run` of a 0-loss and a
    possible-loss entry on loopback: `platperf compare` pairs every measured figure with the
    published one of its cell (none "added"), as the 0-loss rows are keyed as the guide's."""
    iperf3 = require_executable("iperf3", "make deps: iperf3")
    db = tmp_path / "e.db"
    platperf = [sys.executable, "-m", "platperf"]
    subprocess.run([*platperf, "ingest", "rst-csv-table", str(TOOLS / "guide-ethernet.rst"), "--label", "sdk-11.1",
                    "--db", str(db)], check=True, capture_output=True, timeout=120)
    with iperf3_server(iperf3, tmp_path / "iperf3.log") as port:
        suite = tmp_path / "ethernet.toml"
        entry = (f'[[tool]]\nadapter = "iperf3"\npeer = "127.0.0.1"\nport = {port}\nprotocol = "udp"\n'
                 'duration = 1\nframe_sizes = [1518]\n')
        suite.write_text('name = "ethernet"\n' + entry + 'direction = "egress"\nloss = "zero"\ntrials = 8\n'
                         'resolution = 1e6\n' + entry + 'direction = "ingress"\n')
        done = subprocess.run([*platperf, "run", "--suite", str(suite), "--db", str(db), "--label", "local",
                               "--quiet"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([*platperf, "compare", "sdk-11.1:am62xx_sk-fs", "local", "--db", str(db), "--force",
                           "--format", "json"], capture_output=True, text=True, timeout=120)
    rows = json.loads(done.stdout)["rows"]
    paired = {(r["params"], r["metric"]) for r in rows if r["status"] == "both"}
    assert not [r for r in rows if r["status"] == "added"]
    zero = "direction=egress,frame_size=1518,loss=zero,protocol=udp"
    possible = "direction=ingress,frame_size=1518,loss=possible,protocol=udp"
    assert paired == {(zero, "throughput"), (zero, "packet_rate"), (zero, "cpu_load"), (possible, "throughput"),
                      (possible, "packet_rate"), (possible, "cpu_load"), (possible, "packet_loss")}


# -- the guide suite covers the guide's Ethernet tables ----------------------------------------
def test_the_guide_suite_with_a_peer_measures_every_ethernet_table_iperf3_can():
    """Each Ethernet table of the guide has an iperf3 entry in the guide suite, with the
    guide's frame sizes as rows, except the TCP Interrupt Pacing one: pacing is a setting of
    the board's NIC (ethtool -C), a label of the key a user's own entry gives, not something
    iperf3 measures."""
    suite = tomllib.loads((SUITES_DIR / "guide.toml").read_text())
    steps = plan([t for t in suite["tool"] if t["adapter"] == "iperf3"], {"peer": "192.168.0.1"})
    assert all(s.entry["peer"] == "192.168.0.1" and s.entry["duration"] == 60 for s in steps)
    measured_cells = set()
    for s in steps:
        for frame in iperf3.frames(s.entry):
            params = tuple(sorted(iperf3.row_params(s.entry, frame).items()))
            for metric in iperf3.metrics(s.entry):
                cell = ethernet.to_cell(Key("iperf3", params, metric, *iperf3.UNITS[metric]))
                measured_cells.add((cell.title, cell.row, cell.column))
    published = {(t, r, c) for t, r, c in guide_cells("guide-ethernet.rst")
                 if c != "UDP Datagram Size(bytes) (LOCAL_SEND_SIZE)"}      # not a figure
    pacing = "CPSW2g TCP Bidirectional Throughput Interrupt Pacing"
    # ethernet.py also names the egress "possible loss" table the guide does not print
    assert {t for t, _, _ in published} == set(ethernet.TITLES) - {"CPSW2g UDP Egress Throughput possible loss"}
    assert measured_cells == {cell for cell in published if cell[0] != pacing}
