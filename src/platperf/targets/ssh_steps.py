"""The session on a board that runs its probe steps one after another (board_scripts.STEP_SERVER),
and a probe step as the runner sees it.

An SSH session costs a process on each side and a login shell on the board: 65 ms a session on
a quiet machine, several hundred on a busy one. A run's steps (27 for `quick`, with `info` and
`list`) therefore share one session: each is a line of arguments in, its records out, then a
line with the session's marker and the probe's exit status. The marker is random: no probe
output can end a step early by chance.
"""
from __future__ import annotations

import collections
import contextlib
import shlex
import subprocess
import threading

from ..records import MAX_LINE
from .base import TargetError

SSH_EXIT_ERROR = 255      # ssh's own failure: the connection, not the remote command
CLOSE_WAIT_S = 5          # for the session to end once its pipe is closed
KILLED = 128 + 9          # the exit status of a probe killed by SIGKILL, as the board's shell says it
STDERR_WAIT_S = 2         # for a step's stderr to arrive after its stdout has ended


class StepSession:
    """One ssh session running STEP_SERVER; ``marker`` ends each of its answers."""

    def __init__(self, argv: list[str], marker: str):
        self.marker = marker
        # stdin: the requests, and the session's lifeline (closed when we are done)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, encoding="utf-8", errors="replace",
                                     bufsize=1, start_new_session=True)
        self.lost = False            # stdout ended: the session (or its connection) is gone
        self.failure: str | None = None    # why answer() gave up on it, if it did
        self.answers = 0             # answers read (the setup's, "ready", each step's)
        self._tails: dict[int, collections.deque] = {}    # answer number -> its stderr's tail
        self._errors = 0             # answers whose stderr has ended
        self._stderr_seen = threading.Condition()
        self._drain = threading.Thread(target=self._read_stderr, daemon=True)
        self._drain.start()

    # -- stderr, split at the markers ---------------------------------------------------------
    def _read_stderr(self):
        tail = collections.deque(maxlen=20)
        for line in iter(lambda: self.proc.stderr.readline(4096), ""):
            if line.startswith(self.marker):
                with self._stderr_seen:
                    self._tails[self._errors] = tail
                    self._tails.pop(self._errors - 8, None)
                    self._errors += 1
                    self._stderr_seen.notify_all()
                tail = collections.deque(maxlen=20)
            elif line.strip():
                tail.append(line.rstrip("\n"))
        with self._stderr_seen:      # the session ended: what came last is the last answer's
            self._tails[self._errors] = tail
            self._errors = -1
            self._stderr_seen.notify_all()

    def stderr_tail(self, answer: int) -> str:
        """The last stderr line of answer number ``answer`` (waiting briefly for it)."""
        with self._stderr_seen:
            self._stderr_seen.wait_for(lambda: self._errors < 0 or self._errors > answer, STDERR_WAIT_S)
            tail = self._tails.get(answer)
        return tail[-1] if tail else ""

    # -- stdout: lines up to the marker -------------------------------------------------------
    def send(self, line: str):
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self.lost = True

    def readline(self) -> str:
        """A line of the current answer, ``marker + ' ' + words`` at its end, "" once the session
        is gone."""
        line = self.proc.stdout.readline(MAX_LINE + 1)
        if not line:
            self.lost = True
        return line

    def answer(self, timeout: float, limit: int) -> tuple[list[str], str | None]:
        """(the lines of the next answer, its end words) within ``timeout`` seconds and ``limit``
        bytes; end words None: the session ended, ran out of time or sent too much (it is then
        closed)."""
        watchdog = threading.Timer(timeout, self._give_up, args=(f"no answer in {timeout:g} s",))
        watchdog.daemon = True
        watchdog.start()
        lines, size = [], 0
        try:
            while size <= limit:
                line = self.readline()
                if not line:
                    return lines, None
                if line.startswith(self.marker):
                    self.answers += 1
                    return lines, line[len(self.marker):].strip()
                size += len(line)
                if line.strip():
                    lines.append(line.rstrip("\n"))
            self._give_up(f"it sent more than {limit >> 20} MiB for one request; platperf "
                          f"stopped reading (docs/security.md)")
            return lines, None
        finally:
            watchdog.cancel()

    def _give_up(self, why: str):
        self.failure = why
        self.close(wait=0)

    def hang_up(self):
        """Close the lifeline: the board stops a running probe and ends the session."""
        with contextlib.suppress(OSError, ValueError):
            self.proc.stdin.close()

    def close(self, wait: float = CLOSE_WAIT_S):
        """Hang up and wait for the session to end (killed here after ``wait`` seconds)."""
        self.hang_up()
        try:
            self.proc.wait(wait)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.lost = True


class RemoteProbe:
    """One step: the probe running on the board, its stdout read from the session up to the
    marker. The session goes back to ``release`` once the step has ended."""

    def __init__(self, target, session: StepSession, argv: list[str], release):
        self.target, self.session, self._release = target, session, release
        self.code: int | None = None
        self._killed = False
        self._read = threading.Lock()
        self._answer = session.answers
        session.send(" ".join(map(shlex.quote, argv)))
        first = session.readline()
        self.pid = int(first) if first.strip().isdigit() else None
        self._held = "" if self.pid is not None or first.startswith(session.marker) else first
        if first.startswith(session.marker) or not first:
            self._ended(first)

    @property
    def proc(self) -> subprocess.Popen:
        """The ssh client of the session the step runs in: killing it cuts the session."""
        return self.session.proc

    def _ended(self, line: str):
        """The step's end: its marker line (or "" when the session is gone)."""
        words = line[len(self.session.marker):].split()
        if len(words) == 2 and words[0] == "end" and words[1].isdigit():
            self.code = int(words[1])
            self.session.answers += 1
            self._release(self.session)
        else:     # the session is gone: we killed the step, or the connection was lost
            self.code = KILLED if self._killed else SSH_EXIT_ERROR
            self.session.close(wait=0)

    def _next_line(self) -> str | None:
        """The step's next stdout line, None at its end. A line the probe left without a
        newline reaches us followed by the marker's own newline."""
        with self._read:
            if self.code is not None:
                return None
            if self._held:
                line, self._held = self._held, ""
                return line
            line = self.session.readline()
            if line == "\n":                       # the newline before the marker, or a blank
                after = self.session.readline()
                if not after or after.startswith(self.session.marker):
                    self._ended(after)
                    return None
                self._held = after
                return line
            if not line or line.startswith(self.session.marker):
                self._ended(line)
                return None
            return line

    def __iter__(self):
        # At most MAX_LINE + 1 characters a line: read_stream refuses a longer one.
        return iter(self._next_line, None)

    def interrupt(self):
        """SIGINT to the probe on the board: it finishes its sample and writes `end`."""
        if self.pid is not None and self.code is None:
            self.target.signal(self.pid, "INT")

    def kill(self):
        """SIGKILL to the probe on the board, and its session given up (its pipe closed stops
        the probe there too), rather than read what the probe still sends: the next step has
        a new session."""
        if self.code is not None:
            return
        self._killed = True
        if self.pid is not None:
            self.target.signal(self.pid, "KILL")
        self.session.close(wait=0)

    def wait(self, timeout: float | None = None) -> int:
        """The probe's exit status (a signal's as 128+N; 255: the connection was lost), once
        the rest of the step's stdout is read and dropped."""
        if timeout is not None:
            drain = threading.Thread(target=self.wait, daemon=True)
            drain.start()
            drain.join(timeout)
            if drain.is_alive():
                raise subprocess.TimeoutExpired(f"the probe on {self.target.host}", timeout)
        while self._next_line() is not None:
            pass
        return self.code

    def stderr_tail(self) -> str:
        if self.code == SSH_EXIT_ERROR:
            why = self.session.stderr_tail(self._answer) or "ssh exited 255"
            return f"connection to {self.target.host} lost: {why}"
        return self.session.stderr_tail(self._answer)
