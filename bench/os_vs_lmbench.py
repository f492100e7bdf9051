"""platperf's OS kernels against LMBench 3: every OS row of TI's table, same CPU, one run.

LMBench is built from its source in /tmp (never part of platperf): give its checkout with
--lmbench-src (default /tmp/lmbench3; e.g. `git clone https://github.com/intel/lmbench
/tmp/lmbench3`). Its programs are compiled directly with gcc, the SunRPC parts stubbed out
(lat_rpc is not measured), with the flags of its own Makefile (CFLAGS=-O: src/Makefile's
build, results and opt targets) and linked with -lm as it links them (hello too). Built -O2,
gcc folds lat_ctx's malloc + bzero in doit() into calloc, glibc's calloc leaves a fresh
mapping unwritten, and the ring's forked processes sum the kernel's one zero page instead of
working sets of their own (issue 40: platperf 1.3-4.6x "LMBench" at 128-256 KiB on a Xeon);
lat_ctx is also run built -O2, for that table only.

Per round, per LMBench program call, the two tools run back to back on the same CPU
(`taskset -c CPU` for LMBench, `--cpus CPU` for the probe), which one goes first
alternating from round to round; the figure per row and tool is the median over the rounds,
with the spread (max / min over the rounds) printed beside it. LMBench runs with its fixed
repetition options (-N ROUNDS_REPS, -W 1 where the program has them) and ENOUGH=5000 in its
environment, the timing interval its own `config-run` would otherwise spend ~34 s per call
finding (lib_timing.c compute_enough); the probe runs --samples 7 --min-time 0.005, the same
5 ms intervals. Three extra rows are not TI's: lat_proc-exec/shell with the probe exec'ing
LMBench's own hello (--program), and a third, independent timing of the lat_syscall rows:
a C loop built here in /tmp (clock_gettime around 5 ms of calls, median of 7), the referee
when the two tools disagree.

Prints per row: LMBench, platperf, platperf / LMBench, the referee where there is one, and
whether the row is within +-10 % or why not. A reason is only what this run measured: rounds
that stalled (at least 5x the row's fastest), whether the rounds' spread covers the ratio,
and what the run measured beside the row: a fork C loop
built dynamic with libm (as LMBench) and static (as the probe), the exec of LMBench's own
hello, lat_ctx's hop before each tool subtracted its overhead (and the ratio with LMBench's
overhead taken from platperf's hop: when the hops agree within 10 %, the difference is the
overheads). Then each lat_ctx point from LMBench, LMBench built -O2, platperf and a third,
independent ring (bench/os_vs_lmbench_ctx_referee.c) with the working sets written and with
the forked processes' left unwritten; proccall in core cycles; the lat_ctx overheads each
tool subtracted, and both wall times. --probe-before PATH also runs another probe build (the
commit before a change) in the same rounds: a column and its count of rows within 10 %.
Both tools get the same input: LMBench's files are written again just before each call in
64 KiB writes, as the probe writes its scratch file just before it measures (lat_pagefault
per page depends 20x on how its file was written: the script prints it on a file written in
one write() and on one written as LMBench's own script writes it, lmdd's 8 KiB writes); both
tools' lat_fs rows create files in a tmpfs (--fs-dir, default /dev/shm); lat_connect's two
servers run on another CPU than their clients (LMBench's `-s` under taskset, the probe's
--peer-cpu): on the client's CPU LMBench's accept queue of 100 overflows in every call here
and each dropped SYN is a 1 s retransmission inside its figure. The script counts the SYNs
the kernel dropped at a listener in each lat_connect call (TcpExt ListenDrops), runs such a
call again at most twice, and says so.
The first line names the CPU. Takes ~15 min at 3 rounds on a 2-CPU VM. Run under the
heavy-work lock:
  flock /tmp/heavy.lock .venv/bin/python bench/os_vs_lmbench.py [--cpu N] [--rounds 3] [--rows REGEX]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from bench_cpu import cpu_line  # noqa: E402
from os_vs_lmbench_report import LM_O2, LMDD, ONE_WRITE, REF_UNTOUCHED, REF_WRITTEN, Tally, report  # noqa: E402
from platperf.probe_path import ProbeNotFound, find_probe  # noqa: E402
from platperf.vocab.lmbench import LAT_CTX_PROCS, LAT_CTX_SIZES_K, LMBENCH_OS_ROWS  # noqa: E402

PROGRAMS = ("lat_syscall lat_sig lat_pipe lat_unix lat_tcp lat_connect lat_select lat_sem lat_ctx lat_proc "
            "lat_pagefault lat_mmap lat_fs bw_file_rd bw_mmap_rd bw_pipe bw_unix hello lmdd").split()
LIBS = "lib_tcp.c lib_udp.c lib_unix.c lib_timing.c lib_mem.c lib_stats.c lib_debug.c getopt.c lib_sched.c".split()
PMAP_STUB = """int pmap_set(unsigned long a, unsigned long b, int c, unsigned short d) { return 1; }
int pmap_unset(unsigned long a, unsigned long b) { return 1; }
unsigned short pmap_getport(void *a, unsigned long b, unsigned long c, unsigned int d) { return 0; }
"""
ENOUGH_US = 5000          # LMBench's timing interval (us), as the probe's --min-time 0.005
CHUNK = 64 << 10          # the probe writes its scratch files in 64 KiB writes (scratch.c)
REPS = 7                  # LMBench -N, the probe --samples
DROP_RETRIES = 2          # lat_connect: a call with dropped SYNs is run again, at most this many times
CFLAGS = ["-O"]           # LMBench's src/Makefile: `env CFLAGS=-O ... ../scripts/build all`

# The referees (our own code): the lat_syscall calls in a plain loop timed with clock_gettime,
# and a lat_ctx ring whose working sets are written or not.
REFEREE_C = Path(__file__).resolve().with_name("os_vs_lmbench_referee.c")
CTX_REFEREE_C = Path(__file__).resolve().with_name("os_vs_lmbench_ctx_referee.c")


def build_lmbench(src: Path, out: Path) -> Path:
    stub = out / "stub"
    (stub / "rpc").mkdir(parents=True, exist_ok=True)
    for h in ("rpc.h", "types.h"):
        (stub / "rpc" / h).write_text("")
    (stub / "pmap_stub.c").write_text(PMAP_STUB)
    bin_dir = out / "bin"
    bin_dir.mkdir(exist_ok=True)
    for prog, flags in [(p, CFLAGS) for p in PROGRAMS] + [("lat_ctx-O2", ["-O2"])]:
        target = bin_dir / prog
        if target.exists():
            continue
        subprocess.run(["gcc", *flags, "-w", "-fcommon", f"-I{stub}", "-D_GNU_SOURCE", "-o", str(target),
                        f"{prog.split('-')[0]}.c", *LIBS, str(stub / "pmap_stub.c"), "-lm"], cwd=src / "src",
                       check=True)
    for name, flags, source in (("syscall-referee", [], REFEREE_C), ("syscall-referee-static", ["-static"], REFEREE_C),
                                ("ctx-referee", [], CTX_REFEREE_C)):
        subprocess.run(["gcc", "-O2", *flags, "-o", str(out / name), str(source), "-lm"], check=True)
    return bin_dir


def last_number(text: str) -> float | None:
    m = re.findall(r"([0-9.]+) (?:microseconds|MB/sec)", text)
    if m:
        return float(m[-1])
    lines = [ln for ln in text.splitlines() if ln.strip()]
    nums = re.findall(r"[0-9]+(?:\.[0-9]+)?", lines[-1]) if lines else []
    return float(nums[-1]) if nums else None


@dataclass
class Group:
    """One LMBench program call and the probe run that measures the same rows."""
    rows: list[str]
    lm_prog: str
    lm_args: list[str]
    kernel: str
    probe_args: list[str]
    lm_opts: list[str] = field(default_factory=lambda: ["-N", str(REPS), "-W", "1"])
    server: bool = False                 # lat_tcp / lat_connect: start `-s`, stop `-S localhost`
    # lat_connect: a call whose SYNs the kernel dropped (TcpExt ListenDrops: the accept queue
    # was full) waited 1 s for each retransmission: not connection cost; the call is run again
    count_drops: bool = False
    # lat_connect: both servers on another CPU (LMBench's -s under taskset, the probe's --peer-cpu):
    # on the client's CPU, LMBench's accept queue of 100 overflows in every call here
    peer: bool = False
    referee: str | None = None           # lat_syscall op for the C loop
    # more LMBench calls in the same round, each (what it measures, its arguments): their
    # figures are the row's measured reason (lat_pagefault on a file written as the probe's)
    lm_also: list[tuple[str, list[str]]] = field(default_factory=list)
    # the C loop's op, built dynamic (with libm, as LMBench) and static (as the probe): the
    # measured reason of a row whose figure depends on the program (lat_proc-fork)
    program_referee: str | None = None
    ctx_size: int | None = None          # lat_ctx: the working set (bytes), for the referee ring
    probe_dir: str | None = None         # the probe's --dir, where not the run's work directory (lat_fs)


def groups(files: dict[str, Path], fs_dir: Path) -> list[Group]:
    f4k, f1m, f8m = str(files["4k"]), str(files["1m"]), str(files["8m"])
    g = [Group([f"lat_syscall-{op}"], "lat_syscall", [op, f4k], "os-syscall", ["--op", op], referee=op)
         for op in ("null", "read", "write", "stat", "fstat", "open")]
    g += [Group(["lat_sig-install"], "lat_sig", ["install"], "os-signal", ["--op", "install"]),
          Group(["lat_sig-catch"], "lat_sig", ["catch"], "os-signal", ["--op", "catch"]),
          Group(["lat_sig-prot"], "lat_sig", ["prot", f1m], "os-signal", ["--op", "prot"])]
    g += [Group([row], row, [], "os-ipc", ["--kind", kind])
          for row, kind in (("lat_pipe", "pipe"), ("lat_unix", "unix"), ("lat_sem", "sem"))]
    g += [Group(["lat_tcp"], "lat_tcp", ["localhost"], "os-ipc", ["--kind", "tcp"], server=True),
          Group(["lat_connect"], "lat_connect", ["localhost"], "os-ipc", ["--kind", "connect"],
                lm_opts=["-N", str(REPS)], server=True, count_drops=True, peer=True),
          Group(["lat_select"], "lat_select", ["-n", "200", "tcp"], "os-ipc", ["--kind", "select-tcp"])]
    procs = ",".join(map(str, LAT_CTX_PROCS))
    g += [Group([f"lat_ctx-{p}-{s}k" for p in LAT_CTX_PROCS], "lat_ctx", ["-s", str(s), *map(str, LAT_CTX_PROCS)],
                "os-ctx", ["--procs", procs, "--size", f"{s}k"], ctx_size=s << 10) for s in LAT_CTX_SIZES_K]
    g += [Group([f"lat_proc-{op}"], "lat_proc", [lm_op], "os-proc", ["--op", op],
                program_referee="fork" if op == "fork" else None)
          for op, lm_op in (("fork", "fork"), ("exec", "exec"), ("shell", "shell"), ("proccall", "procedure"))]
    # not TI's: the probe exec'ing LMBench's own program, to separate the program from the method
    g += [Group([f"lat_proc-{op}@hello"], "lat_proc", [op], "os-proc", ["--op", op, "--program", "/tmp/hello"])
          for op in ("exec", "shell")]
    g += [Group(["lat_pagefault"], "lat_pagefault", [f8m], "os-pagefault", ["--size", "8m"],
                lm_also=[(ONE_WRITE, [str(files["8m-one-write"])]), (LMDD, [str(files["8m-lmdd"])])]),
          Group(["lat_mmap-1m"], "lat_mmap", ["1m", f1m], "os-mmap", []),
          Group([f"lat_fs-{s}k" for s in (0, 1, 4, 10)], "lat_fs", [str(fs_dir)], "os-fs", [],
                probe_dir=str(fs_dir))]
    g += [Group([row], prog, ["1m", mode, f1m], "os-file-read", ["--method", method, "--scope", scope])
          for row, prog, mode, method, scope in (
              ("bw_file_rd-io-1mb", "bw_file_rd", "io_only", "read", "io"),
              ("bw_file_rd-o2c-1mb", "bw_file_rd", "open2close", "read", "o2c"),
              ("bw_mmap_rd-mo-1mb", "bw_mmap_rd", "mmap_only", "mmap", "io"),
              ("bw_mmap_rd-o2c-1mb", "bw_mmap_rd", "open2close", "mmap", "o2c"))]
    g += [Group([row], row, [], "os-ipc-bw", ["--kind", kind]) for row, kind in (("bw_pipe", "pipe"),
                                                                               ("bw_unix", "unix"))]
    return g


class Runner:
    def __init__(self, bin_dir: Path, probe: Path, cpu: int, work: Path, log: str | None, before: Path | None,
                 files: list[Path]):
        self.bin, self.probe, self.cpu, self.work, self.log_file = bin_dir, probe, cpu, work, log
        self.files = files                 # rewritten before each LMBench call that names one
        self.peer_cpu = next(c for c in sorted(os.sched_getaffinity(0)) if c != cpu)   # Group.peer's servers
        self.before = before
        self.env = {**os.environ, "ENOUGH": str(ENOUGH_US)}
        self.keys = {(b, json.dumps(p, sort_keys=True), m): name for name, b, p, m, _ in LMBENCH_OS_ROWS}

    def log(self, argv, text: str) -> None:
        if self.log_file:
            with open(self.log_file, "a") as f:
                f.write(f"$ {' '.join(map(str, argv))}\n{text}\n")

    def lmbench(self, grp: Group, t: Tally) -> None:
        argv = ["taskset", "-c", str(self.cpu), str(self.bin / grp.lm_prog), *grp.lm_opts, *grp.lm_args]
        t0 = time.monotonic()
        for _ in range(1 + DROP_RETRIES * grp.count_drops):
            self.rewrite(grp.lm_args)
            drops = listen_drops()
            proc = self.call(grp, argv)
            drops = listen_drops() - drops
            if grp.count_drops:
                t.drops.setdefault(grp.rows[0], {}).setdefault("LMBench", []).append(drops)
            if not drops or not grp.count_drops:
                break
        t.lm_wall += time.monotonic() - t0
        text = proc.stdout + proc.stderr
        self.log(argv, text)
        if grp.lm_prog == "lat_ctx":
            m = re.search(r"size=(\d+)k ovr=([0-9.]+)", text)
            if m:
                t.lm_ovr.setdefault(f"{m.group(1)}k", []).append(float(m.group(2)))
            for row, v in ctx_points(text, grp.rows).items():
                t.lm.setdefault(row, []).append(v)
            # the same source built -O2: its forked processes' working sets are the zero page
            o2 = ["taskset", "-c", str(self.cpu), str(self.bin / "lat_ctx-O2"), *grp.lm_opts, *grp.lm_args]
            proc = subprocess.run(o2, capture_output=True, text=True, cwd=self.work, env=self.env, timeout=900)
            self.log(o2, proc.stdout + proc.stderr)
            for row, v in ctx_points(proc.stdout + proc.stderr, grp.rows).items():
                t.ctx.setdefault(row, {}).setdefault(LM_O2, []).append(v)
        elif grp.lm_prog == "lat_fs":
            for row in grp.rows:
                m = re.search(rf"^{row.split('-')[1]}\s+\d+\s+([0-9.]+)", text, re.MULTILINE)
                if m:
                    t.lm.setdefault(row, []).append(float(m.group(1)))
        else:
            v = last_number(text)
            if v is not None:
                t.lm.setdefault(grp.rows[0], []).append(v)
        for label, args in grp.lm_also:
            also = ["taskset", "-c", str(self.cpu), str(self.bin / grp.lm_prog), *grp.lm_opts, *args]
            proc = subprocess.run(also, capture_output=True, text=True, cwd=self.work, env=self.env, timeout=900)
            self.log(also, proc.stdout + proc.stderr)
            v = last_number(proc.stdout + proc.stderr)
            if v is not None:
                t.side.setdefault(grp.rows[0], {}).setdefault(label, []).append(v)

    def call(self, grp: Group, argv: list[str]) -> subprocess.CompletedProcess:
        server = None
        try:
            if grp.server:
                # the server forks itself into the background: its own session, so it can be ended by id
                where = self.peer_cpu if grp.peer else self.cpu
                server = subprocess.Popen(["taskset", "-c", str(where), str(self.bin / grp.lm_prog), "-s"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.work,
                                          env=self.env, start_new_session=True)
                server.wait(timeout=30)
                time.sleep(0.2)
            return subprocess.run(argv, capture_output=True, text=True, cwd=self.work, env=self.env, timeout=900)
        finally:
            if server is not None:
                subprocess.run([str(self.bin / grp.lm_prog), "-S", "localhost"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=30, cwd=self.work, env=self.env)
                try:
                    os.killpg(server.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def rewrite(self, args: list[str]) -> None:
        """LMBench's files written again just before its call, in 64 KiB writes, as the probe
        writes its scratch file just before it measures: the page cache holds the same folios
        for both (a file written in one write() faults 9-20x faster a page here)."""
        for path in self.files:
            if str(path) in args:
                write_file(path, os.urandom(path.stat().st_size), CHUNK)

    def platperf(self, grp: Group, t: Tally) -> None:
        self.run_probe(self.probe, grp, t, t.pp)

    def platperf_before(self, grp: Group, t: Tally) -> None:
        if self.before:
            self.run_probe(self.before, grp, t, t.pp_before)

    def run_probe(self, probe: Path, grp: Group, t: Tally, into: dict[str, list[float]]) -> None:
        argv = [str(probe), "run", grp.kernel, *grp.probe_args, "--cpus", str(self.cpu), "--samples", str(REPS),
                "--min-time", str(ENOUGH_US / 1e6), "--dir", grp.probe_dir or str(self.work),
                *(["--peer-cpu", str(self.peer_cpu)] if grp.peer else [])]
        t0 = time.monotonic()
        drops = listen_drops()
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=900)
        if grp.count_drops and into is t.pp:
            t.drops.setdefault(grp.rows[0], {}).setdefault("platperf", []).append(listen_drops() - drops)
        if into is t.pp:
            t.pp_wall += time.monotonic() - t0
        if proc.returncode != 0:
            print(f"platperf failed ({proc.returncode}): {' '.join(argv)}: {proc.stderr.strip()}", file=sys.stderr)
        out = proc.stdout
        for line in out.splitlines():
            rec = json.loads(line)
            if rec["type"] == "warning" and rec.get("code") == "os-unsupported":
                self.log(argv, rec["message"])
            if rec["type"] != "result":
                continue
            params = dict(rec["params"])
            program = params.pop("program", None)
            params.pop("peer_cpu", None)        # lat_connect's server on the peer CPU (Group.peer)
            name = self.keys.get((rec["benchmark"], json.dumps(params, sort_keys=True), rec["metric"]))
            if name and program:
                name += "@hello"
            if name in grp.rows:
                into.setdefault(name, []).append(rec["summary"]["median"])
                if into is t.pp and rec.get("core_clock"):   # proccall: us a call -> core cycles
                    t.cycles.setdefault(name, []).append(rec["summary"]["median"] * 1e-6 * rec["core_clock"]["hz"])
                if into is t.pp and rec["benchmark"] == "os-ctx":
                    t.pp_ovr.setdefault(f"{rec['params']['size'] // 1024}k-{rec['params']['procs']}",
                                        []).append(rec["overhead_subtracted"])

    def c_loop(self, program: str, op: str, f4k: Path) -> float | None:
        argv = ["taskset", "-c", str(self.cpu), str(self.bin.parent / program), op, str(f4k)]
        out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        self.log(argv, out.stdout + out.stderr)
        return float(out.stdout) if out.returncode == 0 else None

    def referee(self, grp: Group, t: Tally, f4k: Path) -> None:
        if grp.referee and (v := self.c_loop("syscall-referee", grp.referee, f4k)) is not None:
            t.ref.setdefault(grp.rows[0], []).append(v)
        for label, program in ((f"C loop {grp.program_referee}, dynamic with libm", "syscall-referee"),
                               (f"C loop {grp.program_referee}, static", "syscall-referee-static")):
            if grp.program_referee and (v := self.c_loop(program, grp.program_referee, f4k)) is not None:
                t.side.setdefault(grp.rows[0], {}).setdefault(label, []).append(v)
        for row in grp.rows if grp.ctx_size is not None else []:
            for label, mode in ((REF_WRITTEN, "written"), (REF_UNTOUCHED, "untouched")):
                argv = ["taskset", "-c", str(self.cpu), str(self.bin.parent / "ctx-referee"), row.split("-")[1],
                        str(grp.ctx_size), mode]
                out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
                self.log(argv, out.stdout + out.stderr)
                if out.returncode == 0:     # hop, overhead, hop - overhead (us)
                    t.ctx.setdefault(row, {}).setdefault(label, []).append(float(out.stdout.split()[2]))


def listen_drops() -> int:
    """The kernel's count of SYNs dropped at a listener (TcpExt ListenDrops, /proc/net/netstat):
    each one a connect() that waits for its SYN's retransmission, 1 s on Linux."""
    lines = [ln.split() for ln in Path("/proc/net/netstat").read_text().splitlines() if ln.startswith("TcpExt:")]
    return int(dict(zip(lines[0], lines[1]))["ListenDrops"])


def ctx_points(text: str, rows: list[str]) -> dict[str, float]:
    """lat_ctx's output: one "P figure" line per process count (none for a negative point)."""
    found = {}
    for row in rows:
        m = re.search(rf"^{row.split('-')[1]} ([0-9.]+)$", text, re.MULTILINE)
        if m:
            found[row] = float(m.group(1))
    return found


def write_file(path: Path, data: bytes, chunk: int) -> None:
    """``data`` in writes of ``chunk`` bytes: LMBench's files in one write, the probe's in 64 KiB
    ones, and the file's page-cache layout follows (lat_pagefault's row)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view[:chunk]):]
    finally:
        os.close(fd)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpu", type=int, default=os.cpu_count() - 1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--lmbench-src", type=Path, default=Path("/tmp/lmbench3"))
    ap.add_argument("--rows", default="", help="only rows matching this regular expression")
    ap.add_argument("--log", help="append every command's raw output here")
    ap.add_argument("--fs-dir", default="/dev/shm",
                    help="where both tools' lat_fs rows create files (default: a tmpfs, /dev/shm)")
    ap.add_argument("--probe-before", type=Path, help="another probe build run in the same rounds (a column)")
    opts = ap.parse_args()
    if not (opts.lmbench_src / "src" / "lat_syscall.c").exists():
        print(f"no LMBench 3 source in {opts.lmbench_src}: clone it there first, e.g. "
              f"git clone https://github.com/intel/lmbench {opts.lmbench_src}", file=sys.stderr)
        return 2
    try:
        probe = find_probe()
    except ProbeNotFound as exc:
        print(exc, file=sys.stderr)
        return 2
    bin_dir = build_lmbench(opts.lmbench_src, Path("/tmp/lmbench3-build" + "".join(CFLAGS)))
    t = Tally()
    with tempfile.TemporaryDirectory(prefix="os-vs-lmbench-") as tmp:
        work = Path(tmp)
        files = {"4k": work / "file-4k", "1m": work / "file-1m", "8m": work / "file-8m",
                 "8m-one-write": work / "file-8m-one-write", "8m-lmdd": work / "file-8m-lmdd"}
        for name, size in (("4k", 4096), ("1m", 1 << 20), ("8m", 8 << 20), ("8m-one-write", 8 << 20)):
            write_file(files[name], os.urandom(size), size if name.endswith("one-write") else CHUNK)
        # lat_pagefault's file as LMBench's own script writes it (scripts/lmbench: lmdd, 8 KiB writes)
        subprocess.run([str(bin_dir / "lmdd"), f"of={files['8m-lmdd']}", "move=8m", "fsync=1"],
                       capture_output=True, check=True)
        # lat_fs in a tmpfs by default: on a disk the VM shares, the ext4 journal's writes stall
        # both tools 5-14x from round to round (docs/probe.md) and no ratio means anything
        fs_dir = Path(tempfile.mkdtemp(prefix="lat-fs-", dir=opts.fs_dir))
        todo = [g for g in groups(files, fs_dir) if any(re.search(opts.rows, r) for r in g.rows)]
        rows = [r for g in todo for r in g.rows]
        runner = Runner(bin_dir, probe, opts.cpu, work, opts.log, opts.probe_before,
                        [files["4k"], files["1m"], files["8m"]])
        hello = Path("/tmp/hello")          # lat_proc's program, where LMBench expects it
        hello.write_bytes((bin_dir / "hello").read_bytes())
        hello.chmod(0o755)
        try:
            for rnd in range(opts.rounds):
                print(f"round {rnd + 1}/{opts.rounds} on CPU {opts.cpu} ...", file=sys.stderr, flush=True)
                for i, grp in enumerate(todo):
                    sides = [runner.lmbench, runner.platperf, runner.platperf_before]
                    if (rnd + i) % 2:
                        sides.reverse()
                    for side in sides:
                        side(grp, t)
                    runner.referee(grp, t, files["4k"])
        finally:
            hello.unlink(missing_ok=True)
            shutil.rmtree(fs_dir, ignore_errors=True)
    return report(rows, t, opts.rounds, ENOUGH_US, REPS, f"{cpu_line(opts.cpu)}; platperf-probe {probe}")


if __name__ == "__main__":
    sys.exit(main())
