"""What every subcommand shares: the typer app, error exit, the --db option."""
from __future__ import annotations

import os
import sys

import typer

EXIT_OK, EXIT_REGRESSION, EXIT_USAGE, EXIT_UNDECIDED = 0, 1, 2, 3   # 3: a gate left a key undecided

app = typer.Typer(
    name="platperf",
    help="Characterise a Linux platform's performance and track it from release to release.\n\n"
         "Exit codes: 0 ok, 1 regression found (compare --fail-on-regression), 2 usage or input error.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)

def _print_version(value: bool):
    """``--version``: platperf's version, the build id of the probe this machine runs (two
    probes with one build id ran the same code) and the architectures whose probe it ships."""
    if not value:
        return
    from .. import __version__
    from ..probe_path import ARCHES, ProbeNotFound, find_probe
    from ..runner.probe import probe_meta
    from ..runner.suite import SuiteError
    from ..targets.local import LocalTarget
    print(f"platperf {__version__}")
    try:
        meta = probe_meta(LocalTarget())
        print(f"probe {meta.get('probe_version')} build {meta.get('build_id')} "
              f"({meta.get('arch')}, {meta.get('compiler')})")
    except (ProbeNotFound, SuiteError) as exc:
        print(f"probe: {exc}")
    shipped = []
    for arch in ARCHES:
        try:
            find_probe(arch)
            shipped.append(arch)
        except ProbeNotFound:
            pass
    print(f"probes for boards: {', '.join(shipped) or 'none'}")
    raise typer.Exit()


@app.callback()
def _options(version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                          help="Print platperf's version and its probe's build id, then exit.")):
    pass


DEFAULT_DB = os.environ.get("PLATPERF_DB", "platperf.db")
DbOption = typer.Option(DEFAULT_DB, "--db", help="Results database: a SQLite path (or sqlite:///PATH) "
                                                 "or postgresql://USER:PASSWORD@HOST:PORT/DBNAME "
                                                 "(pip install 'platperf[postgres]'); env PLATPERF_DB.",
                        show_default=True)
DbRetryOption = typer.Option(300.0, "--db-retry", metavar="SECONDS",
                             help="How long a database that went away (a server restarted or down, a full "
                                  "disk) is waited for while measuring goes on; past it the runs fail with "
                                  "the cause.", show_default=True)


def FormatOption(formats, default: str, what: str = ""):
    """``--format/-f FORMAT``, the one output-format option of every command; ``--json``
    (:data:`JsonOption`) is its short form for ``--format json``."""
    return typer.Option(default, "--format", "-f", metavar="FORMAT",
                        help=f"Output format: {', '.join(formats)}{what}.", show_default=True)


JsonOption = typer.Option(False, "--json", help="Short for --format json.")


def output_format(fmt: str, json_flag: bool, formats, default: str) -> str:
    """The format asked for by ``--format`` or ``--json``; exit 2 for an unknown one."""
    if json_flag:
        if fmt not in (default, "json"):
            fail_exit(f"--json is --format json; it cannot be combined with --format {fmt}")
        fmt = "json"
    if fmt not in formats:
        fail_exit(f"unknown format '{fmt}'; choose one of {', '.join(formats)}")
    return fmt


def examples(*commands: str) -> str:
    """An epilog of example commands, each on its own line as typed: a ``\\b`` block, which
    the help formatter never re-wraps, so a command copies whole (no file name broken at a
    hyphen). A comment goes after ``#``, as a shell takes it."""
    return "\b\nExamples:\n" + "\n".join(f"  {c}" for c in commands)


def fail_exit(message: str, code: int = EXIT_USAGE):
    """One clear line on stderr, then the documented exit code."""
    print(f"platperf: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def note_incomplete(runs):
    """One line on stderr per run used that is not ``complete``: its figures may be short
    of the suite (partial, failed, abandoned) or still growing (running)."""
    seen = set()
    for r in runs:
        if r["status"] == "complete" or r["id"] in seen:
            continue
        seen.add(r["id"])
        name = f"run {r['id']}" + (f" ({r['label']})" if r.get("label") else "")
        why = f": {r['error']}" if r.get("error") else ""
        print(f"platperf: note: {name} is {r['status']}{why}", file=sys.stderr)


def open_store(db: str, write: bool = True, retry: float | None = None):
    """The store ``db``, or one error line and exit 2 (bad URL, missing driver, server down,
    read-only). ``write=False`` is for reading commands: they work on a read-only database.
    ``retry``: --db-retry, the seconds a measuring command waits for a database that went away."""
    from ..store import Store, StoreError
    if retry is not None and retry < 0:
        fail_exit(f"--db-retry {retry:g}: expected seconds, 0 or more")
    try:
        store = Store(db, write=write)
    except StoreError as exc:
        fail_exit(str(exc))
    if retry is not None:
        store.retry_s = retry
    return store
