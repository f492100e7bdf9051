"""A command run to its end with its output read in bounded memory and time: what a board
sends back over one SSH request (a setup answer, a snapshot, a tool's output) is read up to a
cap, and the request is killed beyond it or at its timeout (docs/security.md)."""
from __future__ import annotations

import os
import selectors
import subprocess
import threading
import time

# What one request may bring back from a board: a tool's whole output, a snapshot (its own,
# smaller cap), a setup answer. Beyond it platperf stops reading and kills the request.
MAX_OUTPUT = 64 << 20
TIMED_OUT_CAPTURE, TOO_LONG = -1001, -1002     # capture()'s own return codes


def capture(argv: list[str], stdin: bytes, timeout: float | None, limit: int) -> subprocess.CompletedProcess:
    """``argv`` run to its end with ``stdin``, its stdout and stderr read up to ``limit`` bytes
    each: memory stays bounded whatever the other side sends. On ``timeout`` or ``limit`` the
    process (an ssh session) is killed and the code is TIMED_OUT_CAPTURE or TOO_LONG."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    outputs = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    deadline = None if timeout is None else time.monotonic() + timeout
    feeder = threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True)
    feeder.start()
    code = None
    with selectors.DefaultSelector() as sel:
        for stream in outputs:
            sel.register(stream, selectors.EVENT_READ)
        while sel.get_map():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                code = TIMED_OUT_CAPTURE
                break
            for key, _ in sel.select(left):
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                buffer = outputs[key.fileobj]
                buffer += chunk
                if len(buffer) > limit:
                    del buffer[limit:]
                    code = TOO_LONG
            if code is not None:
                break
    if code is not None:
        proc.kill()
    returned = proc.wait()
    feeder.join(5)
    for stream in outputs:
        stream.close()
    return subprocess.CompletedProcess(argv, returned if code is None else code,
                                       bytes(outputs[proc.stdout]), bytes(outputs[proc.stderr]))


def _feed(pipe, data: bytes):
    try:
        pipe.write(data)
    except (BrokenPipeError, OSError):
        pass      # the other side stopped reading: its exit status says why
    finally:
        try:
            pipe.close()
        except OSError:
            pass
