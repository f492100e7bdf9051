"""A server that is not what the identity says, or a lab that misbehaves: what platperf sends it
and what it can make platperf do (docs/security.md). The adversary is an HTTP server of the
test's own on 127.0.0.1 (a real LAVA server never answers like this: tests/test_lava_*.py run
against the real one)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from platperf.lava.job import LavaError
from platperf.lava.server import Identity, Server, load_identity

TOKEN = "s3cr3t-token"
PASSWORD = "pa55w0rd-in-uri"


class Hostile:
    """An HTTP server whose answer to every request is ``answer(handler)``; remembers what it
    was sent."""

    def __init__(self, answer, host="127.0.0.1"):
        self.seen: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                outer.seen.append({"path": self.path, "auth": self.headers.get("Authorization")})
                answer(self)

            do_POST = do_GET

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://{host}:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hostile():
    made = []

    def make(answer, host="127.0.0.1"):
        made.append(Hostile(answer, host))
        return made[-1]
    yield make
    for server in made:
        server.close()


def reply(handler, code=200, body=b"{}", headers=()):
    handler.send_response(code)
    for name, value in headers:
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def server_at(url, **kw) -> Server:
    return Server(Identity("lab", url, "ci-bot", TOKEN), **kw)


def test_a_redirect_to_another_host_never_gets_the_token(hostile):
    elsewhere = hostile(lambda h: reply(h, body=b'{"state": "Finished"}'), host="127.0.0.2")
    lab = hostile(lambda h: reply(h, 302, b"", [("Location", f"{elsewhere.url}/api/v0.2/jobs/1/")]))
    with pytest.raises(LavaError) as err:
        server_at(lab.url).job(1)
    assert "redirected to another host" in str(err.value) and "\n" not in str(err.value)
    assert lab.seen and lab.seen[0]["auth"] == f"Token {TOKEN}"
    assert elsewhere.seen == []                        # not even asked, let alone with the token


def test_a_redirect_on_the_same_server_is_followed_with_the_token(hostile):
    def answer(h):
        if h.path.startswith("/old/"):
            reply(h, 301, b"", [("Location", h.path.replace("/old/", "/", 1))])
        else:
            reply(h, body=json.dumps({"state": "Finished", "path": h.path}).encode())
    lab = hostile(answer)
    job = server_at(lab.url + "/old").job(7)
    assert job["path"] == "/api/v0.2/jobs/7/"
    assert [s["auth"] for s in lab.seen] == [f"Token {TOKEN}"] * 2


def test_a_password_in_the_uri_is_the_token_and_never_printed(tmp_path, monkeypatch, hostile):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    lab = hostile(lambda h: reply(h, 403, b'{"detail": "Invalid token."}'))
    port = lab.url.rsplit(":", 1)[1]
    (tmp_path / "lavacli.yaml").write_text(f"lab:\n  uri: http://ci-bot:{PASSWORD}@127.0.0.1:{port}/RPC2\n")
    identity = load_identity("lab")
    assert identity.token == PASSWORD and PASSWORD not in identity.base
    with pytest.raises(LavaError) as err:
        Server(identity).job(1)
    assert lab.seen[0]["auth"] == f"Token {PASSWORD}"
    assert "403" in str(err.value) and PASSWORD not in str(err.value)
    # and through the command a user runs: the password in no line it prints
    done = subprocess.run([sys.executable, "-m", "platperf", "ingest", "lava", "1", "--identity", "lab",
                           "--db", str(tmp_path / "r.db")], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, XDG_CONFIG_HOME=str(tmp_path)))
    assert done.returncode == 2 and PASSWORD not in done.stdout + done.stderr


def test_an_unreadable_identities_file_does_not_quote_its_token(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "lavacli.yaml").write_text(f"lab:\n  uri: http://x/RPC2\n  token: {TOKEN}: [\n")
    with pytest.raises(LavaError) as err:
        load_identity("lab")
    assert "not valid YAML" in str(err.value) and TOKEN not in str(err.value)


def test_a_server_that_trickles_its_answer_is_given_up_at_the_deadline(hostile):
    def trickle(h):
        h.send_response(200)
        h.send_header("Content-Length", "1000")
        h.end_headers()
        try:
            for _ in range(1000):
                h.wfile.write(b" ")
                h.wfile.flush()
                time.sleep(0.5)
        except OSError:
            pass
    lab = hostile(trickle)
    started = time.monotonic()
    with pytest.raises(LavaError) as err:
        server_at(lab.url, timeout_s=2).job(1)
    assert "no whole answer in 2 s" in str(err.value) or "deadline passed" in str(err.value)
    assert time.monotonic() - started < 60        # not the 500 s the trickle would take


def test_a_200_that_is_not_json_is_said_as_such(hostile):
    lab = hostile(lambda h: reply(h, body=b"<html>captive portal</html>"))
    with pytest.raises(LavaError) as err:
        server_at(lab.url).job(1)
    assert "not with JSON" in str(err.value) and "captive portal" in str(err.value)


def test_an_answer_over_the_cap_is_refused_not_held(hostile, monkeypatch):
    import platperf.lava.server as server_module
    monkeypatch.setattr(server_module, "MAX_ANSWER", 1 << 20)
    lab = hostile(lambda h: reply(h, body=b"[" + b"0," * (1 << 20) + b"0]"))
    with pytest.raises(LavaError) as err:
        server_at(lab.url).job(1)
    assert "over 1 MiB" in str(err.value)


def test_the_state_poll_never_sends_its_credentials_to_another_host(hostile):
    """--wait asks scheduler.jobs.show (XML-RPC, the user and token as HTTP Basic): the same
    request rules as the REST calls."""
    elsewhere = hostile(lambda h: reply(h, body=b"<methodResponse/>"), host="127.0.0.2")
    lab = hostile(lambda h: reply(h, 307, b"", [("Location", f"{elsewhere.url}/RPC2")]))
    with pytest.raises(LavaError) as err:
        server_at(lab.url).state(1)
    assert "redirected to another host" in str(err.value)
    assert lab.seen[0]["path"] == "/RPC2" and lab.seen[0]["auth"].startswith("Basic ")
    assert elsewhere.seen == []


def test_a_state_answer_that_is_not_xml_rpc_is_said_as_such(hostile):
    lab = hostile(lambda h: reply(h, body=b"<html>captive portal</html>"))
    with pytest.raises(LavaError) as err:
        server_at(lab.url).state(1)
    assert "not with XML-RPC" in str(err.value) and "captive portal" in str(err.value)
