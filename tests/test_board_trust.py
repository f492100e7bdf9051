"""What a board, or a user on it, cannot make platperf do (docs/security.md), against the real
sshd of tests/sshd_server.py. platperf logs in as root here (the tests run as root), as it
does on lab boards: another user's files must never run, whatever they are called."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest
from conftest import missing, require_executable, require_probe
from test_psci import wait_for

from platperf.probe_path import probe_arch
from platperf.targets import TargetError, get_target
from platperf.targets.ssh import SshTarget, parse_ssh_url

NOBODY = 65534
PROBE = f"platperf-probe-{probe_arch(platform.machine())}"
EVIL = """#!/bin/sh
touch {marker}
echo '{{"type":"meta"}}'
"""


def target(sshd, base, board="board") -> SshTarget:
    require_probe()
    return SshTarget(f"ssh://{board}", remote_dir=str(base), ssh_options=sshd.ssh_options())


def plant(directory, marker, name="platperf-probe-evil"):
    """A script that leaves ``marker`` behind if anything executes it."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / name
    script.write_text(EVIL.format(marker=marker))
    script.chmod(0o755)
    return script


def need_root():
    if os.geteuid() != 0:
        missing("these tests log in as root and make files of another user (chown): run them as root")


def first_record(proc) -> dict:
    lines = [line for line in proc if line.strip()]
    assert proc.wait() == 0
    return json.loads(lines[0])


@pytest.mark.parametrize("owner, mode, says", [
    (NOBODY, 0o700, "belongs to uid 65534, not to the login user (0)"),   # another user's
    (0, 0o755, "has mode drwxr-xr-x, not drwx------"),                    # ours, but open
    (0, 0o777, "has mode drwxrwxrwx, not drwx------"),
])
def test_a_probe_directory_made_by_someone_else_is_refused_and_nothing_in_it_runs(
        sshd, tmp_path, owner, mode, says):
    need_root()
    base = tmp_path / "tmp"
    base.mkdir(mode=0o1777)
    base.chmod(0o1777)
    attacker_dir = base / "platperf-0"
    marker = tmp_path / "ran"
    plant(attacker_dir, marker)
    plant(attacker_dir, marker, name=PROBE)
    os.chown(attacker_dir, owner, owner)
    attacker_dir.chmod(mode)
    with target(sshd, base) as board, pytest.raises(TargetError) as err:
        board.run(["info"])
    message = str(err.value)
    assert says in message and str(attacker_dir) in message and "\n" not in message
    assert not marker.exists()
    # Nothing was uploaded into it either.
    assert sorted(p.name for p in attacker_dir.iterdir()) == sorted(["platperf-probe-evil", PROBE])


def test_a_symbolic_link_in_place_of_the_directory_is_refused(sshd, tmp_path):
    need_root()
    base = tmp_path / "tmp"
    base.mkdir()
    elsewhere = tmp_path / "elsewhere"
    marker = tmp_path / "ran"
    plant(elsewhere, marker)
    elsewhere.chmod(0o700)
    (base / "platperf-0").symlink_to(elsewhere)
    with target(sshd, base) as board, pytest.raises(TargetError) as err:
        board.run(["info"])
    assert "is a symbolic link" in str(err.value)
    assert not marker.exists() and sorted(p.name for p in elsewhere.iterdir()) == ["platperf-probe-evil"]


def test_a_base_directory_others_can_write_without_the_sticky_bit_is_refused(sshd, tmp_path):
    need_root()
    base = tmp_path / "open"
    base.mkdir()
    base.chmod(0o777)                   # anyone could rename our directory away and put theirs
    with target(sshd, base) as board, pytest.raises(TargetError) as err:
        board.run(["info"])
    assert "writable by others and not sticky" in str(err.value)
    assert not (base / "platperf-0").exists() or not any((base / "platperf-0").iterdir())


def test_a_base_directory_of_another_user_is_refused(sshd, tmp_path):
    need_root()
    base = tmp_path / "home-of-nobody"
    base.mkdir(mode=0o755)
    os.chown(base, NOBODY, NOBODY)      # its owner could swap platperf-0 under us
    with target(sshd, base) as board, pytest.raises(TargetError) as err:
        board.run(["info"])
    assert "belongs to uid 65534" in str(err.value)


def test_only_a_probe_with_the_right_hash_runs_in_our_own_directory(sshd, tmp_path):
    """Our own 0700 directory holding other files named like probes: none of them is executed;
    the probe whose hash differs is replaced before it runs."""
    need_root()
    base = tmp_path / "tmp"
    ours = base / "platperf-0"
    ours.mkdir(parents=True, mode=0o700)
    marker = tmp_path / "ran"
    plant(ours, marker)                                       # not ours to run
    plant(ours, marker, name=PROBE)        # the right name, the wrong hash
    with target(sshd, base) as board:
        meta = first_record(board.run(["info"]))
        assert board.uploads == 1
    assert meta["type"] == "meta" and meta["argv"][0] == str(ours / PROBE)
    assert not marker.exists()


def test_the_default_directory_is_made_private(sshd, tmp_path):
    need_root()
    with target(sshd, tmp_path) as board:
        meta = first_record(board.run(["info"]))
        made = tmp_path / "platperf-0"
        assert meta["argv"][0].startswith(f"{made}/")
        assert oct(made.stat().st_mode & 0o7777) == oct(0o700) and made.stat().st_uid == 0
        assert oct(os.stat(meta["argv"][0]).st_mode & 0o777) == oct(0o700)


def test_a_board_without_mktemp_refuses_the_snapshot_rather_than_guess_a_name(sshd, tmp_path):
    require_probe()
    with SshTarget("ssh://board-nomktemp", remote_dir=str(tmp_path),
                   ssh_options=sshd.ssh_options()) as board, pytest.raises(TargetError) as err:
        board.sysroot()
    assert "no mktemp" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("url", ["ssh://-oProxyCommand=touch%20/tmp/x", "ssh://-oProxyCommand=x",
                                 "ssh://root@-F", "ssh://-l@host"])
def test_a_host_or_user_that_ssh_would_read_as_an_option_is_refused(url):
    with pytest.raises(TargetError) as err:
        parse_ssh_url(url)
    assert "\n" not in str(err.value)


def test_the_host_follows_a_double_dash_on_every_ssh_command_line():
    board = get_target("ssh://root@am62x")
    try:
        argv = board._session("true")
        assert argv[argv.index("--") + 1] == "am62x" and argv[-1] == "true"
        assert argv.index("--") > max(i for i, a in enumerate(argv) if a.startswith("-") and a != "--")
    finally:
        board.close()


@pytest.mark.parametrize("remote_dir", ["/data/x\nrm -rf /", "", "/tmp/a\tb"])
def test_a_remote_dir_with_a_newline_is_refused_before_connecting(remote_dir):
    with pytest.raises(TargetError) as err:
        SshTarget("ssh://board", remote_dir=remote_dir)
    assert "--remote-dir" in str(err.value)


def test_ssh_never_sees_an_option_as_the_host():
    """The ssh client itself, given the command line platperf builds: with `--` it refuses the
    host rather than running a ProxyCommand (a second line of defence behind parse_ssh_url)."""
    require_executable("ssh", "Debian openssh-client; make deps")
    marker = "/tmp/platperf-test-proxycommand-ran"
    done = subprocess.run(["ssh", "-o", "BatchMode=yes", "--", f"-oProxyCommand=touch {marker}", "true"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 255 and not os.path.exists(marker)


# -- what the board sends back: every record checked once, wherever it comes from ---------------
def lie(sshd, records: list) -> None:
    (sshd.dir / "liar.jsonl").write_text("".join(r if isinstance(r, str) else json.dumps(r) + "\n"
                                                 for r in records))


META = {"type": "meta", "schema": 1, "arch": "x86_64"}
GOOD = {"type": "result", "benchmark": "mem-latency", "params": {"size": 16384}, "cpu": 0,
        "metric": "latency", "unit": "ns", "direction": "lower", "samples": [1.5, 1.6]}
SMALL = ('[[bench]]\nkernel = "mem-latency"\npattern = "random"\nsize = "16k"\n'
         'samples = 2\nwarmup = 0\nmin_time = 0.002\n')


@pytest.mark.parametrize("bad, says", [
    ('{"type":"result","benchmark":"mem-latency","params":{},"metric":"latency","unit":"ns",'
     '"direction":"lower","cpu":0,"samples":[NaN,1.0]}\n', "NaN is not a number a record may hold"),
    ({**GOOD, "samples": [1e308, 1.0]}, "'samples' must be a number within"),
    ({**GOOD, "cpu": 10 ** 30}, "'cpu' must be a CPU number"),
    ({"type": "histogram", "benchmark": "latency-loop", "params": {}, "unit": "ns", "cpu": "zz",
      "count": 3, "min": 1.0, "max": 2.0, "buckets": []}, "'cpu' must be a CPU number"),
    ({"type": "histogram", "benchmark": "latency-loop", "params": {}, "unit": "ns", "cpu": 0,
      "count": -7, "min": 1.0, "max": 2.0, "buckets": []}, "'count' must not be negative"),
])
def test_a_board_that_sends_a_bad_record_fails_the_run_and_keeps_what_came_before(
        sshd, tmp_path, bad, says):
    require_probe()
    lie(sshd, [META, GOOD, bad, GOOD, {"type": "end", "status": "complete"}])
    (tmp_path / "small.toml").write_text(SMALL)
    env = dict(os.environ, PLATPERF_SSH_CONFIG=str(sshd.client_config))
    done = subprocess.run([sys.executable, "-m", "platperf", "run", "--suite", "small.toml",
                           "--target", "ssh://board-liar", "--cpus", "0", "--db", "l.db",
                           "--label", "liar", "--quiet", "--json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    out = json.loads(done.stdout)
    assert out["status"] == "failed" and says in out["error"] and ":3:" in out["error"]
    assert out["results"] == 1                              # the good record before it is kept
    # and every reader of the database still works
    for command in (["show", "liar"], ["report", "liar", "--format", "md"]):
        shown = subprocess.run([sys.executable, "-m", "platperf", *command, "--db", "l.db"],
                               cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert shown.returncode == 0, shown.stderr


@pytest.mark.parametrize("bad, says", [
    ({**GOOD, "samples": [1e308, 1e308]}, "'samples' must be a number within"),
    ({**GOOD, "cpu": 10 ** 30}, "'cpu' must be a CPU number"),
    ({**GOOD, "samples": [10 ** 400]}, "'samples' is out of range"),
    ('{"type":"result","samples":[1e999]}\n', "beyond the range of a number"),
])
def test_an_imported_stream_with_numbers_out_of_range_is_one_line_and_stores_nothing(tmp_path, bad, says):
    from typer.testing import CliRunner
    from platperf.cli import app
    from platperf.store import Store
    path = tmp_path / "board.jsonl"
    path.write_text("".join(r if isinstance(r, str) else json.dumps(r) + "\n"
                            for r in [META, GOOD, bad, {"type": "end", "status": "complete"}]))
    db = tmp_path / "r.db"
    out = CliRunner().invoke(app, ["ingest", "probe-jsonl", str(path), "--label", "x", "--db", str(db)])
    assert out.exit_code == 2 and out.exception is None or isinstance(out.exception, SystemExit)
    assert says in out.output and f"{path}:3:" in out.output
    assert len(out.output.strip().splitlines()) == 1
    assert Store(str(db)).runs() == []


# -- whatever is killed, nothing is left running or behind ----------------------------------------
LONG = ('[[bench]]\nkernel = "mem-latency"\npattern = "random"\nsize = "16k"\n'
        'samples = 100000\nwarmup = 0\nmin_time = 0.01\n')   # about 1000 s: it never ends by itself


def processes_of(executable: str, running: bytes = b"") -> list[int]:
    """PIDs of ``executable`` (whose command line holds ``running``)."""
    from pathlib import Path
    out = []
    for p in Path("/proc").glob("[0-9]*"):
        try:
            if os.readlink(p / "exe") == executable and running in (p / "cmdline").read_bytes():
                out.append(int(p.name))
        except OSError:
            pass
    return out


def ssh_masters_for(control_dir: str) -> list[int]:
    from pathlib import Path
    out = []
    for p in Path("/proc").glob("[0-9]*"):
        try:
            line = (p / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if line and line[0].endswith(b"ssh") and b"-M" in line and control_dir.encode() in b" ".join(line):
            out.append(int(p.name))
    return out


def start_long_run(sshd, tmp_path, label: str) -> tuple[subprocess.Popen, str]:
    require_probe()
    (tmp_path / "long.toml").write_text(LONG)
    env = dict(os.environ, PLATPERF_SSH_CONFIG=str(sshd.client_config), TMPDIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "platperf", "run", "--suite", "long.toml",
                             "--target", "ssh://board", "--remote-dir", str(tmp_path / "remote"),
                             "--cpus", "0", "--db", "k.db", "--label", label, "--quiet", "--json"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    probe = str(tmp_path / "remote" / "platperf-0" / PROBE)
    # the step itself, not `platperf-probe info` before it
    assert wait_for(lambda: processes_of(probe, b"mem-latency") or proc.poll() is not None, 120), \
        "the probe never started"
    assert proc.poll() is None, proc.communicate()
    return proc, probe


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_platperf_killed_leaves_no_probe_master_or_temp_dir(sshd, tmp_path, how):
    """Row 15: platperf ended by SIGKILL (no code of its own runs) or SIGTERM: the probe on the
    board stops (its session's pipe closed), the ssh master goes (its lifeline closed), and
    the temp dir goes too (at once on SIGTERM; with SIGKILL the next platperf removes it)."""
    import signal
    need_root()
    proc, probe = start_long_run(sshd, tmp_path, how.lower())
    dirs = list(tmp_path.glob("pp-ssh-*"))
    assert len(dirs) == 1 and ssh_masters_for(str(dirs[0]))
    os.kill(proc.pid, getattr(signal, how))
    proc.communicate(timeout=120)
    # The step would run for about 1000 s: gone within a minute means stopped, not finished.
    assert wait_for(lambda: not processes_of(probe), 60), "the probe on the board runs on"
    assert wait_for(lambda: not ssh_masters_for(str(dirs[0])), 60), "the ssh master stays"
    if how == "SIGTERM":
        assert not dirs[0].exists()
    else:                               # a later platperf, with the same TMPDIR, tidies up
        assert dirs[0].exists()
        subprocess.run([sys.executable, "-c", "from platperf.targets.ssh import SshTarget; "
                        "SshTarget('ssh://board').close()"], check=True, timeout=60,
                       env=dict(os.environ, TMPDIR=str(tmp_path)))
        assert not dirs[0].exists()


def test_a_master_that_dies_mid_step_stops_the_probe_on_the_board(sshd, tmp_path):
    """Row 16: the connection is lost during a step: the run is partial and the probe on the
    board stops at once (its session's pipe closes), not 45-65 s later at its next write."""
    need_root()
    proc, probe = start_long_run(sshd, tmp_path, "cut")
    dirs = list(tmp_path.glob("pp-ssh-*"))
    (master,) = ssh_masters_for(str(dirs[0]))
    os.kill(master, 9)
    out, err = proc.communicate(timeout=300)
    assert json.loads(out)["status"] == "partial"
    assert wait_for(lambda: not processes_of(probe), 60), "the probe on the board runs on"


def test_a_probe_killed_on_the_board_is_said_as_such(sshd, tmp_path):
    """Row 17: SIGKILL of the probe on the board: "killed by signal 9", not "connection lost"."""
    need_root()
    proc, probe = start_long_run(sshd, tmp_path, "killed")
    for pid in processes_of(probe):
        os.kill(pid, 9)
    out, err = proc.communicate(timeout=300)
    done = json.loads(out)
    assert done["status"] == "partial" and "killed by signal 9" in done["error"]
    assert "connection" not in done["error"]


def test_a_step_that_never_ends_is_stopped_at_its_timeout(sshd, tmp_path, board_liar):
    """Row 15: a probe that stops itself (SIGSTOP) never ends its step; the step's timeout
    stops it (SIGINT, then SIGKILL) and the run is partial, saying so."""
    board_liar("liar-run", f"echo '{json.dumps(META)}'\nkill -STOP $$\n")
    (tmp_path / "hang.toml").write_text(SMALL + "timeout = 3\n")
    env = dict(os.environ, PLATPERF_SSH_CONFIG=str(sshd.client_config))
    done = subprocess.run([sys.executable, "-m", "platperf", "run", "--suite", "hang.toml",
                           "--target", "ssh://board-liar", "--cpus", "0", "--db", "h.db",
                           "--label", "hang", "--quiet", "--json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    out = json.loads(done.stdout)
    assert out["status"] == "partial" and "did not end within its 3 s timeout" in out["error"]


def test_a_probe_whose_info_never_returns_is_one_line(sshd, tmp_path, board_liar, monkeypatch):
    import platperf.runner.probe as probe_module
    from platperf.runner.suite import SuiteError
    board_liar("liar-info", "sleep 600\n")
    monkeypatch.setattr(probe_module, "QUERY_TIMEOUT_S", 3)
    with target(sshd, tmp_path, board="board-liar") as board, pytest.raises(SuiteError) as err:
        probe_module.probe_records(board, ["info"], timeout=3)
    assert "did not answer in 3 s" in str(err.value)
