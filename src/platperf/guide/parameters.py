"""Columns of a guide table that say which row it is, not what was measured: a size in bytes
beside the row's name, and GLBenchmark's test number.

TI's guides print them: the ``Crypto Accelerator Performance`` table of 2026 (``"Algorithm",
"Size (bytes)", "Accelerator (MB/s)", ...``: one row per algorithm and buffer size), the RPMsg
latency table (``"Remote Processor","Message Size (in bytes)",...``), the CPSW and ICSSG UDP
tables' per-board ``UDP Datagram Size(bytes) (LOCAL_SEND_SIZE)`` (netperf's field name after
the unit), GLBenchmark 2.5's per-board ``Test Number``. A cell of such a column is a parameter
of the key of the figures beside it -- six buffer sizes are six keys, never one key of six
samples -- and never a figure of its own. A size is read in bytes (``16`` or ``16 bytes``).

The first column of a table (``Frame Size(bytes)``, ``Buffer size (bytes)``) names the row
already and is not one of these.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# "Size (bytes)", "Message Size (in bytes)", "UDP Datagram Size(bytes) (LOCAL_SEND_SIZE)"
_SIZE = re.compile(r"^(?P<name>(?:.*\s)?size)\s*\(\s*(?:in\s+)?bytes?\s*\)(?:\s*\(\s*[A-Z][A-Z0-9_]*\s*\))?$",
                   re.IGNORECASE)
# identifiers a benchmark gives its tests, printed beside the figure
_IDENTIFIERS = {"test number": "test_number"}


@dataclass(frozen=True)
class Parameter:
    """A parameter column: the key's parameter name and the unit its cells are in."""
    name: str
    unit: str           # "bytes", or "" for an identifier


def parameter(header: str) -> Parameter | None:
    """The parameter a column header names (without its ``board: `` prefix), None for a
    column of figures: ``"Message Size (in bytes)"`` -> ``message_size`` in bytes."""
    text = " ".join(header.split())
    size = _SIZE.match(text)
    if size:
        return Parameter("_".join(size.group("name").lower().split()), "bytes")
    name = _IDENTIFIERS.get(text.lower())
    return Parameter(name, "") if name else None
