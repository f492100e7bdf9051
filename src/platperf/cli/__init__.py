"""The ``platperf`` command. Each subcommand lives in its own module of this package and
registers itself on :data:`app`; adding a command is one module and one name below."""
from __future__ import annotations

import importlib
import sys

from .common import app, fail_exit  # noqa: F401  (app is the command's root)

COMMANDS = ("run", "runs", "report", "doctor", "compare", "history", "ingest", "interference")

for _name in COMMANDS:
    try:
        importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as exc:  # a command not written yet
        if exc.name != f"{__name__}.{_name}":
            raise


def main():
    from ..records import RecordError
    from ..store import StoreError
    try:
        app()
    except (StoreError, RecordError) as exc:
        fail_exit(str(exc))
    except KeyboardInterrupt:
        print("platperf: interrupted", file=sys.stderr)
        sys.exit(130)
