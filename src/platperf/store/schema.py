"""The results database: runs, results with every sample, histograms.

SQLAlchemy Core so that the same schema serves SQLite (default, WAL) and PostgreSQL.
Changes to these tables go through a migration in ``platperf/store/migrations``.
"""
from sqlalchemy import (JSON, Column, Float, ForeignKey, Index, Integer, LargeBinary, MetaData,
                        String, Table, Text)

SCHEMA_VERSION = 1

metadata = MetaData()

runs = Table(
    "runs", metadata,
    Column("id", Integer, primary_key=True),
    Column("label", String(200)),
    Column("target", String(200), nullable=False, default="local"),
    Column("suite", String(200)),
    # complete | partial | failed | running
    Column("status", String(20), nullable=False),
    Column("source", String(100), nullable=False, default="probe"),  # probe | ingest:<format>
    Column("started_at", String(40), nullable=False),
    Column("finished_at", String(40)),
    Column("note", Text),
    Column("error", Text),
    Column("meta", JSON),          # the probe's meta record
    Column("fingerprint", JSON),   # platperf.fingerprint.collect()
    Column("findings", JSON),      # doctor findings at run time
)

results = Table(
    "results", metadata,
    Column("id", Integer, primary_key=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("benchmark", String(100), nullable=False),
    Column("params", String(500), nullable=False),   # canonical_params()
    Column("params_json", JSON, nullable=False),
    Column("cpu", Integer),
    Column("cluster", Integer),
    Column("core", Integer),
    Column("mode", String(10), nullable=False),
    Column("metric", String(100), nullable=False),
    Column("unit", String(20), nullable=False),
    Column("direction", String(6), nullable=False),
    Column("n", Integer, nullable=False),
    Column("min", Float), Column("median", Float), Column("mean", Float),
    Column("max", Float), Column("stdev", Float),
    Column("samples", LargeBinary, nullable=False),  # float64 little-endian, every sample
    Column("extra", JSON),
    Index("ix_results_run", "run_id"),
)

histograms = Table(
    "histograms", metadata,
    Column("id", Integer, primary_key=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
    Column("benchmark", String(100), nullable=False),
    Column("params", String(500), nullable=False),
    Column("params_json", JSON, nullable=False),
    Column("cpu", Integer),
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
