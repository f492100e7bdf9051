"""How a result's parts are kept on disk: its key once per database, its samples as float64,
and what the probe wrote beside them (``extra``) as compressed JSON.

A lab's year is 35 million results (docs/lab.md). Stored as the first schema stored them —
the key's text and its parameters as JSON on every row, ``extra`` as JSON text — a result
cost 822 bytes on SQLite, 60% of it ``extra``: the probe's ticks, cost, preemption, steal,
context switches and pages, the same dozen field names in every row. Here:

* **the key** (benchmark, parameters, CPU, place, mode, metric, unit, direction) is a row of
  ``result_keys``, named by :func:`key_id`, the first 63 bits of the BLAKE2b-128 digest of its
  canonical JSON text (:func:`key_text`); the digest is kept beside it, and a second key with
  the same id but another digest is refused, never merged (:class:`KeyCollision`);
* **samples** are little-endian float64, every one (DESIGN.md: nothing the probe writes is
  thrown away);
* **extra** is its compact JSON text deflated (RFC 1951, zlib's raw stream) against a preset
  dictionary of the probe's field names (:data:`EXTRA_DICTIONARY`, zlib's ``zdict``), behind a
  version byte: 530 bytes of JSON become about 120. The dictionary of version 1 never changes
  (the rows written with it need it to be read); a new one would be version 2.

Readers outside platperf (a script with sqlite3) decode ``extra`` with :func:`unpack_extra`.
"""
from __future__ import annotations

import hashlib
import json
import zlib
from array import array

from sqlalchemy import LargeBinary
from sqlalchemy.types import TypeDecorator

# The probe's per-result fields as it writes them (docs/results-format.md), compact JSON:
# deflate finds these strings in the dictionary instead of in each row.
EXTRA_DICTIONARY = (
    b'{"published_delta_pct":,"usage_delta":0,"rejected_delta":0,"resolution_steps":,'
    b'"rounds":[],"command":"","column":"","source":"",'
    b'"core_clock":{"hz":,"cycles_per_tick":1.,"method":"add-chain","error_pct":0.},'
    b'"pages":{"asked":"auto","backing":"huge","bytes":,"huge_bytes":2097152},'
    b'"pages":{"asked":"auto","backing":"4k","bytes":,"huge_bytes":0},'
    b'"context_switches":{"voluntary":0,"involuntary":0},'
    b'"steal":{"ticks":0,"retakes":0,"samples":[]},"preempted":[],'
    b'"cost":{"target_ticks":,"sample_estimate_ticks":,"calibration_ticks":,"warmup_ticks":,'
    b'"sample_ticks":,"retakes":0},"iterations":,"ticks":[')
_EXTRA_V1 = b"\x01"
_WBITS = -15          # a raw deflate stream: no zlib header, the version byte says what it is
_LITTLE = array("d", [1.0]).tobytes()[0] == 0


def pack_samples(samples) -> bytes:
    a = array("d", samples)
    if not _LITTLE:
        a.byteswap()
    return a.tobytes()


def unpack_samples(blob: bytes) -> list[float]:
    a = array("d")
    a.frombytes(blob)
    if not _LITTLE:
        a.byteswap()
    return a.tolist()


def pack_extra(extra) -> bytes | None:
    """``extra`` (a JSON value) as stored; None for nothing (None or {})."""
    if extra is None or extra == {}:
        return None
    text = json.dumps(extra, separators=(",", ":")).encode()
    z = zlib.compressobj(9, zlib.DEFLATED, _WBITS, 9, zlib.Z_DEFAULT_STRATEGY, EXTRA_DICTIONARY)
    return _EXTRA_V1 + z.compress(text) + z.flush()


def unpack_extra(blob):
    """The JSON value :func:`pack_extra` stored; None for NULL. Text is read as JSON (what a
    database written before schema revision 0004 holds, and what a migration copies)."""
    if blob is None:
        return None
    if isinstance(blob, str):
        return json.loads(blob)
    blob = bytes(blob)
    if blob[:1] != _EXTRA_V1:
        raise ValueError(f"stored extra of unknown version {blob[:1]!r} (a newer platperf wrote it)")
    z = zlib.decompressobj(_WBITS, EXTRA_DICTIONARY)
    return json.loads(z.decompress(blob[1:]) + z.flush())


class PackedJSON(TypeDecorator):
    """A column of :func:`pack_extra` values: written and read as JSON values by SQLAlchemy."""

    impl = LargeBinary
    cache_ok = True

    def process_bind_param(self, value, dialect):
        return pack_extra(value)

    def process_result_value(self, value, dialect):
        return unpack_extra(value)


# -- keys ------------------------------------------------------------------------------------

KEY_COLUMNS = ("benchmark", "params", "params_json", "cpu", "package", "cluster", "core", "mode",
               "metric", "unit", "direction")


class KeyCollision(ValueError):
    """Two different keys whose ids agree (63 bits of their digests): never merged."""


def key_text(benchmark, params_json, cpu, package, cluster, core, mode, metric, unit, direction) -> str:
    """The canonical text of a stored key: a JSON array, parameters with sorted names, as
    written (16384 and "16384" stay two keys, as they are two records)."""
    return json.dumps([benchmark, params_json, cpu, package, cluster, core, mode, metric, unit, direction],
                      sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def key_id(text: str) -> int:
    """The id of the key whose canonical text is ``text``: 63 bits of its digest (a positive
    64-bit integer on SQLite and PostgreSQL alike)."""
    return int(digest(text)[:16], 16) >> 1
