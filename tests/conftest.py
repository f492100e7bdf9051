"""What every test module shares.

One skip policy: a test that needs a tool this machine lacks (PostgreSQL, sshd, qemu-user,
a cross compiler, chromium, a built probe, a Python package of the test extra) calls
:func:`missing`. On a developer's machine the test is skipped with the reason; with
``CI=true`` it fails, because CI installs every tool (``make test``) and a skip there would
hide a test that never ran.
"""
from __future__ import annotations

import importlib
import os
import shutil
import tempfile

import pytest

CI = os.environ.get("CI") == "true"


# Where platperf keeps run ends a database could not take (store/journal.py): a directory of the
# test session's own, for every test and the platperf processes they start, never ~/.local/state.
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="platperf-state-")


def missing(reason: str):
    """Skip, or under CI=true fail: ``reason`` says what is missing and how to get it."""
    if CI:
        pytest.fail(f"{reason} (CI=true: a missing tool is a failure, not a skip; `make test` installs it)")
    pytest.skip(reason)


def require_executable(name: str, hint: str = "make deps") -> str:
    """The path of ``name`` on PATH, or :func:`missing`."""
    path = shutil.which(name)
    if path is None:
        missing(f"{name} is not installed ({hint})")
    return path


def require_module(name: str):
    """The imported module ``name`` (from the test extra), or :func:`missing`."""
    try:
        return importlib.import_module(name)
    except ImportError:
        missing(f"Python package {name} is not installed (pip install -e '.[test]')")


def require_probe() -> str:
    """The native probe built for this machine, or :func:`missing`."""
    from platperf.probe_path import ProbeNotFound, find_probe
    try:
        return str(find_probe())
    except ProbeNotFound:
        missing("platperf-probe is not built (make probe)")


# A real PostgreSQL server for the session, a database per test, and ``db_url`` (a test
# run once on SQLite and once on PostgreSQL): see tests/pg_server.py.
from pg_server import db_url, pg_database, pg_server  # noqa: E402,F401
# A real sshd for the SSH target's tests (tests/sshd_server.py), started once per session.
from sshd_server import board_liar, sshd  # noqa: E402,F401
# Virtual Arm boards (QEMU guests of Debian's kernels, tests/vboard.py), booted once per session
# on first use.
from vboard import (vboard_aarch64, vboard_aarch64_2s, vboard_aarch64_events,  # noqa: E402,F401
                    vboard_armv7, vboard_armv7_events)
# A real LAVA lab (lava-server, its scheduler and a lava-worker with an ssh device), started
# once per session by the first test that asks for it (tests/lava_server.py).
from lava_server import lava_lab  # noqa: E402,F401
