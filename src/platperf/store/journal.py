"""A run's end that the database could not take, kept where the next platperf finds it.

When the database stays away past ``--db-retry`` (a PostgreSQL server down, a full disk), the
run fails, but its ``failed`` status and the cause cannot be written either. Without this the
run stays ``running`` until the next command's sweep marks it ``abandoned: platperf pid N is
gone``, and the cause is lost. So the end is appended to a journal — one JSON line (the
database, the run, its status, the cause, when) — beside a SQLite database (``<db>-ends``) or,
where that cannot be written (the full disk itself) and for a server, in the user's state
directory (``$XDG_STATE_HOME/platperf/ends``, ``~/.local/state`` by default). Every writable
open of a database applies the lines that are its own before the sweep looks for abandoned
runs (store/sweep.py), and keeps the others.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path

from sqlalchemy import update

from .schema import runs

NAME = "ends"


def identity(store) -> str:
    """The database as the journal names it: a SQLite file by its absolute path, a server by
    its URL without the password."""
    url = store.engine.url
    if url.get_backend_name() == "sqlite":
        return f"sqlite:{Path(url.database or '').resolve()}" if url.database else "sqlite:memory"
    return url.render_as_string(hide_password=True)


def places(store) -> list[Path]:
    """Where the journal of ``store`` may be, the first one tried first."""
    out = []
    url = store.engine.url
    if url.get_backend_name() == "sqlite" and url.database:
        db = Path(url.database).resolve()
        out.append(db.with_name(f"{db.name}-{NAME}"))
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    out.append(state / "platperf" / NAME)
    return out


def record(store, run_id: int, status: str, error: str | None) -> Path | None:
    """The run's end appended to the first journal that takes it; None if none does."""
    line = json.dumps({"db": identity(store), "run": run_id, "status": status, "error": error,
                       "at": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")})
    for path in places(store):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as f:
                f.write(line + "\n")
                f.flush()
                os.fsync(f.fileno())
            return path
        except OSError:
            continue
    return None


def apply(store) -> list[int]:
    """The ends of this database's runs recorded in its journals, written to it; the runs
    they ended. A run already ended otherwise keeps its end; a sweep's ``abandoned`` gives way
    to the cause the journal holds."""
    me, done = identity(store), []
    for path in places(store):
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        mine, others = [], []
        for text in lines:
            try:
                entry = json.loads(text)
            except ValueError:
                continue                 # a line cut by the very disk that filled up
            (mine if isinstance(entry, dict) and entry.get("db") == me else others).append(text)
        if not mine:
            continue
        with store.engine.begin() as c:
            for text in mine:
                entry = json.loads(text)
                changed = c.execute(update(runs).where(runs.c.id == entry.get("run"),
                                                       runs.c.status.in_(("running", "abandoned")))
                                    .values(status=entry.get("status") or "failed", error=entry.get("error"),
                                            finished_at=entry.get("at"))).rowcount
                if changed:
                    done.append(entry["run"])
        _rewrite(path, others)
    return done


def _rewrite(path: Path, lines: list[str]):
    if not lines:
        path.unlink(missing_ok=True)
        return
    spare = path.with_name(path.name + ".new")
    spare.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    os.replace(spare, path)
