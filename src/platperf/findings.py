"""Findings as a person reads them: a warning the probe repeats is one line.

Every probe invocation of a run writes its own warnings, so a busy board gives one
``sample-preempted`` warning per CPU per kernel (27 in one ``quick`` run on a QEMU guest).
Each stays stored with the run (nothing the probe writes is thrown away); :func:`collapse`
is what ``show``, the report and the run's summary print: the findings of one code and level
as one, with how many there are and the CPUs and benchmarks they touch. Findings tagged with
their ``run`` (a label's runs pooled: ``show LABEL``, the report) merge across the runs too,
and a finding each run repeats word for word (doctor's) keeps its words.
"""
from __future__ import annotations

from .machine.sysroot import format_cpu_list


def collapse(findings: list[dict]) -> list[dict]:
    """``findings`` (dicts as stored with a run) with those of one (level, code) merged into the
    first of them, in the order they first appear. A merged one says ``count``, ``cpus`` and
    ``benchmarks`` (the probe kernels that wrote it), and its message reads
    ``27 sample-preempted warnings (CPUs 0-1; mem-latency 18, os-syscall 9), the first: ...``;
    the same words on no CPU (a doctor finding in each run of a label) stay as they are. When
    the findings carry their ``run``, a merged one also says ``runs`` (their ids, sorted)."""
    groups: dict[tuple, list[dict]] = {}
    for f in findings:
        if isinstance(f, dict):
            groups.setdefault((f.get("level"), f.get("code")), []).append(f)
    out = []
    for (_, code), members in groups.items():
        first = members[0]
        if len(members) == 1:
            out.append(first)
            continue
        runs = {"runs": sorted({f["run"] for f in members})} if any("run" in f for f in members) else {}
        cpus = sorted({f["cpu"] for f in members if isinstance(f.get("cpu"), int)})
        if not cpus and len({f.get("message") for f in members}) == 1:
            out.append({**first, "count": len(members), **runs})
            continue
        benchmarks: dict[str, int] = {}
        for f in members:
            if f.get("benchmark"):
                benchmarks[f["benchmark"]] = benchmarks.get(f["benchmark"], 0) + 1
        where = [f"CPU{'s' if len(cpus) > 1 else ''} {format_cpu_list(cpus)}"] if cpus else []
        where += [", ".join(f"{b} {n}" for b, n in benchmarks.items())] if benchmarks else []
        touched = f" ({'; '.join(where)})" if where else ""
        out.append({**first, **runs, "count": len(members), "cpus": cpus, "benchmarks": list(benchmarks),
                    "message": f"{len(members)} {code} warnings{touched}, the first: {first.get('message', '')}"})
    return out
