"""Ctrl-C and SIGTERM at any moment of `platperf run`, and bad input that leaves nothing
behind. The moments are chosen by what the process has done (its signal handlers in place,
results in the database), never by guessing how long it takes to get there."""
import json
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import fake_probe

SUITE = '[[bench]]\nkernel = "mem-latency"\nsize = ["4k", "64k"]\nsamples = 3\nmode = "both"\n'


@pytest.fixture
def setup(tmp_path, monkeypatch):
    fake_probe.install(tmp_path, monkeypatch, behaviour="slow")
    monkeypatch.setenv("PLATPERF_TARGETS", str(tmp_path / "targets.toml"))
    (tmp_path / "tiny.toml").write_text(SUITE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def start(*args):
    return subprocess.Popen([sys.executable, "-m", "platperf", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` (its SigCgt mask in /proc)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    except FileNotFoundError:
        pass
    return False


def wait_until(check, what, timeout=60):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.005)


def stored(db) -> int:
    try:
        with sqlite3.connect(db) as c:
            return c.execute("SELECT count(*) FROM results").fetchone()[0]
    except sqlite3.Error:
        return 0


# From the moment platperf's own code runs (its SIGTERM handler is the first thing it sets),
# a signal at these offsets falls during the imports, argument parsing, opening the store,
# describing the machine and measuring: every one must end the same clean way.
@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("after_s", [0, 0.01, 0.03, 0.1, 0.3, 0.6])
def test_a_signal_early_in_the_process_life_is_one_clean_exit(setup, signum, code, after_s):
    proc = start("run", "--suite", "tiny.toml", "--db", "r.db", "--json")
    wait_until(lambda: catches(proc.pid, signal.SIGTERM) or proc.poll() is not None,
               "platperf to take charge of SIGTERM")
    time.sleep(after_s)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == code, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    if (setup / "r.db").exists() and stdout.strip():   # it got as far as a run: left partial
        assert json.loads(stdout)["status"] == "partial"


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_measuring_leaves_the_run_partial_with_its_results(setup, signum, code):
    proc = start("run", "--suite", "tiny.toml", "--db", "r.db", "--json")
    wait_until(lambda: stored(setup / "r.db") >= 2 or proc.poll() is not None, "the first results")
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == code, stderr
    assert "Traceback" not in stderr
    out = json.loads(stdout)
    assert out["status"] == "partial" and out["results"] == stored(setup / "r.db") >= 2


@pytest.mark.parametrize("args, needle", [
    (["--suite", "nope"], "unknown suite 'nope'"),
    (["--suite", "tiny.toml", "--cpus", "0,99"], "CPU 99 not online"),
    (["--suite", "tiny.toml", "--cpus", "zero"], "is not a CPU list"),
    (["--suite", "tiny.toml", "--mode", "sideways"], "unknown mode 'sideways'"),
    (["--suite", "tiny.toml", "--target", "lava"], "unknown target 'lava'"),
    (["--suite", "tiny.toml", "--targets", "some"], "--targets takes only 'all'"),
    (["--suite", "tiny.toml", "--targets", "all"], "the inventory is empty"),
])
def test_bad_input_creates_no_database(setup, args, needle):
    proc = subprocess.run([sys.executable, "-m", "platperf", "run", *args, "--db", "never.db"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("platperf: error: ") and needle in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (setup / "never.db").exists()


def test_a_bad_kernel_creates_no_database(setup):
    (setup / "bad.toml").write_text('[[bench]]\nkernel = "mem-latancy"\n')
    proc = subprocess.run([sys.executable, "-m", "platperf", "run", "--suite", "bad.toml",
                           "--db", "never.db"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "unknown kernel 'mem-latancy'" in proc.stderr
    assert not (setup / "never.db").exists()


@pytest.mark.parametrize("args, needle", [
    (["--victim", "99", "--patterns", "none"], "CPU 99 not online"),
    (["--victim", "0", "--patterns", "none", "--target", "lava"], "unknown target 'lava'"),
])
def test_interference_bad_input_creates_no_database(setup, args, needle):
    proc = subprocess.run([sys.executable, "-m", "platperf", "interference", *args, "--db", "never.db"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and needle in proc.stderr
    assert not (setup / "never.db").exists()
