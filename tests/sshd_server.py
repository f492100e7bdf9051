"""A real OpenSSH server on 127.0.0.1 for the SSH target's tests and bench/ssh_vs_local.py.

:class:`Sshd` starts Debian's ``/usr/sbin/sshd`` on a free port with keys generated in a temp
dir, and writes a client ``ssh_config`` whose Host aliases are the boards:

* ``board``            this machine as it is;
* ``board-aarch64``    a board whose ``uname -m`` says aarch64 and whose probe runs under
                       qemu-aarch64-static (binfmt_misc is not relied on: the login wrapper puts
                       a ``uname`` shim first on PATH and runs ``exec "$P"`` through qemu);
* ``board-nouname``    a board without ``uname``;
* ``board-nomktemp``   a board without ``mktemp``;
* ``board-liar``       a board whose probe's ``run`` prints what the test put in ``liar.jsonl``;
* ``board-noexec``     a board whose ``<dir>/noexec`` is a tmpfs mounted noexec (root only:
                       each login mounts it in a mount namespace of its own);
* ``board-wrongkey``   logs in with a key the server does not know;
* ``board-unknownhost`` has an empty known_hosts;
* ``board-unreachable`` points at a port where nothing listens.

The board is picked by the alias's ``SetEnv PLATPERF_TEST_BOARD``, which the server's
ForceCommand wrapper reads. A login without a command gets an interactive shell, and scp
(SFTP since OpenSSH 9.0) works: LAVA's ssh deploy and boot use both (tests/test_lava_run.py). The fixtures ``sshd`` (session) are in :func:`sshd_fixture`.
"""
from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

SSHD = "/usr/sbin/sshd"

LOGIN = r'''#!/bin/sh
# The board's login: runs the client's command as sshd would, as the board the alias names.
cmd=$SSH_ORIGINAL_COMMAND
case "$PLATPERF_TEST_BOARD" in
aarch64)
    PATH="@DIR@/aarch64-bin:$PATH"
    cmd=$(printf '%s\n' "$cmd" | sed -e 's/exec "\$P"/exec qemu-aarch64-static "$P"/g' \
                                      -e 's/^"\$P" "\$@"/qemu-aarch64-static "$P" "$@"/') ;;
nouname)
    PATH="@DIR@/nouname-bin:$PATH" ;;
nomktemp)
    PATH="@DIR@/nomktemp-bin:$PATH" ;;
liar)
    # `platperf-probe run ...` prints what the test wrote into @DIR@/liar.jsonl (or runs
    # @DIR@/liar-run) instead; the /sys and /proc snapshot is @DIR@/liar-snapshot's, if there.
    case $cmd in "sh -s -- "*) [ -x "@DIR@/liar-snapshot" ] && exec "@DIR@/liar-snapshot" ;; esac
    cmd=$(printf '%s\n' "$cmd" | sed -e 's|exec "\$P"|exec "@DIR@/liar" "$P"|g' \
                                      -e 's|^"\$P" "\$@"|"@DIR@/liar" "$P" "$@"|') ;;
noexec)
    # @DIR@/noexec is a noexec tmpfs in this login's own mount namespace only.
    if [ -z "${PP_MOUNT_NS:-}" ]; then export PP_MOUNT_NS=1; exec unshare -m "$0"; fi
    mount -t tmpfs -o noexec,size=64m tmpfs "@DIR@/noexec" || exit 1 ;;
esac
export PATH
# No command: an interactive login (LAVA's ssh boot method drives a shell on a pty).
[ -n "$cmd" ] || exec /bin/sh -l
exec /bin/sh -c "$cmd"
'''

UNAME_AARCH64 = '''#!/bin/sh
if [ "$1" = -m ]; then echo aarch64; else exec /bin/uname "$@"; fi
'''

UNAME_MISSING = '''#!/bin/sh
echo "sh: 1: uname: not found" >&2
exit 127
'''


LIAR = '''#!/bin/sh
# A board whose probe lies: `run` prints the test's records; list and info are the real probe's.
P=$1; shift
if [ "$1" = run ]; then
    [ -x "@DIR@/liar-run" ] && exec "@DIR@/liar-run"
    exec cat "@DIR@/liar.jsonl"
fi
[ "$1" = info ] && [ -x "@DIR@/liar-info" ] && exec "@DIR@/liar-info"
exec "$P" "$@"
'''

MKTEMP_MISSING = '''#!/bin/sh
echo "sh: 1: mktemp: not found" >&2
exit 127
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_exec(path: Path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)


def _keygen(path: Path):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", path.name, "-f", str(path)],
                   check=True, stdin=subprocess.DEVNULL)


class Sshd:
    """One sshd process and the client config that reaches it."""

    def __init__(self, workdir: str | os.PathLike | None = None, settings: str = ""):
        """``settings``: sshd_config lines that come first (the first value of most keywords
        wins; MaxStartups given there replaces the default of 64), e.g. ``MaxStartups 2:50:100``."""
        self.settings = settings
        self._own_dir = workdir is None
        self.dir = Path(workdir or tempfile.mkdtemp(prefix="pp-sshd-"))
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.user = getpass.getuser()
        self.proc: subprocess.Popen | None = None
        self.client_config = self.dir / "ssh_config"
        self._write_files()

    def _write_files(self):
        d = self.dir
        for key in ("host_key", "user_key", "other_key"):
            if not (d / key).exists():
                _keygen(d / key)
        (d / "authorized_keys").write_text((d / "user_key.pub").read_text())
        host_pub = " ".join((d / "host_key.pub").read_text().split()[:2])
        (d / "known_hosts").write_text(f"[127.0.0.1]:{self.port} {host_pub}\n")
        (d / "empty_known_hosts").write_text("")
        _write_exec(d / "login", LOGIN.replace("@DIR@", str(d)))
        _write_exec(d / "aarch64-bin" / "uname", UNAME_AARCH64)
        _write_exec(d / "nouname-bin" / "uname", UNAME_MISSING)
        _write_exec(d / "nomktemp-bin" / "mktemp", MKTEMP_MISSING)
        _write_exec(d / "liar", LIAR.replace("@DIR@", str(d)))
        (d / "noexec").mkdir(exist_ok=True)
        (d / "sshd_config").write_text(f"""\
{self.settings}
Port {self.port}
ListenAddress 127.0.0.1
HostKey {d}/host_key
PidFile {d}/sshd.pid
AuthorizedKeysFile {d}/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
AcceptEnv PLATPERF_TEST_BOARD
ForceCommand {d}/login
MaxSessions 64
{"" if "MaxStartups" in self.settings else "MaxStartups 64"}
LogLevel ERROR
# scp speaks SFTP since OpenSSH 9.0; under ForceCommand the login wrapper runs the server.
Subsystem sftp /usr/lib/openssh/sftp-server
""")
        common = f"""\
  HostName 127.0.0.1
  User {self.user}
  IdentitiesOnly yes
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  LogLevel ERROR
"""
        # ssh_config: for each option the first value found wins, so specific hosts come first.
        self.client_config.write_text(f"""\
Host board-aarch64
  SetEnv PLATPERF_TEST_BOARD=aarch64
Host board-nouname
  SetEnv PLATPERF_TEST_BOARD=nouname
Host board-noexec
  SetEnv PLATPERF_TEST_BOARD=noexec
Host board-nomktemp
  SetEnv PLATPERF_TEST_BOARD=nomktemp
Host board-liar
  SetEnv PLATPERF_TEST_BOARD=liar
Host board-wrongkey
  IdentityFile {d}/other_key
  Port {self.port}
  UserKnownHostsFile {d}/known_hosts
{common}Host board-unknownhost
  UserKnownHostsFile {d}/empty_known_hosts
Host board-unreachable
  Port {free_port()}
Host board board-* !board-wrongkey
  Port {self.port}
  IdentityFile {d}/user_key
  UserKnownHostsFile {d}/known_hosts
{common}""")

    def start(self, timeout: float = 15):
        if os.geteuid() == 0:
            # sshd running as root wants its privilege-separation directory (Debian's init
            # script makes it; a container without one has none).
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        log = open(self.dir / "sshd.log", "ab")
        self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(self.dir / "sshd_config")],
                                     stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                     start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"sshd exited {self.proc.returncode}: "
                                   f"{(self.dir / 'sshd.log').read_text()[-500:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"sshd did not listen on 127.0.0.1:{self.port} in {timeout} s")

    def ssh_options(self) -> tuple[str, ...]:
        return ("-F", str(self.client_config))

    def kill_all(self):
        """SIGKILL sshd and everything under it (connections, sessions, the probe): what a
        board that loses power does to its side of the stream."""
        if self.proc is None:
            return
        # parents first: the connection goes before the processes on the board notice anything,
        # as when a board loses power (a shell that saw its probe die first would report it)
        for pid in _descendants(self.proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.kill()
        self.proc.wait()

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.kill_all()
        self.proc = None
        if self._own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)


def _descendants(root: int) -> list[int]:
    """``root``'s processes, parents before children, from /proc/<pid>/stat's ppid."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


class HungServer:
    """A port where the kernel accepts TCP connections (its backlog) that nobody ever answers:
    a board whose sshd hangs before its banner."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]

    def close(self):
        self.sock.close()


def start_fleet(root: Path, count: int, settings: str = "") -> list[Sshd]:
    """``count`` sshd instances, one per board, sharing the first one's keys (ssh-keygen once)."""
    servers = [Sshd(root / "sshd-0", settings)]
    for i in range(1, count):
        d = root / f"sshd-{i}"
        d.mkdir(parents=True)
        for key in ("host_key", "user_key", "other_key"):
            for suffix in ("", ".pub"):
                shutil.copy(servers[0].dir / (key + suffix), d / (key + suffix))
        servers.append(Sshd(d, settings))
    try:
        for server in servers:
            server.start()
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers


def fleet_config(path: Path, boards: list[tuple[str, "Sshd | HungServer"]]) -> Path:
    """An ssh_config with one Host alias per (name, server): the boards of a fleet. A name may
    come with the same server as another (boards behind one gateway)."""
    text = ""
    for name, server in boards:
        text += f"Host {name}\n  HostName 127.0.0.1\n  Port {server.port}\n"
        if isinstance(server, Sshd):
            text += (f"  User {server.user}\n  IdentityFile {server.dir}/user_key\n"
                     f"  UserKnownHostsFile {server.dir}/known_hosts\n")
        text += ("  IdentitiesOnly yes\n  GlobalKnownHostsFile /dev/null\n"
                 "  StrictHostKeyChecking yes\n  LogLevel ERROR\n")
    path.write_text(text)
    return path


def signal_tree(server: Sshd, signum: int):
    """``signum`` to sshd and everything under it (SIGSTOP: a board that hangs mid-run)."""
    for pid in _descendants(server.proc.pid):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass


def missing_parts() -> str | None:
    """What this machine lacks to run the SSH tests, or None."""
    if not os.access(SSHD, os.X_OK):
        return "sshd is not installed (Debian openssh-server; make deps)"
    for tool in ("ssh", "ssh-keygen"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian openssh-client; make deps)"
    return None


@pytest.fixture(scope="session")
def sshd(tmp_path_factory):
    """The test session's sshd: boards ``ssh://board``, ``ssh://board-aarch64`` and the faulty ones."""
    from conftest import missing
    why = missing_parts()
    if why:
        missing(why)
    server = Sshd(tmp_path_factory.mktemp("sshd")).start()
    yield server
    server.stop()


@pytest.fixture
def board_liar(sshd):
    """``ssh://board-liar``'s scripts: ``board_liar("liar-run", TEXT)`` makes its probe's `run`
    (or ``liar-info``, ``liar-snapshot``) a shell script of the test's; removed afterwards."""
    made = []

    def script(name: str, text: str):
        path = sshd.dir / name
        path.write_text("#!/bin/sh\n" + text)
        path.chmod(0o755)
        made.append(path)
    yield script
    for path in made:
        path.unlink(missing_ok=True)
