"""Does `platperf run --against` decide? A/A and A/B gates on this machine (issue 24).

One script run:

  * a baseline: the suite measured --base-runs times under one label, in --base-sessions
    separate `platperf run` invocations (sessions), so that the gate counts the drift between
    sessions (platperf.stats.sequential.session_interval). The baseline bounds the gate's
    power: the interval's variance is at least v (1 + 1/S), v the variance of the S session
    means, which holds each session's run noise over its m runs; hence 16 sessions of 10 runs.
    The gate's own runs count in blocks of 3, each a session (stats.sequential.BLOCK);
  * A/A: --gates gates of the same code against that baseline, tolerance --tolerance, budget
    --budget each: every key called regressed is a false alarm; the share of keys shown
    equivalent, and how long each gate took;
  * A/B: --gates gates with a memory hog on --hog-cpu (the probe's own mem-bandwidth bzero on
    256 MiB, as bench/aa_test.py) while the gate measures --cpu: the DRAM bandwidth keys
    (mem-bandwidth buffers larger than the last-level cache of --cpu) called regressions, per
    gate, and the time each gate took; a gate catches the hog when one of them is;
  * the sequential test's false-alarm rate by simulation (platperf.compare.decisions.simulate): one
    key, no change, measuring stopped at the first decision, against its nominal alpha; and
    the worst case, a true change of exactly the tolerance, for both errors; and A/A with
    sessions drifting by --drift percent, the baseline's sessions hidden from the test (one
    session) and counted.

Targets (the issue's): 0 false regressions in the A/A gates; the hog caught in at least 8 of
10 gates within a 10-minute budget; simulated false-alarm rates within the nominal level.
Run: .venv/bin/python bench/gate.py [--gates 10] [--budget 10m] [--suite quick] [--cpu 0]
                                    [--hog-cpu 1] [--base-runs 10] [--base-sessions 16]
                                    [--tolerance 3] [--drift 5]
     (up to gates x 2 x budget, plus the baseline: over 3 hours with the defaults; exit 1 when
     a target is missed)
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "src"))


def platperf(args, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "platperf", *args], capture_output=True, text=True,
                          env=env, check=False)


def llc_bytes(cpu: int) -> int:
    from platperf.topology import read_topology
    llc = read_topology().llc(cpu)
    return (llc.size or 0) if llc else 0


def dram_rows(doc: dict, llc: int) -> list[dict]:
    from platperf.records import params_of
    from platperf.vocab.sizes import size_or_none

    def size(r):
        return size_or_none(params_of(r["params"]).get("size")) or 0
    return [r for r in doc["rows"] if r["status"] == "both" and r["benchmark"] == "mem-bandwidth"
            and size(r) > llc]


def session_drift(db: Path, label: str = "base", block: int = 0) -> str:
    """What the cache a VM shares moves, measured on the baseline: for the keys the gate holds
    (platperf.compare.shared_cache) and those it decides, the spread of the baseline's session means
    and of the runs within a session (sd of the logs, in %), and how many keys' run medians
    sit at two levels (platperf.stats.levels.two_levels). ``block`` > 0: consecutive blocks of that
    many runs stand for the sessions (bench/session_blocks.py)."""
    from platperf.compare import shared_cache
    from platperf.compare.pools import load_pools, session_of
    from platperf.stats import levels, median
    from platperf.stats.sequential import grouped
    from platperf.store import Store
    store = Store(str(db), write=False)
    runs = sorted(store.runs_for(label), key=lambda r: r["id"])
    zone = shared_cache.zone([r["fingerprint"] for r in runs])
    session = {r["id"]: i // block if block else session_of(r) for i, r in enumerate(runs)}
    pools, _ = load_pools(store, [r["id"] for r in runs])
    found = {"held": [], "gated": []}
    for key, pool in pools.items():
        medians = pool.run_medians
        groups = grouped([math.log(v) for v in medians if v > 0], [session[i] for i in pool.run_ids])
        if groups is None or len(medians) != sum(map(len, groups)):
            continue
        means = [math.fsum(g) / len(g) for g in groups]
        between = math.expm1(statistics.stdev(means)) * 100
        within = math.expm1(math.sqrt(math.fsum(statistics.variance(g) * (len(g) - 1) for g in groups if len(g) > 1)
                                      / max(1, sum(len(g) - 1 for g in groups)))) * 100
        cls = "held" if zone is not None and zone.moves(key) else "gated"
        found[cls].append((between, within, levels.two_levels(medians) is not None, key))
    out = []
    for cls, rows in found.items():
        if not rows:
            continue
        worst = max(rows)
        out.append(f"  {cls:5} {len(rows):3} keys: sessions differ by {median([r[0] for r in rows]):5.1f}% "
                   f"(median), runs within one by {median([r[1] for r in rows]):4.1f}%; the most "
                   f"{worst[0]:.1f}% ({worst[3][0]} {worst[3][1]} {worst[3][2]} {worst[3][-1]}); "
                   f"at two levels: {sum(r[2] for r in rows)}")
    return "\n".join(out)


def start_hog(probe: str, cpu: int) -> subprocess.Popen:
    return subprocess.Popen([probe, "run", "mem-bandwidth", "--kernel", "bzero", "--size", "256m",
                             "--cpus", str(cpu), "--samples", "1000000", "--min-time", "0.5"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def gate(label: str, opts, db: Path, env) -> dict:
    started = time.monotonic()
    proc = platperf(["run", "--suite", opts.suite, "--cpus", str(opts.cpu), "--label", label,
                     "--against", "base", "--tolerance", f"{opts.tolerance}%", "--budget", opts.budget,
                     "--db", str(db), "--json", "-q"], env)
    if proc.returncode not in (0, 1, 3):
        sys.exit(f"gate: {label} failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
    doc = json.loads(proc.stdout.splitlines()[-1])
    doc["wall_s"], doc["exit"] = time.monotonic() - started, proc.returncode
    return doc


def simulated(opts) -> list[tuple[str, float, float | None]]:
    """(case, observed rate, nominal; None: shown, not a target) of the sequential decision, seeded."""
    from platperf.compare import decisions
    alpha, t, trials = 0.05, opts.tolerance, opts.trials
    out = []
    for spread in (t / 2, t):
        aa = decisions.simulate(0.0, spread, tolerance=t, alpha=alpha, base_runs=opts.base_runs,
                                trials=trials, seed=11)
        out.append((f"no change, spread {spread:g}%: called regressed or improved",
                    (aa["regressed"] + aa["improved"]) / trials, 2 * alpha))
        edge = decisions.simulate(t, spread, tolerance=t, alpha=alpha, base_runs=opts.base_runs,
                                  trials=trials, seed=12)
        out.append((f"change = tolerance, spread {spread:g}%: called regressed", edge["regressed"] / trials, alpha))
        out.append((f"change = tolerance, spread {spread:g}%: called equivalent", edge["equivalent"] / trials, alpha))
    sessions = max(2, opts.base_sessions)
    drifting = dict(tolerance=t, alpha=alpha, base_runs=opts.base_runs * sessions, trials=trials,
                    drift_pct=opts.drift, base_sessions=sessions)
    for counted in (False, True):
        aa = decisions.simulate(0.0, t, seed=13, count_drift=counted, **drifting)
        out.append((f"no change, drift {opts.drift:g}%, {sessions} sessions "
                    f"{'counted' if counted else 'hidden'}: called regressed or improved",
                    (aa["regressed"] + aa["improved"]) / trials, 2 * alpha if counted else None))
    edge = decisions.simulate(t, t, seed=14, **{**drifting, "drift_pct": t / 3})
    for word in ("regressed", "equivalent"):
        out.append((f"change = tolerance, drift {t / 3:g}%, {sessions} sessions: called {word}",
                    edge[word] / trials, alpha))
    aa = decisions.simulate(0.0, t, seed=15, window_pct=opts.drift, **drifting)
    out.append((f"no change, drift {opts.drift:g}%, and {opts.drift:g}% on all the gate runs: "
                "called regressed or improved", (aa["regressed"] + aa["improved"]) / trials, None))
    return out


def median_s(docs: list[dict]) -> str:
    return f"{sorted(d['wall_s'] for d in docs)[len(docs) // 2]:.0f} s" if docs else "-"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gates", type=int, default=10)
    ap.add_argument("--budget", default="10m")
    ap.add_argument("--suite", default="quick")
    ap.add_argument("--cpu", type=int, default=0)
    ap.add_argument("--hog-cpu", type=int, default=1, help="-1: no hog (a dry run of the script)")
    ap.add_argument("--base-runs", type=int, default=10, help="runs of each baseline session")
    ap.add_argument("--base-sessions", type=int, default=16,
                    help="baseline sessions (platperf run invocations); 1: drift not counted")
    ap.add_argument("--drift", type=float, default=5.0, help="simulated drift between sessions, %%")
    ap.add_argument("--tolerance", type=float, default=3.0)
    ap.add_argument("--trials", type=int, default=1000, help="simulated gates per case")
    opts = ap.parse_args()
    from platperf.probe_path import find_probe
    probe = os.environ.get("PLATPERF_PROBE") or str(find_probe())
    env = {**os.environ, "PLATPERF_PROBE": probe, "PYTHONPATH": str(HERE / "src")}
    llc = llc_bytes(opts.cpu)
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "gate.db"
        t0 = time.monotonic()
        for _ in range(opts.base_sessions):
            base = platperf(["run", "--suite", opts.suite, "--cpus", str(opts.cpu), "--repeat",
                             str(opts.base_runs), "--label", "base", "--db", str(db), "-q"], env)
            if base.returncode != 0:
                sys.exit(f"gate: the baseline failed: {base.stderr.strip()[-400:]}")
        print(f"baseline: {opts.suite}, {opts.base_sessions} session(s) of {opts.base_runs} runs on CPU {opts.cpu} in "
              f"{time.monotonic() - t0:.0f} s; tolerance {opts.tolerance:g}%, budget {opts.budget} "
              f"a gate; DRAM keys: mem-bandwidth above the {llc >> 20} MiB last-level cache")
        print("the baseline's drift (sd of the logs: session means; runs within a session):")
        print(session_drift(db))
        print(f"{'gate':8} {'s':>5} {'runs':>5} {'exit':>4} {'regr':>5} {'impr':>5} {'equiv':>6} "
              f"{'undec':>6} {'held':>5} {'keys':>5}  DRAM regressed")
        results = {"A/A": [], "A/B": []}
        for i in range(opts.gates):
            for kind in ("A/A", "A/B"):
                hog = start_hog(probe, opts.hog_cpu) if kind == "A/B" and opts.hog_cpu >= 0 else None
                try:
                    doc = gate(f"{kind[-1].lower()}{i}", opts, db, env)
                finally:
                    if hog is not None:
                        hog.kill()
                        hog.wait()
                d = doc["decisions"]
                dram = dram_rows(doc, llc)
                doc["dram"] = (sum(r["decision"] == "regressed" for r in dram), len(dram))
                doc["held"] = sum(bool(r.get("decision_why")) for r in doc["rows"])
                results[kind].append(doc)
                print(f"{kind + ' ' + str(i + 1):8} {doc['wall_s']:5.0f} {doc['runs']:5} {doc['exit']:4} "
                      f"{d['regressed']:5} {d['improved']:5} {d['equivalent']:6} {d['undecided']:6} "
                      f"{doc['held']:5} {sum(d.values()):5}  {doc['dram'][0]}/{doc['dram'][1]}", flush=True)
                if kind == "A/A":    # how far the whole gate sits from the baseline, key by key
                    est = sorted(abs(r["decision_ci"][0]) for r in doc["rows"]
                                 if r.get("decision_ci") and not r.get("decision_why"))
                    if est:
                        print(f"         decided keys' |change|: median {est[len(est) // 2]:.1f}%, "
                              f"the most {est[-1]:.1f}% ({len(est)} keys)", flush=True)
                # A/A: each false alarm, to see what moved; A/B: what the hog did to the DRAM
                # keys, and every other key it moved beyond the tolerance
                changed = [r for r in doc["rows"] if r.get("decision") in ("regressed", "improved")]
                shown = [r for r in changed if r["decision"] == "regressed"] if kind == "A/A" else \
                    dram + [r for r in changed if r not in dram]
                for r in shown:
                    if r.get("decision_ci"):
                        est, low, high = r["decision_ci"]
                        print(f"         {r['decision']}: {r['benchmark']} {r['params']} {r['mode']} "
                              f"{r['metric']}: {est:+.1f}% ({low:+.1f}% .. {high:+.1f}%)", flush=True)
        print("the first A/A gate's runs in blocks of 3 (what the gate counts as sessions):")
        print(session_drift(db, "a0", block=3))
    aa, ab = results["A/A"], results["A/B"]
    false_regr = sum(doc["decisions"]["regressed"] for doc in aa)
    keys = sum(sum(doc["decisions"].values()) for doc in aa)
    equivalent = sum(doc["decisions"]["equivalent"] for doc in aa)
    caught = sum(doc["dram"][0] > 0 for doc in ab)
    need = -(-8 * opts.gates // 10)
    held = sum(doc["held"] for doc in aa)
    print(f"\nA/A: {false_regr} key(s) called regressed in {len(aa)} gates (target 0); "
          f"{equivalent} of {keys} keys ({100 * equivalent / max(keys, 1):.0f}%) shown equivalent "
          f"within {opts.tolerance:g}%, {held} held undecided (in the cache a VM shares: "
          f"platperf.compare.shared_cache); gate time median {median_s(aa)}")
    print(f"A/B: the hog caught (a DRAM key regressed) in {caught} of {len(ab)} gates (target >= {need}); "
          f"gate time median {median_s(ab)}")
    failed = false_regr > 0 or caught < need
    print(f"\nsimulation: {opts.trials} gates a case, baseline {opts.base_runs} runs (a session), alpha 0.05 "
          f"(looks at 3, 6, 12, 24, 48, 96 runs, stopped at the first decision; against several "
          f"sessions the new runs count in blocks of 3, each offset by the sessions' drift)")
    for case, rate, nominal in simulated(opts):
        if nominal is None:
            print(f"  {case:72} {100 * rate:5.1f}%  (shown, not a target)")
            continue
        ok = rate <= nominal
        failed |= not ok
        print(f"  {case:72} {100 * rate:5.1f}%  nominal {100 * nominal:.1f}%  {'ok' if ok else 'OVER'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
