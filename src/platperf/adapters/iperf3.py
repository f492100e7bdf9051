"""``iperf3``: the guide's Ethernet tables, against a peer the user names (``peer``, or
``platperf run --peer HOST``) that runs ``iperf3 -s``.

TCP bidirectional throughput (``--bidir``: both directions at once, as the guide's netperf
TCP_STREAM + TCP_MAERTS pair; the figure is their sum) and UDP throughput, egress (the board
sends) or ingress (``-R``: the peer sends), one datagram size per row. The guide's rows are
Ethernet frame sizes: a frame is the datagram plus 46 bytes of UDP, IPv4 and Ethernet headers
(1518 <-> 1472).

UDP ``loss = "possible"``: no bandwidth limit (``-b 0``), the throughput and the loss seen.
UDP ``loss = "zero"``: the guide's "0 loss" tables, RFC 2544 section 26.1: the highest rate at
which no datagram is lost, found by trials at a target rate (``-b``) of ``duration`` seconds
each, the loss read from iperf3's own report (:func:`next_rate` chooses the rates). At most
``trials`` trials per frame size; the search stops when the rates with and without loss are
``resolution`` Mbit/s apart. The figures stored are those of the fastest trial without loss.

CPU load is iperf3's own ``cpu_utilization_percent.host_total``: the CPU time of the iperf3
process on the board over the wall time (softirq work done on other CPUs is not in it, unlike
netperf's LOCAL_CPU_UTIL, which reads the whole system). The peer's (``remote_total``) is kept
in the result's ``peer_cpu_load``. ``runs`` repeats each test (each search), one sample per
run; the per-second figures of each run are kept in the result's ``intervals``, every trial of
a search in its ``trials``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from . import Missing, ToolFailed, result

TOOL = "iperf3"
BENCHMARK = "iperf3"
FRAME_OVERHEAD = 46          # Ethernet 14 + FCS 4 + IPv4 20 + UDP 8
PARAMS = {"peer": None, "port": 5201, "protocol": "tcp", "direction": "bidir",
          "frame_sizes": [64, 128, 256, 1024, 1518], "duration": 60, "runs": 1,
          # UDP: "possible" (no rate limit) or "zero" (the search for the fastest rate without loss)
          "loss": "possible", "trials": 10, "resolution": 1.0,
          # "on": the board's NIC paces its interrupts (ethtool -C); a label of the key, as the
          # guide's "Interrupt Pacing" table -- platperf does not set it
          "interrupt_pacing": None, "binary": None}
DIRECTIONS = {"tcp": ("bidir", "egress", "ingress"), "udp": ("egress", "ingress")}
LOSS = ("possible", "zero")
UNITS = {"throughput": ("Mbit/s", "higher"), "packet_rate": ("kpps", "higher"),
         "cpu_load": ("%", "lower"), "packet_loss": ("%", "lower")}


def title(entry: dict) -> str:
    what = f"iperf3 {entry['protocol']} {entry['direction']} to {entry['peer'] or '(no peer)'}"
    if entry["protocol"] == "udp" and entry["loss"] == "zero":
        # A search is long: say at once how long it may take.
        longest = len(entry["frame_sizes"]) * int(entry["trials"]) * float(entry["duration"]) * int(entry["runs"])
        what += f", 0-loss search (at most {longest / 60:.0f} min)" if longest >= 120 else \
            f", 0-loss search (at most {longest:.0f} s)"
    return what


def measure(target, entry: dict, path: str) -> list:
    if not entry["peer"]:
        raise Missing("peer-missing", "iperf3: no peer to measure Ethernet throughput against",
                      "run 'iperf3 -s' on a host the board reaches and name it: "
                      "platperf run --peer HOST (or peer = \"...\" in the suite's iperf3 entry)")
    protocol, direction, loss = entry["protocol"], entry["direction"], entry["loss"]
    if direction not in DIRECTIONS.get(protocol, ()):
        raise ToolFailed(f"iperf3 entry: protocol '{protocol}' with direction '{direction}' is not "
                         f"one of {DIRECTIONS}")
    if loss not in LOSS or (loss == "zero" and protocol != "udp"):
        raise ToolFailed(f"iperf3 entry: loss = '{loss}' is not one of {LOSS} "
                         "('zero' searches a UDP rate: protocol = \"udp\")")
    rows: dict[tuple, list[dict]] = {}     # one row of the table per key, one item per run
    failed = []            # a row that failed (a search that found no rate without loss)
    try:
        for _ in range(int(entry["runs"])):
            for frame in frames(entry):
                key = tuple(sorted(row_params(entry, frame).items()))
                try:
                    rows.setdefault(key, []).append(measure_row(target, entry, path, frame))
                except ToolFailed as exc:
                    failed.append(str(exc))
    except Missing as exc:
        if not any(rows.values()):
            raise
        failed.append(str(exc))        # the peer went away: what it measured before is kept
    results = []
    for key, runs in rows.items():
        if not runs:
            continue
        extra = {name: [run[name] for run in runs] for name in runs[0] if name != "figures"}
        for metric in metrics(entry):
            results.append(result(BENCHMARK, dict(key), metric, *UNITS[metric],
                                  [run["figures"][metric] for run in runs], peer=entry["peer"],
                                  duration_s=entry["duration"], **extra))
    if failed:
        raise ToolFailed("; ".join(failed), results)
    return results


def measure_row(target, entry: dict, path: str, frame) -> dict:
    """One run of one row: its figures, per-second throughputs, the peer's CPU load, and for
    a 0-loss row every trial of its search."""
    row = {}
    if entry["loss"] == "zero" and entry["protocol"] == "udp":
        doc, trials = search(target, entry, path, frame)
        row["trials"] = [t.row() for t in trials]
    else:
        doc = client(target, entry, path, frame)
        # what ran, as the guide's TCP rows name their netperf command
        row["command"] = " ".join(["iperf3", *arguments(entry, frame)])
    row["figures"] = figures(doc, entry["protocol"], entry["direction"])
    row["intervals"] = [round(i["sum"]["bits_per_second"] / 1e6, 3) for i in doc.get("intervals", [])]
    row["peer_cpu_load"] = doc["end"]["cpu_utilization_percent"].get("remote_total")
    return row


def frames(entry: dict) -> list:
    """The entry's rows: its frame sizes for UDP, one row (None) for TCP."""
    return entry["frame_sizes"] if entry["protocol"] == "udp" else [None]


def row_params(entry: dict, frame) -> dict:
    """The params of the results of one row (the keys of the guide's Ethernet tables)."""
    params = {"protocol": entry["protocol"], "direction": entry["direction"]}
    if frame is not None:
        params.update(frame_size=int(frame), loss=entry["loss"])
    elif entry["interrupt_pacing"]:
        params["interrupt_pacing"] = str(entry["interrupt_pacing"])
    return params


def metrics(entry: dict) -> tuple[str, ...]:
    """What one row of the entry stores: a 0-loss row has no loss figure (0 by definition)."""
    if entry["protocol"] == "tcp":
        return ("throughput", "cpu_load")
    if entry["loss"] == "zero":
        return ("throughput", "packet_rate", "cpu_load")
    return ("throughput", "packet_rate", "cpu_load", "packet_loss")


@dataclass
class Trial:
    """One UDP trial of a 0-loss search, rates in Mbit/s."""

    rate: float | None       # the target rate (-b); None: no limit
    sent: float              # what the sender sent
    received: float          # what the receiver received
    lost: int                # datagrams lost (gaps in iperf3's sequence numbers)

    @property
    def offered(self) -> float:
        return self.sent if self.rate is None else self.rate

    def row(self) -> list:
        return [None if self.rate is None else round(self.rate, 3), round(self.sent, 3),
                round(self.received, 3), self.lost]


# The first step away from the receiver's rate (down after a loss, up after none), doubled
# after each further step the same way.
STEP = 0.1
LARGEST_STEP_DOWN = 0.75


def next_rate(trials: list[Trial], resolution: float) -> float | None:
    """The target rate (Mbit/s) of the search's next trial, or None when it is done.

    The first trial has no limit: without loss, the sender's rate is the answer. With loss, the
    next rate is what that trial received (the guide's "possible loss" throughput), then
    lower by 10 %, 20 %, 40 %... while rates lose datagrams, or higher by 10 %, 20 %, 40 %...
    while they do not, and then the bisection of the fastest rate without loss and the
    slowest with, until they are ``resolution`` Mbit/s apart. A rate without loss above
    one with loss (loss is noisy near the ceiling) bounds the search from below: only rates
    above it that lost bound it from above.
    """
    if not trials or trials[0].rate is not None:
        raise ValueError("a 0-loss search starts with a trial without rate limit")
    first = trials[0]
    if first.lost == 0:
        return None
    clean = [t.offered for t in trials if t.lost == 0]
    low = max(clean, default=0.0)
    high = min((t.offered for t in trials if t.lost > 0 and t.offered > low), default=None)
    if high is None:                 # a rate without loss above every rate with: the answer
        return None
    if len(trials) == 1:
        # The receiver's rate under overload is close to the ceiling, except when overload
        # makes it collapse (the guide's 1518-byte ingress rows): then from half the sender's.
        return first.received if first.received > 0 else first.sent / 2
    if not clean:
        losses = sum(1 for t in trials[1:] if t.lost > 0)
        return high * (1 - min(STEP * 2 ** (losses - 1), LARGEST_STEP_DOWN))
    if high - low <= resolution:
        return None
    if all(t.lost == 0 for t in trials[1:]):
        # Only the unlimited trial lost: up from the fastest clean rate, 10 %, 20 %, 40 %...
        return min(low * (1 + STEP * 2 ** (len(clean) - 1)), (low + high) / 2)
    return (low + high) / 2


def search(target, entry: dict, path: str, frame) -> tuple[dict, list[Trial]]:
    """(the report of the fastest trial without loss, every trial) of one frame size."""
    trials: list[Trial] = []
    best = None
    rate = None
    while len(trials) < max(1, int(entry["trials"])):
        doc = client(target, entry, path, frame, rate=rate)
        trials.append(trial(doc, rate))
        if trials[-1].lost == 0 and (best is None or trials[-1].offered > best[1].offered):
            best = (doc, trials[-1])
        rate = next_rate(trials, float(entry["resolution"]))
        if rate is None:
            break
    if best is None:
        lowest = min(t.offered for t in trials)
        raise ToolFailed(f"iperf3 udp {entry['direction']} frame {frame}: every one of {len(trials)} trials "
                         f"lost datagrams, down to {lowest:.3f} Mbit/s; give the search more "
                         f"trials (trials = N) or check the link")
    return best[0], trials


def trial(doc: dict, rate: float | None) -> Trial:
    try:
        end = doc["end"]
        received = end.get("sum_received") or end["sum"]
        sent = end.get("sum_sent") or end["sum"]
        return Trial(rate, sent["bits_per_second"] / 1e6, received["bits_per_second"] / 1e6,
                     int(received["lost_packets"]))
    except (KeyError, TypeError, ValueError):
        raise ToolFailed("iperf3's JSON report has no end summary (sum, lost_packets)") from None


def arguments(entry: dict, frame, rate: float | None = None) -> list[str]:
    """iperf3's arguments for one row (a UDP row at ``rate`` Mbit/s, unlimited when None)."""
    argv = ["-c", str(entry["peer"]), "-p", str(entry["port"]), "-t", str(entry["duration"])]
    if entry["protocol"] == "udp":
        bits = 0 if rate is None else max(1, round(rate * 1e6))
        argv += ["-u", "-b", str(bits), "-l", str(int(frame) - FRAME_OVERHEAD)]
    if entry["direction"] == "bidir":
        argv.append("--bidir")
    elif entry["direction"] == "ingress":
        argv.append("-R")
    return argv


def client(target, entry: dict, path: str, frame, rate: float | None = None) -> dict:
    argv = [path, *arguments(entry, frame, rate), "-J"]
    timeout = float(entry.get("timeout") or float(entry["duration"]) + 60)
    done = target.command(argv, timeout=timeout)
    try:
        doc = json.loads(done.stdout)
    except ValueError:
        raise ToolFailed(f"iperf3 exited {done.returncode} without its JSON report: "
                         f"{done.stderr.strip()[-200:]}") from None
    error = doc.get("error")
    if error:
        if "connect" in error or "unable to send control message" in error:
            raise Missing("peer-missing", f"iperf3: peer {entry['peer']}:{entry['port']}: {error}",
                          f"start 'iperf3 -s -p {entry['port']}' on {entry['peer']}")
        raise ToolFailed(f"iperf3: {error}")
    return doc


def figures(doc: dict, protocol: str, direction: str) -> dict[str, float]:
    """The guide's figures of one iperf3 JSON report; UDP's from the receiver's side."""
    try:
        end = doc["end"]
        cpu = float(end["cpu_utilization_percent"]["host_total"])
        if protocol == "tcp":
            bits = end["sum_received"]["bits_per_second"]
            if direction == "bidir":
                bits += end["sum_received_bidir_reverse"]["bits_per_second"]
            return {"throughput": bits / 1e6, "cpu_load": cpu}
        received = end.get("sum_received") or end["sum"]
        packets = received["packets"] - received["lost_packets"]
        return {"throughput": received["bits_per_second"] / 1e6,
                "packet_rate": packets / received["seconds"] / 1000 if received["seconds"] else 0.0,
                "cpu_load": cpu, "packet_loss": float(received["lost_percent"])}
    except (KeyError, TypeError, ZeroDivisionError):
        raise ToolFailed("iperf3's JSON report has no end summary (sum/cpu_utilization_percent)") from None
