"""A lab's file server and git test-definition repository, on 127.0.0.1, for LAVA jobs.

:class:`FileServer` is Python's http.server in a thread serving one directory, keeping the
path of every GET it answered (what the board downloaded). :func:`git_repository` commits a
directory's files to a new git repository (under ``subdir`` in it) and gives its file:// URL,
which the lava-worker clones as it would the lab's server.
"""
from __future__ import annotations

import shutil
import subprocess
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class FileServer:
    def __init__(self, directory: Path):
        self.requests: list[tuple[str, int]] = []
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def log_request(self, code="-", size="-"):
                server.requests.append((self.path, int(code)))

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(directory)))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "FileServer":
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def git_repository(files: Path, repo: Path, subdir: str = "") -> str:
    """``files`` committed to a new repository at ``repo`` (in ``subdir``): its file:// URL."""
    shutil.copytree(files, repo / subdir if subdir else repo, dirs_exist_ok=True)

    def git(*args):
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=lab", "-c", "user.email=lab@example.org",
                        *args], check=True, capture_output=True)
    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "platperf's files for LAVA jobs")
    return repo.resolve().as_uri()
