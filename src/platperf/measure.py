"""The measurement pipeline that ``platperf run`` and ``platperf interference`` share:

    describe(target)          probe meta, topology, fingerprint, doctor findings: all read
                              from the target's own /sys and /proc (target.sysroot())
    measure(store, ...)       begin the run with that description, stream every step's
                              records into the store as they arrive, finish the run

``describe`` touches no database, so a command checks its whole input (CPUs included)
against the description before it opens the store: bad input leaves no file behind.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .runner import Around, Outcome, Progress, Step, StopRequest, execute_runs, probe_meta


@dataclass
class Description:
    """What a target is, as stored with its run."""

    meta: dict                 # the probe's own `meta` (platperf-probe info)
    fingerprint: dict
    findings: list[dict]       # the doctor's, as dicts
    topology: object           # platperf.topology.Topology

    def online(self) -> list[int]:
        return self.topology.online()

    def place(self, cpu: int) -> tuple:
        """(package, cluster, core) of ``cpu``; a CPU the topology does not list stays unplaced."""
        try:
            return self.topology.place(cpu)
        except ValueError:
            return None, None, None


def describe(target) -> Description:
    """The target described from its own /sys and /proc and its probe's ``info``.

    Raises SuiteError/ProbeNotFound (the probe) or ValueError (a sysroot without the
    machine's description): the caller says it in one line.
    """
    # The sysroot first: a board's snapshot spends most of its round trip waiting between its
    # two /proc samples, and the SSH target sets up the probe meanwhile.
    sysroot = target.sysroot()
    return describe_machine(sysroot, probe_meta(target))


def describe_machine(sysroot, meta: dict) -> Description:
    """The machine under ``sysroot`` (a SysRoot or a path) with its probe's ``meta``."""
    from .doctor import check
    from .fingerprint import collect
    from .topology import read_topology
    topology = read_topology(sysroot)
    fingerprint = collect(root=sysroot, probe_meta=meta)
    findings = [dataclasses.asdict(f) for f in check(root=sysroot, fingerprint=fingerprint, probe_meta=meta)]
    return Description(meta, fingerprint, findings, topology)


def measure(store, target, description: Description, steps: list[Step], *, suite: str,
            label: str | None = None, note: str | None = None, progress: Progress | None = None,
            stop: StopRequest | None = None, around: Around | None = None,
            begun=None) -> Outcome:
    """One run of ``steps`` on ``target``: begin it with ``description``, store every record
    as it arrives, finish it (complete, partial or failed; see runner.execute).

    ``begun(run_id)`` is called once the run exists (e.g. to name it on a progress line).
    """
    return measure_runs(store, target, description, steps, suite=suite, label=label, note=note,
                        progress=progress, stop=stop, around=around, begun=begun)[0]


def measure_runs(store, target, description: Description, steps: list[Step], *, suite: str,
                 repeat: int = 1, label: str | None = None, note: str | None = None,
                 progress: Progress | None = None, stop: StopRequest | None = None,
                 around: Around | None = None, begun=None) -> list[Outcome]:
    """``repeat`` runs of ``steps`` under one label, their steps interleaved
    (runner.execute_runs); ``begun(run_id)`` is called for each run as it is created."""
    run_ids = []
    for _ in range(repeat):
        run_ids.append(store.begin_run(label=label, target=target.name, suite=suite,
                                       fingerprint=description.fingerprint,
                                       findings=description.findings, note=note,
                                       meta=description.meta))
        if begun is not None:
            begun(run_ids[-1])
    return execute_runs(store, run_ids, target, steps, description.place, progress, stop=stop,
                        around=around)


# -- several boards at once -----------------------------------------------------------------
@dataclass
class Board:
    """One target of a measuring command, from its name to its run's outcome."""

    name: str
    target: object = None
    description: Description | None = None
    steps: list[Step] | None = None
    run_ids: list[int] = dataclasses.field(default_factory=list)
    outcomes: list[Outcome] = dataclasses.field(default_factory=list)
    error: str | None = None       # why the board was not measured (or its run's error)

    @property
    def run_id(self) -> int | None:
        return self.run_ids[0] if self.run_ids else None

    @property
    def status(self) -> str:
        """The worst of its runs': failed, partial, complete."""
        if not self.outcomes:
            return "failed"
        return max((o.status for o in self.outcomes), key=("complete", "partial", "failed").index)

    def as_dict(self) -> dict:
        outs = self.outcomes
        error = next((o.error for o in outs if o.error), None) if outs else self.error
        return {"target": self.name, "run_id": self.run_id, "run_ids": list(self.run_ids),
                "status": self.status, "results": sum(o.results for o in outs),
                "histograms": sum(o.histograms for o in outs), "error": error}


def prepare_boards(names: list[str], open_target, plan_steps) -> list[Board]:
    """Each board opened (``open_target(name)``), described and planned
    (``plan_steps(target, description)``), concurrently. A board that fails keeps its error; the
    others go on. Nothing here touches a database."""
    boards = [Board(name) for name in names]

    def prepare(board: Board):
        board.target = open_target(board.name)
        board.description = describe(board.target)
        board.steps = plan_steps(board.target, board.description)

    _each(boards, prepare)
    return boards


def measure_boards(store, boards: list[Board], *, suite: str, label=None, note=None,
                   progress_for=lambda board: None, stop: StopRequest | None = None,
                   repeat: int = 1):
    """Measures every prepared board at once: a thread each, with its own target and store
    connection, one run per board. One board failing does not stop the others; a stop
    request (Ctrl-C, SIGTERM) interrupts them all, each run left partial. ``repeat`` runs a
    board (measure_runs)."""
    stop = stop or StopRequest()
    ready = [b for b in boards if b.error is None]

    def measure_one(board: Board):
        board.outcomes = measure_runs(store, board.target, board.description, board.steps,
                                      suite=suite, repeat=repeat, label=label, note=note,
                                      progress=progress_for(board), stop=stop,
                                      begun=board.run_ids.append)

    with stop.on_signals():
        _each(ready, measure_one)
    return stop


def close_boards(boards: list[Board]):
    for board in boards:
        if board.target is not None:
            try:
                board.target.close()
            except Exception as exc:   # a board that vanished: its results are stored already
                board.error = board.error or f"closing the target: {exc}"


def _each(boards: list[Board], work):
    """``work(board)`` in a thread per board; an exception becomes the board's error."""
    import threading

    def guarded(board: Board):
        try:
            work(board)
        except Exception as exc:
            board.error = str(exc) or type(exc).__name__

    threads = [threading.Thread(target=guarded, args=(b,), name=f"board {b.name}", daemon=True)
               for b in boards]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.1)   # in short waits: the main thread must stay free for signal handlers
