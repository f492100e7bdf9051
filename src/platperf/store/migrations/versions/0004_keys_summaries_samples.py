"""A lab's year in one database: each key once, summaries apart from samples, runs indexed.

A year of 50 boards a night is 19,000 runs and 35 million results (docs/lab.md). Revision
0003 kept every result as one row holding its key's text, its parameters twice (text and
JSON) and the probe's per-result fields as JSON text: 822 bytes a result on SQLite. This
revision splits the ``results`` table in three and leaves a view of that name:

* ``result_keys``: each key once, its id 63 bits of its digest (store/packing.py);
* ``summaries``: a result's n, min, median, mean, max and stdev (and why it is no figure,
  records.not_measured), the result's id kept; what ``history`` and ``show`` read;
* ``result_samples``: the samples and ``extra``, deflated against a dictionary of the
  probe's field names; ``platperf archive`` may remove these rows and keep the summaries;
* the view ``results``: the three joined, the columns of revision 0003.

Runs get ``host`` (the fingerprint's host and CPU, so that listing runs decodes no JSON),
``archived``, and indexes on label, (target, id) and started_at.

The rows are copied in order of id, 20,000 at a time; a year's database takes minutes, and
the command that opens it says so before it starts.

Revision ID: 0004
Revises: 0003
"""
import json
import sys

import sqlalchemy as sa
from alembic import op

from platperf.store.packing import digest, key_id, key_text, pack_extra, unpack_extra

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

CHUNK = 20_000
_VIEW = (
    "CREATE VIEW results AS SELECT s.id AS id, s.run_id AS run_id, k.benchmark AS benchmark, "
    "k.params AS params, k.params_json AS params_json, k.cpu AS cpu, k.package AS package, "
    "k.cluster AS cluster, k.core AS core, k.mode AS mode, k.metric AS metric, k.unit AS unit, "
    "k.direction AS direction, s.n AS n, s.min AS min, s.median AS median, s.mean AS mean, "
    "s.max AS max, s.stdev AS stdev, d.samples AS samples, d.extra AS extra "
    "FROM summaries s JOIN result_keys k ON k.id = s.key_id JOIN result_samples d ON d.result_id = s.id")
_OLD = ("id", "run_id", "benchmark", "params", "params_json", "cpu", "package", "cluster", "core", "mode",
        "metric", "unit", "direction", "n", "min", "median", "mean", "max", "stdev", "samples", "extra")


def upgrade():
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    tables = set(inspector.get_table_names())
    _runs(inspector)
    if "result_keys" not in tables:
        _create_tables()
    if "results" in tables:
        _copy_results(bind)
        op.drop_index("ix_results_run", "results")
        op.drop_table("results")
    if "results" not in inspector.get_view_names():
        op.execute(_VIEW)
    if bind.dialect.name == "postgresql":
        op.execute("SELECT setval(pg_get_serial_sequence('summaries', 'id'), "
                   "coalesce((SELECT max(id) FROM summaries), 0) + 1, false)")


def _runs(inspector):
    have = {c["name"] for c in inspector.get_columns("runs")}
    for name in ("host", "archived"):
        if name not in have:
            op.add_column("runs", sa.Column(name, sa.Text))
    indexes = {i["name"] for i in inspector.get_indexes("runs")}
    if "ix_runs_label" not in indexes:
        op.create_index("ix_runs_label", "runs", ["label"], postgresql_ops={"label": "text_pattern_ops"})
    if "ix_runs_target" not in indexes:
        op.create_index("ix_runs_target", "runs", ["target", "id"])
    if "ix_runs_started" not in indexes:
        op.create_index("ix_runs_started", "runs", ["started_at"])
    if "host" not in have:
        _fill_hosts()


def _fill_hosts():
    from platperf.store.hosts import machine_name
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, fingerprint FROM runs WHERE fingerprint IS NOT NULL")).all()
    update = sa.text("UPDATE runs SET host = :host WHERE id = :id")
    values = []
    for run_id, fp in rows:
        fp = json.loads(fp) if isinstance(fp, str) else fp
        name = machine_name(fp)
        if name:
            values.append({"id": run_id, "host": name})
    if values:
        bind.execute(update, values)


def _create_tables():
    op.create_table(
        "result_keys",
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("digest", sa.String(32), nullable=False),
        sa.Column("benchmark", sa.String(100), nullable=False),
        sa.Column("params", sa.String(500), nullable=False),
        sa.Column("params_json", sa.JSON, nullable=False),
        sa.Column("cpu", sa.Integer), sa.Column("package", sa.Integer),
        sa.Column("cluster", sa.Integer), sa.Column("core", sa.Integer),
        sa.Column("mode", sa.String(10), nullable=False),
        sa.Column("metric", sa.String(100), nullable=False),
        sa.Column("unit", sa.String(20), nullable=False),
        sa.Column("direction", sa.String(6), nullable=False),
    )
    op.create_table(
        "summaries",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("key_id", sa.BigInteger, sa.ForeignKey("result_keys.id"), nullable=False),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("min", sa.Float), sa.Column("median", sa.Float), sa.Column("mean", sa.Float),
        sa.Column("max", sa.Float), sa.Column("stdev", sa.Float),
        sa.Column("not_measured", sa.String(20)),
    )
    op.create_index("ix_summaries_run", "summaries", ["run_id"])
    op.create_table(
        "result_samples",
        sa.Column("result_id", sa.Integer, sa.ForeignKey("summaries.id", ondelete="CASCADE"),
                  primary_key=True, autoincrement=False),
        sa.Column("samples", sa.LargeBinary, nullable=False),
        sa.Column("extra", sa.LargeBinary),
    )


def _copy_results(bind):
    """Every row of the old table into the three, in order of id, a chunk at a time."""
    from platperf.records import not_measured
    total = bind.execute(sa.text("SELECT count(*) FROM results")).scalar() or 0
    if total > 200_000:
        print(f"platperf: migrating {total:,} results to schema revision 0004 (each key once, extra "
              "compressed); this takes about a minute per million", file=sys.stderr, flush=True)
    keys: dict[tuple, int] = {}
    key_rows = []
    select = sa.text(f"SELECT {', '.join(_OLD)} FROM results WHERE id > :last ORDER BY id LIMIT {CHUNK}")
    last = 0
    while True:
        rows = bind.execute(select, {"last": last}).all()
        if not rows:
            break
        summaries, samples = [], []
        for (rid, run_id, benchmark, params, params_json, cpu, package, cluster, core, mode, metric, unit,
             direction, n, mn, median, mean, mx, stdev, blob, extra) in rows:
            params_json = json.loads(params_json) if isinstance(params_json, str) else params_json
            text = key_text(benchmark, params_json, cpu, package, cluster, core, mode, metric, unit, direction)
            kid = keys.get(text)
            if kid is None:
                kid = keys[text] = key_id(text)
                key_rows.append(dict(id=kid, digest=digest(text), benchmark=benchmark, params=params,
                                     params_json=json.dumps(params_json), cpu=cpu, package=package,
                                     cluster=cluster, core=core, mode=mode, metric=metric, unit=unit,
                                     direction=direction))
            extra = _json_value(extra)
            summaries.append(dict(id=rid, run_id=run_id, key_id=kid, n=n, min=mn, median=median, mean=mean,
                                  max=mx, stdev=stdev, not_measured=not_measured(benchmark, metric, extra)))
            samples.append(dict(result_id=rid, samples=bytes(blob), extra=pack_extra(extra)))
        _insert(bind, "result_keys", key_rows)
        key_rows = []
        _insert(bind, "summaries", summaries)
        _insert(bind, "result_samples", samples)
        last = rows[-1][0]


def _json_value(value):
    """A JSON column as the driver gives it: text on SQLite, decoded by psycopg; packed bytes
    where a later revision wrote them."""
    if value is None or isinstance(value, (dict, list)):
        return value
    if isinstance(value, str):
        return json.loads(value)
    return unpack_extra(bytes(value))


def _insert(bind, table: str, rows: list[dict]):
    if not rows:
        return
    names = list(rows[0])
    if bind.dialect.name == "sqlite":      # the driver's executemany: three times SQLAlchemy's speed
        cursor = bind.connection.cursor()
        try:
            cursor.executemany(f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                               [tuple(r[n] for n in names) for r in rows])
        finally:
            cursor.close()
        return
    cols = ", ".join(names)
    marks = ", ".join(f":{n}" for n in names)
    if table == "result_keys":    # params_json is JSON text here; the column is json
        marks = marks.replace(":params_json", "CAST(:params_json AS json)")
    bind.execute(sa.text(f"INSERT INTO {table} ({cols}) VALUES ({marks})"), rows)


def downgrade():
    """The view made a table again (revision 0003's results), the rows copied back."""
    bind = op.get_bind()
    op.execute("DROP VIEW results")
    op.create_table(
        "results",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("benchmark", sa.String(100), nullable=False),
        sa.Column("params", sa.String(500), nullable=False),
        sa.Column("params_json", sa.JSON, nullable=False),
        sa.Column("cpu", sa.Integer), sa.Column("package", sa.Integer),
        sa.Column("cluster", sa.Integer), sa.Column("core", sa.Integer),
        sa.Column("mode", sa.String(10), nullable=False),
        sa.Column("metric", sa.String(100), nullable=False),
        sa.Column("unit", sa.String(20), nullable=False),
        sa.Column("direction", sa.String(6), nullable=False),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("min", sa.Float), sa.Column("median", sa.Float), sa.Column("mean", sa.Float),
        sa.Column("max", sa.Float), sa.Column("stdev", sa.Float),
        sa.Column("samples", sa.LargeBinary, nullable=False),
        sa.Column("extra", sa.JSON),
    )
    op.create_index("ix_results_run", "results", ["run_id"])
    select = sa.text(
        "SELECT s.id, s.run_id, k.benchmark, k.params, k.params_json, k.cpu, k.package, k.cluster, k.core, "
        "k.mode, k.metric, k.unit, k.direction, s.n, s.min, s.median, s.mean, s.max, s.stdev, d.samples, "
        "d.extra FROM summaries s JOIN result_keys k ON k.id = s.key_id "
        f"JOIN result_samples d ON d.result_id = s.id WHERE s.id > :last ORDER BY s.id LIMIT {CHUNK}")
    last = 0
    while True:
        rows = bind.execute(select, {"last": last}).all()
        if not rows:
            break
        out = []
        for row in rows:
            values = dict(zip(_OLD, row))
            pj = values["params_json"]
            values["params_json"] = pj if isinstance(pj, str) else json.dumps(pj)
            extra = unpack_extra(values["extra"])
            values["extra"] = None if extra is None else json.dumps(extra)
            values["samples"] = bytes(values["samples"])
            out.append(values)
        if bind.dialect.name == "sqlite":
            _insert(bind, "results", out)
        else:
            names = ", ".join(_OLD)
            marks = ", ".join(f"CAST(:{n} AS json)" if n in ("params_json", "extra") else f":{n}" for n in _OLD)
            bind.execute(sa.text(f"INSERT INTO results ({names}) VALUES ({marks})"), out)
        last = rows[-1][0]
    if bind.dialect.name == "postgresql":
        op.execute("SELECT setval(pg_get_serial_sequence('results', 'id'), "
                   "coalesce((SELECT max(id) FROM results), 0) + 1, false)")
    op.drop_table("result_samples")
    op.drop_table("summaries")
    op.drop_table("result_keys")
    for name in ("ix_runs_started", "ix_runs_target", "ix_runs_label"):
        op.drop_index(name, "runs")
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("archived")
        batch.drop_column("host")
