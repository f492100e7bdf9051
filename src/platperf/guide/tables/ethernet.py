"""TI's CPSW Ethernet tables and the keys the ``iperf3`` adapter stores (benchmark ``iperf3``).

* ``CPSW2g TCP Bidirectional Throughput`` [``Interrupt Pacing``]: one row, the guide's netperf
  command pair; params ``protocol=tcp``, ``direction=bidir`` (and ``interrupt_pacing=on``).
* ``CPSW2g UDP Egress|Ingress Throughput 0 loss|possible loss``: one row per Ethernet frame
  size (64 ... 1518); params ``protocol=udp``, ``direction``, ``frame_size``, ``loss``
  (``zero`` or ``possible``). A ``zero`` row is the iperf3 adapter's search for the fastest
  rate without loss (``loss = "zero"``), ``possible`` its run with no rate limit; a ``zero``
  row has no ``Packet Loss %`` (0 by definition). The guide prints no egress possible-loss
  table; its key still has a title here.
* Not measured by iperf3: the ``Interrupt Pacing`` table's pacing is a NIC setting
  (``ethtool -C``) the user makes; ``interrupt_pacing = "on"`` in a TCP entry labels the key.

Columns: ``THROUGHPUT (Mbits/sec)`` -> ``throughput`` Mbit/s, ``CPU Load % (LOCAL_CPU_UTIL)``
-> ``cpu_load`` %, ``Packets Per Second (kPPS)`` -> ``packet_rate`` kpps, ``Packet Loss %`` ->
``packet_loss`` %. The ``UDP Datagram Size(bytes) (LOCAL_SEND_SIZE)`` column is the row's
frame size less 46 bytes of headers, not a measurement: it has no key.
"""
from __future__ import annotations

from ..keys import Cell, Key

BENCHMARK = "iperf3"
TCP_ROW = ("netperf -H 192.168.0.1 -j -c -C -l 60 -t TCP_STREAM; "
           "netperf -H 192.168.0.1 -j -c -C -l 60 -t TCP_MAERTS")
# A TCP row names the command that measured it: TI's netperf pair, or iperf3 with its arguments
# (what platperf ran, kept in the result's ``command``).
COMMANDS = ("iperf3 ", "netperf ")
TCP = {"CPSW2g TCP Bidirectional Throughput": (),
       "CPSW2g TCP Bidirectional Throughput Interrupt Pacing": (("interrupt_pacing", "on"),)}
LOSS = {"zero": "0 loss", "possible": "possible loss"}
UDP = {f"CPSW2g UDP {d.capitalize()} Throughput {text}": (d, loss)
       for d in ("egress", "ingress") for loss, text in LOSS.items()}
METRICS = {"THROUGHPUT (Mbits/sec)": ("throughput", "Mbit/s", "higher"),
           "CPU Load % (LOCAL_CPU_UTIL)": ("cpu_load", "%", "lower"),
           "Packets Per Second (kPPS)": ("packet_rate", "kpps", "higher"),
           "Packet Loss %": ("packet_loss", "%", "lower")}
TCP_METRICS = ("THROUGHPUT (Mbits/sec)", "CPU Load % (LOCAL_CPU_UTIL)")
TITLES = (*TCP, *UDP)
SECTIONS = {title: ("Ethernet", "CPSW/CPSW2g/CPSW3g Ethernet Driver") for title in TITLES}
ROW_HEADER = {**{title: "Command Used" for title in TCP}, **{title: "Frame Size(bytes)" for title in UDP}}


def to_key(title: str, row: str, column: str) -> Key | None:
    if column not in METRICS:
        return None
    metric, unit, direction = METRICS[column]
    if title in TCP and (row == TCP_ROW or row.startswith(COMMANDS)) and column in TCP_METRICS:
        params = (("direction", "bidir"), *TCP[title], ("protocol", "tcp"))
        return Key(BENCHMARK, params, metric, unit, direction)
    if title in UDP and row.isdigit() and row == str(int(row)):
        way, loss = UDP[title]
        if metric == "packet_loss" and loss != "possible":
            return None
        params = (("direction", way), ("frame_size", int(row)), ("loss", loss), ("protocol", "udp"))
        return Key(BENCHMARK, params, metric, unit, direction)
    return None


def to_cell(key: Key) -> Cell | None:
    if key.benchmark != BENCHMARK:
        return None
    column = next((c for c, m in METRICS.items() if m == (key.metric, key.unit, key.direction)), None)
    if column is None:
        return None
    params = dict(key.params)
    if params.get("protocol") == "tcp" and params.get("direction") == "bidir" and column in TCP_METRICS:
        rest = tuple(sorted((k, v) for k, v in params.items() if k not in ("protocol", "direction")))
        title = next((t for t, extra in TCP.items() if extra == rest), None)
        return Cell(title, TCP_ROW, column) if title else None
    if params.get("protocol") == "udp" and set(params) == {"protocol", "direction", "frame_size", "loss"} \
            and isinstance(params["frame_size"], int) and params["frame_size"] >= 0:
        title = next((t for t, spec in UDP.items() if spec == (params["direction"], params["loss"])), None)
        if title is None or (key.metric == "packet_loss" and params["loss"] != "possible"):
            return None
        return Cell(title, str(params["frame_size"]), column)
    return None
