"""``platperf run``: a suite becomes probe invocations on a target, and their records go
into the store as they arrive.

A suite is a TOML file of ``[[bench]]`` entries. ``kernel`` names the probe kernel and
``mode`` (serial | parallel | both) how it runs; every other key is passed to the probe as
``--key value`` (lists joined with commas, ``_`` written as ``-``). A probe parameter whose
name the runner uses itself (mem-bandwidth's ``--kernel``) goes in the entry's ``params``
table: ``params = { kernel = ["rd", "wr"] }``. The plan is checked against
``platperf-probe list --json`` before anything runs. ``[[tool]]`` entries run a tool the board
already has through its adapter (``platperf.adapters``), after the probe's steps, into the same run.

The outcome of a run:
  complete  every entry ended with the probe's ``end`` record;
  partial   Ctrl-C (forwarded to the probe, which finishes its sample and writes ``end``),
            or a probe that stopped without ``end``: everything that arrived is kept;
  failed    a malformed record (the error names the stream and line) or a probe that
            reported an error: everything before it is kept.
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
import queue
import signal
import threading
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, ContextManager, Optional

from .adapters import ToolStep, check_entries
from .adapters import execute as execute_tool
from .adapters import plan as plan_tools
from .records import RecordError, read_stream, result_from_record

SUITES_DIR = Path(__file__).resolve().parent / "suites"
MODES = ("serial", "parallel", "both")
# Runs a `platperf run` may make of one suite (--repeat, a suite's `repeat = N`).
MAX_REPEAT = 100
# Keys of a suite entry that the runner itself reads; the rest are the probe's.
RUNNER_KEYS = ("kernel", "mode", "title", "params")
# Options every probe kernel takes (docs/results-format.md, probe CLI).
EXECUTION_OPTIONS = ("samples", "warmup", "min-time", "max-memory", "pages")
# Seconds the probe gets to finish its sample after SIGINT before it is killed.
INTERRUPT_GRACE_S = 10.0
# Longest time a record read from the probe waits for its commit when more keep coming
# (see _Writer): well inside the 100 ms in which a record must be durable.
BATCH_S = 0.05
# How often the storing thread wakes while the probe is silent: to see a stop request and
# to keep the run's heartbeat fresh.
POLL_S = 0.05
# How often a run says its owner lives (store.heartbeat); a run silent for longer than
# store.sweep.STALE_AFTER_S is taken for abandoned by later commands.
HEARTBEAT_S = 10.0


class SuiteError(ValueError):
    """A suite, CPU list or mode a person must fix: one line, exit 2."""


# -- suites -------------------------------------------------------------------------------
@dataclass
class Suite:
    name: str
    path: Path
    entries: list[dict]
    description: str = ""
    repeat: int = 1        # runs per `platperf run` unless --repeat says otherwise
    tools: list[dict] = field(default_factory=list)       # [[tool]] entries (platperf.adapters)
    tool_params: dict = field(default_factory=dict)       # --guide-dir, --peer: their defaults


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
    repeat = data.get("repeat", 1)
    if not isinstance(repeat, int) or isinstance(repeat, bool) or not 1 <= repeat <= MAX_REPEAT:
        raise SuiteError(f"suite {path}: repeat = {repeat!r} must be a whole number of runs "
                         f"from 1 to {MAX_REPEAT}")
    return Suite(name=str(data.get("name", path.stem)), path=path, entries=entries,
                 description=str(data.get("description", "")), repeat=repeat, tools=tools)


def probe_options(entry: dict) -> dict:
    """The entry's probe parameters: its own keys, then its ``params`` table."""
    options = {k: v for k, v in entry.items() if k not in RUNNER_KEYS}
    params = entry.get("params", {})
    if not isinstance(params, dict):
        raise SuiteError(f"'params' of [[bench]] {entry['kernel']} must be a table: "
                         "params = { kernel = [\"rd\"] }")
    options.update(params)
    return options


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


def parse_cpulist(text: str) -> list[int]:
    """A CPU list a person gave, in the kernel's cpulist format: ``0-3,6`` -> [0, 1, 2, 3, 6]."""
    from .machine.sysroot import parse_cpu_list
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


def plan(suite: Suite, cpus: list[int] | str, mode: str | None = None) -> list[Step]:
    """The probe invocations for ``suite``; ``mode`` overrides every entry's mode.

    ``cpus`` is a list, or a text given to ``--cpus`` as it is: a LAVA job's ``$CPUS``, the
    device's online list known only when the job runs (platperf.lava.job)."""
    if mode is not None and mode not in MODES:
        raise SuiteError(f"unknown mode '{mode}' (valid: {', '.join(MODES)})")
    cpu_list = cpus if isinstance(cpus, str) else ",".join(map(str, cpus))
    steps = []
    for number, entry in enumerate(suite.entries, 1):
        entry_mode = mode or entry.get("mode", "serial")
        for m in ("serial", "parallel") if entry_mode == "both" else (entry_mode,):
            argv = ["run", entry["kernel"], "--cpus", cpu_list, "--mode", m]
            described = []
            for key, value in probe_options(entry).items():
                argv += [f"--{option_name(key)}", option_value(value)]
                if option_name(key) not in EXECUTION_OPTIONS + ("size",):  # short titles
                    described.append(option_value(value))
            title = entry.get("title") or " ".join([entry["kernel"], *described])
            steps.append(Step(number, entry["kernel"], m, argv, f"{title} ({m})"))
    return steps + plan_tools(suite.tools, suite.tool_params)


# -- the probe's own description ----------------------------------------------------------
def probe_kernels(target) -> list[dict]:
    """``platperf-probe list --json`` on ``target``."""
    proc = target.run(["list", "--json"])
    text = "".join(proc)
    code = proc.wait()
    if code != 0:
        raise SuiteError(f"platperf-probe list failed (exit {code}): {proc.stderr_tail()}")
    try:
        return json.loads(text)["kernels"]
    except (ValueError, KeyError, TypeError):
        raise SuiteError("platperf-probe list --json did not print {\"kernels\": [...]}") from None


def probe_records(target, args: list[str]) -> list[dict]:
    """The records of ``platperf-probe ARGS`` on ``target`` (meta first); SuiteError when it
    fails or prints nothing (RecordError when it prints a bad record)."""
    name = f"platperf-probe {args[0]}"
    proc = target.run(args)
    try:
        records = list(read_stream(proc, name))
    finally:
        code = proc.wait()
    if code != 0 or not records:
        raise SuiteError(f"{name} failed (exit {code}): {proc.stderr_tail()}")
    return records


def probe_meta(target) -> dict:
    """The probe's ``meta`` record from ``platperf-probe info``."""
    return probe_records(target, ["info"])[0]


# -- running ------------------------------------------------------------------------------
@dataclass
class Outcome:
    run_id: int
    status: str = "complete"       # complete | partial | failed
    error: str | None = None
    results: int = 0
    histograms: int = 0
    warnings: list[dict] = field(default_factory=list)
    signal: int | None = None      # the signal that interrupted the run
    steps: int = 0                 # steps the probe finished with `end` complete


class Progress:
    """What the runner tells a progress display; the default shows nothing."""

    def step_started(self, step: Step, index: int, total: int): ...
    def record(self, rec: dict): ...
    def step_finished(self, step: Step): ...


class StopRequest:
    """Ctrl-C or SIGTERM as the measuring threads see it.

    Python runs signal handlers in the main thread only, so the handler just sets this and
    every thread that drives a probe polls it: the first signal asks each probe to finish
    its sample and write ``end``; a second one kills them without waiting.
    """

    def __init__(self):
        self.signal: int | None = None
        self._first, self._again = threading.Event(), threading.Event()

    def request(self, signum: int = signal.SIGINT):
        if self._first.is_set():
            self._again.set()
        else:
            self.signal = signum
            self._first.set()

    def is_set(self) -> bool:
        return self._first.is_set()

    def hurried(self) -> bool:
        return self._again.is_set()

    @contextlib.contextmanager
    def on_signals(self):
        """SIGINT and SIGTERM set this request for the duration of the block (main thread
        only; elsewhere the caller's handlers stay in charge)."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        old = {sig: signal.signal(sig, lambda signum, _frame: self.request(signum))
               for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield self
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)


# A step's setup: entered around the probe invocation, it may change ``step.argv`` and
# yields the record transform for the step (or None): a function given every result and
# histogram record before it is stored, returning the record to store.
Around = Callable[[int, Step], ContextManager[Optional[Callable[[dict], dict]]]]


def execute(store, run_id: int, target, steps: list[Step], place: Callable[[int], tuple],
            progress: Progress | None = None, *, stop: StopRequest | None = None,
            around: Around | None = None) -> Outcome:
    """Run ``steps`` on ``target``, storing each record as it arrives; finish the run.

    ``stop`` is polled between records; without one, SIGINT/SIGTERM in the main thread make
    one. ``around(run_id, step)`` sets each step up (see :data:`Around`).
    """
    return execute_runs(store, [run_id], target, steps, place, progress, stop=stop,
                        around=around)[0]


def interleave(steps: list[Step], runs: int) -> list[tuple[int, Step]]:
    """(run index, step) in the order they are measured: each step once into every run before
    the next step, the runs' order turning by one from step to step. Drift slower than a step
    (a neighbour starting, the machine warming) then touches every run alike, instead of
    making the last run differ from the first."""
    return [((k + i) % runs, step) for k, step in enumerate(steps) for i in range(runs)]


def execute_runs(store, run_ids: list[int], target, steps: list[Step],
                 place: Callable[[int], tuple], progress: Progress | None = None, *,
                 stop: StopRequest | None = None, around: Around | None = None) -> list[Outcome]:
    """:func:`execute` for several runs of one suite (``platperf run --repeat N``), each a
    separate probe process per step, interleaved by :func:`interleave`. A step that fails
    ends every run: the failing one failed, the others partial."""
    progress = progress or Progress()
    outs = [Outcome(run_id) for run_id in run_ids]
    own_stop = stop is None
    stop = stop or StopRequest()
    writers = [_Writer(store, run_id) for run_id in run_ids]
    states = [{"meta_stored": store.run(run_id)["meta"] is not None,  # begin_run usually has `info`'s
               "proc": None} for run_id in run_ids]
    schedule = interleave(steps, len(run_ids))
    current = states[0]
    try:
        with stop.on_signals() if own_stop else contextlib.nullcontext():
            for index, (i, step) in enumerate(schedule):
                if stop.is_set():
                    break
                current, out = states[i], outs[i]
                tool = isinstance(step, ToolStep)     # an adapter's step: no probe, no setup
                with around(run_ids[i], step) if around and not tool else contextlib.nullcontext() \
                        as transform:
                    if len(run_ids) > 1:
                        step = dataclasses.replace(step, title=f"{step.title} [run {i + 1}/{len(run_ids)}]")
                    progress.step_started(step, index, len(schedule))
                    verdict = execute_tool(step, target, writers[i], out, place, progress) if tool else \
                        _run_step(step, target, writers[i], out, current, place, progress, stop,
                                  transform or (lambda rec: rec))
                if verdict is not None:
                    out.status, out.error = verdict
                    for other in outs:
                        if other is not out and other.steps < len(steps):
                            other.status = "partial"
                            other.error = f"stopped with run {out.run_id} ({out.status}: {out.error})"
                    break
                out.steps += 1
                progress.step_finished(step)
    except BaseException as exc:
        proc = current["proc"]
        if proc is not None:
            proc.kill()
            proc.wait()
        for writer, run_id in zip(writers, run_ids):
            with contextlib.suppress(Exception):  # the store itself may be what failed
                writer.close()
            with contextlib.suppress(Exception):
                store.finish_run(run_id, "partial" if isinstance(exc, KeyboardInterrupt) else "failed",
                                 f"{type(exc).__name__}: {exc}")
        raise
    for writer, out in zip(writers, outs):
        writer.close()
        out.signal = stop.signal
        if out.status == "complete" and out.steps < len(steps):  # a signal between two probe runs
            out.status, out.error = "partial", f"interrupted before '{steps[out.steps].title}'"
        if out.warnings:
            store.update_run(out.run_id, findings=with_probe_warnings(store.run(out.run_id)["findings"],
                                                                       out.warnings))
        store.finish_run(out.run_id, out.status, out.error)
    return outs


def _run_step(step, target, writer, out, state, place, progress, stop, transform):
    """One probe invocation, its records stored as they arrive. Returns None when the probe
    finished the step, else the run's (status, error)."""
    name = f"probe output of '{step.title}' (suite entry {step.number})"
    state["kernel"] = step.kernel
    proc = state["proc"] = target.run(step.argv)
    feed = _Feed(proc, name)
    end, errors, interrupted_at = None, [], None
    try:
        while True:
            rec = feed.next(POLL_S)
            if rec is _Feed.DONE:
                break
            if rec is not _Feed.NOTHING:
                end = _store_record(rec, writer, out, state, place, transform, errors) or end
                progress.record(rec)
            # Commit when nothing more is waiting to be batched with it, or when the oldest
            # uncommitted record has waited BATCH_S: a burst is one transaction, a lone
            # record is durable at once.
            writer.commit_due(more_waiting=feed.waiting())
            if stop.is_set() and interrupted_at is None:
                proc.interrupt()
                interrupted_at = time.monotonic()
            elif interrupted_at is not None and (stop.hurried() or
                                                 time.monotonic() - interrupted_at > INTERRUPT_GRACE_S):
                proc.kill()
    except RecordError as exc:
        writer.commit()
        proc.kill()
        proc.wait()
        state["proc"] = None
        return "failed", str(exc)
    code = proc.wait()
    writer.commit()
    state["proc"] = None
    if end is None:
        if stop.is_set():
            return "partial", "interrupted before the probe wrote 'end'"
        tail = proc.stderr_tail()
        how = f"killed by signal {-code}" if code < 0 else f"exit {code}"
        return "partial", (f"{name}: the probe stopped without an 'end' record "
                           f"({how}{': ' + tail if tail else ''})")
    if end["status"] == "failed" or errors:
        return "failed", f"{step.title}: " + ("; ".join(errors) or "the probe reported failure")
    if end["status"] != "complete":
        return "partial", f"interrupted during '{step.title}'"
    return None


def _store_record(rec, writer, out, state, place, transform, errors):
    """Stores one record of the probe; returns it if it is the `end` record."""
    kind = rec["type"]
    if kind == "meta" and not state["meta_stored"]:
        writer.write(writer.store.update_run, writer.run_id, meta=rec)
        state["meta_stored"] = True
    elif kind == "result":
        res = result_from_record(transform(rec))
        if res.cpu is not None and res.cluster is None:
            res.set_place(place(res.cpu))
        writer.write(writer.store.add_result, writer.run_id, res)
        out.results += 1
    elif kind == "histogram":
        rec = transform(rec)
        package, cluster, core = place(rec["cpu"]) if rec.get("cpu") is not None else (None, None, None)
        writer.write(writer.store.add_histogram, writer.run_id, rec, cluster=cluster, core=core, package=package)
        out.histograms += 1
    elif kind == "warning":
        if "cpu" in rec:   # about the results of that CPU: the kernel that wrote it (findings.collapse)
            rec = {"benchmark": state.get("kernel"), **rec}
        if rec not in out.warnings:  # each probe invocation repeats its own
            out.warnings.append(rec)
    elif kind == "error":
        errors.append(rec["message"])
    elif kind == "end":
        return rec
    return None


class _Feed:
    """The probe's records, read by their own thread into a queue.

    The storing thread never blocks on the probe: while the probe is silent it still sees
    Ctrl-C, commits what it holds and keeps the heartbeat; while records pour in it sees
    how many wait, to batch them.
    """

    DONE, NOTHING = object(), object()

    def __init__(self, proc, name: str):
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._read, args=(proc, name), daemon=True,
                                        name=f"read {name}")
        self._thread.start()

    def _read(self, proc, name):
        try:
            for rec in read_stream(proc, name):
                self._queue.put(("record", rec))
        except BaseException as exc:   # handed to the storing thread, which raises it
            self._queue.put(("raise", exc))
        else:
            self._queue.put(("done", None))

    def next(self, timeout: float):
        try:
            kind, item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return self.NOTHING
        if kind == "raise":
            raise item
        return item if kind == "record" else self.DONE

    def waiting(self) -> bool:
        return not self._queue.empty()


class _Writer:
    """The records of a run, each committed at most ``BATCH_S`` after it was read.

    One transaction per record costs about 0.15-0.5 ms; a probe writing 100,000 small
    results in a burst would spend a minute in commits, so a burst shares transactions.
    Also keeps the run's heartbeat fresh, so that later commands know its owner lives.
    """

    def __init__(self, store, run_id: int):
        self.store, self.run_id = store, run_id
        self.conn, self.trans, self.oldest = None, None, None
        self.last_beat = time.monotonic()

    def write(self, add, *args, **kw):
        from sqlalchemy.exc import SQLAlchemyError
        from .store import StoreError
        try:
            if self.conn is None:
                self.conn = self.store.engine.connect()
            if self.trans is None:
                self.trans = self.conn.begin()
                self.oldest = time.monotonic()
            add(*args, conn=self.conn, **kw)
        except SQLAlchemyError as exc:
            raise StoreError(f"database {self.store.url}: {getattr(exc, 'orig', None) or exc}") from None

    def commit_due(self, more_waiting: bool):
        if self.trans is not None and (not more_waiting or time.monotonic() - self.oldest >= BATCH_S):
            self.commit()
        if time.monotonic() - self.last_beat >= HEARTBEAT_S:
            self.beat()

    def commit(self):
        if self.trans is not None:
            self.trans.commit()
            self.trans, self.oldest = None, None

    def beat(self):
        # Inside an open batch the beat joins it: a second connection would wait on the
        # batch's own write lock (SQLite has one writer).
        self.last_beat = time.monotonic()
        self.store.heartbeat(self.run_id, conn=self.conn if self.trans is not None else None)

    def close(self):
        self.commit()
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def with_probe_warnings(findings, warnings):
    """Probe warnings join the doctor findings of the run, marked as the probe's."""
    extra = [{"level": w.get("level", "warn"), "code": w.get("code", "probe-warning"),
              "message": w["message"], "effect": None, "fix": w.get("fix"),
              "source": w.get("source", "probe"),
              **{k: w[k] for k in ("cpu", "benchmark") if w.get(k) is not None}} for w in warnings]
    return list(findings or []) + extra
