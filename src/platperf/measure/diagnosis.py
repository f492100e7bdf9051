"""``platperf doctor``'s sequence: a machine's /sys and /proc (a target's, or a tree on this
machine), its probe's meta and the L1 hit time of each CPU, read once and checked."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Diagnosis:
    fingerprint: dict
    findings: list              # doctor.Finding
    note: str | None = None     # why the counter was not checked


def meta_of_file(path) -> dict:
    """The ``meta`` record that opens a probe results file (JSON Lines); ValueError saying
    what is wrong with the file."""
    from ..records import RecordError, read_stream
    try:
        with open(path, encoding="utf-8") as stream:
            first = next(iter(read_stream(stream, str(path))), None)
    except OSError as exc:
        raise ValueError(f"cannot read --meta {path}: {exc.strerror}") from None
    except RecordError as exc:
        raise ValueError(str(exc)) from None
    if not first or first.get("type") != "meta":
        raise ValueError(f"--meta {path}: the first record is not a meta record (expected a probe results file)")
    return first


def diagnose(target, *, root: str | None = None, meta: dict | None = None,
             probe: bool = True) -> Diagnosis:
    """The doctor's look at ``target``, or at ``root`` (a copy of a machine's /sys and /proc on
    this machine). ``meta``: a probe meta record the caller has (else, with ``probe`` and no
    ``root``, the target's probe gives its own, and measures the L1 hit of each CPU).
    TargetError when the target cannot be read; TopologyError for a tree without CPUs."""
    from ..doctor import check
    from ..fingerprint import collect
    from ..machine.sysroot import SysRoot
    from ..targets import TargetError
    if root is not None:
        machine = SysRoot(root)
    else:
        try:
            machine = target.sysroot()
        except Exception as exc:  # the transport names its own failure (unreachable, refused key)
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise TargetError(f"cannot read target {target.name}: {why}") from None
    asks_probe, note = probe and root is None, None
    if meta is None and asks_probe:
        meta, note = _probe_meta(target)
    once = machine.read_once()
    fingerprint = collect(once, meta)
    core = _core_records(target, fingerprint) if asks_probe and meta else None
    llc = _llc_records(target, fingerprint) if asks_probe and meta else None
    return Diagnosis(fingerprint, check(once, fingerprint=fingerprint, probe_meta=meta, core_records=core,
                                        llc_records=llc), note)


def _probe_meta(target) -> tuple[dict | None, str | None]:
    from ..runner.probe import probe_meta
    try:
        return probe_meta(target), None
    except Exception as exc:  # no probe built, or it failed: the other checks still stand
        return None, f"counter not checked: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"


def _core_records(target, fp: dict) -> list[dict]:
    """The probe's L1 hit times on each online CPU (doctor.core_probe_args); [] when the probe
    fails (the check then says it was not measured)."""
    from ..doctor import core_probe_args
    cpus = [c["cpu"] for c in (fp.get("topology") or {}).get("cpus") or []]
    return _records(target, core_probe_args(cpus) if cpus else None)


def _llc_records(target, fp: dict) -> list[dict]:
    """The probe's chase inside the last-level cache and at DRAM size (doctor.llc_probe_args)."""
    from ..doctor import llc_probe_args
    return _records(target, llc_probe_args(fp))


def _records(target, args: list[str] | None) -> list[dict]:
    """The records of a probe command; [] without one or when the probe fails (the check then
    says it was not measured)."""
    from ..records import RecordError
    from ..runner.probe import probe_records
    from ..runner.suite import SuiteError
    try:
        return probe_records(target, args) if args else []
    except (SuiteError, RecordError):
        return []
