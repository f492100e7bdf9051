"""The results records of docs/results-format.md, read from a JSON Lines stream.

The probe writes them, the importers in ``platperf.ingest`` produce them, and the store
keeps them. Everything that reads a stream goes through :func:`read_stream` so that a
record is validated in one place.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import IO, Iterable, Iterator, NamedTuple

SCHEMA = 1
TYPES = ("meta", "result", "histogram", "point", "warning", "error", "end")
DIRECTIONS = ("lower", "higher")
MODES = ("serial", "parallel")


class ResultKey(NamedTuple):
    """The comparison key of DESIGN.md, field by field: what Result.key holds and what the JSON
    exports of compare and history name its parts. ``package`` is None except on machines whose
    cluster numbers restart in each package (platperf.topology: ``per_package``)."""

    benchmark: str
    params: str
    mode: str
    package: int | None
    cluster: int | None
    core: int | None
    metric: str


KEY_FIELDS = ResultKey._fields


def key_order(key: tuple) -> tuple:
    """Keys in order; None (no package / cluster / core) before 0 without comparing None with int."""
    return tuple((0, "") if v is None else (1, v) for v in key)


def place_text(package, cluster, core) -> str:
    """`` package 1 cluster 0 core 1``; no package where it is None (a one-package machine)."""
    if cluster is None and core is None:
        return ""
    return (f" package {package}" if package is not None else "") + f" cluster {cluster} core {core}"


def key_text(key: tuple, unit: str | None = None) -> str:
    """A comparison key as a person reads it, everywhere one is printed:
    ``mem-latency [size=4096] serial cluster 0 core 1 latency`` (`` (ns)`` with a unit)."""
    key = ResultKey(*key)
    params = f" [{key.params}]" if key.params else ""
    where = place_text(key.package, key.cluster, key.core)
    return f"{key.benchmark}{params} {key.mode}{where} {key.metric}" + (f" ({unit})" if unit else "")


def not_measured(benchmark: str, metric: str, extra) -> str | None:
    """Why a result's samples are not a figure of what its key names, or None: an idle state
    that the CPU never entered while it was the only one enabled (``cpu-idle``'s
    ``usage_delta`` 0) — "rejected" where the driver or firmware refused it (``rejected_delta``
    above 0: PSCI CPU_SUSPEND denied), else "not entered". The samples are kept in the store;
    reports and compare show the reason instead of a figure."""
    if benchmark != "cpu-idle" or metric != "wakeup_lateness" or not isinstance(extra, dict):
        return None
    if extra.get("usage_delta") != 0:
        return None
    rejected = extra.get("rejected_delta")
    return "rejected" if isinstance(rejected, int) and rejected > 0 else "not entered"


class RecordError(ValueError):
    """A record that does not follow the results format; ``where`` is ``file:line``."""

    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


def canonical_params(params: dict) -> str:
    """``{"size": 16384, "pattern": "random"}`` -> ``pattern=random,size=16384``.

    The key used everywhere results are compared: sorted, no spaces, values as written.
    """
    return ",".join(f"{k}={_param_text(params[k])}" for k in sorted(params))


def params_of(text: str) -> dict[str, str]:
    """The inverse of :func:`canonical_params`, values as text: ``pattern=random,size=16384``
    -> ``{"pattern": "random", "size": "16384"}``."""
    return dict(item.partition("=")[::2] for item in (text or "").split(",") if item)


def _param_text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@dataclass
class Result:
    """One measured figure with every sample behind it."""

    benchmark: str
    params: dict
    metric: str
    unit: str
    direction: str
    samples: list[float]
    cpu: int | None = None
    mode: str = "serial"
    cluster: int | None = None
    core: int | None = None
    extra: dict = field(default_factory=dict)
    package: int | None = None

    def set_place(self, place: tuple):
        """Take (package, cluster, core) from ``Topology.place``."""
        self.package, self.cluster, self.core = place

    @property
    def not_measured(self) -> str | None:
        """See :func:`not_measured`."""
        return not_measured(self.benchmark, self.metric, self.extra)

    @property
    def params_key(self) -> str:
        return canonical_params(self.params)

    @property
    def key(self) -> ResultKey:
        """The comparison key of DESIGN.md: never a row position."""
        return ResultKey(self.benchmark, self.params_key, self.mode, self.package, self.cluster, self.core,
                   self.metric)


def _require(rec: dict, name: str, kind, where: str):
    if name not in rec:
        raise RecordError(where, f"'{rec.get('type')}' record has no '{name}'")
    value = rec[name]
    if kind is not None and not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise RecordError(where, f"'{name}' must be {getattr(kind, '__name__', kind)}, got {value!r:.40}")
    return value


def result_from_record(rec: dict, where: str = "<record>") -> Result:
    """Validate a ``result`` record and return it as a :class:`Result`."""
    samples = _require(rec, "samples", list, where)
    if not samples:
        raise RecordError(where, "'samples' must be a non-empty list of numbers")
    for value in samples:
        _number(value, "samples", where)
    direction = _require(rec, "direction", str, where)
    if direction not in DIRECTIONS:
        raise RecordError(where, f"'direction' must be lower or higher, got {direction!r}")
    mode = rec.get("mode", "serial")
    if mode not in MODES:
        raise RecordError(where, f"'mode' must be serial or parallel, got {mode!r}")
    cpu = _cpu_field(rec, "cpu", where)
    known = {"type", "benchmark", "params", "metric", "unit", "direction", "samples", "cpu",
             "mode", "package", "cluster", "core", "summary"}
    return Result(
        benchmark=_require(rec, "benchmark", str, where),
        params=_require(rec, "params", dict, where),
        metric=_require(rec, "metric", str, where),
        unit=_require(rec, "unit", str, where),
        direction=direction,
        samples=[float(s) for s in samples],
        cpu=cpu,
        mode=mode,
        package=_cpu_field(rec, "package", where),
        cluster=_cpu_field(rec, "cluster", where),
        core=_cpu_field(rec, "core", where),
        extra={k: v for k, v in rec.items() if k not in known},
    )


# A CPU number beyond any machine's (Linux's NR_CPUS tops out at 8192) and a figure beyond
# 1e30 in any unit (a second is 1e9 ns, a terabyte 1e12 bytes) are corrupt, whatever else the
# record says: the statistics square and sum samples, and must stay finite.
MAX_CPU = 1 << 16
MAX_VALUE = 1e30
# The longest line a stream may hold. The probe's largest record, a result of 10^6 samples or a
# histogram with 10^6 raw passes, is about 15 MB; a reader stops at this many characters
# (targets read with readline(MAX_LINE + 1)), so a line with no end costs bounded memory.
MAX_LINE = 64 << 20


def _cpu_field(rec: dict, name: str, where: str, cpus=None):
    value = rec.get(name)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < MAX_CPU:
        raise RecordError(where, f"'{name}' must be a CPU number from 0 to {MAX_CPU - 1}, got {value!r:.40}")
    if name == "cpu" and cpus is not None and value not in cpus:
        raise RecordError(where, f"'cpu' {value} is not a CPU of this target "
                                 f"(it has {_cpu_list(cpus)})")
    return value


def _cpu_list(cpus) -> str:
    cpus = sorted(cpus)
    return f"{cpus[0]}-{cpus[-1]}" if cpus and cpus == list(range(cpus[0], cpus[-1] + 1)) else \
        ",".join(map(str, cpus)) or "none"


def _number(value, name: str, where: str):
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise RecordError(where, f"'{name}' must be a number, got {value!r:.40}")
    try:
        number = float(value)
    except OverflowError:
        raise RecordError(where, f"'{name}' is out of range") from None
    if not math.isfinite(number) or abs(number) > MAX_VALUE:
        raise RecordError(where, f"'{name}' must be a number within ±{MAX_VALUE:g}, got {value!r:.40}")
    return value


def _histogram(rec: dict, where: str):
    for name in ("benchmark", "unit"):
        _require(rec, name, str, where)
    _require(rec, "params", dict, where)
    buckets = _require(rec, "buckets", list, where)
    for name in ("min", "max"):
        _number(_require(rec, name, None, where), name, where)
    count = _require(rec, "count", int, where)
    if count < 0:
        raise RecordError(where, f"'count' must not be negative, got {count}")
    total = 0
    for bucket in buckets:
        if not isinstance(bucket, list) or len(bucket) != 3:
            raise RecordError(where, "a histogram bucket must be [low, high, count]")
        _number(bucket[0], "bucket low", where)
        _number(bucket[1], "bucket high", where)
        if not isinstance(bucket[2], int) or isinstance(bucket[2], bool) or bucket[2] < 0:
            raise RecordError(where, f"a bucket count must be a non-negative integer, got {bucket[2]!r:.40}")
        total += bucket[2]
    if buckets and total > count:
        raise RecordError(where, f"the buckets hold {total} values but 'count' is {count}")


_EVENT_NAME = re.compile(r"^[a-z0-9][a-z0-9_]{0,62}$")
_EVENT_PER = re.compile(r"^[a-z]{1,20}$")


def _positive(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 1e30


def _events(rec: dict, where: str):
    """The ``events`` field of a result record (docs/results-format.md, "events"; platperf.events):
    RecordError for a counter whose counts do not match the samples one for one, a missing or
    non-positive ``iterations`` (the divisor: the record's, or ``events.iterations``, one per
    sample), a negative or non-finite count."""
    events = rec["events"]
    if not isinstance(events, dict):
        raise RecordError(where, "'events' must be an object {\"per\": ..., \"counters\": [...]}")
    per = events.get("per")
    if not isinstance(per, str) or not _EVENT_PER.match(per):
        raise RecordError(where, f"'events.per' must name one operation (access, byte, pass), got {per!r:.40}")
    n = len(rec["samples"])
    each = events.get("iterations")     # each sample's own divisor (align-sweep's pooled rounds)
    if each is not None:
        if not isinstance(each, list) or len(each) != n or not all(_positive(v) for v in each):
            raise RecordError(where, f"'events.iterations' must hold one operation count above 0 per sample "
                                     f"({n}), got {each!r:.40}")
    elif not _positive(rec.get("iterations")):
        raise RecordError(where, f"a result with 'events' needs 'iterations' above 0 (operations per "
                                 f"sample, the counts' divisor), got {rec.get('iterations')!r:.40}")
    counters = events.get("counters")
    if not isinstance(counters, list):
        raise RecordError(where, "'events.counters' must be a list")
    names = set()
    for i, c in enumerate(counters):
        at = f"'events.counters[{i}]'"
        if not isinstance(c, dict) or not isinstance(c.get("name"), str) or not _EVENT_NAME.match(c["name"]):
            raise RecordError(where, f"{at} must have a 'name' of a-z, 0-9 and _ (l2d_refill)")
        if c["name"] in names:
            raise RecordError(where, f"{at}: '{c['name']}' is counted twice in one record")
        names.add(c["name"])
        if not isinstance(c.get("unit"), str) or not _EVENT_PER.match(c["unit"]):
            raise RecordError(where, f"{at} ({c['name']}) must have a 'unit' (events, cycles, instructions)")
        expected = c.get("expected")     # the disassembly's count per operation (events.claims)
        if expected is not None and (not isinstance(expected, (int, float)) or isinstance(expected, bool)
                                     or not 0 <= expected < 1e30):
            raise RecordError(where, f"{at} ({c['name']}): 'expected' must be a count per {per}, "
                                     f"got {expected!r:.40}")
        for part in ("counts", "enabled_ns", "running_ns"):
            values = c.get(part)
            if values is None and part != "counts":
                continue
            if not isinstance(values, list) or len(values) != n:
                raise RecordError(where, f"{at} ({c['name']}): '{part}' must hold one number per sample "
                                         f"({n}), got {len(values) if isinstance(values, list) else values!r:.40}")
            for v in values:
                if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) \
                        or not 0 <= v < 1e30:
                    raise RecordError(where, f"{at} ({c['name']}): '{part}' holds {v!r:.40}, not a "
                                             f"count of 0 or more")


def check_record(rec, where: str, cpus=None) -> dict:
    """Check a record of any type: its fields, types and ranges (finite numbers, CPU numbers,
    counts that are not negative; with ``cpus``, a CPU the target has). Returns the record."""
    if not isinstance(rec, dict):
        raise RecordError(where, "a record must be a JSON object")
    kind = rec.get("type")
    if kind not in TYPES:
        raise RecordError(where, f"unknown record type {kind!r:.40} (expected one of {', '.join(TYPES)})")
    for name in ("cpu", "cluster", "core"):
        _cpu_field(rec, name, where, cpus)
    if kind == "meta":
        schema = _require(rec, "schema", int, where)
        if schema != SCHEMA:
            raise RecordError(where, f"results schema {schema} is not supported by this platperf "
                                     f"(it reads schema {SCHEMA}); upgrade platperf")
    elif kind == "result":
        result_from_record(rec, where)
        if "events" in rec:     # counted events (docs/results-format.md, "events")
            _events(rec, where)
    elif kind == "histogram":
        _histogram(rec, where)
    elif kind == "point":
        _require(rec, "name", str, where)
        for name in ("ticks", "thread"):
            _require(rec, name, int, where)
        _require(rec, "cpu", int, where)
    elif kind in ("warning", "error"):
        _require(rec, "message", str, where)
    elif kind == "end":
        _require(rec, "status", str, where)
    return rec


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number a record may hold")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:20]} is beyond the range of a number")
    return value


def parse_line(line: str, where: str) -> dict:
    """One JSON Lines record, NaN, Infinity and numbers beyond a double's range refused."""
    try:
        return json.loads(line, parse_constant=_no_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise RecordError(where, f"not JSON ({exc.msg})") from None
    except ValueError as exc:          # from the two hooks, or an integer of over 4300 digits
        raise RecordError(where, f"not a record: {exc}") from None


def read_stream(lines: Iterable[str], name: str = "<stream>", cpus=None) -> Iterator[dict]:
    """Yield checked records from JSON Lines; raises :class:`RecordError` naming ``name:line``.

    The first record must be ``meta``. The caller sees ``end`` (or its absence) and
    decides between complete, partial and failed. ``cpus``: the target's CPU numbers, when
    known; a record naming another is refused.
    """
    first = True
    for number, line in enumerate(lines, 1):
        where = f"{name}:{number}"
        if len(line) > MAX_LINE:
            raise RecordError(where, f"a line longer than {MAX_LINE >> 20} MiB: no record is that "
                                     f"long (docs/results-format.md)")
        line = line.strip()
        if not line:
            continue
        rec = check_record(parse_line(line, where), where, cpus)
        if first and rec["type"] != "meta":
            raise RecordError(where, "the first record must be 'meta'")
        first = False
        yield rec


def read_file(stream: IO[str], name: str) -> Iterator[dict]:
    return read_stream(stream, name)
