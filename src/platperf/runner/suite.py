"""Suites and their plan.

A suite is a TOML file of ``[[bench]]`` entries. ``kernel`` names the probe kernel and
``mode`` (serial | parallel | both) how it runs; every other key is passed to the probe as
``--key value`` (lists joined with commas, ``_`` written as ``-``). A probe parameter whose
name the runner uses itself (mem-bandwidth's ``--kernel``) goes in the entry's ``params``
table: ``params = { kernel = ["rd", "wr"] }``. The plan is checked against
``platperf-probe list --json`` before anything runs. ``[[tool]]`` entries run a tool the board
already has through its adapter (``platperf.adapters``), after the probe's steps, into the same run.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import toml as tomllib
from ..adapters import check_entries
from ..adapters import plan as plan_tools

SUITES_DIR = Path(__file__).resolve().parent.parent / "suites"
MODES = ("serial", "parallel", "both")
# Runs a `platperf run` may make of one suite (--repeat, a suite's `repeat = N`).
MAX_REPEAT = 100
# Keys of a suite entry that the runner itself reads; the rest are the probe's.
RUNNER_KEYS = ("kernel", "mode", "title", "params", "timeout")
# A step (one probe invocation) that has not ended after this many seconds is stopped and its
# run kept as partial: a board whose probe hangs, is stopped (SIGSTOP) or never answers.
# A suite entry sets its own with `timeout = SECONDS`.
DEFAULT_STEP_TIMEOUT_S = 7200.0
# Options every probe kernel takes (docs/results-format.md, probe CLI).
EXECUTION_OPTIONS = ("samples", "warmup", "min-time", "max-memory", "pages", "events")


class SuiteError(ValueError):
    """A suite, CPU list or mode a person must fix: one line, exit 2."""


# -- suites -------------------------------------------------------------------------------
@dataclass
class Suite:
    name: str
    path: Path
    entries: list[dict]
    description: str = ""
    repeat: int | str = 1  # runs per `platperf run` unless --repeat says otherwise; or "auto"
    tools: list[dict] = field(default_factory=list)       # [[tool]] entries (platperf.adapters)
    tool_params: dict = field(default_factory=dict)       # --guide-dir, --peer: their defaults
    events: str | None = None   # `events = [...]` or --events: counted with every sample (docs/events.md)


def builtin_suites() -> list[str]:
    return sorted(p.stem for p in SUITES_DIR.glob("*.toml"))


def load_suite(ref: str) -> Suite:
    """A built-in suite by name (quick, memory, full) or a TOML file by path."""
    path = Path(ref)
    if ref in builtin_suites():
        path = SUITES_DIR / f"{ref}.toml"
    elif not path.is_file():
        if path.suffix == ".toml" or "/" in ref:
            raise SuiteError(f"suite file {ref} does not exist")
        raise SuiteError(f"unknown suite '{ref}' (valid: {', '.join(builtin_suites())}, "
                         "or a path to a .toml file)")
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError) as exc:
        raise SuiteError(f"cannot read suite {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SuiteError(f"suite {path} is not valid TOML: {exc}") from None
    entries = data.get("bench", [])
    try:
        tools = check_entries(data.get("tool", []), f"suite {path}")
    except ValueError as exc:
        raise SuiteError(str(exc)) from None
    if not isinstance(entries, list) or not (entries or tools):
        raise SuiteError(f"suite {path} has no [[bench]] or [[tool]] entries")
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry.get("kernel"), str):
            raise SuiteError(f"suite {path}: [[bench]] entry {number} has no kernel = \"...\"")
        mode = entry.get("mode", "serial")
        if mode not in MODES:
            raise SuiteError(f"suite {path}: [[bench]] entry {number} has mode '{mode}' "
                             f"(valid: {', '.join(MODES)})")
        if "events" in entry:
            entry["events"] = _events(entry["events"], f"suite {path}: [[bench]] entry {number}")
    repeat = data.get("repeat", 1)
    if repeat != "auto" and (not isinstance(repeat, int) or isinstance(repeat, bool)
                             or not 1 <= repeat <= MAX_REPEAT):
        raise SuiteError(f"suite {path}: repeat = {repeat!r} must be a whole number of runs "
                         f"from 1 to {MAX_REPEAT}, or \"auto\" (until every key is settled)")
    return Suite(name=str(data.get("name", path.stem)), path=path, entries=entries,
                 description=str(data.get("description", "")), repeat=repeat, tools=tools,
                 events=_events(data.get("events"), f"suite {path}"))


def _events(value, where: str) -> str | None:
    """A suite's ``events = ["cycles", "l2d"]`` (or one text) as the probe's --events."""
    if value is None:
        return None
    from ..events import check_list
    try:
        return check_list(value)
    except ValueError as exc:
        raise SuiteError(f"{where}: {exc}") from None


def count_events(suite: Suite, events: str | None):
    """``--events LIST``: counted in every step of ``suite``, instead of the lists it names."""
    if events is None:
        return
    suite.events = _events(events, "--events")
    for entry in suite.entries:
        entry.pop("events", None)


def probe_options(entry: dict) -> dict:
    """The entry's probe parameters: its own keys, then its ``params`` table."""
    options = {k: v for k, v in entry.items() if k not in RUNNER_KEYS}
    params = entry.get("params", {})
    if not isinstance(params, dict):
        raise SuiteError(f"'params' of [[bench]] {entry['kernel']} must be a table: "
                         "params = { kernel = [\"rd\"] }")
    options.update(params)
    return options


def step_timeout(entry: dict, number: int) -> float:
    """The entry's `timeout` in seconds (a positive number), or the default."""
    value = entry.get("timeout", DEFAULT_STEP_TIMEOUT_S)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value <= 7 * 86400:
        raise SuiteError(f"[[bench]] entry {number} ({entry.get('kernel')}): timeout = {value!r} must be "
                         f"a number of seconds from 0 to 604800, e.g. timeout = 600")
    return float(value)


def option_name(key: str) -> str:
    return key.replace("_", "-")


def option_value(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, list):
        return ",".join(option_value(v) for v in value)
    return str(value)


def check_suite(suite: Suite, kernels: list[dict]):
    """Every kernel and parameter of ``suite`` must be one the probe lists."""
    by_name = {k["name"]: k for k in kernels}
    for number, entry in enumerate(suite.entries, 1):
        where = f"suite {suite.name}, [[bench]] entry {number}"
        kernel = by_name.get(entry["kernel"])
        if kernel is None:
            raise SuiteError(f"{where}: unknown kernel '{entry['kernel']}' "
                             f"(valid: {', '.join(sorted(by_name))})")
        params = {p["name"]: p for p in kernel.get("params", [])}
        valid = sorted(params) + [o for o in EXECUTION_OPTIONS if o not in params]
        for key, value in probe_options(entry).items():
            name = option_name(key)
            if name not in valid:
                raise SuiteError(f"{where}: {entry['kernel']} has no parameter '{key}' "
                                 f"(valid: {', '.join(valid)})")
            choices = params.get(name, {}).get("choices")
            if choices:
                for item in option_value(value).split(","):
                    if item not in [str(c) for c in choices]:
                        raise SuiteError(f"{where}: {key} '{item}' is not one of "
                                         f"{', '.join(map(str, choices))}")


# -- plan ---------------------------------------------------------------------------------
@dataclass
class Step:
    """One probe invocation: a suite entry in one mode."""

    number: int          # the entry's position in the suite, from 1
    kernel: str
    mode: str
    argv: list[str]
    title: str
    timeout: float = DEFAULT_STEP_TIMEOUT_S   # seconds before the step is stopped


def parse_cpulist(text: str) -> list[int]:
    """A CPU list a person gave, in the kernel's cpulist format: ``0-3,6`` -> [0, 1, 2, 3, 6]."""
    from ..machine.sysroot import parse_cpu_list
    try:
        cpus = parse_cpu_list(text)
    except ValueError:
        cpus = []
    if not cpus:
        raise SuiteError(f"'{text}' is not a CPU list (examples: 0, 0-3, 0,2,4-5)")
    return cpus


def choose_cpus(requested: str | None, online: list[int]) -> list[int]:
    if requested is None:
        return online
    cpus = parse_cpulist(requested)
    unknown = [c for c in cpus if c not in online]
    if unknown:
        raise SuiteError(f"CPU {', '.join(map(str, unknown))} not online "
                         f"(valid: {', '.join(map(str, online))})")
    return cpus


def check_mode(mode: str | None):
    """A ``--mode`` that overrides every entry's: serial, parallel or both (None: the entries')."""
    if mode is not None and mode not in MODES:
        raise SuiteError(f"unknown mode '{mode}' (valid: {', '.join(MODES)})")


def check_repeat(runs: int):
    """Runs of one suite (``--repeat``, a suite's ``repeat``): 1 to MAX_REPEAT."""
    if not 1 <= runs <= MAX_REPEAT:
        raise SuiteError(f"--repeat {runs}: give a number of runs from 1 to {MAX_REPEAT}")


def plan(suite: Suite, cpus: list[int] | str, mode: str | None = None) -> list[Step]:
    """The probe invocations for ``suite``; ``mode`` overrides every entry's mode.

    ``cpus`` is a list, or a text given to ``--cpus`` as it is: a LAVA job's ``$CPUS``, the
    device's online list known only when the job runs (platperf.lava.job)."""
    check_mode(mode)
    cpu_list = cpus if isinstance(cpus, str) else ",".join(map(str, cpus))
    steps = []
    for number, entry in enumerate(suite.entries, 1):
        entry_mode = mode or entry.get("mode", "serial")
        for m in ("serial", "parallel") if entry_mode == "both" else (entry_mode,):
            argv = ["run", entry["kernel"], "--cpus", cpu_list, "--mode", m]
            described = []
            options = probe_options(entry)
            if suite.events and "events" not in options:    # an entry's own list wins
                options["events"] = suite.events
            for key, value in options.items():
                argv += [f"--{option_name(key)}", option_value(value)]
                if option_name(key) not in EXECUTION_OPTIONS + ("size",):  # short titles
                    described.append(option_value(value))
            title = entry.get("title") or " ".join([entry["kernel"], *described])
            steps.append(Step(number, entry["kernel"], m, argv, f"{title} ({m})",
                              step_timeout(entry, number)))
    return steps + plan_tools(suite.tools, suite.tool_params)
