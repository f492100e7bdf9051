"""A real iperf3 peer (``iperf3 -s``) for the iperf3 adapter's tests: on loopback, or behind a
rate-limited link in network namespaces the test creates.

:func:`iperf3_server` starts the server on a free port (in a namespace: ``ip netns exec``) and
stops it. :func:`shaped_link` builds three namespaces -- the board, a router, the peer --
joined by two veth pairs, the router's two ends shaped by ``tc ... tbf`` to one rate, and
deletes them whatever happens. Nothing is changed in the namespace the tests run in.

Why a router between the board and its peer: a UDP socket is charged for its datagrams while
they wait in a qdisc of its own host, so a shaper on the sender's own interface stalls the
sender (its send buffer fills) instead of dropping datagrams; a router's queue drops them, as
a switch or the peer's NIC does, and the 0-loss search sees loss.
"""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from platperf.targets.local import LocalTarget


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def iperf3_server(iperf3: str, log: Path, bind: str = "127.0.0.1", netns: str | None = None,
                  once: bool = False):
    """``iperf3 -s`` listening on ``bind`` (in ``netns``); yields its port. ``once``: it ends
    after one test (``-1``), as a peer that goes away."""
    port = free_port()
    argv = [iperf3, "-s", "-B", bind, "-p", str(port), "--forceflush"]   # its "listening" line at once
    if once:
        argv.append("-1")
    if netns:
        argv = ["ip", "netns", "exec", netns, *argv]
    with log.open("w") as out:
        server = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    try:
        # Until it says it listens (a connection to see would count as a client for iperf3).
        for _ in range(200):
            if "Server listening" in log.read_text() or server.poll() is not None:
                break
            time.sleep(0.05)
        assert server.poll() is None, log.read_text()
        yield port
    finally:
        server.kill()
        server.wait()


class NamespaceTarget(LocalTarget):
    """This machine seen from inside network namespace ``netns``: the board of a shaped link."""

    def __init__(self, netns: str):
        super().__init__(name=f"netns {netns}")
        self.netns = netns

    def command(self, argv, *, timeout=None, stdin=b""):
        return super().command(["ip", "netns", "exec", self.netns, *argv], timeout=timeout, stdin=stdin)


@dataclass
class ShapedLink:
    board: str           # the namespace of the board (the iperf3 client)
    peer: str            # the namespace of the peer (iperf3 -s)
    peer_address: str    # where the board reaches the peer
    rate_mbit: float     # the router's shaping rate, both ways, counted on Ethernet frames (no FCS)


def sh(*argv: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    if done.returncode:
        raise RuntimeError(f"{' '.join(argv)}: {done.stderr.strip()}")


@contextlib.contextmanager
def shaped_link(rate_mbit: int, queue_ms: int):
    """board -- router -- peer, the router's egress both ways shaped to ``rate_mbit`` with a
    queue of ``queue_ms`` at that rate (``tbf ... latency``): what exceeds it is dropped."""
    tag = f"pp{os.getpid() % 100000}"
    board, router, peer = f"{tag}-board", f"{tag}-router", f"{tag}-peer"
    # Addresses are those of the namespaces only: they never meet the host's networks.
    made = []
    try:
        for ns in (board, router, peer):
            sh("ip", "netns", "add", ns)
            made.append(ns)
        sh("ip", "-n", board, "link", "add", "eth0", "type", "veth", "peer", "name", "toboard", "netns", router)
        sh("ip", "-n", peer, "link", "add", "eth0", "type", "veth", "peer", "name", "topeer", "netns", router)
        for ns, dev, address in ((board, "eth0", "10.77.1.2/24"), (peer, "eth0", "10.77.2.2/24"),
                                 (router, "toboard", "10.77.1.1/24"), (router, "topeer", "10.77.2.1/24")):
            sh("ip", "-n", ns, "addr", "add", address, "dev", dev)
            sh("ip", "-n", ns, "link", "set", dev, "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("ip", "netns", "exec", router, "sysctl", "-qw", "net.ipv4.ip_forward=1")
        sh("ip", "-n", board, "route", "add", "default", "via", "10.77.1.1")
        sh("ip", "-n", peer, "route", "add", "default", "via", "10.77.2.1")
        for dev in ("toboard", "topeer"):
            sh("ip", "netns", "exec", router, "tc", "qdisc", "add", "dev", dev, "root", "tbf",
               "rate", f"{rate_mbit}mbit", "burst", "16kb", "latency", f"{queue_ms}ms")
        yield ShapedLink(board, peer, "10.77.2.2", float(rate_mbit))
    finally:
        for ns in reversed(made):          # a namespace's veth ends go with it
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)
