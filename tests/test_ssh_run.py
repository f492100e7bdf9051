"""`platperf run --target ssh://...` end to end: a real sshd on 127.0.0.1, the real probe (and
the aarch64 one under qemu-user), results stored as they arrive. Functional checks only."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from conftest import missing, require_executable, require_probe
from sshd_server import Sshd, missing_parts

from platperf.probe_path import ProbeNotFound, find_probe

SMALL = ('[[bench]]\nkernel = "mem-latency"\npattern = "random"\nsize = ["16k", "64k"]\n'
         'samples = 2\nwarmup = 0\nmin_time = 0.002\n')
LONG = ('[[bench]]\nkernel = "mem-latency"\npattern = "random"\n'
        'size = ["4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m", "2m"]\n'
        'samples = 50\nmin_time = 0.01\n')


def platperf_env(config) -> dict:
    env = dict(os.environ, PLATPERF_SSH_CONFIG=str(config))
    env.pop("PLATPERF_PROBE", None)
    return env


def stored(db) -> int:
    try:
        with sqlite3.connect(db) as con:
            return con.execute("select count(*) from results").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize("board, arch", [("board", None), ("board-aarch64", "aarch64")])
def test_run_on_a_board_over_ssh_stores_the_boards_results(sshd, tmp_path, board, arch):
    require_probe()
    if arch:
        require_executable("qemu-aarch64-static")
        try:
            find_probe(arch)
        except ProbeNotFound:
            missing("the aarch64 probe is not built (make probe-cross)")
    (tmp_path / "small.toml").write_text(SMALL)
    env = platperf_env(sshd.client_config)
    proc = subprocess.run([sys.executable, "-m", "platperf", "run", "--suite", "small.toml",
                           "--target", f"ssh://{board}", "--cpus", "0", "--db", "s.db",
                           "--label", board, "--json", "--quiet"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["status"], out["results"]) == ("complete", 4)   # 2 sizes x latency, latency_cycles
    shown = json.loads(subprocess.run([sys.executable, "-m", "platperf", "show", board, "--db", "s.db",
                                       "--json"], cwd=tmp_path, env=env, capture_output=True,
                                      text=True, timeout=60).stdout)
    assert shown["target"] == f"ssh://{board}"
    assert shown["meta"]["arch"] == (arch or shown["meta"]["arch"])
    assert shown["fingerprint"]["cpu"]["count"] >= 1


def test_a_board_that_dies_mid_run_leaves_a_partial_run_with_what_arrived(tmp_path):
    why = missing_parts()
    if why:
        missing(why)
    require_probe()
    dying = Sshd(tmp_path / "sshd").start()
    (tmp_path / "long.toml").write_text(LONG)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "platperf", "run", "--suite", "long.toml",
                                 "--target", "ssh://board", "--cpus", "0", "--db", "d.db", "--json"],
                                cwd=tmp_path, env=platperf_env(dying.client_config),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and stored(tmp_path / "d.db") < 2 and proc.poll() is None:
            time.sleep(0.05)
        dying.kill_all()
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        dying.stop()
    assert proc.returncode == 2, stderr
    out = json.loads(stdout)
    assert out["status"] == "partial" and out["results"] >= 2
    assert stored(tmp_path / "d.db") == out["results"]
    assert "connection to board lost" in out["error"]


def test_ctrl_c_reaches_the_boards_probe_and_leaves_a_partial_run(sshd, tmp_path):
    require_probe()
    (tmp_path / "long.toml").write_text(LONG)
    proc = subprocess.Popen([sys.executable, "-m", "platperf", "run", "--suite", "long.toml",
                             "--target", "ssh://board", "--cpus", "0", "--db", "i.db", "--json"],
                            cwd=tmp_path, env=platperf_env(sshd.client_config),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and stored(tmp_path / "i.db") < 2 and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    out = json.loads(stdout)
    assert out["status"] == "partial" and 2 <= out["results"] < 20
    assert stored(tmp_path / "i.db") == out["results"]


def test_an_unreachable_board_is_one_line_and_exit_2(sshd, tmp_path):
    (tmp_path / "small.toml").write_text(SMALL)
    proc = subprocess.run([sys.executable, "-m", "platperf", "run", "--suite", "small.toml",
                           "--target", "ssh://board-unreachable", "--db", "u.db"],
                          cwd=tmp_path, env=platperf_env(sshd.client_config), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("platperf: error: cannot reach board-unreachable")
