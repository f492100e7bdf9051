"""No run left ``running`` by a dead process.

A run's owner (host name and pid) and heartbeat are recorded by ``Store.begin_run`` and
``Store.heartbeat``. Whenever a writable database is opened, the runs still ``running``
whose owner is gone become ``abandoned``, with ``finished_at`` and an error that says what
they hold. The owner is gone when

* it ran on this host and its pid is not alive, or the pid now belongs to a process that
  started after the run did (pids are reused: the start time comes from /proc/PID/stat);
* or, on any host, its last heartbeat is older than :data:`STALE_AFTER_S` (the runner
  beats at least every 30 s, so only a process that is hung or gone misses 20 beats).

Cheap when there is nothing to do: one SELECT of the running runs (indexed by status).
"""
from __future__ import annotations

import datetime as _dt
import os
import socket

from sqlalchemy import func, select, update

from .schema import histograms, runs, summaries

# A run whose heartbeat is older than this is abandoned, whatever host owns it.
STALE_AFTER_S = 600
# started_at has whole seconds and a process may start a moment before its run row.
_CLOCK_SLACK_S = 2


def sweep(store, when: _dt.datetime | None = None) -> list[int]:
    """Mark the runs of gone owners ``abandoned``; return their ids."""
    when = when or _dt.datetime.now(_dt.timezone.utc)
    cols = (runs.c.id, runs.c.owner_host, runs.c.owner_pid, runs.c.heartbeat_at, runs.c.started_at)
    with store.engine.connect() as c:
        running = c.execute(select(*cols).where(runs.c.status == "running")).all()
    done = []
    for run_id, host, pid, beat, started in running:
        why = gone_reason(host, pid, beat, started, when)
        if why is None:
            continue
        with store.engine.begin() as c:
            n_res = c.execute(select(func.count()).where(summaries.c.run_id == run_id)).scalar()
            n_hist = c.execute(select(func.count()).where(histograms.c.run_id == run_id)).scalar()
            error = f"abandoned: {why}; {n_res} results, {n_hist} histograms kept"
            # Only if nothing changed since we looked: the owner may have finished or beaten.
            changed = c.execute(update(runs)
                                .where(runs.c.id == run_id, runs.c.status == "running",
                                       _same(runs.c.heartbeat_at, beat))
                                .values(status="abandoned", error=error,
                                        finished_at=_iso(when))).rowcount
        if changed:
            done.append(run_id)
    return done


def gone_reason(host, pid, beat, started, when: _dt.datetime) -> str | None:
    """Why the owner of a running run is gone, or None while it may still be writing."""
    owner = f"platperf pid {pid} on host {host}" if pid is not None else "its platperf (owner unknown)"
    if host == socket.gethostname() and pid is not None:
        if not _alive(pid):
            return f"{owner} is gone"
        t0 = _parse(started)
        began = process_start(pid)
        if t0 is not None and began is not None and began > t0 + _dt.timedelta(seconds=_CLOCK_SLACK_S):
            return f"{owner} is gone (that pid is now a process started at {_iso(began)})"
    last = _parse(beat or started)
    if last is not None and (when - last).total_seconds() > STALE_AFTER_S:
        return (f"{owner} sent no heartbeat since {beat or started} "
                f"(over {STALE_AFTER_S // 60} min)")
    return None


def process_start(pid: int) -> _dt.datetime | None:
    """When process ``pid`` started (UTC), from /proc; None where /proc cannot say."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        with open("/proc/stat") as f:
            btime = next(int(line.split()[1]) for line in f if line.startswith("btime "))
    except (OSError, StopIteration, ValueError):
        return None
    # Field 22, counted after the command name, which may itself hold spaces and ')'.
    ticks = int(stat[stat.rindex(")") + 2:].split()[19])
    seconds = btime + ticks / os.sysconf("SC_CLK_TCK")
    return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def _same(column, value):
    return column.is_(None) if value is None else column == value


def _parse(text):
    if not text:
        return None
    try:
        t = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo else t.replace(tzinfo=_dt.timezone.utc)


def _iso(t: _dt.datetime) -> str:
    return t.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
