"""One HTTP request to a LAVA server, bounded in time and size, with the token kept at home.

What a lab server (or something answering in its place) cannot make platperf do:

* send the token elsewhere: a redirect is followed only to the same host (and port, or from
  http to https); any other is refused with one line, so ``Authorization`` never leaves the
  origin it belongs to;
* hold platperf for ever: the whole request (connecting, headers, body) has one deadline,
  however slowly the bytes come;
* fill the host's memory: the body is read up to ``limit`` bytes, then refused.
"""
from __future__ import annotations

import http.client
import threading
import time
from urllib.parse import urljoin, urlsplit

MAX_REDIRECTS = 5
READ_CHUNK = 1 << 16


class HttpError(RuntimeError):
    """The request did not give an answer (one line saying why)."""


def origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return parts.scheme, (parts.hostname or "").lower(), port


def same_home(first: str, then: str) -> bool:
    """Whether the token of ``first`` may go to ``then``: the same origin, or the same host
    moved from http to https (the one redirect a lab's web server commonly makes)."""
    a, b = origin(first), origin(then)
    return a == b or (a[1] == b[1] and a[0] == "http" and b[0] == "https" and b[2] == 443 and a[2] == 80)


def request(method: str, url: str, *, headers: dict, body: bytes | None, deadline_s: float,
            limit: int) -> tuple[int, bytes]:
    """(status, body) of ``method url``; raises HttpError on a refused redirect, a body over
    ``limit`` bytes, a deadline passed, or a connection that fails."""
    outcome: dict = {}
    worker = threading.Thread(target=_run, args=(method, url, headers, body, deadline_s, limit, outcome),
                              daemon=True, name="lava-http")
    worker.start()
    worker.join(deadline_s)
    if worker.is_alive():
        connection = outcome.get("connection")
        if connection is not None:
            connection.close()       # the worker's blocking read ends; it is a daemon anyway
        raise HttpError(f"no whole answer in {deadline_s:g} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["status"], outcome["body"]


def _run(method, url, headers, body, deadline_s, limit, outcome):
    try:
        outcome["status"], outcome["body"] = _follow(method, url, headers, body,
                                                     time.monotonic() + deadline_s, limit, outcome)
    except HttpError as exc:
        outcome["error"] = exc
    except (OSError, http.client.HTTPException) as exc:
        outcome["error"] = HttpError(str(exc) or type(exc).__name__)


def _follow(method, url, headers, body, deadline, limit, outcome):
    first = url
    for _ in range(MAX_REDIRECTS + 1):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise HttpError(f"not an http(s) URL: {safe_url(url)}")
        kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        left = deadline - time.monotonic()
        if left <= 0:
            raise HttpError("deadline passed")
        connection = kind(parts.hostname, parts.port, timeout=left)
        outcome["connection"] = connection
        try:
            target = parts.path or "/"
            if parts.query:
                target += f"?{parts.query}"
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
            if response.status in (301, 302, 303, 307, 308) and response.getheader("Location"):
                then = urljoin(url, response.getheader("Location"))
                if not same_home(first, then):
                    raise HttpError(f"the server redirected to another host ({safe_url(then)}); platperf "
                                    f"does not send the token there: give the server's own address")
                url = then
                if response.status == 303:
                    method, body = "GET", None
                continue
            return response.status, _read(response, deadline, limit)
        finally:
            connection.close()
    raise HttpError(f"more than {MAX_REDIRECTS} redirects")


def _read(response, deadline, limit) -> bytes:
    out = bytearray()
    while True:
        if time.monotonic() > deadline:
            raise HttpError("deadline passed while the answer was coming")
        chunk = response.read1(READ_CHUNK)
        if not chunk:
            return bytes(out)
        out += chunk
        if len(out) > limit:
            raise HttpError(f"the answer is over {limit >> 20} MiB; platperf stopped reading")


def safe_url(url: str) -> str:
    """``url`` without any user:password part."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return parts._replace(netloc=host).geturl()
