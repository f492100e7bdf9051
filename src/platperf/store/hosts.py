"""The machine a run was measured on, as ``platperf runs`` names it: host name and CPU model.

Kept in ``runs.host`` when a run begins (or its fingerprint is given later), so that listing
19,000 runs reads one short text a run instead of decoding its 13 KB of JSON."""
from __future__ import annotations


def machine_name(fingerprint) -> str:
    """Host name and CPU model from a fingerprint, as far as it has them."""
    if not isinstance(fingerprint, dict) or not fingerprint:
        return ""
    host = _first(fingerprint, ("hostname",), ("host", "name"), ("host", "hostname"))
    cpu = _first(fingerprint, ("cpu", "model"), ("cpu", "model_name"), ("cpu_model",),
                 ("cpu", "name"))
    return " / ".join(str(v) for v in (host, cpu) if v)


def _first(doc, *paths):
    for path in paths:
        value = doc
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if value not in (None, "", [], {}):
            return value
    return None
