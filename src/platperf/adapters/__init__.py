"""Adapters: the tools a board already has (openssl, fio, iperf3, cyclictest, ...), run on
the target through ``target.command`` and their own output parsed into the result records of
docs/results-format.md, so that they go into the same run as the probe's.

A suite names them in ``[[tool]]`` entries beside its ``[[bench]]`` ones::

    [[tool]]
    adapter = "openssl"
    algorithms = ["aes-128-cbc", "sha256"]
    seconds = 1

One module per adapter, each with::

    TOOL: str                       the executable looked up on the target (``which``)
    PARAMS: dict                    the entry's keys and their defaults (others are refused)
    def title(entry) -> str         what a progress line says
    def measure(target, entry, path) -> list     Result objects (and histogram records)

``measure`` raises :class:`Missing` for what the board lacks (a peer, a directory, a binary):
one finding in the run, never a failure. A tool that runs and fails raises :class:`ToolFailed`:
a finding at level ``error``; the run goes on with the next step. Adding an adapter = one module
+ one name in :data:`ADAPTERS`.
"""
from __future__ import annotations

import importlib
import json
import shlex
from dataclasses import dataclass

ADAPTERS = ("openssl", "fio", "iperf3", "cyclictest", "stress_ng", "sysbench", "sevenzip",
            "boot_time", "dhrystone", "whetstone", "linpack", "nbench", "coremark_pro")
# Keys every [[tool]] entry may have besides its adapter's own.
COMMON_KEYS = ("adapter", "title", "timeout")
DEFAULT_TIMEOUT_S = 900.0     # one tool run; a board's storage or a CoreMark-Pro run is slow


class Missing(Exception):
    """What the board lacks to run the step (``code``, message, what to do): one finding.
    ``measured``: what the step did measure before the lack showed, stored all the same."""

    def __init__(self, code: str, message: str, fix: str | None = None, measured: list | None = None):
        super().__init__(message)
        self.code, self.fix, self.measured = code, fix, list(measured or ())


class ToolFailed(Exception):
    """The tool ran and failed, or printed what its parser cannot read: one line saying so.
    ``records`` are what the step measured before it failed: they are stored all the same."""

    def __init__(self, message: str, records: list | None = None):
        super().__init__(message)
        self.records = records or []


def module(name: str):
    """The adapter module called ``name`` (``stress-ng`` and ``stress_ng`` alike)."""
    key = name.replace("-", "_")
    if key not in ADAPTERS:
        raise ValueError(f"unknown adapter '{name}' (valid: {', '.join(ADAPTERS)})")
    return importlib.import_module(f".{key}", __name__)


@dataclass
class ToolStep:
    """One suite ``[[tool]]`` entry as the runner executes it, beside the probe's steps."""

    number: int          # the entry's position among the suite's [[tool]] entries, from 1
    adapter: str
    entry: dict          # the entry's parameters, defaults filled in
    title: str           # what progress displays show, as of a probe step


def check_entries(entries: list, where: str) -> list[dict]:
    """The suite's ``[[tool]]`` entries, each checked against its adapter's PARAMS; raises
    ValueError with one line naming the entry."""
    if not isinstance(entries, list):
        raise ValueError(f"{where}: [[tool]] must be an array of tables")
    for number, entry in enumerate(entries, 1):
        name = entry.get("adapter") if isinstance(entry, dict) else None
        if not isinstance(name, str):
            raise ValueError(f"{where}: [[tool]] entry {number} has no adapter = \"...\" "
                             f"(valid: {', '.join(ADAPTERS)})")
        try:
            adapter = module(name)
        except ValueError as exc:
            raise ValueError(f"{where}: [[tool]] entry {number}: {exc}") from None
        valid = list(adapter.PARAMS) + list(COMMON_KEYS)
        for key, value in entry.items():
            if key not in valid:
                raise ValueError(f"{where}: [[tool]] entry {number} ({name}) has no parameter "
                                 f"'{key}' (valid: {', '.join(valid)})")
            kind = _kind(adapter.PARAMS.get(key))
            if kind is not None and not _fits(value, kind):
                raise ValueError(f"{where}: [[tool]] entry {number} ({name}): {key} = {value!r:.40} "
                                 f"is not {kind}, as in: {key} = {json.dumps(adapter.PARAMS[key])}")
    return entries


def _kind(default) -> str | None:
    """What an entry's value must be, from its adapter's default (None: anything)."""
    if isinstance(default, bool):
        return "true or false"
    if isinstance(default, int):
        return "an integer"
    if isinstance(default, float):
        return "a number"
    if isinstance(default, list):
        return "a list (or one value)"
    return None


def _fits(value, kind: str) -> bool:
    if kind == "true or false":
        return isinstance(value, bool)
    if kind == "an integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "a number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return not isinstance(value, dict)


def plan(entries: list[dict], defaults: dict | None = None) -> list[ToolStep]:
    """The steps of a suite's ``[[tool]]`` entries. ``defaults`` (``--guide-dir``, ``--peer``)
    fill the keys an entry leaves unset, for the adapters that take them."""
    steps = []
    for number, entry in enumerate(entries, 1):
        adapter = module(entry["adapter"])
        params = dict(adapter.PARAMS)
        params.update({k: v for k, v in (defaults or {}).items() if k in adapter.PARAMS and v is not None})
        params.update({k: v for k, v in entry.items() if k != "adapter"})
        for key, default in adapter.PARAMS.items():      # `bs = "4k"` is `bs = ["4k"]`
            if isinstance(default, list) and not isinstance(params[key], list):
                params[key] = [params[key]]
        title = entry.get("title") or adapter.title(params)
        steps.append(ToolStep(number, adapter.__name__.rsplit(".", 1)[1], params, title))
    return steps


def find_tool(target, adapter, entry: dict) -> str:
    """The tool's path on the target: the entry's ``binary``, the inventory's ``tools`` table
    for this adapter, else ``TOOL`` on the board's PATH. Raises Missing."""
    name = adapter.__name__.rsplit(".", 1)[1]
    named = entry.get("binary") or target.tools.get(name)
    path = target.which(named or adapter.TOOL)
    if path is None:
        where = f"'{named}'" if named else f"{adapter.TOOL} (not on the board's PATH)"
        fix = (f"install {adapter.TOOL} on the board, or name it: binary = \"/path\" in the "
               f"suite's [[tool]] entry or tools.{name} = \"/path\" in the inventory")
        raise Missing("tool-missing", f"{name}: {where} not found on {target.name}", fix)
    return path


def run_step(step: ToolStep, target) -> tuple[list, dict | None]:
    """(records measured, finding or None) of one tool step."""
    adapter = module(step.adapter)
    try:
        path = find_tool(target, adapter, step.entry)
        return adapter.measure(target, step.entry, path), None
    except Missing as exc:
        return exc.measured, finding("info", exc.code, str(exc), exc.fix, step)
    except ToolFailed as exc:
        return exc.records, finding("error", "tool-failed", f"{step.title}: {exc}", None, step)


def finding(level: str, code: str, message: str, fix: str | None, step: ToolStep) -> dict:
    """A warning of the run, as the probe writes one (runner.sink.with_probe_warnings)."""
    return {"type": "warning", "level": level, "code": code, "message": message, "fix": fix,
            "source": f"adapter {step.adapter}"}


def run(target, argv: list[str], entry: dict, *, stdin: bytes = b"", ok=(0,),
        stderr: bool = False) -> str:
    """``argv`` run on the target; its stdout (then its stderr, with ``stderr``), or
    ToolFailed with the tool's last stderr line. ``ok=None`` takes any exit status (a program
    whose ``main`` returns nothing: its output says whether it worked)."""
    timeout = float(entry.get("timeout") or DEFAULT_TIMEOUT_S)
    done = target.command(argv, timeout=timeout, stdin=stdin)
    if ok is not None and done.returncode not in ok:
        lines = [line.strip() for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        raise ToolFailed(f"'{shlex.join(argv)}' exited {done.returncode}"
                         + (f": {lines[-1]}" if lines else ""))
    return done.stdout + (done.stderr if stderr else "")


def resolve(target, path: str) -> str:
    """``path`` with its symbolic links resolved on the target (``readlink -f``), for the
    programs that find their data files beside themselves; ``path`` if that fails."""
    done = target.command(["readlink", "-f", path], timeout=30)
    resolved = done.stdout.strip()
    return resolved if done.returncode == 0 and resolved.startswith("/") else path


def result(benchmark: str, params: dict, metric: str, unit: str, direction: str,
           samples: list[float], **extra):
    """A whole-board Result (no cpu: a tool measures the board, not one pinned CPU)."""
    from ..records import Result
    return Result(benchmark=benchmark, params=params, metric=metric, unit=unit,
                  direction=direction, samples=[float(s) for s in samples], extra=extra)


def number(text: str, what: str) -> float:
    """A number the tool printed; ToolFailed naming ``what`` when it is not one."""
    try:
        return float(text)
    except (TypeError, ValueError):
        raise ToolFailed(f"cannot read {what} from the tool's output ({text!r:.40})") from None
