"""Boot time of the board's last boot from ``systemd-analyze`` (the guide's "Linux boot time"
table); several boots are imported with ``platperf ingest --format systemd-analyze`` from a log
of one ``systemd-analyze`` output per boot. Parsed by ``platperf.ingest.systemd_analyze``.
A board not booted with systemd is one finding.
"""
from __future__ import annotations

from ..ingest import IngestError, systemd_analyze
from . import Missing, ToolFailed

TOOL = "systemd-analyze"
PARAMS = {"media": systemd_analyze.MEDIA, "binary": None}


def title(entry: dict) -> str:
    return f"systemd-analyze (boot from {entry['media']})"


def measure(target, entry: dict, path: str) -> list:
    done = target.command([path, "time"], timeout=float(entry.get("timeout") or 60))
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[0]
        raise Missing("boot-time-missing", f"systemd-analyze: {why}",
                      "boot time needs a board booted with systemd; import other boards' "
                      "logs with platperf ingest --format systemd-analyze")
    try:
        return systemd_analyze.parse(done.stdout, "systemd-analyze", str(entry["media"]))
    except IngestError as exc:
        raise ToolFailed(str(exc)) from None
