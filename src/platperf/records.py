"""The results records of docs/results-format.md, read from a JSON Lines stream.

The probe writes them, the importers in ``platperf.ingest`` produce them, and the store
keeps them. Everything that reads a stream goes through :func:`read_stream` so that a
record is validated in one place.
"""
from __future__ import annotations

import json
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
    if not samples or not all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in samples):
        raise RecordError(where, "'samples' must be a non-empty list of numbers")
    direction = _require(rec, "direction", str, where)
    if direction not in DIRECTIONS:
        raise RecordError(where, f"'direction' must be lower or higher, got {direction!r}")
    mode = rec.get("mode", "serial")
    if mode not in MODES:
        raise RecordError(where, f"'mode' must be serial or parallel, got {mode!r}")
    cpu = rec.get("cpu")
    if cpu is not None and (not isinstance(cpu, int) or isinstance(cpu, bool)):
        raise RecordError(where, f"'cpu' must be an integer, got {cpu!r}")
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
        package=rec.get("package"),
        cluster=rec.get("cluster"),
        core=rec.get("core"),
        extra={k: v for k, v in rec.items() if k not in known},
    )


def check_record(rec, where: str) -> dict:
    """Check the fields every record type must have; returns the record."""
    if not isinstance(rec, dict):
        raise RecordError(where, "a record must be a JSON object")
    kind = rec.get("type")
    if kind not in TYPES:
        raise RecordError(where, f"unknown record type {kind!r} (expected one of {', '.join(TYPES)})")
    if kind == "meta":
        schema = _require(rec, "schema", int, where)
        if schema != SCHEMA:
            raise RecordError(where, f"results schema {schema} is not supported by this platperf "
                                     f"(it reads schema {SCHEMA}); upgrade platperf")
    elif kind == "result":
        result_from_record(rec, where)
    elif kind == "histogram":
        for name in ("benchmark", "unit"):
            _require(rec, name, str, where)
        _require(rec, "params", dict, where)
        _require(rec, "buckets", list, where)
        for name in ("count", "min", "max"):
            _require(rec, name, (int, float), where)
    elif kind == "point":
        _require(rec, "name", str, where)
        for name in ("ticks", "cpu", "thread"):
            _require(rec, name, int, where)
    elif kind in ("warning", "error"):
        _require(rec, "message", str, where)
    elif kind == "end":
        _require(rec, "status", str, where)
    return rec


def read_stream(lines: Iterable[str], name: str = "<stream>") -> Iterator[dict]:
    """Yield checked records from JSON Lines; raises :class:`RecordError` naming ``name:line``.

    The first record must be ``meta``. The caller sees ``end`` (or its absence) and
    decides between complete, partial and failed.
    """
    first = True
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        where = f"{name}:{number}"
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordError(where, f"not JSON ({exc.msg})") from None
        check_record(rec, where)
        if first and rec["type"] != "meta":
            raise RecordError(where, "the first record must be 'meta'")
        first = False
        yield rec


def read_file(stream: IO[str], name: str) -> Iterator[dict]:
    return read_stream(stream, name)
