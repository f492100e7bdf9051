"""Events counted with every sample (issue 37), on a real kernel's PMU: Debian's arm64 kernel
drives QEMU's emulated Cortex-A57 PMUv3 (``armv8_pmuv3``, 6 event counters and the cycle
counter) on ``vboard_aarch64_events``, a 1-core board started with ``-icount shift=0``
(tests/vboard.py). There each guest instruction is one tick of QEMU's virtual clock, so
INST_RETIRED counts exactly and a known answer exists: the instructions per iteration the
probe counts around each timed loop are the instructions the loop's disassembly holds.

Functional tests only: under emulation no figure is a timing.
"""
from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import require_executable
from test_vboard import is_figure, online, platperf, report_tables, table

ROOT = Path(__file__).resolve().parents[1]

PMU = "/sys/bus/event_source/devices/armv8_pmuv3"


# -- the board's PMU, as the kernel shows it ------------------------------------------------------
def test_the_icount_board_has_a_pmuv3_that_counts_instructions(vboard_aarch64_events):
    """QEMU lists INST_RETIRED in PMCEID0 only with a precise icount: the kernel's events
    directory then names it beside cpu_cycles; the driver found 7 counters (6 + the cycle
    counter). Debian's kernel forbids counting to unprivileged users (paranoid 3); the probe
    runs as root over ssh, which may count."""
    board = vboard_aarch64_events
    events = board.ssh(f"ls {PMU}/events").stdout.split()
    assert events == ["cpu_cycles", "inst_retired"]
    assert board.ssh(f"cat {PMU}/cpus").stdout.strip() == "0"
    boot = board.ssh("dmesg").stdout
    assert re.search(r"enabled with armv8_pmuv3 PMU driver, 7 counters available", boot), boot[-2000:]
    assert board.ssh("cat /proc/sys/kernel/perf_event_paranoid").stdout.strip() == "3"
    assert board.ssh("id -u").stdout.strip() == "0"
    # icount: the guest's virtual clock is the instruction count, not this machine's time.
    assert "-icount" in open(f"/proc/{board.proc.pid}/cmdline").read().split("\0")


def test_probe_info_measures_the_counters_the_kernel_announced(vboard_aarch64_events):
    """platperf-probe info's events counted at once (pinned groups of growing size,
    probe/src/event_count.c) is the kernel's own count: "7 counters available" on QEMU's
    Cortex-A57, the 6 general counters and the cycle counter."""
    board = vboard_aarch64_events
    announced = int(re.search(r"PMU driver, (\d+) counters available", board.ssh("dmesg").stdout).group(1))
    meta = json.loads(board.ssh("platperf-probe info").stdout.splitlines()[0])
    assert meta["pmu_counters"] == [{"pmu": "armv8_pmuv3", "cpu": 0, "at_once": announced}]
    assert announced == 7


# -- the known answer: instructions counted per iteration = instructions in the disassembly ------
OBJDUMP = "aarch64-linux-gnu-objdump"
RUN = ("--cpus", "0", "--samples", "3", "--warmup", "0", "--min-time", "0.002")
# What counting adds to a sample besides the timed loop: the user-space instructions between the
# group's read before the attempt and its read after (the read() wrappers' tails, the counter
# reads, the body's call, the loop function's entry and exit): 115 to 135 with this build, the same
# in every sample; bounded here at OVERHEAD_MAX, so per iteration by OVERHEAD_MAX / iterations.
OVERHEAD_MAX = 400
# The cpu-ops chains' operations per iteration: the OPS_*_UNROLL the kernel divides by
# (tests/probe/test_cpu_ops_disassembly.py checks each body holds that many).
UNROLL = {m.group(1): int(m.group(2)) for m in re.finditer(
    r"#define OPS_(\w+)_UNROLL (\d+)", (ROOT / "probe/src/arch/timed_loops.h").read_text())}
CHAINS = [("int", "add", "ADD"), ("int64", "add", "ADD"), ("int", "bit", "BIT"), ("int64", "bit", "BIT"),
          ("int", "mul", "MUL"), ("int64", "mul", "MUL"), ("int", "div", "DIV"), ("int64", "div", "DIV"),
          ("int", "mod", "MOD"), ("int64", "mod", "MOD"), ("float", "add", "FADD"), ("double", "add", "FADD"),
          ("float", "mul", "FMUL"), ("double", "mul", "FMUL"), ("float", "div", "FDIV"), ("double", "div", "FDIV")]
PEAK_SIZE = 16384


@dataclass(frozen=True)
class Loop:
    """A timed loop with a disassembly contract (tests/probe/test_*_disassembly.py), the probe
    record that times it, and how many of the record's operations (its ``per``) one iteration is."""
    name: str
    benchmark: str
    params: dict
    symbol: str
    per: str
    ops: object                  # operations per iteration: a number, or a function of the body
    callee: str | None = None    # a function each call in the body runs, counted with it
    peak: bool = False           # an outer loop over the buffer closes each pass


def _q_bytes(body):
    """Bytes a peak loop's iteration moves: a q-register pair (ldp / stp q) is 32."""
    return 32 * sum(1 for i in body if re.match(r"(ldp|stp) q\d+, q\d+, \[", i))


LOOPS = [Loop("chase", "mem-latency", {"pattern": "random", "size": 16384, "stride": 64}, "pp_chase_loop",
              "access", lambda body: sum(1 for i in body if i == "ldr x0, [x0]")),
         *(Loop(f"peak-{k}", "mem-bandwidth", {"isa": "neon", "kernel": f"peak-{k}", "size": PEAK_SIZE},
                f"pp_peak_{k}_neon_loop", "byte", _q_bytes, peak=True) for k in ("read", "write", "copy")),
         *(Loop(f"{t} {op} chain", "cpu-ops", {"op": op, "type": t}, f"pp_ops_{t}_{op}_loop", "op", UNROLL[u])
           for t, op, u in CHAINS),
         Loop("proccall", "os-proc", {"op": "proccall"}, "pp_proccall_loop", "operation",
              lambda body: sum(1 for i in body if i.startswith("bl ")), callee="pp_proccall_use_int")]
RUNS = [("mem-latency", "--pattern", "random", "--size", "16k"),
        ("mem-bandwidth", "--kernel", "peak-read,peak-write,peak-copy", "--size", "16k", "--isa", "neon"),
        ("cpu-ops", "--type", "int,int64,float,double", "--op", "add,mul,div,mod,bit"),
        ("os-proc", "--op", "proccall")]


def _instructions(text: str, symbol: str, until, start_after: str | None = None) -> list[str]:
    """``symbol``'s instructions from its label (or from the line after ``start_after`` in it) up
    to and including the first ``until`` accepts, across the labels inside (the latency loop's
    _work), objdump's comments folded away; nops count."""
    at = text.index(f"<{symbol}>:\n")
    if start_after is not None:
        at = text.index(start_after, at)
    out = []
    for line in text[at:].splitlines()[1:5000]:
        m = re.match(r"^\s+[0-9a-f]+:\s+(.*?)\s*$", line)
        if not m:
            continue        # a blank line, or the next label's "<name>:" line
        out.append(re.sub(r"\s*//.*$", "", re.sub(r"\s+", " ", m.group(1))))
        if until(out[-1]):
            return out
    raise AssertionError(f"{symbol}: no end found in its disassembly")


def known_answer(text: str, loop: Loop, iterations: int) -> tuple[int, float, float]:
    """(instructions in one iteration, iterations in the sample, instructions the sample's
    iterations retire), all read from the disassembly and the record's ``iterations``: the body
    up to its branch back to the head; each call's callee up to its ret; a peak loop's outer
    part (after the inner branch back, up to the outer one) once a pass over the buffer."""
    back = re.compile(rf"^b\S* [0-9a-f]+ <{loop.symbol}>$")
    body = _instructions(text, loop.symbol, back.match)
    n = len(body)
    if loop.callee:
        n += sum(1 for i in body if i.startswith("bl ")) * len(_instructions(text, loop.callee, "ret".__eq__))
    ops = loop.ops(body) if callable(loop.ops) else loop.ops
    loops = iterations / ops
    retired = loops * n
    if loop.peak:
        inner_end = re.search(rf"\n\s+([0-9a-f]+):\s+b\.\w+\s+[0-9a-f]+ <{loop.symbol}>", text).group(1)
        outer = _instructions(text, loop.symbol, back.match, start_after=f" {inner_end}:")
        advance = int(re.search(r"add x4, x4, #(0x[0-9a-f]+)", " ".join(body)).group(1), 16)
        retired += loops / (PEAK_SIZE / advance) * len(outer)
    return n, loops, retired


@pytest.fixture(scope="module")
def counted(vboard_aarch64_events):
    """Each run of RUNS on the board with --events cycles,instructions,l1d: its records, and
    the disassembly of the very probe the board runs."""
    from platperf.probe_path import find_probe
    board = vboard_aarch64_events
    probe = find_probe("aarch64")
    local = subprocess.run(["sha256sum", str(probe)], capture_output=True, text=True, check=True).stdout.split()[0]
    assert board.ssh("sha256sum /usr/bin/platperf-probe").stdout.split()[0] == local
    text = subprocess.run([require_executable(OBJDUMP, "Debian binutils-aarch64-linux-gnu; make deps"), "-d",
                           "--no-show-raw-insn", str(probe)], check=True, capture_output=True, text=True).stdout
    records = []
    for argv in RUNS:
        done = board.ssh(" ".join(["platperf-probe", "run", *argv, *RUN, "--events", "cycles,instructions,l1d"]),
                         timeout=600)
        assert done.returncode == 0, done.stderr
        records += [json.loads(line) for line in done.stdout.splitlines()]
    return records, text


def _record(records, loop: Loop) -> dict:
    found = [r for r in records if r["type"] == "result" and r["benchmark"] == loop.benchmark
             and r["params"] == loop.params]
    assert found, f"no {loop.benchmark} {loop.params} record"
    return found[0]


def test_cycles_count_and_l1d_is_said_missing_not_invented(counted):
    """QEMU's PMU has no L1D_CACHE: one events-unavailable warning names it; CPU_CYCLES counts."""
    records, _ = counted
    unavailable = [r for r in records if r["type"] == "warning" and r["code"] == "events-unavailable"]
    assert len(unavailable) == len(RUNS) and all("l1d" in w["message"] for w in unavailable)
    results = [r for r in records if r["type"] == "result"]
    assert len(results) >= len(LOOPS)
    for r in results:
        names = [c["name"] for c in r["events"]["counters"]]
        assert names == ["cycles", "instructions"], names
        cycles = r["events"]["counters"][0]
        assert cycles["event"] == "CPU_CYCLES" and all(c > 0 for c in cycles["counts"])


@pytest.mark.parametrize("loop", LOOPS, ids=[loop.name for loop in LOOPS])
def test_instructions_per_iteration_are_the_disassemblys(counted, loop):
    """INST_RETIRED / iterations, as instructions per loop iteration, is the body's instruction
    count from objdump: within OVERHEAD_MAX instructions a sample, never under it."""
    records, text = counted
    rec = _record(records, loop)
    assert rec["events"]["per"] == loop.per
    counter = [c for c in rec["events"]["counters"] if c["name"] == "instructions"][0]
    assert counter["event"] == "INST_RETIRED" and counter["running_ns"] == counter["enabled_ns"]
    n, loops, retired = known_answer(text, loop, rec["iterations"])
    for count in counter["counts"]:
        assert 0 <= count - retired <= OVERHEAD_MAX, (loop.name, n, count, retired)
    per_iteration = counter["counts"][0] / loops
    print(f"known answer | {loop.name} | {per_iteration:.4f} counted per iteration | {n} in the disassembly "
          f"| {counter['counts'][0] - retired:.0f} instructions of counting a sample")
    assert n <= per_iteration <= n + (retired - loops * n + OVERHEAD_MAX) / loops


def test_the_latency_loop_retires_its_fast_path_per_pass(vboard_aarch64_events, counted):
    """latency-loop plain counts its whole loop as one sample, per pass: each pass is the
    fast path objdump shows (counter read, delta, exact[delta]++, the branch back), 11
    instructions; a pass an interrupt lengthened takes the slow path's bookkeeping, a few in
    a million: at most 0.01 instruction a pass more."""
    _, text = counted
    done = vboard_aarch64_events.ssh("platperf-probe run latency-loop --cpus 0 --variant plain --duration 0.01 "
                                     "--events instructions", timeout=600)
    assert done.returncode == 0, done.stderr
    rec = [r for r in map(json.loads, done.stdout.splitlines()) if r.get("metric") == "latency_max"][0]
    assert rec["events"]["per"] == "pass" and rec["iterations"] > 100000
    symbol = "latency_loop_plain_loop"
    n = len(_instructions(text, symbol, re.compile(rf"^b\S* [0-9a-f]+ <{symbol}>$").match))
    (count,) = rec["events"]["counters"][0]["counts"]
    print(f"known answer | latency-loop plain | {count / rec['iterations']:.4f} counted per pass | {n} in the "
          f"disassembly")
    assert n <= count / rec["iterations"] <= n + 0.01


def test_more_events_than_counters_take_turns_and_are_kept_as_counted(vboard_aarch64_events, counted):
    """Nine counters on the A57's seven (the cycle counter and six): the probe says the groups
    took turns, each sample's running_ns < enabled_ns is kept, and the counts are what ran
    (fewer instructions than the sample retired), never scaled up to the whole sample."""
    records, text = counted
    done = vboard_aarch64_events.ssh(" ".join(["platperf-probe", "run", *RUNS[0], *RUN, "--events",
                                               "cycles,instructions,r01,r02,r03,r04,r05,r06,r07"]), timeout=600)
    assert done.returncode == 0, done.stderr
    out = [json.loads(line) for line in done.stdout.splitlines()]
    said = [r for r in out if r["type"] == "warning" and r["code"] == "events-multiplexed"]
    assert len(said) == 1 and said[0]["message"].startswith("9 counters on 7")
    rec = _record(out, LOOPS[0])
    counter = [c for c in rec["events"]["counters"] if c["name"] == "instructions"][0]
    _, _, retired = known_answer(text, LOOPS[0], rec["iterations"])
    partial = [(n, e, r) for n, e, r in zip(counter["counts"], counter["enabled_ns"], counter["running_ns"]) if r < e]
    assert partial, counter
    for count, enabled, running in partial:
        # about the share of the sample it ran (the times are the kernel's clock, the count the
        # user-space instructions: 2% apart at most here); scaled, it would be the whole sample's
        assert count <= retired * running / enabled * 1.02 + OVERHEAD_MAX
        if running < 0.9 * enabled:
            assert count < 0.95 * retired


def test_a_run_stores_instructions_per_access_as_the_disassembly_says(vboard_aarch64_events, counted, tmp_path):
    """platperf run --events over ssh: the chase's INST_RETIRED stored per access (18 / 16 from
    the disassembly) beside its latency, CPU_CYCLES per access too, no l1d figure."""
    from platperf.store import Store
    _, text = counted
    board = vboard_aarch64_events
    (tmp_path / "chase.toml").write_text('[[bench]]\nkernel = "mem-latency"\npattern = "random"\nsize = "16k"\n'
                                         'samples = 3\nwarmup = 0\nmin_time = 0.002\n')
    done = platperf(board, "run", "--suite", "chase.toml", "--target", f"ssh://{board.alias}", "--events",
                    "cycles,instructions,l1d", "--db", "e.db", "--label", "icount", "--json", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    store = Store(str(tmp_path / "e.db"))
    results = {r.metric: r for r in store.results(store.run("icount")["id"])}
    assert {"instructions_per_access", "cycles_per_access"} <= set(results) and "l1d_per_access" not in results
    inst = results["instructions_per_access"]
    assert inst.unit == "instructions/access" and inst.extra["event"] == "INST_RETIRED"
    n, loops, _ = known_answer(text, LOOPS[0], inst.extra["iterations"])
    ops = inst.extra["iterations"] / loops
    for per_access in inst.samples:
        assert n / ops <= per_access <= (n + OVERHEAD_MAX / loops) / ops


PEAK_SUITE = ('[[bench]]\nkernel = "mem-bandwidth"\nparams = { kernel = ["peak-read", "peak-write", "peak-copy"], '
              'isa = "neon" }\nsize = "16k"\nsamples = 3\nwarmup = 0\nmin_time = 0.002\n')


def peak_run(board, tmp_path, events: str, label: str):
    """(store, run) of `platperf run` of PEAK_SUITE on ``board`` counting ``events``."""
    from platperf.store import Store
    (tmp_path / "peak.toml").write_text(PEAK_SUITE)
    done = platperf(board, "run", "--suite", "peak.toml", "--target", f"ssh://{board.alias}", "--events",
                    events, "--db", "p.db", "--label", label, "--json", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    store = Store(str(tmp_path / "p.db"))
    return store, store.run(label)


def test_the_peak_loops_write_the_instructions_their_code_holds_and_the_claim_holds(vboard_aarch64_events,
                                                                                   counted, tmp_path):
    """The probe's `expected` instructions per byte of each NEON peak loop (from peak.S's own
    addresses, probe/src/kernels/bw_claim.c; tests/probe/test_peak_shape.py) is the
    disassembly's known answer within 0.1%, and only the instructions counter carries one here
    (QEMU has no L1D_CACHE). `platperf run` on the board stores each with its expected and
    checks INST_RETIRED against it: the three claims hold, no bad finding."""
    records, text = counted
    peaks = [lp for lp in LOOPS if lp.peak]
    for loop in peaks:
        rec = _record(records, loop)
        by_name = {c["name"]: c for c in rec["events"]["counters"]}
        _, _, retired = known_answer(text, loop, rec["iterations"])
        assert by_name["instructions"]["expected"] == pytest.approx(retired / rec["iterations"], rel=1e-3), loop.name
        assert "expected" not in by_name["cycles"]
        print(f"expected | {loop.name} | {by_name['instructions']['expected']:.6g} instructions per byte | known "
              f"answer {retired / rec['iterations']:.6g} | counted {by_name['instructions']['counts'][0] / rec['iterations']:.6g}")
    store, run = peak_run(vboard_aarch64_events, tmp_path, "instructions", "peak")
    stored = {r.params["kernel"]: r for r in store.results(run["id"]) if r.metric == "instructions_per_byte"}
    assert sorted(stored) == ["peak-copy", "peak-read", "peak-write"]
    for loop in peaks:
        r = stored[loop.params["kernel"]]
        _, _, retired = known_answer(text, loop, r.extra["iterations"])
        assert r.extra["expected"] == pytest.approx(retired / r.extra["iterations"], rel=1e-3)
        for per_byte in r.samples:     # the loop's own, and what counting adds: a few hundred a sample
            assert 0 <= per_byte - r.extra["expected"] <= OVERHEAD_MAX / r.extra["iterations"] + 1e-3 * per_byte
        print(f"run | {loop.name} | expected {r.extra['expected']:.6g} | counted {r.samples[0]:.6g} | "
              f"{r.samples[0] / r.extra['expected'] - 1:+.4%}")
    claims = [f for f in run["findings"] if f["code"].startswith(("claim-", "kernel-claims"))]
    assert [(f["level"], f["code"], f["message"]) for f in claims] == [
        ("ok", "kernel-claims-hold", "3 kernel claims checked against counted events: all hold")], claims
    assert not [f for f in run["findings"] if f["level"] == "bad"]


# -- interference with events: the victim's counts per pass in the study's table -----------------
def test_interference_stores_the_victims_counts_per_pass_and_shows_them_as_columns(vboard_aarch64, tmp_path):
    """The 4-core board (multi-threaded TCG: its PMU lists cpu_cycles only) with a way_hammer
    on CPU 2: each cell stores the victim's CPU_CYCLES per pass beside its latencies; l2d and
    llc, which QEMU's PMU lacks, are said not counted, and no DSU PMU is counted."""
    from platperf.store import Store
    board = vboard_aarch64
    done = platperf(board, "interference", "--target", "ssh://vboard-aarch64", "--victim", "3",
                    "--aggressors", "2", "--patterns", "none,way_hammer", "--loops", "plain",
                    "--duration", "0.2", "--events", "cycles,l2d,llc", "--db", "i.db", "--label", "ev",
                    "--json", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1])["cells"] == 2
    store = Store(str(tmp_path / "i.db"))
    results = store.results(store.run("ev")["id"])
    cycles = {r.params["pattern"]: r for r in results if r.metric == "cycles_per_pass"}
    assert sorted(cycles) == ["none", "way_hammer"]
    for pattern, r in cycles.items():
        assert (r.unit, r.cpu, r.extra["event"], r.extra["per"]) == ("cycles/pass", 3, "CPU_CYCLES", "pass")
        # per pass: the cell's count over the passes its latency figures are made of
        passes = [x for x in results if x.metric == "latency_max" and x.params["pattern"] == pattern][0]
        assert r.extra["iterations"] == passes.extra["iterations"] > 0
        assert r.extra["counts"][0] > 0
        assert r.samples == [c / r.extra["iterations"] for c in r.extra["counts"]]
    assert not [r for r in results if r.metric.startswith(("l2d", "llc"))]
    main = table(report_tables(board, "ev", "i.db", tmp_path), "Mitigation results")
    assert main["headers"] == ["Applied Mitigation", "Maximum Latency", "Minimum Latency", "CPU_CYCLES per pass"]
    assert len(main["rows"]) == 2 and all(is_figure(row[3]) and float(row[3]) > 0 for row in main["rows"])
    text = platperf(board, "report", "ev", "--db", "i.db", "--format", "md", cwd=tmp_path, timeout=120)
    said = text.stdout.replace("\\", "")          # Markdown's escapes of _ and *
    assert "not counted on this board: l2d, llc" in said, text.stderr
    assert "no DSU PMU (arm_dsu_*) counted" in said
    assert online(board) == "0-3"
