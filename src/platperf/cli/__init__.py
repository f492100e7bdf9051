"""The ``platperf`` command. Each subcommand lives in its own module of this package and
registers itself on ``app``; adding a command is one module and one name below.

This module imports nothing heavy at import time: ``main`` takes charge of Ctrl-C and
SIGTERM first, so that even during the imports of typer, rich and SQLAlchemy an interrupt
is one line and exit 130 (143 for SIGTERM), never a traceback.
"""
from __future__ import annotations

import signal
import sys

COMMANDS = ("run", "runs", "report", "doctor", "compare", "history", "ingest", "interference",
            "targets")
EXIT_SIGINT, EXIT_SIGTERM = 128 + signal.SIGINT, 128 + signal.SIGTERM

_received: list[int] = []   # the signals that interrupted this process


def __getattr__(name):
    # `from platperf.cli import app` (tests, docs) loads every command on first use.
    if name in ("app", "fail_exit"):
        _load_commands()
        from . import common
        return getattr(common, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _load_commands():
    import importlib
    for name in COMMANDS:
        try:
            importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:  # a command not written yet
            if exc.name != f"{__name__}.{name}":
                raise


def _on_sigterm(signum, _frame):
    # SIGTERM unwinds like Ctrl-C (runs are left 'partial', mitigations undone); only the
    # exit code differs.
    _received.append(signum)
    raise KeyboardInterrupt


def main():
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        _load_commands()
        from ..records import RecordError
        from ..store import StoreError
        from .common import app, fail_exit
        try:
            app()
        except (StoreError, RecordError) as exc:
            fail_exit(str(exc))
    except KeyboardInterrupt:
        _quiet_exit(EXIT_SIGTERM if _received else EXIT_SIGINT, say=True)
    except SystemExit as exc:
        if exc.code == EXIT_SIGINT and _received:   # typer turned our SIGTERM into 130
            _quiet_exit(EXIT_SIGTERM, say=False)
        raise


def _quiet_exit(code: int, say: bool):
    # A second Ctrl-C while exiting must not print a traceback either.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if say:
        what = "SIGTERM" if code == EXIT_SIGTERM else "Ctrl-C"
        print(f"platperf: interrupted by {what}", file=sys.stderr)
    raise SystemExit(code)
