"""The ssh:// target against a real sshd on 127.0.0.1 (tests/sshd_server.py) and the real probe:
``board`` is this machine, ``board-aarch64`` reports aarch64 and runs the cross-built probe
under qemu-user. Functional checks only: nothing here is timed."""
from __future__ import annotations

import json
import os
import platform
import shutil
from pathlib import Path

import pytest
from conftest import missing, require_executable, require_probe
from sshd_server import Sshd, missing_parts

from platperf.machine.sysroot import SysRoot
from platperf.probe_path import ProbeNotFound, find_probe, probe_arch
from platperf.targets import TargetError, get_target
from platperf.targets.ssh import SshTarget, parse_ssh_url

SMALL_RUN = ["run", "mem-latency", "--samples", "2", "--warmup", "0", "--min-time", "0", "--size", "16k"]
# Long enough to be still running when it is interrupted or its board dies.
LONG_RUN = ["run", "mem-latency", "--samples", "200", "--warmup", "0", "--min-time", "0.05",
            "--size", "16k"]


def board_target(sshd, board: str, remote_dir: Path | None, **kw) -> SshTarget:
    if board == "board-aarch64":
        require_executable("qemu-aarch64-static")
        try:
            find_probe("aarch64")
        except ProbeNotFound:
            missing("the aarch64 probe is not built (make probe-cross)")
    else:
        require_probe()
    return SshTarget(f"ssh://{board}", remote_dir=str(remote_dir) if remote_dir else None,
                     ssh_options=sshd.ssh_options(), **kw)


def records(proc) -> list[dict]:
    return [json.loads(line) for line in proc if line.strip()]


BOARDS = [("board", probe_arch(platform.machine())), ("board-aarch64", "aarch64")]


# -- the address -------------------------------------------------------------------------------
@pytest.mark.parametrize("url, expected", [
    ("ssh://root@am62x", ("root", "am62x", None)),
    ("ssh://Juno-Lab", (None, "Juno-Lab", None)),       # a ~/.ssh/config alias keeps its case
    ("ssh://me@10.0.0.7:2222", ("me", "10.0.0.7", 2222)),
    ("ssh://[fe80::1]:22", (None, "fe80::1", 22)),
])
def test_ssh_url_names_user_host_and_port(url, expected):
    assert parse_ssh_url(url) == expected


@pytest.mark.parametrize("url", ["ssh://", "ssh://host/dir", "ssh://a:b@host", "ssh://host:port",
                                 "http://host"])
def test_a_bad_ssh_url_is_one_line(url):
    with pytest.raises(TargetError) as err:
        parse_ssh_url(url)
    assert "\n" not in str(err.value) and "ssh://[user@]host[:port]" in str(err.value)


def test_get_target_dispatches_ssh_urls():
    target = get_target("ssh://root@am62x", keep_probe=True)
    try:
        assert isinstance(target, SshTarget) and target.keep_probe and target.name == "ssh://root@am62x"
    finally:
        target.close()


# -- the probe on the board ----------------------------------------------------------------------
@pytest.mark.parametrize("board, arch", BOARDS)
def test_list_info_and_a_small_run_on_the_board(sshd, tmp_path, board, arch):
    with board_target(sshd, board, tmp_path / "remote") as target:
        proc = target.run(["list", "--json"])
        kernels = json.loads("".join(proc))["kernels"]
        assert proc.wait() == 0
        assert "mem-latency" in [k["name"] for k in kernels]

        proc = target.run(["info"])
        meta = records(proc)[0]
        assert proc.wait() == 0
        assert target.arch == arch and meta["arch"] == arch
        assert meta["argv"][0] == f"{tmp_path}/remote/platperf-{os.getuid()}/platperf-probe-{arch}"

        proc = target.run(SMALL_RUN)
        recs = records(proc)
        assert proc.wait() == 0
        results = [r for r in recs if r["type"] == "result"]
        assert results and all(r["benchmark"] == "mem-latency" and len(r["samples"]) == 2 for r in results)
        assert recs[-1]["type"] == "end" and recs[-1]["status"] == "complete"
        assert target.uploads == 1          # once for the whole target, not once per run()


def board_ppid(pid: int) -> int:
    """The parent of a process of the board (this machine, behind sshd)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rfind(")") + 2:].split()[1])


def test_the_steps_of_a_target_run_one_after_another_in_one_session(sshd, tmp_path):
    """No session set up per step: every probe of a target is a child of the same shell on the
    board, and that shell ends when the target is closed."""
    parents = []
    with board_target(sshd, "board", tmp_path / "remote") as target:
        for _ in range(3):
            proc = target.run(LONG_RUN)
            stream = iter(proc)
            assert json.loads(next(stream))["type"] == "meta"
            parents.append(board_ppid(proc.pid))
            proc.interrupt()
            assert [json.loads(line) for line in stream][-1]["type"] == "end"
            assert proc.wait() == 130
        assert records(target.run(["info"]))[0]["type"] == "meta"
    assert len(set(parents)) == 1
    assert not Path(f"/proc/{parents[0]}").exists()


def test_a_session_runs_nothing_once_the_probe_there_is_not_the_one_checked(sshd, tmp_path):
    """A second session (a step asked while another runs) checks the probe's sha256 itself:
    a file put in its place after the setup never runs."""
    with board_target(sshd, "board", tmp_path / "remote") as target:
        running = target.run(LONG_RUN)
        assert json.loads(next(iter(running)))["type"] == "meta"
        marker = tmp_path / "ran"
        path = tmp_path / "remote" / f"platperf-{os.getuid()}" / f"platperf-probe-{target.arch}"
        path.unlink()                      # the running probe keeps its inode
        path.write_text(f"#!/bin/sh\ntouch {marker}\n")
        path.chmod(0o700)
        with pytest.raises(TargetError) as err:
            target.run(["info"])
        assert "sha256" in str(err.value) and "\n" not in str(err.value)
        assert not marker.exists()
        running.interrupt()
        assert running.wait() == 130


def test_upload_is_skipped_when_the_probe_there_has_the_same_hash(sshd, tmp_path):
    remote = tmp_path / "remote"
    with board_target(sshd, "board", remote) as first:
        assert records(first.run(["info"]))
        assert first.uploads == 1
    probe = remote / f"platperf-{os.getuid()}" / f"platperf-probe-{first.arch}"
    assert probe.exists()                   # kept by default: left for the next run

    with board_target(sshd, "board", remote, keep_probe=False) as second:
        assert records(second.run(["info"]))
        assert second.uploads == 0
    assert not probe.exists()               # keep_probe=False (--remove-probe): it goes at close
    assert not probe.parent.exists()        # and so does its directory, empty


def test_a_different_probe_on_the_board_is_replaced(sshd, tmp_path):
    remote = tmp_path / "remote"
    (remote / f"platperf-{os.getuid()}").mkdir(mode=0o700, parents=True)
    arch = probe_arch(platform.machine())
    stale = remote / f"platperf-{os.getuid()}" / f"platperf-probe-{arch}"
    shutil.copy(require_probe(), stale)
    with open(stale, "ab") as f:
        f.write(b"an older build")
    with board_target(sshd, "board", remote, keep_probe=True) as target:
        assert records(target.run(["info"]))
        assert target.uploads == 1
    assert stale.read_bytes() == Path(require_probe()).read_bytes()


def test_default_remote_dir_is_per_user_and_removed_at_close_when_asked(sshd):
    with board_target(sshd, "board", None, keep_probe=False) as target:
        meta = records(target.run(["info"]))[0]
        probe = Path(meta["argv"][0])
    assert probe.parent.name == f"platperf-{os.getuid()}"
    assert not probe.exists()


def test_noexec_remote_dir_is_one_line_naming_remote_dir(sshd):
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        missing("the noexec board mounts a tmpfs: it needs root and unshare (util-linux)")
    target = board_target(sshd, "board-noexec", sshd.dir / "noexec")
    with target, pytest.raises(TargetError) as err:
        target.run(["info"])
    message = str(err.value)
    assert "\n" not in message and "--remote-dir DIR" in message and "noexec" in message


def test_unwritable_remote_dir_is_one_line_naming_remote_dir(sshd):
    target = board_target(sshd, "board", Path("/proc/platperf-cannot-be-here"))
    with target, pytest.raises(TargetError) as err:
        target.run(["info"])
    assert "\n" not in str(err.value) and "--remote-dir DIR" in str(err.value)


# -- faults --------------------------------------------------------------------------------------
@pytest.mark.parametrize("board, says", [
    ("board-unreachable", "cannot reach board-unreachable"),
    ("board-wrongkey", "refused the key"),
    ("board-unknownhost", "host key is not known"),
    ("board-nouname", "'uname -m' did not run"),
])
def test_a_board_that_cannot_be_used_is_one_line(sshd, tmp_path, board, says):
    target = board_target(sshd, board, tmp_path / "remote")
    with target, pytest.raises(TargetError) as err:
        target.run(["info"])
    assert says in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("board, arch", BOARDS)
def test_interrupt_reaches_the_probe_on_the_board(sshd, tmp_path, board, arch):
    with board_target(sshd, board, tmp_path / "remote") as target:
        proc = target.run(LONG_RUN)
        stream = iter(proc)
        first = json.loads(next(stream))
        assert first["type"] == "meta"
        proc.interrupt()
        rest = [json.loads(line) for line in stream]
        assert proc.wait() == 130           # the probe's exit for SIGINT, passed on by ssh
    assert rest[-1]["type"] == "end" and rest[-1]["status"] == "interrupted"


def test_a_board_that_dies_mid_run_leaves_the_stream_without_end(tmp_path):
    why = missing_parts()
    if why:
        missing(why)
    require_probe()
    dying = Sshd(tmp_path / "sshd").start()
    try:
        target = SshTarget("ssh://board", remote_dir=str(tmp_path / "remote"),
                           ssh_options=dying.ssh_options())
        proc = target.run(LONG_RUN)
        stream = iter(proc)
        assert json.loads(next(stream))["type"] == "meta"
        dying.kill_all()                    # sshd, the connection and the probe: a power cut
        rest = [json.loads(line) for line in stream]
        assert proc.wait() == 255
        assert all(r["type"] != "end" for r in rest)
        assert proc.stderr_tail().startswith("connection to board lost: ")
        target.close()                      # the board is gone: close still tidies this side
        assert not target._tmp.exists()
    finally:
        dying.stop()


# -- the board's /sys and /proc ------------------------------------------------------------------
def test_the_board_describes_itself_from_its_own_files(sshd, tmp_path):
    host = SysRoot("/")
    with board_target(sshd, "board", tmp_path / "remote") as target:
        board = target.sysroot()
        assert board.read("proc/sys/kernel/hostname") == host.read("proc/sys/kernel/hostname")
        assert board.read("proc/cmdline") == host.read("proc/cmdline")
        assert board.listdir("sys/devices/system/cpu") != []
        cpus = [n for n in host.listdir("sys/devices/system/cpu") if n[3:].isdigit()]
        assert [n for n in board.listdir("sys/devices/system/cpu") if n[3:].isdigit()] == cpus
        assert board.read("sys/devices/system/cpu/online") == host.read("sys/devices/system/cpu/online")
        # Two samples of the processes, the sshd serving us among them in both.
        later = board.later(0.2)
        pids = {n for n in board.listdir("proc") if n.isdigit()}
        assert str(sshd.proc.pid) in pids
        assert str(sshd.proc.pid) in {n for n in later.listdir("proc") if n.isdigit()}
        assert later.read(f"proc/{sshd.proc.pid}/comm") == "sshd"
        with pytest.raises(ValueError):
            board.later(1.0)


def test_the_doctor_leaves_platperfs_own_connection_out(sshd, tmp_path):
    # A real OpenSSH server: the snapshot's shell, the login wrapper and the sshd processes of our
    # connection are platperf's own; the listening sshd and this test's own process are not.
    from platperf.doctor import SSH_SERVERS, cpu_times, own_processes
    with board_target(sshd, "board", tmp_path / "remote") as target:
        board = target.sysroot()
        me = int(board.read("proc/self/stat").split()[0])
        table = cpu_times(board.later(0.2))
        own = own_processes(table, me, local=False)
        chain = [me]
        while table[chain[-1]].ppid != sshd.proc.pid:
            chain.append(table[chain[-1]].ppid)
        assert table[me].name == "sh" and set(chain) <= own
        assert any(table[pid].name in SSH_SERVERS for pid in chain)
        assert sshd.proc.pid not in own and os.getpid() not in own


def test_an_sshd_that_never_answers_is_one_line_not_a_hang(tmp_path):
    """A board whose port accepts the connection and then says nothing (a hung sshd, a
    half-booted board): ssh's ConnectTimeout covers the banner exchange, so the target gives up
    with one line instead of waiting for ever."""
    require_executable("ssh", "Debian openssh-client; make deps")
    import socket
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(4)
    port = silent.getsockname()[1]
    try:
        target = SshTarget(f"ssh://127.0.0.1:{port}", remote_dir=str(tmp_path), connect_timeout=2,
                           ssh_options=("-o", "UserKnownHostsFile=/dev/null",
                                        "-o", "StrictHostKeyChecking=no"))
        with target, pytest.raises(TargetError) as err:
            target.run(["info"])
    finally:
        silent.close()
    message = str(err.value)
    assert "\n" not in message and "127.0.0.1" in message
    assert "timed out" in message or "no answer" in message
