"""What each machine was: CPU, topology, caches, memory, kernel, frequency, SMT, VM, probe.

Read from the stored fingerprint and probe meta; a key a fingerprint lacks shows empty, and
a row empty in every column is left out. An imported run (``platperf ingest``) has no
fingerprint, or one of only what its probe said of itself: it shows what its file says (its
target, probe, note) and nothing more -- no frequency or SMT it never told.
"""
from __future__ import annotations

from ...vocab.sizes import size_label
from ..data import ReportData, RunColumn, data_caches, unread_columns
from ..document import Section, Table


def _brief(value, limit: int = 160) -> str:
    """A fingerprint value on one line: scalars as is, dicts as ``k=v`` pairs."""
    if value is None or value == {} or value == []:
        return ""
    if isinstance(value, dict):
        text = ", ".join(f"{k}={_brief(v, 60)}" for k, v in value.items() if v not in (None, "", [], {}))
    elif isinstance(value, (list, tuple)):
        text = "; ".join(_brief(v, 60) for v in value)
    else:
        text = str(value)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _cpu(fp: dict) -> str:
    cpu = fp.get("cpu") or {}
    if not isinstance(cpu, dict):
        return _brief(cpu)
    parts = [cpu.get("model") or cpu.get("name") or "", cpu.get("arch") or ""]
    count = cpu.get("count") or cpu.get("cpus")
    if count:
        parts.append(f"{count} CPUs")
    return ", ".join(str(p) for p in parts if p) or _brief(cpu)


def _caches(fp: dict) -> str:
    return ", ".join(f"{name} {size_label(size)}" for name, size in data_caches(fp))


def _kernel(fp: dict, key: str) -> str:
    k = fp.get("kernel") or {}
    return _brief(k.get(key)) if isinstance(k, dict) else (_brief(k) if key == "release" else "")


def _cpu_list(cpus) -> str:
    """[0, 1, 2, 5] -> ``0-2,5``."""
    out, run = [], []
    for c in sorted(cpus or []):
        if run and c == run[-1] + 1:
            run.append(c)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [c]
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ",".join(out)


def _topology(fp: dict) -> str:
    """``cluster 0: CPUs 0-1 Cortex-A57; cluster 1: CPUs 2-5 Cortex-A53`` (``package 1 cluster 0:
    ...`` where cluster numbers restart in each package)."""
    topo = fp.get("topology") or {}
    clusters = topo.get("clusters") if isinstance(topo, dict) else None
    if not clusters:
        return _brief(topo)
    return "; ".join(("" if c.get("package") is None else f"package {c['package']} ")
                     + f"cluster {c.get('cluster')}: CPUs {_cpu_list(c.get('cpus'))} "
                     f"{' + '.join(c.get('core_types') or [])}".rstrip() for c in clusters)


def _memory(fp: dict) -> str:
    mem = fp.get("memory") or {}
    if not isinstance(mem, dict) or not mem.get("total_bytes"):
        return _brief(mem)
    text = f"{mem['total_bytes'] / 2**30:.1f} GiB"
    if mem.get("available_bytes"):
        text += f" ({mem['available_bytes'] / 2**30:.1f} GiB available at the start)"
    return text


def _cpufreq(fp: dict) -> str:
    if "cpufreq" not in fp:       # not read (an import): not "no interface"
        return ""
    freq = fp.get("cpufreq") or {}
    if not isinstance(freq, dict):
        return _brief(freq)
    if not freq.get("available"):
        return "no cpufreq interface (frequency set outside the kernel)"
    parts = []
    for p in freq.get("policies") or []:
        mhz = lambda key: f"{p[key] / 1000:.0f}" if p.get(key) else "?"
        parts.append(f"CPUs {_cpu_list(p.get('cpus'))}: {p.get('governor') or '?'} "
                     f"{mhz('min_khz')}-{mhz('max_khz')} MHz")
    if freq.get("boost") is not None:
        parts.append(f"boost {'on' if freq['boost'] else 'off'}")
    return "; ".join(parts)


def _smt(fp: dict) -> str:
    if "smt" not in fp:           # not read (an import): not "off"
        return ""
    smt = fp.get("smt") or {}
    if not isinstance(smt, dict):
        return _brief(smt)
    return "on" if smt.get("active") else f"off ({smt['control']})" if smt.get("control") else "off"


def _virtualization(fp: dict) -> str:
    virt = fp.get("virtualization") or {}
    if not isinstance(virt, dict) or "vm" not in virt:
        return _brief(virt)
    if not virt["vm"]:
        return "bare metal"
    return f"virtual machine ({virt.get('hypervisor') or 'unknown hypervisor'})"


def _load(fp: dict) -> str:
    load = fp.get("load") or {}
    if not isinstance(load, dict) or not load.get("loadavg"):
        return _brief(load)
    return "load average " + " / ".join(f"{v:.2f}" for v in load["loadavg"])


def _probe(run: dict) -> str:
    meta = run.get("meta") or {}
    fp_probe = (run.get("fingerprint") or {}).get("probe") or {}
    version = meta.get("probe_version") or (fp_probe.get("version") if isinstance(fp_probe, dict) else None)
    parts = [f"{version}" if version else "", f"build {meta['build_id']}" if meta.get("build_id") else "",
             meta.get("compiler") or "", "C fallback" if meta.get("fallback") else ""]
    counter = meta.get("counter") or {}
    if counter.get("name"):
        parts.append(f"counter {counter['name']} {counter.get('freq_hz', 0) / 1e6:.1f} MHz")
    return ", ".join(p for p in parts if p)


ROWS = (
    ("Hostname", lambda fp, run: _brief(fp.get("hostname"))),
    ("Target", lambda fp, run: _brief(run.get("target"))),
    ("CPU", lambda fp, run: _cpu(fp)),
    ("Topology", lambda fp, run: _topology(fp)),
    ("Caches", lambda fp, run: _caches(fp)),
    ("Memory", lambda fp, run: _memory(fp)),
    ("Kernel", lambda fp, run: _kernel(fp, "release")),
    ("Command line", lambda fp, run: _kernel(fp, "cmdline")),
    ("CPU frequency", lambda fp, run: _cpufreq(fp)),
    ("SMT", lambda fp, run: _smt(fp)),
    ("Virtualization", lambda fp, run: _virtualization(fp)),
    ("Load", lambda fp, run: _load(fp)),
    ("Probe", lambda fp, run: _probe(run)),
    ("Suite", lambda fp, run: _brief(run.get("suite"))),
    ("Runs", None),     # of the column as a whole: see _runs
    ("Note", lambda fp, run: _brief(run.get("note"))),
)


def _runs(col: RunColumn) -> str:
    """How many runs the column pools, which, how they ended and when they started:
    "3 (runs 4, 5, 6; complete; 2026-11-22T03:35:11Z to 2026-11-22T03:36:02Z)"."""
    ids = ", ".join(str(run["id"]) for run in col.runs)
    statuses = ", ".join(dict.fromkeys(str(run.get("status")) for run in col.runs))
    started = sorted(run["started_at"] for run in col.runs if run.get("started_at"))
    # a label's runs measured together (a suite's `repeat`) start within the same second
    when = "" if not started else f"; {started[0]}" if started[0] == started[-1] \
        else f"; {started[0]} to {started[-1]}"
    return f"{len(col.runs)} (run{'s' if len(col.runs) > 1 else ''} {ids}; {statuses}{when})"


def _cell(col: RunColumn, row) -> str:
    if row is None:
        return _runs(col)
    values = []
    for run in col.runs:
        v = row(run.get("fingerprint") or {}, run)
        if v and v not in values:
            values.append(v)
    return "; ".join(values)


def build(data: ReportData) -> Section:
    rows = [[name] + [_cell(col, fn) for col in data.columns] for name, fn in ROWS]
    rows = [r for r in rows if any(r[1:])]
    table = Table(title="Environment", headers=["Property"] + [c.name for c in data.columns],
                  rows=rows, layout="guide")
    return Section(title="Environment", text=imported_text(data), tables=[table])


def imported_text(data: ReportData) -> str:
    """One sentence naming the columns whose machine platperf never read (imported files):
    their rows hold only what their files say."""
    names, imported = unread_columns(data)
    if not names:
        return ""
    many = len(names) > 1
    what = ("the imported files say" if many else "the imported file says") if imported \
        else "was stored with the run" + "s" * many
    return (f"Not read from the machine: {', '.join(names)}; "
            f"{'these columns show' if many else 'its column shows'} only what {what}.")
