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
    Index("ix_runs_status", "status"),
)

results = Table(
    "results", metadata,
    Column("id", Integer, primary_key=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
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
