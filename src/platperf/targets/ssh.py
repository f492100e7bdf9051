"""A board reached over SSH: ``ssh://[user@]host[:port]`` or ``ssh://alias``.

The system OpenSSH client does the connecting, so ``~/.ssh/config`` works as the user already
has it (Host aliases, Port, User, IdentityFile, ProxyJump). One master connection carries the
whole run: it is opened once with a private ControlPath in a temp dir, every probe step and
every `kill -INT` is a session multiplexed over it, and close() shuts it. BatchMode: ssh never
prompts; a key or host key problem is an error line instead.

On the board: ``uname -m`` picks the probe build; the probe goes to a private per-user
directory (``platperf-UID`` in ``$TMPDIR``, /tmp or ``remote_dir``: mode 0700, checked, see
_setup) only when its sha256 differs from what is there, and is removed at close unless
``keep_probe``. The host is always given after ``--``, so it is never read as an option. $PLATPERF_SSH_CONFIG names an extra ``ssh -F`` config file.
"""
from __future__ import annotations

import collections
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import weakref
from pathlib import Path
from urllib.parse import urlsplit

from ..probe_path import ProbeNotFound, find_probe, probe_arch
from . import TIMED_OUT, CommandResult, TargetError
from .remote_sysroot import SNAPSHOT_SCRIPT, SnapshotError, SnapshotSysRoot, unpack_snapshot

SSH_EXIT_ERROR = 255        # ssh's own failure: the connection, not the remote command
ROUND_TRIP_TIMEOUT_S = 120  # setup, upload, snapshot: generous for a slow board's link
# A board that reboots sends no FIN: without keep-alives the stream would hang for ever.
KEEPALIVE = ("-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3")
# A board that is off, or an sshd that accepts and never answers: one line within 30 s.
CONNECT_TIMEOUT_S = 15
# The sample the doctor compares: the same as doctor.check_busy_processes's default.
SAMPLE_INTERVAL_S = 0.2


# The board side of _setup, after `uname -m` and B=<base directory>: POSIX sh, busybox is enough.
# The checks read `ls -ldn` (mode, links, uid, ...): stat(1) options differ between busybox
# and coreutils. ls -ldn "$B/" follows a link to the base (a TMPDIR that is a symlink).
SETUP_SCRIPT = r"""U=$(id -u) || exit 126
D="${B%/}/platperf-$U"
bad() { echo "bad $D $*"; exit 0; }
[ -d "$B" ] || mkdir -p "$B" 2>/dev/null || bad "cannot create $B"
set -f
set -- $(ls -ldn "$B/" 2>/dev/null)
case ${3:-?} in 0|"$U") ;; *) bad "$B belongs to uid ${3:-?}, who could replace what is in it" ;; esac
case $1 in ?????w????*|????????w?*)
    case $1 in ?????????[tT]*) ;; *) bad "$B is writable by others and not sticky" ;; esac ;;
esac
(umask 077 && mkdir "$D") 2>/dev/null
[ -L "$D" ] && bad "is a symbolic link"
[ -d "$D" ] || bad "cannot be created"
set -- $(ls -ldn "$D" 2>/dev/null)
[ "${3:-?}" = "$U" ] || bad "belongs to uid ${3:-?}, not to the login user ($U)"
case $1 in drwx------|drwx------.) ;; *) bad "has mode ${1:-?}, not drwx------ (0700)" ;; esac
[ -w "$D" ] || bad "is not writable"
echo "dir $D"
set +f
for P in "$D"/platperf-probe-*; do
    [ -f "$P" ] && [ ! -L "$P" ] || continue
    h=$(sha256sum "$P" 2>/dev/null) && echo "probe ${h%% *} $P"
done
exit 0
"""
# The board side of _upload, with P=<probe path> H=<its sha256> N=<its size>; the probe on stdin.
UPLOAD_SCRIPT = r"""T="$P.part"
rm -f "$T"
cat > "$T" || { rm -f "$T"; echo "cannot write $T" >&2; exit 4; }
if h=$(sha256sum "$T" 2>/dev/null); then
    [ "${h%% *}" = "$H" ] || { rm -f "$T"; echo "the copy's sha256 is not the probe's" >&2; exit 5; }
elif [ "$(($(wc -c < "$T")))" != "$N" ]; then
    rm -f "$T"; echo "the copy is not $N bytes long" >&2; exit 5
fi
chmod 700 "$T" && mv -f "$T" "$P" || { rm -f "$T"; echo "cannot rename $T" >&2; exit 4; }
( exec "$P" list ) >/dev/null 2>"$P.err"; s=$?
tail -n 1 "$P.err" >&2; rm -f "$P.err"; exit $s
"""


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
    def __init__(self, url: str, remote_dir: str | None = None, keep_probe: bool = False,
                 ssh_options=(), connect_timeout: float = CONNECT_TIMEOUT_S):
        self.name = url
        self.user, self.host, self.port = parse_ssh_url(url)
        if remote_dir is not None and (not remote_dir or any(ord(c) < 32 for c in remote_dir)):
            raise TargetError(f"--remote-dir {remote_dir!r}: give a directory path without "
                              f"newlines or control characters")
        self.remote_dir = remote_dir
        self.keep_probe = keep_probe
        self.connect_timeout = connect_timeout
        self.uploads = 0          # how many times the probe was copied over: 0 when it was there
        self.arch: str | None = None
        self._ssh_options = list(ssh_options)
        config = os.environ.get("PLATPERF_SSH_CONFIG")
        if config:
            self._ssh_options = ["-F", config, *self._ssh_options]
        # Short: a ControlPath is a unix socket, and those are limited to about 100 bytes.
        self._tmp = Path(tempfile.mkdtemp(prefix="pp-ssh-"))
        self._control = self._tmp / "cm"
        self._connected = False
        self._probe: str | None = None      # the probe's path on the board, once set up
        self._snapshots = 0
        # A caller that exits without close() still leaves no master or temp dir behind.
        self._finalizer = weakref.finalize(self, _stop_master, self._ssh("-O", "exit"), self._tmp)

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
        started here would hold our pipes open)."""
        return [*self._ssh("-T", "-o", "ControlMaster=no"), command]

    def _round_trip(self, command: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
        self._connect()
        try:
            done = subprocess.run(self._session(command), input=stdin, capture_output=True,
                                  timeout=ROUND_TRIP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise TargetError(f"{self.name}: no answer in {ROUND_TRIP_TIMEOUT_S} s") from None
        if done.returncode == SSH_EXIT_ERROR:
            raise TargetError(f"connection to {self.host} lost: "
                              f"{_last_line(done.stderr.decode(errors='replace')) or 'ssh exited 255'}")
        return done

    # -- the connection ---------------------------------------------------------------------
    def _connect(self):
        if self._connected:
            return
        log = self._tmp / "master.log"
        if sys.stderr.isatty():
            print(f"connecting to {self.host}...", end="\r", file=sys.stderr, flush=True)
        # -f: ssh goes to the background once logged in; its stderr is a file, not a pipe, so
        # that the master living on does not keep this call waiting. ConnectTimeout bounds the
        # TCP connect and the banner exchange; the outer timeout whatever comes after (a server
        # that stalls in the key exchange or the login).
        argv = self._ssh("-M", "-N", "-f", "-o", "ControlPersist=300",
                         "-o", f"ConnectTimeout={self.connect_timeout:g}", *KEEPALIVE)
        try:
            with open(log, "w") as err:
                code = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=err, timeout=2 * self.connect_timeout).returncode
        except subprocess.TimeoutExpired:
            code, why = None, f"no answer in {2 * self.connect_timeout:g} s"
        finally:
            if sys.stderr.isatty():
                print(" " * (len(self.host) + 16), end="\r", file=sys.stderr, flush=True)
        if code is None:
            raise TargetError(f"cannot reach {self.host}: {why} (is the board on, and its sshd answering?)")
        if code != 0:
            raise TargetError(self._connect_error(_last_line(log.read_text(errors="replace"))))
        self._connected = True

    def _connect_error(self, why: str) -> str:
        host = self.host
        if "Host key verification failed" in why or "host key for" in why.lower():
            return (f"{host}: the board's host key is not known or has changed ({why}); "
                    f"check it and accept it once with 'ssh {host}'")
        if "Permission denied" in why:
            return (f"{host} refused the key ({why}); install yours with 'ssh-copy-id {host}' "
                    f"or name it with IdentityFile in ~/.ssh/config")
        return f"cannot reach {host}: {why or 'ssh failed'}"

    # -- the probe on the board -------------------------------------------------------------
    def _setup(self) -> str:
        """The board's probe path, uploaded if needed: one round trip, two when it uploads.

        The probe lives in a directory of the login user's own, ``BASE/platperf-UID`` (BASE:
        --remote-dir, else $TMPDIR or /tmp), made with mode 0700 and checked after it is made:
        a directory that exists with another owner or mode, a symbolic link, or one inside a
        directory others could swap it out of, is refused. Nothing in it is executed before
        its sha256 matches the probe this host carries (docs/security.md)."""
        if self._probe is not None:
            return self._probe
        base = shlex.quote(self.remote_dir) if self.remote_dir else '"${TMPDIR:-/tmp}"'
        # Prints the arch, then "dir D" or "bad D WHY", then per probe file there its sha256.
        done = self._round_trip(f"uname -m || exit 127\nB={base}\n{SETUP_SCRIPT}")
        lines = done.stdout.decode(errors="replace").splitlines()
        if done.returncode == 127 or not lines or not lines[0].strip():
            raise TargetError(f"{self.host}: 'uname -m' did not run on the board "
                              f"({_last_line(done.stderr.decode(errors='replace')) or 'no output'}); "
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
        remote_dir = status[1]
        path = f"{remote_dir}/platperf-probe-{self.arch}"
        there = {}
        for line in lines[2:]:
            fields = line.split(" ", 2)
            if fields[0] == "probe" and len(fields) == 3:
                there[fields[2]] = fields[1]
        binary = local.read_bytes()
        digest = hashlib.sha256(binary).hexdigest()
        if there.get(path) != digest:
            self._upload(binary, digest, path)
        self._probe = path
        return path

    def _setup_into(self, failed: list):
        try:
            self._setup()
        except TargetError as exc:
            failed.append(exc)

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

    def run(self, argv: list[str]) -> "RemoteProbe":
        path = self._setup()
        # The shell's PID first: `exec` makes it the probe's, which interrupt() signals.
        command = f"P={shlex.quote(path)}\necho $$\nexec \"$P\" {' '.join(map(shlex.quote, argv))}"
        return RemoteProbe(self, self._session(command))

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
        try:
            done = subprocess.run(self._session(line), input=stdin, capture_output=True,
                                  timeout=timeout)
            out, err, code, stopped = done.stdout, done.stderr, done.returncode, False
        except subprocess.TimeoutExpired as exc:
            out, err, code, stopped = exc.stdout or b"", exc.stderr or b"", TIMED_OUT, True
        pid, _, out = out.partition(b"\n")
        text, err_text = out.decode(errors="replace"), err.decode(errors="replace")
        if not pid.strip().isdigit():    # the remote shell never started: ssh itself failed
            raise TargetError(f"connection to {self.host} lost: {_last_line(err_text) or f'ssh exited {code}'}")
        if stopped:   # sshd made the shell a session leader: its group is all the tool started
            self.signal(-int(pid), "KILL")
            err_text += f"\n{argv[0]}: stopped after {timeout:g} s\n"
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
        setup = threading.Thread(target=self._setup_into, args=(failed,), daemon=True)
        self._connect()
        setup.start()
        try:
            done = self._round_trip(f"sh -s -- '' {interval:g}",
                                    stdin=SNAPSHOT_SCRIPT.encode())
        finally:
            setup.join()
        if failed:
            raise failed[0]
        if done.returncode != 0:
            raise TargetError(f"{self.host}: reading /sys and /proc failed (exit {done.returncode}): "
                              f"{_last_line(done.stderr.decode(errors='replace'))}")
        self._snapshots += 1
        try:
            return unpack_snapshot(done.stdout, self._tmp / f"sysroot{self._snapshots}", interval)
        except SnapshotError as exc:
            raise TargetError(f"{self.host}: {exc}") from None

    # -- the end ----------------------------------------------------------------------------
    def close(self):
        if self._connected:
            if self._probe is not None and not self.keep_probe:
                # The directory goes too when nothing else (another arch's probe kept) is in it.
                remove = (f"rm -f {shlex.quote(self._probe)}; "
                          f"rmdir {shlex.quote(self._probe.rsplit('/', 1)[0])} 2>/dev/null")
                try:
                    self._round_trip(remove + "; exit 0")
                except TargetError:
                    pass    # the board is gone: nothing left to tidy there
            self._connected = False
        self._probe = None
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _stop_master(exit_argv: list[str], tmp: Path):
    if (tmp / "cm").exists():
        subprocess.run(exit_argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    shutil.rmtree(tmp, ignore_errors=True)


class RemoteProbe:
    """The probe running on the board, its stdout streamed back through ssh."""

    def __init__(self, target: SshTarget, argv: list[str]):
        self.target = target
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, text=True, bufsize=1,
                                     start_new_session=True)
        self._stderr = collections.deque(maxlen=20)
        self._drain = threading.Thread(target=self._read_stderr, daemon=True)
        self._drain.start()
        first = self.proc.stdout.readline()
        self.pid = int(first) if first.strip().isdigit() else None
        self._first = "" if self.pid is not None else first
        self._lost: str | None = None

    def _read_stderr(self):
        for line in self.proc.stderr:
            if line.strip():
                self._stderr.append(line.rstrip("\n"))

    def __iter__(self):
        if self._first:
            yield self._first
        yield from iter(self.proc.stdout.readline, "")

    def interrupt(self):
        """SIGINT to the probe on the board: it finishes its sample and writes `end`."""
        if self.pid is not None and self.proc.poll() is None:
            self.target.signal(self.pid, "INT")

    def kill(self):
        if self.pid is not None and self.proc.poll() is None:
            self.target.signal(self.pid, "KILL")
        if self.proc.poll() is None:
            self.proc.kill()

    def wait(self, timeout=None) -> int:
        code = self.proc.wait(timeout)
        self._drain.join(1)
        self.proc.stdout.close()
        if code == SSH_EXIT_ERROR:
            why = self._stderr[-1] if self._stderr else "ssh exited 255"
            self._lost = f"connection to {self.target.host} lost: {why}"
        return code

    def stderr_tail(self) -> str:
        if self._lost:
            return self._lost
        return self._stderr[-1] if self._stderr else ""
