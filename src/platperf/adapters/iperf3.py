"""``iperf3``: the guide's Ethernet tables, against a peer the user names (``peer``, or
``platperf run --peer HOST``) that runs ``iperf3 -s``.

TCP bidirectional throughput (``--bidir``: both directions at once, as the guide's netperf
TCP_STREAM + TCP_MAERTS pair; the figure is their sum) and UDP throughput with no bandwidth
limit (``-b 0``: the guide's "possible loss" table), egress (the board sends) or ingress
(``-R``: the peer sends), one datagram size per row. The guide's rows are Ethernet frame
sizes: a frame is the datagram plus 46 bytes of UDP, IPv4 and Ethernet headers (1518 <->
1472). CPU load is iperf3's own ``cpu_utilization_percent.host_total`` (this end, all CPUs,
as netperf's LOCAL_CPU_UTIL). ``runs`` repeats each test, one sample per run; the per-second
figures of each run are kept in the result's ``intervals``.
"""
from __future__ import annotations

import json

from . import Missing, ToolFailed, result

TOOL = "iperf3"
BENCHMARK = "iperf3"
FRAME_OVERHEAD = 46          # Ethernet 14 + FCS 4 + IPv4 20 + UDP 8
PARAMS = {"peer": None, "port": 5201, "protocol": "tcp", "direction": "bidir",
          "frame_sizes": [64, 128, 256, 1024, 1518], "duration": 60, "runs": 1,
          # "on": the board's NIC paces its interrupts (ethtool -C); a label of the key, as the
          # guide's "Interrupt Pacing" table -- platperf does not set it
          "interrupt_pacing": None, "binary": None}
DIRECTIONS = {"tcp": ("bidir", "egress", "ingress"), "udp": ("egress", "ingress")}


def title(entry: dict) -> str:
    return f"iperf3 {entry['protocol']} {entry['direction']} to {entry['peer'] or '(no peer)'}"


def measure(target, entry: dict, path: str) -> list:
    if not entry["peer"]:
        raise Missing("peer-missing", "iperf3: no peer to measure Ethernet throughput against",
                      "run 'iperf3 -s' on a host the board reaches and name it: "
                      "platperf run --peer HOST (or peer = \"...\" in the suite's iperf3 entry)")
    protocol, direction = entry["protocol"], entry["direction"]
    if direction not in DIRECTIONS.get(protocol, ()):
        raise ToolFailed(f"iperf3 entry: protocol '{protocol}' with direction '{direction}' is not "
                         f"one of {DIRECTIONS}")
    frames = entry["frame_sizes"] if protocol == "udp" else [None]
    samples: dict[tuple, list] = {}
    intervals: dict[tuple, list] = {}
    for _ in range(int(entry["runs"])):
        for frame in frames:
            doc = client(target, entry, path, frame)
            params = {"protocol": protocol, "direction": direction}
            if frame is not None:
                params.update(frame_size=int(frame), loss="possible")
            elif entry["interrupt_pacing"]:
                params["interrupt_pacing"] = str(entry["interrupt_pacing"])
            key = tuple(sorted(params.items()))
            for metric, value in figures(doc, protocol, direction).items():
                samples.setdefault((key, metric), []).append(value)
            intervals.setdefault(key, []).append(
                [round(i["sum"]["bits_per_second"] / 1e6, 3) for i in doc.get("intervals", [])])
    units = {"throughput": ("Mbit/s", "higher"), "packet_rate": ("kpps", "higher"),
             "cpu_load": ("%", "lower"), "packet_loss": ("%", "lower")}
    return [result(BENCHMARK, dict(key), metric, *units[metric], values, peer=entry["peer"],
                   duration_s=entry["duration"], intervals=intervals[key])
            for (key, metric), values in samples.items()]


def client(target, entry: dict, path: str, frame) -> dict:
    argv = [path, "-c", str(entry["peer"]), "-p", str(entry["port"]), "-t", str(entry["duration"]), "-J"]
    if entry["protocol"] == "udp":
        argv += ["-u", "-b", "0", "-l", str(int(frame) - FRAME_OVERHEAD)]
    if entry["direction"] == "bidir":
        argv.append("--bidir")
    elif entry["direction"] == "ingress":
        argv.append("-R")
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
    """The guide's figures of one iperf3 JSON report."""
    try:
        end = doc["end"]
        cpu = float(end["cpu_utilization_percent"]["host_total"])
        if protocol == "tcp":
            bits = end["sum_received"]["bits_per_second"]
            if direction == "bidir":
                bits += end["sum_received_bidir_reverse"]["bits_per_second"]
            return {"throughput": bits / 1e6, "cpu_load": cpu}
        total = end["sum"]
        received = end.get("sum_received", total)
        packets = total["packets"] - total["lost_packets"]
        return {"throughput": received["bits_per_second"] / 1e6,
                "packet_rate": packets / total["seconds"] / 1000 if total["seconds"] else 0.0,
                "cpu_load": cpu, "packet_loss": float(total["lost_percent"])}
    except (KeyError, TypeError, ZeroDivisionError):
        raise ToolFailed("iperf3's JSON report has no end summary (sum/cpu_utilization_percent)") from None
