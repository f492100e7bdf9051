"""The probe on this machine, as a child process whose stdout is read line by line."""
from __future__ import annotations

import collections
import contextlib
import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path

from ..machine.sysroot import SysRoot
from ..probe_path import find_probe
from ..records import MAX_LINE
from .base import NOT_FOUND, TIMED_OUT, CommandResult


class LocalProbe:
    def __init__(self, argv: list[str], env: dict | None = None):
        # Its own session: a Ctrl-C at the terminal reaches only platperf, which forwards
        # exactly one SIGINT so the probe finishes its sample and writes `end`.
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, text=True, bufsize=1,
                                     start_new_session=True, env=env)
        self._stderr = collections.deque(maxlen=20)
        # Drained in a thread: a chatty stderr must never block the probe's stdout.
        self._drain = threading.Thread(target=self._read_stderr, daemon=True)
        self._drain.start()

    def _read_stderr(self):
        for line in self.proc.stderr:
            if line.strip():
                self._stderr.append(line.rstrip("\n"))

    def __iter__(self):
        # At most MAX_LINE + 1 characters a line: read_stream refuses a longer one.
        return iter(lambda: self.proc.stdout.readline(MAX_LINE + 1), "")

    def interrupt(self):
        self._signal(signal.SIGINT)

    def kill(self):
        self._signal(signal.SIGKILL)

    def _signal(self, sig):
        if self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, sig)
            except ProcessLookupError:
                pass

    def wait(self, timeout=None) -> int:
        code = self.proc.wait(timeout)
        self._drain.join(1)
        self.proc.stdout.close()
        return code

    def stderr_tail(self) -> str:
        return self._stderr[-1] if self._stderr else ""


class LocalTarget:
    local = True     # this machine: platperf may write its /dev and /sys (mitigations)

    def __init__(self, probe: Path | None = None, root: str | os.PathLike = "/", name: str = "local"):
        self.probe, self.name = probe, name
        self.tools: dict = {}
        self.root = root   # "/" but in tests, which point it at a fixture tree

    def run(self, argv: list[str]) -> LocalProbe:
        probe = self.probe or find_probe()
        # The probe hears which target it runs as: inventory boards that are this machine
        # (tests, a workstation measured under two names) can be told apart by a wrapper.
        # and dies with this platperf, even one killed by SIGKILL (probe/src/exec.c)
        return LocalProbe([str(probe), *argv], env={**os.environ, "PLATPERF_TARGET": self.name,
                                                    "PLATPERF_PARENT_PID": str(os.getpid())})

    def sysroot(self) -> SysRoot:
        """This machine's /sys and /proc, read in place."""
        return SysRoot(self.root)

    def command(self, argv: list[str], *, timeout: float | None = None,
                stdin: bytes = b"") -> CommandResult:
        """``argv`` run here to its end; at ``timeout`` seconds it is killed with everything it
        started (its own session: a ``sh -c`` wrapper's children too)."""
        try:
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True)
        except FileNotFoundError:
            return CommandResult(NOT_FOUND, "", f"{argv[0]}: not found")
        except PermissionError as exc:
            return CommandResult(126, "", f"{argv[0]}: {exc.strerror}")
        try:
            out, err = proc.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            return CommandResult(TIMED_OUT, _text(out), _text(err) + f"\n{argv[0]}: stopped after {timeout:g} s")
        return CommandResult(proc.returncode, _text(out), _text(err))

    def which(self, name: str) -> str | None:
        return shutil.which(name)

    def close(self):
        """Nothing was uploaded and nothing is connected."""


def _text(data) -> str:
    return data.decode(errors="replace") if isinstance(data, bytes) else (data or "")
