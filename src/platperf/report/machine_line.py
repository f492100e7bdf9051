"""A machine in one line, as the first line of a report: ``juno-r1: Cortex-A57 + Cortex-A53
(aarch64), 6 CPUs in 2 clusters, up to 1.1 GHz; L1d 32 KiB, L2 2 MiB; 8.0 GiB; Linux 6.1.0;
bare metal``.

Only what the run's fingerprint tells: a fact it lacks is left out of the line, never written
as "not reported" (the Environment section lists every property the machine was read for).
A run whose machine was never read (an imported file) says where its figures came from.
"""
from __future__ import annotations

from ..vocab.spoken import iec
from .data import RunColumn, data_caches, machine_read


def _frequency(fp: dict) -> str:
    freq = fp.get("cpufreq") if isinstance(fp.get("cpufreq"), dict) else {}
    khz = max((p.get("max_khz") or 0 for p in freq.get("policies") or [] if isinstance(p, dict)), default=0)
    if not khz:
        return ""
    return f"up to {khz / 1e6:.3g} GHz" if khz >= 1e6 else f"up to {khz / 1e3:.0f} MHz"


def _cpus(fp: dict) -> str:
    cpu = fp.get("cpu") if isinstance(fp.get("cpu"), dict) else {}
    topo = fp.get("topology") if isinstance(fp.get("topology"), dict) else {}
    count = cpu.get("count") or len(topo.get("cpus") or []) or None
    clusters = len(topo.get("clusters") or [])
    text = f"{count} CPUs" if count else ""
    if text and clusters:
        text += f" in {clusters} cluster{'s' * (clusters > 1)}"
    return text


def _cpu(fp: dict) -> str:
    cpu = fp.get("cpu") if isinstance(fp.get("cpu"), dict) else {}
    model = cpu.get("model") or " + ".join(cpu.get("core_types") or [])
    arch = cpu.get("arch")
    return f"{model} ({arch})" if model and arch else str(model or arch or "")


def _virtualization(fp: dict) -> str:
    virt = fp.get("virtualization")
    if not isinstance(virt, dict) or "vm" not in virt:
        return ""
    return f"{virt.get('hypervisor') or 'virtual'} guest" if virt["vm"] else "bare metal"


def _kernel(fp: dict) -> str:
    kernel = fp.get("kernel") if isinstance(fp.get("kernel"), dict) else {}
    return f"Linux {kernel['release']}" if kernel.get("release") else ""


def _memory(fp: dict) -> str:
    mem = fp.get("memory") if isinstance(fp.get("memory"), dict) else {}
    text = f"{mem['total_bytes'] / 2 ** 30:.1f} GiB" if mem.get("total_bytes") else ""
    if text and mem.get("data_rate_mts"):
        text += f" {mem.get('type') or ''} {mem['data_rate_mts']} MT/s".replace("  ", " ")
    return text


def machine_text(fp: dict) -> str:
    """The facts of one fingerprint, in the line's order, without the host name."""
    machine = fp.get("machine") if isinstance(fp.get("machine"), dict) else {}
    board = " rev ".join(str(v) for v in (machine.get("model"), machine.get("revision")) if v) \
        if machine.get("model") else ""
    first = ", ".join(p for p in (board, _cpu(fp), _cpus(fp), _frequency(fp)) if p)
    caches = ", ".join(f"{name} {iec(size)}" for name, size in data_caches(fp))
    return "; ".join(p for p in (first, caches, _memory(fp), _kernel(fp), _virtualization(fp)) if p)


def _facts(col: RunColumn) -> tuple[str, str]:
    """(host, the line's facts) of a column; an imported column: ("", where it came from)."""
    read = [run for run in col.runs if machine_read(run)]
    if not read:
        sources = ", ".join(dict.fromkeys(str(r.get("source") or "stored") for r in col.runs))
        return "", f"{sources}; its machine was not read"
    fp = read[-1].get("fingerprint") or {}
    return str(fp.get("hostname") or read[-1].get("target") or ""), machine_text(fp)


def machine_lines(columns: list[RunColumn]) -> list[str]:
    """One line per distinct machine, its columns named first: ``v2.11, v2.12 on juno-r1:
    ...``; an imported column: ``v2.13: ingest:tfa-rst; its machine was not read``."""
    lines: dict[tuple[str, str], list[str]] = {}
    for col in columns:
        lines.setdefault(_facts(col), []).append(col.name)
    return [f"{', '.join(names)}{f' on {host}' if host else ''}: {text}"
            for (host, text), names in lines.items()]
