"""The iperf3 adapter's UDP 0-loss search against links of known ceiling, in one run.

Builds board -- router -- peer in network namespaces (tests/iperf3_peer.py: the router's
egress both ways shaped by tc tbf, a queue of 50 ms), then, for each shaped rate, frame size
and direction, runs the guide's 0-loss search (loss = "zero", resolution 1 Mbit/s, at most 10
trials of DURATION s) and prints:
  * the 0-loss throughput found over the link's ceiling for datagrams (the shaped rate times
    datagram / (datagram + 42 bytes of UDP, IPv4 and Ethernet headers): tbf counts frames
    without FCS); target 0.95 <= ratio <= 1.01 (1 %: the shaper's 16 kB bucket over a trial);
  * the trials the search used and its wall time.
The ceiling is the peer here: what the search must find is known in advance, as long as the
shaper and not the machine is the ceiling. That holds to about 25k datagrams/s: on a loaded
2-core VM, the board, router and peer namespaces lose datagrams from about 30k/s (100 Mbit/s
of 256-byte frames is 50k/s: the search finds 38 Mbit/s there, the machine's own 0-loss
rate, not the shaper's 83), so the links measured stay below that.
Run (root: namespaces and qdiscs): .venv/bin/python bench/iperf3_zero_loss.py [--duration S]
(exit 1: a ratio out of its target; exit 0 with a line saying what is missing otherwise)
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

from iperf3_peer import NamespaceTarget, iperf3_server, shaped_link  # noqa: E402

from platperf.adapters import plan, run_step  # noqa: E402

# (shaped Mbit/s, frame size): at most 25k datagrams/s (50 Mbit/s of 256-byte frames)
LINKS = {20: (256, 1518), 50: (256, 1518), 100: (1024, 1518)}
LOW, HIGH = 0.95, 1.01
HEADERS = 42                        # UDP 8 + IPv4 20 + Ethernet 14 (tbf sees no FCS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=int, default=2, help="seconds per trial (default 2)")
    args = parser.parse_args()
    lacking = [t for t in ("ip", "tc", "iperf3") if shutil.which(t) is None]
    if lacking or os.geteuid() != 0:
        print(f"skipped: needs root and {', '.join(lacking) or 'ip, tc, iperf3'} (iproute2, iperf3)")
        return 0
    print(f"load before: {Path('/proc/loadavg').read_text().strip()}")
    print(f"{'Mbit/s':>6} {'frame':>5} {'direction':>9} {'ceiling':>8} {'found':>8} {'ratio':>6} "
          f"{'trials':>6} {'wall s':>6}  ok")
    missed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for rate, frames in LINKS.items():
            with shaped_link(rate_mbit=rate, queue_ms=50) as link, \
                    iperf3_server(shutil.which("iperf3"), Path(tmp) / "iperf3.log", bind=link.peer_address,
                                  netns=link.peer) as port:
                board = NamespaceTarget(link.board)
                for frame in frames:
                    datagram = frame - 46
                    ceiling = rate * datagram / (datagram + HEADERS)
                    for direction in ("egress", "ingress"):
                        [step] = plan([{"adapter": "iperf3", "peer": link.peer_address, "port": port,
                                        "protocol": "udp", "direction": direction, "loss": "zero",
                                        "frame_sizes": [frame], "duration": args.duration}])
                        start = time.monotonic()
                        records, found = run_step(step, board)
                        wall = time.monotonic() - start
                        rows = [r for r in records if r.metric == "throughput"]
                        if not rows:
                            print(f"{rate:>6} {frame:>5} {direction:>9} {ceiling:>8.2f}  none: "
                                  f"{found and found['message']}")
                            missed += 1
                            continue
                        value = rows[0].samples[0]
                        ok = LOW <= value / ceiling <= HIGH
                        missed += not ok
                        print(f"{rate:>6} {frame:>5} {direction:>9} {ceiling:>8.2f} {value:>8.2f} "
                              f"{value / ceiling:>6.3f} {len(rows[0].extra['trials'][0]):>6} {wall:>6.1f}  "
                              f"{'yes' if ok else 'NO'}")
    print(f"load after: {Path('/proc/loadavg').read_text().strip()}")
    print(f"target {LOW} <= found / ceiling <= {HIGH}: {'met' if not missed else f'{missed} missed'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
