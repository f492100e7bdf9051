"""The store's reads that must stay fast in a lab's year (19,000 runs, 35 million results):
a page of runs, a label looked up or missed, result counts, and what ``history`` reads.

Each is one indexed query that reads only the columns it returns: never a run's JSON
(fingerprint, meta, findings: 13 KB a run) to list it, never a result's samples or extra to
draw a series (the summaries table holds its median, spread and n).
"""
from __future__ import annotations

import difflib

from sqlalchemy import func, select

from ..records import ResultKey
from .schema import result_keys, runs, summaries
from .url import StoreError

# What `platperf runs` prints of a run: no JSON column.
LIST_COLUMNS = (runs.c.id, runs.c.label, runs.c.target, runs.c.suite, runs.c.status, runs.c.source,
                runs.c.started_at, runs.c.finished_at, runs.c.host, runs.c.note, runs.c.archived)
_CHUNK = 500       # ids in one IN (...) list
NEAREST = 5        # labels a missed label's line names


def label_match(column, pattern: str, dialect: str):
    """``column`` matches ``pattern``: ``*`` any text, ``?`` one character, else the text
    itself. SQLite's GLOB and PostgreSQL's LIKE (text_pattern_ops) use the label index for a
    pattern that begins with text (``board-07-*``)."""
    if "*" not in pattern and "?" not in pattern:
        return column == pattern
    if dialect == "sqlite":
        return column.op("GLOB")(pattern.replace("[", "[[]"))
    escaped = pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return column.like(escaped.replace("*", "%").replace("?", "_"), escape="\\")


def run_filters(dialect: str, *, targets=None, label=None, since=None, until=None, status=None) -> list:
    """WHERE clauses for runs: any of ``targets``, label pattern, started in [since, until)."""
    out = []
    if targets:
        out.append(runs.c.target.in_(list(targets)))
    if label:
        out.append(label_match(runs.c.label, label, dialect))
    if since:
        out.append(runs.c.started_at >= since)
    if until:
        out.append(runs.c.started_at < until)
    if status:
        out.append(runs.c.status == status)
    return out


def list_runs(conn, limit: int = 20, **filters) -> tuple[list[dict], int]:
    """The newest ``limit`` runs that match (0: all), oldest first, and how many match."""
    where = run_filters(conn.dialect.name, **filters)
    q = select(*LIST_COLUMNS).where(*where).order_by(runs.c.id.desc())
    if limit:
        q = q.limit(limit)
    rows = [dict(r._mapping) for r in conn.execute(q)][::-1]
    if limit and len(rows) == limit:
        total = conn.execute(select(func.count()).select_from(runs).where(*where)).scalar()
    else:
        total = len(rows)
    return rows, total


def result_counts(conn, run_ids=None) -> dict[int, int]:
    """Results per run (their summaries: kept when samples are archived), of ``run_ids`` or all."""
    q = select(summaries.c.run_id, func.count()).group_by(summaries.c.run_id)
    if run_ids is None:
        return dict(conn.execute(q).all())
    ids, out = list(run_ids), {}
    for i in range(0, len(ids), _CHUNK):
        out.update(conn.execute(q.where(summaries.c.run_id.in_(ids[i:i + _CHUNK]))).all())
    return out


def nearest_labels(conn, ref: str, n: int = NEAREST) -> list[str]:
    """The labels most like ``ref``: its neighbours in sorted order (those sharing the longest
    beginning, from the label index) and, in a database of a few thousand labels, any of them;
    ranked by the beginning they share with ``ref``, then by difflib's ratio
    (Ratcliff/Obershelp): ``am62x-07-2025-06-31`` names ``...-06-30`` before ``...-01-31``."""
    label = runs.c.label
    after = select(label).where(label >= ref).group_by(label).order_by(label).limit(n)
    before = select(label).where(label < ref).group_by(label).order_by(label.desc()).limit(n)
    found = {row[0] for q in (after, before) for row in conn.execute(q)}
    distinct = conn.execute(select(func.count(label.distinct()))).scalar() or 0
    if distinct <= 5000:
        found.update(row[0] for row in conn.execute(select(label).where(label.is_not(None)).distinct()))
    ratio = difflib.SequenceMatcher(b=ref, autojunk=False)

    def score(text: str) -> tuple:
        ratio.set_seq1(text)
        shared = next((i for i, (a, b) in enumerate(zip(text, ref)) if a != b), min(len(text), len(ref)))
        return -shared, -ratio.ratio(), text
    return sorted((t for t in found if t is not None), key=score)[:n]


def missing_run(conn, url: str, ref: str) -> str:
    """One line for a run or label the database does not have."""
    count, newest = conn.execute(select(func.count(), func.max(runs.c.id)).select_from(runs)).one()
    if not count:
        return f"no run '{ref}' in {url}: it holds no runs; measure with 'platperf run'"
    if ref.isdigit() or ref == "latest":
        return f"no run '{ref}' in {url} ({count:,} runs, the newest is {newest}); see 'platperf runs'"
    near = nearest_labels(conn, ref)
    return (f"no run '{ref}' in {url}; the nearest labels: {', '.join(near) or 'none'} ({count:,} runs: "
            "'platperf runs --label PATTERN' lists them)")


def refuse_archived(found: list[dict], ref: str):
    """StoreError for a run whose samples were archived: what needs samples cannot use it."""
    gone = [r for r in found if r.get("archived")]
    if gone:
        first = gone[0]
        what = f"run {first['id']}" + ("" if ref == str(first["id"]) else f" of '{ref}'")
        back = ("" if str(first["archived"]).startswith("dropped") else
                "; 'platperf ingest probe-jsonl' of that file brings it back to compare or report it")
        raise StoreError(f"{what} has no samples any more ({first['archived']}): 'platperf show' and 'history' "
                         f"read its summaries{back}")


# -- history -----------------------------------------------------------------------------

def history_runs(conn, **filters) -> list[dict]:
    """(id, label, target) of the runs that match, per target, oldest first."""
    q = (select(runs.c.id, runs.c.label, runs.c.target)
         .where(*run_filters(conn.dialect.name, **filters)).order_by(runs.c.target, runs.c.id))
    return [dict(r._mapping) for r in conn.execute(q)]


def runs_of_labels(conn, labels: list[str], targets=None) -> list[dict]:
    """(id, label, target) of the runs of ``labels`` (one indexed lookup each), oldest first."""
    q = select(runs.c.id, runs.c.label, runs.c.target).where(runs.c.label.in_(labels))
    if targets:
        q = q.where(runs.c.target.in_(list(targets)))
    return [dict(r._mapping) for r in conn.execute(q.order_by(runs.c.id))]


def keys_of(conn, benchmark: str | None = None, metric: str | None = None) -> dict[int, tuple]:
    """Key id -> (ResultKey, unit, direction) of the stored keys (a few thousand in a year),
    only ``benchmark``'s and ``metric``'s when given."""
    k = result_keys.c
    q = select(k.id, k.benchmark, k.params, k.mode, k.package, k.cluster, k.core, k.metric, k.unit, k.direction)
    if benchmark:
        q = q.where(k.benchmark == benchmark)
    if metric:
        q = q.where(k.metric == metric)
    return {row[0]: (ResultKey(*row[1:8]), row[8], row[9]) for row in conn.execute(q)}


def medians(conn, run_ids: list[int], key_ids=None):
    """(run id, key id, median) of every figure of ``run_ids`` (a result not measured is none),
    by run, in the order stored: the summaries' index by run, nothing else read. With a few
    ``key_ids`` (a --benchmark) only theirs; with many, the caller keeps what it asked for.

    The rows come from the driver's cursor as plain tuples: a board's year is 900,000 of
    them, and SQLAlchemy's row objects would double the time it takes to read them. Only
    integers are written into the statement (run and key ids)."""
    s = summaries.c
    few = key_ids is not None and len(key_ids) <= _CHUNK
    for i in range(0, len(run_ids), _CHUNK):
        q = select(s.run_id, s.key_id, s.median).where(s.run_id.in_([int(r) for r in run_ids[i:i + _CHUNK]]),
                                                        s.not_measured.is_(None), s.median.is_not(None))
        if few:
            q = q.where(s.key_id.in_([int(k) for k in key_ids]))
        sql = str(q.order_by(s.run_id, s.id).compile(dialect=conn.dialect, compile_kwargs={"literal_binds": True}))
        cursor = conn.connection.cursor()
        try:
            cursor.execute(sql)
            while True:
                rows = cursor.fetchmany(20_000)
                if not rows:
                    break
                yield from rows
        finally:
            cursor.close()
