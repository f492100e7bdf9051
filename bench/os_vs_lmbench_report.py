"""bench/os_vs_lmbench.py's figures and their reading: the table of every OS row (LMBench,
platperf, their ratio, the referee, and for a row outside +-10 % what this run measured beside
it), the lat_ctx points from every implementation the run timed, the overheads each tool
subtracted, and the wall times. Only what the run measured is printed: no canned reasons."""
from __future__ import annotations

import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from platperf.vocab.lmbench import LAT_CTX_PROCS, LAT_CTX_SIZES_K, LMBENCH_OS_ROWS  # noqa: E402

# lat_pagefault's file written two other ways (both tools' own is written in 64 KiB writes just
# before each call): a page cache of large folios faults many pages at once
ONE_WRITE = "LMBench on a file written in one write()"
LMDD = "LMBench on a file as its script writes it (lmdd, 8 KiB writes)"
# lat_ctx's implementations beside the two tools (Tally.ctx): LMBench's program as gcc -O2 builds
# it, and the referee ring with every working set written or the forked ones left unwritten
LM_O2 = "LMBench built -O2"
REF_WRITTEN = "referee, working sets written"
REF_UNTOUCHED = "referee, forked ones unwritten"


@dataclass
class Tally:
    lm: dict[str, list[float]] = field(default_factory=dict)
    pp: dict[str, list[float]] = field(default_factory=dict)
    pp_before: dict[str, list[float]] = field(default_factory=dict)   # --probe-before
    ref: dict[str, list[float]] = field(default_factory=dict)
    # row -> what was measured beside it (lm_also, program_referee) -> figures over the rounds
    side: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    # lat_ctx row -> LM_O2 / REF_WRITTEN / REF_UNTOUCHED -> figures over the rounds
    ctx: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    lm_ovr: dict[str, list[float]] = field(default_factory=dict)
    pp_ovr: dict[str, list[float]] = field(default_factory=dict)
    # lat_proc-proccall: core cycles a call (the probe's record carries the CPU's core clock)
    cycles: dict[str, list[float]] = field(default_factory=dict)
    # lat_connect: row -> tool -> SYNs the kernel dropped in each call (a call with drops is run again)
    drops: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    lm_wall: float = 0.0
    pp_wall: float = 0.0


# A round at least this many times the fastest of its row is a stall (lat_connect: 7.4 ms
# rounds among 80 us ones), not the spread of the measurement.
STALL_FACTOR = 5.0


def spread(values: list[float]) -> float:
    return max(values) / min(values) if values and min(values) > 0 else float("inf")


def stalled(values: list[float]) -> list[float]:
    return [v for v in values if v >= STALL_FACTOR * min(values)] if values and min(values) > 0 else []


def measured_beside(row: str, t: Tally) -> list[str]:
    """What this run measured beside the row, as its reason: the other LMBench calls and C
    loops of its group (lat_pagefault's file, lat_proc-fork's program), the exec of LMBench's
    own program, and lat_ctx's timings before the overhead subtraction."""
    out = [f"{label}: {statistics.median(v):.4g}" for label, v in t.side.get(row, {}).items()]
    hello = f"{row}@hello"
    if t.lm.get(hello) and t.pp.get(hello):
        out.append(f"with LMBench's hello exec'd: ratio {statistics.median(t.pp[hello]) / statistics.median(t.lm[hello]):.2f}")
    return out + drops_reason(row, t) + ctx_reason(row, t)


def drops_reason(row: str, t: Tally) -> list[str]:
    """lat_connect: the calls whose SYNs the kernel dropped (each a 1 s retransmission in the figure)."""
    out = []
    for tool, counts in t.drops.get(row, {}).items():
        dropped = [n for n in counts if n]
        if dropped:
            out.append(f"{tool}: {len(dropped)} of {len(counts)} calls had SYNs dropped by a full accept "
                       f"queue ({', '.join(map(str, dropped))}), each run again at most twice")
    return out


def beside_table(t: Tally) -> None:
    """What the run measured beside a row in every round, printed whether or not the row agrees:
    lat_pagefault by how its file was written, lat_connect's dropped SYNs."""
    for row, sides in t.side.items():
        if row == "lat_pagefault" and t.pp.get(row) and t.lm.get(row):
            figures = [("LMBench, 64 KiB writes just before (the row)", t.lm[row]), *sides.items(),
                       ("platperf, its own file (64 KiB writes)", t.pp[row])]
            print(f"\n{row}, us a page, by how the file was written (median over the rounds):")
            for label, values in figures:
                print(f"  {label:62} {statistics.median(values):8.4g}")
    for row in t.drops:
        counts = {tool: sum(v) for tool, v in t.drops[row].items()}
        print(f"\n{row}: SYNs dropped by a full accept queue, over every call: "
              + ", ".join(f"{tool} {n}" for tool, n in counts.items()) + "; " + "; ".join(drops_reason(row, t) or
                                                                                    ["no call was run again"]))


def ctx_reason(row: str, t: Tally) -> list[str]:
    """A lat_ctx row's figure is a hop less an overhead (a pipe round trip and the sum over the
    working set, in one process, cache-warm): both as each tool measured them in this run, and
    which of the two the difference is in (10 %: the rows' own tolerance)."""
    m = re.match(r"lat_ctx-(\d+)-(\d+k)$", row)
    if not (m and t.lm_ovr.get(m.group(2)) and t.pp_ovr.get(f"{m.group(2)}-{m.group(1)}")):
        return []
    lo, po = statistics.median(t.lm_ovr[m.group(2)]), statistics.median(t.pp_ovr[f"{m.group(2)}-{m.group(1)}"])
    lm, pp = statistics.median(t.lm[row]), statistics.median(t.pp[row])
    lm_hop, pp_hop = lm + lo, pp + po
    out = [f"hop before the overhead subtraction: LMBench {lm_hop:.3g}, platperf {pp_hop:.3g} us "
           f"({pp_hop / lm_hop:.2f}); overheads {lo:.3g} and {po:.3g} us ({po / lo:.2f})"]
    out.append(f"platperf's hop less LMBench's overhead: ratio {(pp_hop - lo) / lm:.2f}" if pp_hop > lo else
               "LMBench's overhead is longer than platperf's whole hop")
    hops_agree, ovr_agree = abs(pp_hop / lm_hop - 1) <= 0.10, abs(po / lo - 1) <= 0.10
    covered = max(spread(t.lm[row]), spread(t.pp[row]), spread(t.lm_ovr[m.group(2)]),
                  spread(t.pp_ovr[f"{m.group(2)}-{m.group(1)}"])) >= max(pp_hop / lm_hop, lm_hop / pp_hop)
    if covered and not hops_agree:
        out.append("the rounds' spread of the figures or the overheads covers the hops' ratio: "
                   "no part of the difference is measured")
    elif hops_agree:
        out.append("the hops agree: the difference is the overhead each subtracted" if not ovr_agree else
                   f"hops and overheads each agree within 10 %: the figure is a small difference of two "
                   f"timings ({lm:.3g} of {lm_hop:.3g} us)")
    else:
        out.append("the hops differ, the overheads do not: the difference is the ring itself" if ovr_agree else
                   f"hop and overhead both differ ({pp_hop / lm_hop:.2f}, {po / lo:.2f})")
    return out


def why(row: str, t: Tally, ratio: float) -> str:
    """The reason printed beside a ratio outside +-10 %, from this run only: its stalled rounds,
    what it measured beside the row, and whether the rounds' spread covers the ratio."""
    a, b = t.lm[row], t.pp[row]
    parts = []
    for tool, values in (("LMBench", a), ("platperf", b)):
        if st := stalled(values):
            parts.append(f"{tool}: {len(st)} of {len(values)} rounds stalled ({', '.join(f'{v:.4g}' for v in st)}"
                         f" against {min(values):.4g})")
    clean_a, clean_b = [v for v in a if v not in stalled(a)], [v for v in b if v not in stalled(b)]
    if parts and clean_a and clean_b:
        parts.append(f"ratio of the other rounds {statistics.median(clean_b) / statistics.median(clean_a):.2f}")
    parts += measured_beside(row, t)
    sa, sb, off = spread(clean_a or a), spread(clean_b or b), max(ratio, 1 / ratio)
    parts.append(f"{'within' if max(sa, sb) >= off else 'beyond'} the rounds' spread "
                 f"(LMBench {sa:.2f}x, platperf {sb:.2f}x)")
    return "; ".join(parts)


def fmt(values: list[float] | None) -> str:
    if not values:
        return f"{'-':>10} {'':>5}"
    return f"{statistics.median(values):10.4g} {max(values) / min(values) if min(values) > 0 else 0:5.2f}"


def ratio_of(a: list[float] | None, b: list[float] | None) -> float | None:
    return statistics.median(b) / statistics.median(a) if a and b and statistics.median(a) > 0 else None


def report(rows: list[str], t: Tally, rounds: int, enough_us: int, reps: int, cpu: str) -> int:
    units = {name: unit for name, _, _, _, unit in LMBENCH_OS_ROWS}
    before = bool(t.pp_before)
    print(f"\n{cpu}\nmedian over {rounds} rounds (spread = max/min over the rounds); ratio = platperf / LMBench"
          + ("; 'before': the probe given by --probe-before, in the same rounds" if before else ""))
    print(f"{'row':28} {'LMBench':>10} {'spread':>5} {'platperf':>10} {'spread':>5} {'ratio':>6} "
          + (f"{'before':>10} {'ratio':>6} " if before else "") + f"{'C loop':>8}  within 10% / why")
    within = within_before = 0
    for r in rows:
        a, b = t.lm.get(r), t.pp.get(r)
        unit = units.get(r.split("@")[0], "")
        ref = f"{statistics.median(t.ref[r]):8.4g}" if r in t.ref else f"{'':>8}"
        rb = ratio_of(a, t.pp_before.get(r))
        old = (f"{statistics.median(t.pp_before[r]) if r in t.pp_before else float('nan'):10.4g} "
               f"{rb if rb is not None else float('nan'):6.2f} ") if before else ""
        within_before += rb is not None and abs(rb - 1) <= 0.10 and "@" not in r
        if not a or not b:
            print(f"{r + ' (' + unit + ')':28} {fmt(a)} {fmt(b)} {'':>6} {old}{ref}  "
                  f"{'LMBench printed nothing (negative)' if not a else 'platperf: no result'}")
            continue
        ratio = statistics.median(b) / statistics.median(a)
        ok = abs(ratio - 1) <= 0.10
        within += ok and "@" not in r
        why_text = "yes" if ok else "no: " + why(r, t, ratio)
        print(f"{r + ' (' + unit + ')':28} {fmt(a)} {fmt(b)} {ratio:6.2f} {old}{ref}  {why_text}")
    counted = len([r for r in rows if "@" not in r])
    print(f"rows within 10 %: {within} of {counted}"
          + (f" (the probe before: {within_before} of {counted})" if before else ""))
    if before:      # as the bench counted before issue 40: its lat_ctx was LMBench built -O2
        as_was = [r for r in rows if "@" not in r and (rb := ratio_of(
            t.ctx.get(r, {}).get(LM_O2) if r.startswith("lat_ctx") else t.lm.get(r), t.pp_before.get(r)))
            is not None and abs(rb - 1) <= 0.10]
        print(f"as the bench counted before (the probe before; lat_ctx against LMBench built -O2): "
              f"{len(as_was)} of {counted}")
    for row, values in t.cycles.items():
        ns = statistics.median(t.pp[row]) * 1e3 if t.pp.get(row) else float("nan")
        print(f"{row}: platperf {ns:.3g} ns a call = {statistics.median(values):.2f} core cycles "
              f"(the CPU's add-chain clock in the record); LMBench "
              f"{statistics.median(t.lm[row]) * 1e3 if t.lm.get(row) else float('nan'):.3g} ns")
    beside_table(t)
    ctx_table(t)
    if t.lm_ovr or t.pp_ovr:
        print("\nlat_ctx overhead subtracted per hop (us): LMBench once per size for the largest ring; "
              "platperf per point")
        for s in LAT_CTX_SIZES_K:
            pp = "  ".join(f"P={p}: {statistics.median(t.pp_ovr[f'{s}k-{p}']):.3g}"
                           for p in LAT_CTX_PROCS if f"{s}k-{p}" in t.pp_ovr)
            lm = t.lm_ovr.get(f"{s}k")
            print(f"  {s:>3}k  LMBench {statistics.median(lm) if lm else float('nan'):7.3g}   platperf {pp}")
    print(f"\nwall time: LMBench {t.lm_wall:.1f} s (ENOUGH={enough_us}, -N {reps}), platperf {t.pp_wall:.1f} s, "
          f"platperf / LMBench = {t.pp_wall / t.lm_wall if t.lm_wall else 0:.3f}")
    return 0




def ctx_table(t: Tally) -> None:
    """Each lat_ctx point from every implementation this run timed, us per hop after each one's
    own overhead subtraction, and platperf over each."""
    points = [r for r in t.ctx if t.ctx[r]]
    if not points:
        return
    cols = ("LMBench", LM_O2, "platperf", REF_WRITTEN, REF_UNTOUCHED)
    print("\nlat_ctx, us per hop, median over the rounds: LMBench as its Makefile builds it (-O), the same "
          "source built -O2\n(gcc folds doit()'s malloc + bzero into calloc: the forked processes never write "
          "their working sets), platperf,\nthe referee ring (bench/os_vs_lmbench_ctx_referee.c) with every "
          "working set written and with the forked ones unwritten")
    print(f"{'row':18} {'LMBench':>8} {'-O2':>8} {'platperf':>9} {'ref wr':>8} {'ref unwr':>8}  "
          f"platperf / each")
    for row in points:
        figures = {"LMBench": t.lm.get(row), "platperf": t.pp.get(row), **t.ctx[row]}
        med = {c: statistics.median(figures[c]) if figures.get(c) else None for c in cols}
        cells = " ".join(f"{med[c]:{w}.3g}" if med[c] is not None else f"{'-':>{w}}"
                         for c, w in zip(cols, (8, 8, 9, 8, 8)))
        pp = med["platperf"]
        ratios = "  ".join(f"{pp / med[c]:.2f}" if pp and med[c] and med[c] > 0 else "-"
                           for c in cols if c != "platperf")
        print(f"{row:18} {cells}  {ratios}")
