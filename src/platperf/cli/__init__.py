"""The ``platperf`` command. Each subcommand lives in its own module of this package and
registers itself on ``app``; adding a command is one module and one name below.

This module imports nothing heavy at import time: ``main`` takes charge of Ctrl-C and
SIGTERM first, so that even during the imports of typer, rich and SQLAlchemy an interrupt
is one line and exit 130 (143 for SIGTERM), never a traceback. Until a command's body
starts, an interrupt exits at once; inside it, it unwinds as KeyboardInterrupt.
"""
from __future__ import annotations

import os
import signal
import sys

COMMANDS = ("run", "runs", "report", "doctor", "compare", "history", "ingest", "interference",
            "targets", "lava", "archive", "site")
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


def _exit_now(signum, _frame):
    # Before a command starts (imports, argument parsing) nothing is written yet, so an
    # interrupt ends the process at once: a KeyboardInterrupt raised inside an import can
    # come out wrapped in another exception, half-imported.
    what = "SIGTERM" if signum == signal.SIGTERM else "Ctrl-C"
    os.write(2, f"platperf: interrupted by {what}\n".encode())
    os._exit(128 + signum)


def _unwinding(command):
    """The command's body runs with interrupts that unwind (KeyboardInterrupt), so that
    what it measures or writes is finished cleanly."""
    import functools

    @functools.wraps(command)
    def body(*args, **kwargs):
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, _on_sigterm)
        return command(*args, **kwargs)
    return body


def _wrap_commands(typer_app):
    for info in typer_app.registered_commands:
        info.callback = _unwinding(info.callback)
    for group in typer_app.registered_groups:
        _wrap_commands(group.typer_instance)


def _plain_metavars(command):
    """Help shows ``--db DB`` and ``RUN``, never a type placeholder (``<str>``, ``TEXT``,
    ``<list[str]>``): an option without a metavar gets its long name in capitals; an argument
    shows its name alone (typer >= 0.20 appends its type otherwise)."""
    for param in command.params:
        if getattr(param, "is_flag", False) or getattr(param, "count", False):
            continue
        if param.metavar is None:
            longest = max(getattr(param, "opts", None) or [param.name], key=len)
            param.metavar = longest.lstrip("-").replace("-", "_").upper()
            if getattr(param, "nargs", 1) != 1 and param.param_type_name == "argument":
                param.metavar += "..."
        if param.param_type_name == "argument" and hasattr(param, "display_type_rich"):
            param.display_type_rich = lambda ctx: None
    for sub in getattr(command, "commands", {}).values():
        _plain_metavars(sub)


def command():
    """The click command behind ``app``, with its help as :func:`_plain_metavars` makes it."""
    from typer.main import get_command

    from .common import app
    _load_commands()
    cmd = get_command(app)
    _plain_metavars(cmd)
    return cmd


def main():
    signal.signal(signal.SIGINT, _exit_now)
    signal.signal(signal.SIGTERM, _exit_now)
    try:
        _load_commands()
        from ..records import RecordError
        from ..store import StoreError
        from .common import app, fail_exit
        _wrap_commands(app)
        try:
            command()(prog_name="platperf")
        except (StoreError, RecordError) as exc:
            fail_exit(str(exc))
    except SystemExit as exc:
        if exc.code == EXIT_SIGINT and _received:   # typer turned our SIGTERM into 130
            _quiet_exit(EXIT_SIGTERM, say=False)
        if exc.code in (EXIT_SIGINT, EXIT_SIGTERM):
            _quiet_exit(exc.code, say=False)
        raise
    except BaseException as exc:
        # Ctrl-C, also when a library wrapped it (an import inside a class body turns it
        # into RuntimeError): one line, never a traceback.
        if _interrupted(exc):
            _quiet_exit(EXIT_SIGTERM if _received else EXIT_SIGINT, say=True)
        raise


def _interrupted(exc: BaseException | None) -> bool:
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _quiet_exit(code: int, say: bool):
    # No second signal may print a traceback while exiting, and the interpreter's own
    # shutdown is skipped: it puts SIGINT back to its default action and may then end the
    # process by the signal instead of with the exit code. Everything platperf stores is
    # committed by now; only the standard streams need flushing.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if say:
        what = "SIGTERM" if code == EXIT_SIGTERM else "Ctrl-C"
        print(f"platperf: interrupted by {what}", file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
