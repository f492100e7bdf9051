"""A lab from one host (issue 27): what `platperf run` costs this host per board, for N boards at
once, each a real sshd on 127.0.0.1 with one alias (or N aliases behind one sshd: --gateway).

Each board's probe `run` is the test suite's lying board (tests/sshd_server.py, ``board-liar``):
it sleeps for the step's length, then prints records the real probe wrote once. The boards then
cost this host only what platperf costs, and a step lasts as long as asked (about a minute in
the issue's table: --step-s) without 200 busy probes on the host's cores. Everything else is
real: the ssh masters, the board snapshot, the probe's `info` and `list`, the store.

For each N and database it prints: wall time, platperf's CPU (the Python process) and the host
CPU of platperf with its ssh processes, both per board; platperf's RSS per board (its peak,
above its RSS with 1 board); the most descriptors and threads of platperf, the most processes
under it, and runs complete. With --hung-at N one more board's sshd accepts and never
answers, at that N: its wall time against the row above it is what the hung board added (the
target: no more than its own connect timeout, 15 s).

Run: flock /tmp/heavy.lock .venv/bin/python bench/fleet.py --boards 1,16,64,200 --db sqlite,postgresql
     [--step-s 60] [--gateway [--max-startups 10:30:100]] [--hung-at 64] [--python OTHER_CHECKOUT/.venv/bin/python] (a peer: the
     same bench on another checkout's platperf, for a before/after table)
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests"))

import conftest  # noqa: E402,F401  (pg_server imports it: it must come first)
from pg_server import running_pg  # noqa: E402
from sshd_server import HungServer, Sshd, missing_parts, start_fleet  # noqa: E402

SUITE = ('[[bench]]\nkernel = "mem-latency"\npattern = "random"\nsize = ["16k"]\n'
         'samples = 2\nwarmup = 0\nmin_time = 0.002\n')
PROBE_ARGS = ["run", "mem-latency", "--cpus", "0", "--mode", "serial", "--pattern", "random",
              "--size", "16k", "--samples", "2", "--warmup", "0", "--min-time", "0.002"]


def board_config(path: Path, boards: list, hung: HungServer | None) -> Path:
    text = ""
    for name, server in boards:
        text += (f"Host {name}\n  HostName 127.0.0.1\n  Port {server.port}\n  User {server.user}\n"
                 f"  IdentityFile {server.dir}/user_key\n  UserKnownHostsFile {server.dir}/known_hosts\n"
                 f"  SetEnv PLATPERF_TEST_BOARD=liar\n  IdentitiesOnly yes\n"
                 f"  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  LogLevel ERROR\n")
    if hung is not None:
        text += (f"Host hung\n  HostName 127.0.0.1\n  Port {hung.port}\n  IdentitiesOnly yes\n"
                 f"  StrictHostKeyChecking yes\n  LogLevel ERROR\n")
    path.write_text(text)
    return path


def make_liar(server: Sshd, records: Path, step_s: float):
    run = server.dir / "liar-run"
    run.write_text(f"#!/bin/sh\nsleep {step_s:g}\nexec cat {records}\n")
    run.chmod(0o755)


class Sampler:
    """platperf's process as /proc shows it, sampled while it runs."""

    def __init__(self, pid: int):
        self.pid = pid
        self.cpu = 0.0
        self.rss = self.fds = self.threads = self.procs = 0

    def sample(self):
        try:
            stat = Path(f"/proc/{self.pid}/stat").read_text()
            fields = stat[stat.rfind(")") + 2:].split()
            self.cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            status = Path(f"/proc/{self.pid}/status").read_text()
            for line in status.splitlines():
                if line.startswith("VmRSS:"):
                    self.rss = max(self.rss, int(line.split()[1]) * 1024)
                elif line.startswith("Threads:"):
                    self.threads = max(self.threads, int(line.split()[1]))
            self.fds = max(self.fds, len(os.listdir(f"/proc/{self.pid}/fd")))
            self.procs = max(self.procs, _descendants(self.pid))
        except (OSError, IndexError, ValueError):
            pass


def _descendants(root: int) -> int:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            children.setdefault(int(stat[stat.rfind(")") + 2:].split()[1]), []).append(int(entry))
    count, todo = 0, list(children.get(root, []))
    while todo:
        pid = todo.pop()
        count += 1
        todo.extend(children.get(pid, []))
    return count


def one_run(python: str, names: list[str], db: str, config: Path, cwd: Path) -> dict:
    env = dict(os.environ, PLATPERF_SSH_CONFIG=str(config))
    env.pop("PLATPERF_PROBE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    proc = subprocess.Popen([python, "-m", "platperf", "run", "--suite", "fleet.toml", "--target",
                             ",".join(f"ssh://{n}" for n in names), "--cpus", "0", "--db", db,
                             "--repeat", "1", "--json", "--quiet"],
                            cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampler = Sampler(proc.pid)
    while proc.poll() is None:
        sampler.sample()
        time.sleep(0.25)
    out, err = proc.communicate()
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        rows = json.loads(out)
        rows = rows if isinstance(rows, list) else [rows]
    except ValueError:
        rows = []
    complete = sum(r.get("status") == "complete" for r in rows if r.get("target") != "ssh://hung")
    return {"wall": wall, "cpu": sampler.cpu, "rss": sampler.rss, "fds": sampler.fds,
            "threads": sampler.threads, "procs": sampler.procs, "complete": complete,
            "host_cpu": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
            "errors": sorted({r.get("error") or "" for r in rows if r.get("status") != "complete"})
            or ([err.strip().splitlines()[-1]] if err.strip() and not rows else [])}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default="1,16,64,200")
    parser.add_argument("--db", default="sqlite,postgresql")
    parser.add_argument("--step-s", type=float, default=60.0)
    parser.add_argument("--gateway", action="store_true", help="every board behind one sshd")
    parser.add_argument("--max-startups", default="10:30:100",
                        help="the gateway sshd's MaxStartups (OpenSSH's default: 10:30:100)")
    parser.add_argument("--hung-at", default="", help="the N (e.g. 64) also measured with one hung board added")
    parser.add_argument("--python", default=sys.executable, help="the Python whose platperf runs")
    args = parser.parse_args()
    why = missing_parts()
    if why:
        sys.exit(f"bench/fleet.py: {why}")
    counts = [int(n) for n in args.boards.split(",")]
    work = Path(tempfile.mkdtemp(prefix="pp-fleet-"))
    (work / "fleet.toml").write_text(SUITE)
    records = work / "records.jsonl"
    from platperf.probe_path import find_probe
    records.write_text(subprocess.run([str(find_probe()), *PROBE_ARGS], capture_output=True,
                                      text=True, check=True).stdout)
    servers = start_fleet(work / "sshd", 1 if args.gateway else max(counts),
                          f"MaxStartups {args.max_startups}" if args.gateway else "")
    hung_at = {int(n) for n in args.hung_at.split(",") if n}
    hung = HungServer() if hung_at else None
    for server in servers:
        make_liar(server, records, args.step_s)
    print(f"platperf of {args.python}; step {args.step_s:g} s; "
          f"{f'one sshd for every board (MaxStartups {args.max_startups})' if args.gateway else 'one sshd per board'}")
    print(f"{'db':12} {'N':>4} {'wall s':>7} {'cpu/board s':>11} {'host cpu/board s':>16} "
          f"{'RSS/board MB':>12} {'RSS MB':>7} {'fds':>5} {'threads':>7} {'procs':>5} {'complete':>9}")
    base_rss = None
    try:
        for db_kind in args.db.split(","):
            pg = running_pg(missing=sys.exit, fail=sys.exit) if db_kind == "postgresql" else None
            server_pg = pg.__enter__() if pg else None
            try:
                for n in counts:
                    names = [f"f{i + 1}" for i in range(n)]
                    boards = [(name, servers[0 if args.gateway else i]) for i, name in enumerate(names)]
                    for with_hung in ([False, True] if n in hung_at else [False]):
                        config = board_config(work / "ssh_config", boards, hung if with_hung else None)
                        db = _database(db_kind, server_pg, work, f"{n}{'h' if with_hung else ''}")
                        row = one_run(args.python, names + (["hung"] if with_hung else []), db, config, work)
                        if n == 1 and not with_hung:
                            base_rss = row["rss"]
                        extra_rss = (row["rss"] - (base_rss or 0)) / max(1, n - 1) if n > 1 else row["rss"]
                        print(f"{db_kind + (' +hung' if with_hung else ''):12} {n:4d} {row['wall']:7.1f} "
                              f"{row['cpu'] / n:11.3f} {row['host_cpu'] / n:16.3f} "
                              f"{extra_rss / 2**20:12.2f} {row['rss'] / 2**20:7.0f} {row['fds']:5d} "
                              f"{row['threads']:7d} {row['procs']:5d} {row['complete']:5d}/{n}",
                              flush=True)
                        for error in row["errors"][:3]:
                            print(f"    {error[:160]}", flush=True)
            finally:
                if pg:
                    pg.__exit__(None, None, None)
    finally:
        if hung:
            hung.close()
        for server in servers:
            server.stop()


def _database(kind: str, pg, work: Path, tag: str) -> str:
    if kind == "sqlite":
        path = work / f"fleet-{tag}.db"
        path.unlink(missing_ok=True)
        return str(path)
    name = f"fleet_{tag}_{os.getpid()}"
    with pg.admin() as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}"')
        c.execute(f'CREATE DATABASE "{name}"')
    return pg.url(name)


if __name__ == "__main__":
    main()
