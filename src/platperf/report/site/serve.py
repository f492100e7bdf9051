"""``platperf site --serve``: the site on 127.0.0.1 for a local look, by Python's own static
file server (http.server), until Ctrl-C. A lab serves DIR with any web server instead."""
from __future__ import annotations

import functools
import http.server
from pathlib import Path


def serve_dir(root: Path, port: int):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"serving {root} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
