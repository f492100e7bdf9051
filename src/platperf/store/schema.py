"""The results database: runs, each result's key, summary and samples, histograms.

SQLAlchemy Core so that the same schema serves SQLite (default, WAL) and PostgreSQL.
Changes to these tables go through a migration in ``platperf/store/migrations``.

A result is three rows (revision 0004, docs/lab.md): its key in ``result_keys`` (once per
database: a lab's 35 million results have a few thousand keys), its summary in ``summaries``
(n, min, median, mean, max, stdev: what ``show`` and ``history`` read, kept when a run's
samples are archived) and its samples with what the probe wrote beside them in
``result_samples`` (store/packing.py). The view ``results`` joins the three into the one
row per result of the first schema, for every reader that wants the whole result.
"""
from sqlalchemy import (JSON, BigInteger, Column, Float, ForeignKey, Index, Integer, LargeBinary,
                        MetaData, String, Table, Text)

from .packing import PackedJSON

SCHEMA_VERSION = 1

metadata = MetaData()

runs = Table(
    "runs", metadata,
    Column("id", Integer, primary_key=True),
    Column("label", Text),
    Column("target", Text, nullable=False, default="local"),
    Column("suite", Text),
    # complete | partial | failed | running | abandoned (its process died, see store/sweep.py)
    Column("status", String(20), nullable=False),
    Column("source", Text, nullable=False, default="probe"),  # probe | ingest:<format>
    Column("started_at", String(40), nullable=False),
    Column("finished_at", String(40)),
    # Who writes the run while it is running: a dead owner or a stale heartbeat means abandoned.
    Column("owner_host", Text),
    Column("owner_pid", Integer),
    Column("heartbeat_at", String(40)),
    Column("note", Text),
    Column("error", Text),
    Column("meta", JSON),          # the probe's meta record
    Column("fingerprint", JSON),   # platperf.fingerprint.collect()
    Column("findings", JSON),      # doctor findings at run time
    # "host / CPU model" of the fingerprint, kept apart so that `platperf runs` decodes no JSON
    Column("host", Text),
    # when and where its samples went (platperf archive); NULL while they are here
    Column("archived", Text),
    Index("ix_runs_status", "status"),
    # a label, a target's runs, a time range: one index lookup each, however many runs
    Index("ix_runs_label", "label", postgresql_ops={"label": "text_pattern_ops"}),
    Index("ix_runs_target", "target", "id"),
    Index("ix_runs_started", "started_at"),
)

result_keys = Table(
    "result_keys", metadata,
    Column("id", BigInteger, primary_key=True, autoincrement=False),   # packing.key_id
    Column("digest", String(32), nullable=False),                       # packing.digest
    Column("benchmark", String(100), nullable=False),
    Column("params", String(500), nullable=False),   # canonical_params()
    Column("params_json", JSON, nullable=False),
    Column("cpu", Integer),
    Column("package", Integer),   # only where cluster ids restart in each package (topology.py)
    Column("cluster", Integer),
    Column("core", Integer),
    Column("mode", String(10), nullable=False),
    Column("metric", String(100), nullable=False),
    Column("unit", String(20), nullable=False),
    Column("direction", String(6), nullable=False),
)

summaries = Table(
    "summaries", metadata,
    Column("id", Integer, primary_key=True),          # the result's id (the view's results.id)
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("key_id", BigInteger, ForeignKey("result_keys.id"), nullable=False),
    Column("n", Integer, nullable=False),
    Column("min", Float), Column("median", Float), Column("mean", Float),
    Column("max", Float), Column("stdev", Float),
    # records.not_measured(): why the samples are no figure (an idle state never entered)
    Column("not_measured", String(20)),
    Index("ix_summaries_run", "run_id"),
)

result_samples = Table(
    "result_samples", metadata,
    Column("result_id", Integer, ForeignKey("summaries.id", ondelete="CASCADE"), primary_key=True,
           autoincrement=False),
    Column("samples", LargeBinary, nullable=False),   # float64 little-endian, every sample
    Column("extra", PackedJSON),                      # packing.pack_extra
)

histograms = Table(
    "histograms", metadata,
    Column("id", Integer, primary_key=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("benchmark", String(100), nullable=False),
    Column("params", String(500), nullable=False),
    Column("params_json", JSON, nullable=False),
    Column("cpu", Integer),
    Column("package", Integer),   # only where cluster ids restart in each package (topology.py)
    Column("cluster", Integer),
    Column("core", Integer),
    Column("mode", String(10), nullable=False),
    Column("unit", String(20), nullable=False),
    Column("record", JSON, nullable=False),  # the whole histogram record, as written
    Index("ix_histograms_run", "run_id"),
)

store_info = Table(
    "platperf_store", metadata,
    Column("key", String(50), primary_key=True),
    Column("value", String(200)),
)

# The view `results` (created by migration 0004): one row per result whose samples are here,
# the columns of the first schema's results table. Its own MetaData: no migration compares
# or creates it as a table.
views = MetaData()

results = Table(
    "results", views,
    Column("id", Integer, primary_key=True),
    Column("run_id", Integer, nullable=False),
    Column("benchmark", String(100), nullable=False),
    Column("params", String(500), nullable=False),
    Column("params_json", JSON, nullable=False),
    Column("cpu", Integer),
    Column("package", Integer),
    Column("cluster", Integer),
    Column("core", Integer),
    Column("mode", String(10), nullable=False),
    Column("metric", String(100), nullable=False),
    Column("unit", String(20), nullable=False),
    Column("direction", String(6), nullable=False),
    Column("n", Integer, nullable=False),
    Column("min", Float), Column("median", Float), Column("mean", Float),
    Column("max", Float), Column("stdev", Float),
    Column("samples", LargeBinary, nullable=False),
    Column("extra", PackedJSON),
)

# What the view is, for migration 0004 and any later one that must drop and make it again.
RESULTS_VIEW = (
    "CREATE VIEW results AS SELECT s.id AS id, s.run_id AS run_id, k.benchmark AS benchmark, "
    "k.params AS params, k.params_json AS params_json, k.cpu AS cpu, k.package AS package, "
    "k.cluster AS cluster, k.core AS core, k.mode AS mode, k.metric AS metric, k.unit AS unit, "
    "k.direction AS direction, s.n AS n, s.min AS min, s.median AS median, s.mean AS mean, "
    "s.max AS max, s.stdev AS stdev, d.samples AS samples, d.extra AS extra "
    "FROM summaries s JOIN result_keys k ON k.id = s.key_id JOIN result_samples d ON d.result_id = s.id")
