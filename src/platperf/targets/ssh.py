"""A board reached over SSH: ``ssh://[user@]host[:port]`` or ``ssh://alias``.

The system OpenSSH client does the connecting, so ``~/.ssh/config`` works as the user already
has it (Host aliases, Port, User, IdentityFile, ProxyJump). One master connection carries the
whole run: it is opened once with a private ControlPath in a temp dir, and close() shuts it.
Over it, one session runs every probe step in turn (ssh_steps.StepSession: a session costs
65 ms and more on a busy board); the snapshot, the upload, a `kill -INT` and the board's tools
are sessions of their own. BatchMode: ssh never prompts; a key or host key problem is an error
line instead.

On the board: ``uname -m`` picks the probe build; the probe goes to a private per-user
directory (``platperf-UID`` in ``$TMPDIR``, /tmp or ``remote_dir``: mode 0700, checked, see
_ready) only when its sha256 differs from what is there, runs only once the session that runs
it has checked that sha256, and is removed at close unless ``keep_probe``. The host is always
given after ``--``, so it is never read as an option. $PLATPERF_SSH_CONFIG names an extra
``ssh -F`` config file.
"""
from __future__ import annotations

import hashlib
import os
import secrets
import shlex
import subprocess
import tempfile
import threading
import weakref
from pathlib import Path
from urllib.parse import urlsplit

from ..probe_path import ProbeNotFound, find_probe, probe_arch
from .base import TIMED_OUT, CommandResult, ConnectSlots, TargetError
from .board_scripts import STEP_SERVER, UPLOAD_SCRIPT
from .capture import MAX_OUTPUT, TIMED_OUT_CAPTURE, TOO_LONG, capture
from .remote_sysroot import (MAX_SNAPSHOT_BYTES, SAMPLE_INTERVAL_S, SNAPSHOT_SCRIPT, SnapshotError,
                             SnapshotSysRoot, snapshot_sysroot)
from .ssh_master import open_master, show_connecting, stop_master, sweep
from .ssh_steps import SSH_EXIT_ERROR, RemoteProbe, StepSession

ROUND_TRIP_TIMEOUT_S = 120  # setup, upload, snapshot: generous for a slow board's link
# A board that reboots sends no FIN: without keep-alives the stream would hang for ever.
KEEPALIVE = ("-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3")
# A board that is off, or an sshd that accepts and never answers: one line within 30 s.
CONNECT_TIMEOUT_S = 15
# Tidying the board at close (the probe removed) when it no longer answers: given up after this.
CLOSE_TIMEOUT_S = 10


def parse_ssh_url(url: str) -> tuple[str | None, str, int | None]:
    """(user, host, port) of ``ssh://[user@]host[:port]``; host may be a ~/.ssh/config alias."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme != "ssh" or not parts.hostname or port == -1 or parts.path not in ("", "/") \
            or parts.query or parts.fragment or parts.password:
        raise TargetError(f"not an SSH target: '{url}' (expected ssh://[user@]host[:port], "
                          f"e.g. ssh://root@am62x or ssh://board)")
    # urlsplit lowercases the host; an alias in ~/.ssh/config is matched as written.
    host = parts.netloc.rpartition("@")[2]
    if host.startswith("["):                  # ssh://[fe80::1]:22
        host = host[1:host.index("]")]
    elif port is not None:
        host = host.rsplit(":", 1)[0]
    for word, what in ((host, "host"), (parts.username or "", "user")):
        if word.startswith("-") or any(c.isspace() or ord(c) < 32 for c in word):
            raise TargetError(f"not an SSH target: '{url}' (the {what} '{word}' starts with '-' or "
                              f"holds a space or control character; ssh would read it as an option)")
    return parts.username, host, port


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


class SshTarget:
    local = False

    def __init__(self, url: str, remote_dir: str | None = None, keep_probe: bool = True,
                 ssh_options=(), connect_timeout: float = CONNECT_TIMEOUT_S,
                 connect_slots: ConnectSlots | None = None):
        self.name = url
        self.tools: dict = {}
        self.user, self.host, self.port = parse_ssh_url(url)
        if remote_dir is not None and (not remote_dir or any(ord(c) < 32 for c in remote_dir)):
            raise TargetError(f"--remote-dir {remote_dir!r}: give a directory path without "
                              f"newlines or control characters")
        self.remote_dir = remote_dir
        self.keep_probe = keep_probe
        self.connect_timeout = connect_timeout
        self.connect_slots = connect_slots   # shared by a command's boards (--max-connect)
        self.uploads = 0          # how many times the probe was copied over: 0 when it was there
        self.arch: str | None = None
        self._ssh_options = list(ssh_options)
        config = os.environ.get("PLATPERF_SSH_CONFIG")
        if config:
            self._ssh_options = ["-F", config, *self._ssh_options]
        # Short: a ControlPath is a unix socket, and those are limited to about 100 bytes. The
        # pid in the name lets a later platperf remove what a killed one left (_sweep).
        _sweep_once(Path(tempfile.gettempdir()))
        self._tmp = Path(tempfile.mkdtemp(prefix=f"pp-ssh-{os.getpid()}-"))
        self._control = self._tmp / "cm"
        self._connected = False
        self._master: dict = {}             # "proc": the master, a child of this process
        self._probe: str | None = None      # the probe's path on the board, once set up
        self._digest = ""                   # and its sha256
        self._connect_failed: TargetError | None = None   # why the board cannot be reached
        self._setup_failed: TargetError | None = None     # why its probe cannot be set up
        self._connect_lock = threading.Lock()
        self._lock = threading.RLock()      # the step sessions
        self._idle: list[StepSession] = []  # step sessions with no step running
        self._sessions: list[StepSession] = []    # every one, closed at close()
        # A caller that exits without close() still leaves no master or temp dir behind.
        self._finalizer = weakref.finalize(self, stop_master, self._ssh("-O", "exit"), self._tmp,
                                           self._master)

    # -- ssh command lines ------------------------------------------------------------------
    def _ssh(self, *options: str) -> list[str]:
        argv = ["ssh", *self._ssh_options, "-o", "BatchMode=yes", "-o", f"ControlPath={self._control}",
                *options]
        if self.port:
            argv += ["-p", str(self.port)]
        if self.user:
            argv += ["-l", self.user]
        return [*argv, "--", self.host]     # `--`: the host is never read as an option

    def _session(self, command: str) -> list[str]:
        """One remote command over the master connection (never a second master: a master
        started here would hold our pipes open). Never a connection of its own either: once
        the master is gone ssh would dial the board again, and a hung board would hold the
        session until its timeout; the ProxyCommand that fails makes it fail at once."""
        return [*self._ssh("-T", "-o", "ControlMaster=no", "-o", "ProxyCommand=exit 255"), command]

    def _round_trip(self, command: str, stdin: bytes = b"", limit: int = MAX_OUTPUT,
                    timeout: float = ROUND_TRIP_TIMEOUT_S) -> subprocess.CompletedProcess:
        self._connect()
        done = capture(self._session(command), stdin, timeout, limit)
        if done.returncode == TIMED_OUT_CAPTURE:
            raise TargetError(f"{self.name}: no answer in {timeout:g} s")
        if done.returncode == TOO_LONG:
            raise TargetError(f"{self.host}: the board sent more than {limit >> 20} MiB for one "
                              f"request; platperf stopped reading (docs/security.md)")
        if done.returncode == SSH_EXIT_ERROR:
            raise TargetError(f"connection to {self.host} lost: "
                              f"{_last_line(done.stderr.decode(errors='replace')) or 'ssh exited 255'}")
        return done

    # -- the connection ---------------------------------------------------------------------
    def _connect(self):
        """The master connection: a child of this process whose own session is a lifeline (a
        `cat` on the board reading this process's pipe). When platperf ends in any way, even
        SIGKILL, the pipe closes, the lifeline ends, and the master leaves once the sessions
        it carries have ended (each stops its probe when its own pipe closes: STEP_SERVER).
        At most --max-connect boards connect at once; a dropped connection is tried again
        (targets/ssh_master.py)."""
        with self._connect_lock:     # not the sessions' lock: the snapshot runs during a setup
            if self._connect_failed is not None:     # once: not one ConnectTimeout per caller
                raise self._connect_failed
            if not self._connected:
                try:
                    self._open_master()
                except TargetError as exc:
                    self._connect_failed = exc
                    raise

    def _open_master(self):
        show_connecting(self.host)
        # ConnectTimeout bounds the TCP connect and the banner exchange; open_master's deadline
        # whatever comes after (a server that stalls in the key exchange or the login).
        argv = [*self._ssh("-M", "-T", "-o", "ControlPersist=no",
                           "-o", f"ConnectTimeout={self.connect_timeout:g}", *KEEPALIVE),
                "exec cat > /dev/null"]
        try:
            self._master["proc"] = open_master(self, self.connect_slots, argv, self._tmp / "master.log")
        finally:
            show_connecting(self.host, done=True)
        self._connected = True

    def alive(self) -> bool:
        """The master connection is up (False before it is opened and once it is lost)."""
        proc = self._master.get("proc")
        return self._connected and proc is not None and proc.poll() is None

    # -- the probe on the board -------------------------------------------------------------
    def _ready(self) -> StepSession:
        """A step session with no step running, its probe checked by its own shell before it
        runs anything: an idle one, else a new one; the first one sets the probe up."""
        with self._lock:
            if self._setup_failed is not None:
                raise self._setup_failed
            while self._idle:
                session = self._idle.pop()
                if not session.lost and session.proc.poll() is None:
                    return session
            session = self._open_steps()
            try:
                path, digest = (self._probe, self._digest) if self._probe else self._setup(session)
                lines, end = self._answer(session)
                if end != "ready":
                    raise self._dir_error(path.rsplit("/", 1)[0], end[4:] if end.startswith("bad ")
                                          else "the setup script failed")
            except TargetError as exc:
                session.close()
                if self._probe is None:
                    self._setup_failed = exc
                raise
            self._probe, self._digest = path, digest
            return session

    def _open_steps(self) -> StepSession:
        """A new session running STEP_SERVER: with the probe already known, straight to its
        check; else through the setup first (_setup)."""
        self._connect()
        marker = f"platperf-{secrets.token_hex(8)}"
        base = shlex.quote(self.remote_dir) if self.remote_dir else '"${TMPDIR:-/tmp}"'
        session = StepSession(self._session(f"M={marker}\nB={base}\nP={shlex.quote(self._probe or '')}\n"
                                            f"H={self._digest}\n{STEP_SERVER}"), marker)
        self._sessions.append(session)
        return session

    def _answer(self, session: StepSession) -> tuple[list[str], str]:
        """The session's next answer: (its lines, the words after its marker)."""
        lines, end = session.answer(ROUND_TRIP_TIMEOUT_S, MAX_OUTPUT)
        if end is not None:
            return lines, end
        if session.failure:
            raise TargetError(f"{self.host}: {session.failure}")
        why = session.stderr_tail(session.answers) or "ssh exited 255"
        raise TargetError(f"connection to {self.host} lost: {why}")

    def _setup(self, session: StepSession) -> tuple[str, str]:
        """The board's probe (path, sha256), uploaded if needed, told to the first step session.

        The probe lives in a directory of the login user's own, ``BASE/platperf-UID`` (BASE:
        --remote-dir, else $TMPDIR or /tmp), made with mode 0700 and checked after it is made:
        a directory that exists with another owner or mode, a symbolic link, or one inside a
        directory others could swap it out of, is refused. Nothing in it is executed before
        its sha256 matches the probe this host carries (docs/security.md)."""
        # The arch, then "dir D" or "bad D WHY", then per probe file there its sha256.
        lines, end = self._answer(session)
        if end.split()[-1:] == ["127"] or not lines or not lines[0].strip():
            raise TargetError(f"{self.host}: 'uname -m' did not run on the board "
                              f"({session.stderr_tail(0) or 'no output'}); "
                              f"platperf needs uname to pick the probe")
        try:
            self.arch = probe_arch(lines[0])
            local = find_probe(self.arch)
        except (ValueError, ProbeNotFound) as exc:
            raise TargetError(f"{self.host}: {exc}") from None
        status = lines[1].split(" ", 2) if len(lines) > 1 else ["bad", "?", "no answer from the setup script"]
        if status[0] != "dir" or len(status) < 2:
            raise self._dir_error(status[1] if len(status) > 1 else "?",
                                  status[2] if len(status) > 2 else "the setup script failed")
        path = f"{status[1]}/platperf-probe-{self.arch}"
        there = {}
        for line in lines[2:]:
            fields = line.split(" ", 2)
            if fields[0] == "probe" and len(fields) == 3:
                there[fields[2]] = fields[1]
        binary = local.read_bytes()
        digest = hashlib.sha256(binary).hexdigest()
        if there.get(path) != digest:
            self._upload(binary, digest, path)
        session.send(f"P={shlex.quote(path)} H={digest}")
        return path, digest

    def _set_up_into(self, failed: list):
        try:
            with self._lock:
                if self._probe is None:
                    self._release(self._ready())
        except TargetError as exc:
            failed.append(exc)

    def _release(self, session: StepSession):
        """A step session whose step has ended, for the next step."""
        with self._lock:
            if self._connected and not session.lost:
                self._idle.append(session)

    def _upload(self, binary: bytes, digest: str, path: str):
        """Copy the probe to ``path``: written aside, its sha256 checked (its size where the
        board has no sha256sum), then renamed and run once. A probe still running from another
        run keeps its file."""
        done = self._round_trip(
            f"P={shlex.quote(path)}\nH={digest}\nN={len(binary)}\n{UPLOAD_SCRIPT}", stdin=binary)
        self.uploads += 1
        why = _last_line(done.stderr.decode(errors="replace"))
        where = path.rsplit("/", 1)[0]
        if done.returncode in (4, 5):
            raise self._dir_error(where, f"copying the probe failed: {why}")
        if done.returncode != 0:
            # 126: a noexec mount ("Permission denied"); anything else is the probe failing.
            reason = "mounted noexec" if done.returncode == 126 or "denied" in why else why
            raise self._dir_error(where, f"the probe does not run there: {reason}")

    def _dir_error(self, remote_dir: str, why: str) -> TargetError:
        return TargetError(f"{self.host}: cannot run the probe from {remote_dir} ({why}); "
                           f"choose a writable, exec-mounted directory with --remote-dir DIR")

    def run(self, argv: list[str]) -> RemoteProbe:
        """The probe run with ``argv`` on the board: a step of the idle step session."""
        if any("\n" in arg for arg in argv):
            raise TargetError(f"a probe argument holds a newline: {argv!r}")
        return RemoteProbe(self, self._ready(), argv, self._release)

    def signal(self, pid: int, name: str):
        """Send SIGname to a process on the board (a negative pid: its process group), over the
        master connection."""
        try:
            subprocess.run(self._session(f"kill -{name} {pid}"), stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=15)
        except subprocess.TimeoutExpired:
            pass

    # -- the board's own tools -------------------------------------------------------------
    def command(self, argv: list[str], *, timeout: float | None = None,
                stdin: bytes = b"") -> CommandResult:
        """``argv`` run on the board to its end, over the master connection; at ``timeout``
        seconds it is killed there (its PID is the session's first line) and here."""
        self._connect()
        # `exec`: the shell's PID becomes the tool's, so a timeout can kill it on the board.
        line = f"echo $$; exec {' '.join(map(shlex.quote, argv))}"
        done = capture(self._session(line), stdin, timeout, MAX_OUTPUT)
        out, err, code = done.stdout, done.stderr, done.returncode
        stopped = code in (TIMED_OUT_CAPTURE, TOO_LONG)
        if stopped:
            code = TIMED_OUT if code == TIMED_OUT_CAPTURE else 1
        pid, _, out = out.partition(b"\n")
        text, err_text = out.decode(errors="replace"), err.decode(errors="replace")
        if not pid.strip().isdigit():    # the remote shell never started: ssh itself failed
            raise TargetError(f"connection to {self.host} lost: {_last_line(err_text) or f'ssh exited {code}'}")
        if stopped:   # sshd made the shell a session leader: its group is all the tool started
            self.signal(-int(pid), "KILL")
            err_text += (f"\n{argv[0]}: stopped after {timeout:g} s\n" if code == TIMED_OUT else
                         f"\n{argv[0]}: stopped: it printed more than {MAX_OUTPUT >> 20} MiB\n")
        return CommandResult(code, text, err_text)

    def which(self, name: str) -> str | None:
        """``command -v NAME`` in the board's login shell: a path, or None."""
        done = self._round_trip(f"command -v {shlex.quote(name)}")
        path = done.stdout.decode(errors="replace").strip()
        return path if done.returncode == 0 and path.startswith("/") else None

    # -- the board's /sys and /proc ---------------------------------------------------------
    def sysroot(self, interval: float = SAMPLE_INTERVAL_S) -> SnapshotSysRoot:
        """The board's files in one round trip; ``later(interval)`` is its /proc sampled again."""
        # The probe's setup goes on meanwhile: the snapshot spends most of its time in `sleep`.
        failed: list[TargetError] = []
        setup = threading.Thread(target=self._set_up_into, args=(failed,), daemon=True)
        self._connect()
        setup.start()
        try:
            done = self._round_trip(f"sh -s -- '' {interval:g}", stdin=SNAPSHOT_SCRIPT.encode(),
                                    limit=MAX_SNAPSHOT_BYTES)
        finally:
            setup.join()
        if failed:
            raise failed[0]
        if done.returncode != 0:
            raise TargetError(f"{self.host}: reading /sys and /proc failed (exit {done.returncode}): "
                              f"{_last_line(done.stderr.decode(errors='replace'))}")
        try:
            return snapshot_sysroot(done.stdout, interval)
        except SnapshotError as exc:
            raise TargetError(f"{self.host}: {exc}") from None

    # -- the end ----------------------------------------------------------------------------
    def close(self):
        with self._lock:
            sessions, self._sessions, self._idle = self._sessions, [], []
        for session in sessions:     # their pipes closed: a probe still running stops
            session.hang_up()
        if self._connected:
            if self._probe is not None and not self.keep_probe:
                # The directory goes too when nothing else (another arch's probe kept) is in it.
                remove = (f"rm -f {shlex.quote(self._probe)}; "
                          f"rmdir {shlex.quote(self._probe.rsplit('/', 1)[0])} 2>/dev/null")
                try:
                    if self.alive():
                        self._round_trip(remove + "; exit 0", timeout=CLOSE_TIMEOUT_S)
                except TargetError:
                    pass    # the board is gone: nothing left to tidy there
            self._connected = False
        self._probe = None
        self._finalizer()
        for session in sessions:     # ended with the master, at the latest
            session.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_SWEPT: list[Path] = []


def _sweep_once(tmp: Path):
    """What killed platperfs left in ``tmp`` removed, once a process (ssh_master.sweep)."""
    if tmp not in _SWEPT:
        _SWEPT.append(tmp)
        sweep(tmp)
