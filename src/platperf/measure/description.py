"""What a board is, as its run stores it: read from the board's own /sys and /proc (through
its target) and its probe's ``info``, each file read once."""
from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass

from ..runner.probe import probe_meta
from ..targets.base import TargetError


@dataclass
class Description:
    """What a target is, as stored with its run."""

    meta: dict                 # the probe's own `meta` (platperf-probe info)
    fingerprint: dict
    findings: list[dict]       # the doctor's, as dicts
    topology: object           # platperf.topology.Topology
    sysroot: object = None     # the board's /sys and /proc it was read from (a SysRoot)

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
    # The probe's `info` meanwhile: a board's snapshot spends most of its round trip waiting
    # between its two /proc samples, and the SSH target sets up the probe in that time too.
    meta: dict = {}
    failed: list[BaseException] = []

    def info():
        try:
            meta.update(probe_meta(target))
        except BaseException as exc:       # raised below, in the caller's thread
            failed.append(exc)

    asking = threading.Thread(target=info, daemon=True, name=f"info {target.name}")
    asking.start()
    try:
        sysroot = target.sysroot()
    except BaseException:
        asking.join()
        # The probe's setup failing says more than the snapshot that then fails too.
        if failed and isinstance(failed[0], TargetError):
            raise failed[0] from None
        raise
    asking.join()
    if failed:
        raise failed[0]
    return describe_machine(sysroot, meta)


def describe_machine(sysroot, meta: dict | None) -> Description:
    """The machine under ``sysroot`` (a SysRoot or a path) with its probe's ``meta``: its
    topology, fingerprint and doctor findings, from one reading of each of its files."""
    from ..doctor import check
    from ..fingerprint import collect
    from ..machine.sysroot import SysRoot
    from ..topology import read_topology
    machine = SysRoot.of(sysroot)
    once = machine.read_once()
    topology = read_topology(once)
    fingerprint = collect(once, meta, topology=topology)
    findings = [dataclasses.asdict(f) for f in check(once, fingerprint=fingerprint, probe_meta=meta)]
    return Description(meta, fingerprint, findings, topology, machine)


def describe_job_board(run):
    """(Description, None) of a LAVA job's board from the snapshot in its log (an
    ingest.lava.LavaRun), read in memory; or (None, why there is none)."""
    from ..targets.remote_sysroot import SnapshotError, snapshot_sysroot
    log = run.log
    if log.snapshot is None:
        return None, log.snapshot_error or "the log holds no board snapshot"
    try:
        sysroot = snapshot_sysroot(log.snapshot, log.snapshot_interval or 0.2)
        return describe_machine(sysroot, run.stream.meta), None
    except (SnapshotError, ValueError, OSError) as exc:
        return None, f"the board snapshot in the log cannot be read ({exc})"
