"""The first schema: runs, results with every sample, histograms.

Written out table by table (not ``metadata.create_all``) so that this revision keeps
creating schema 1 after ``schema.py`` moves on.

Revision ID: 0001
Revises:
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _placement():
    return [sa.Column("cpu", sa.Integer), sa.Column("cluster", sa.Integer),
            sa.Column("core", sa.Integer)]


def upgrade():
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("label", sa.String(200)),
        sa.Column("target", sa.String(200), nullable=False),
        sa.Column("suite", sa.String(200)),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("source", sa.String(100), nullable=False),
        sa.Column("started_at", sa.String(40), nullable=False),
        sa.Column("finished_at", sa.String(40)),
        sa.Column("note", sa.Text),
        sa.Column("error", sa.Text),
        sa.Column("meta", sa.JSON),
        sa.Column("fingerprint", sa.JSON),
        sa.Column("findings", sa.JSON),
    )
    op.create_table(
        "results",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("benchmark", sa.String(100), nullable=False),
        sa.Column("params", sa.String(500), nullable=False),
        sa.Column("params_json", sa.JSON, nullable=False),
        *_placement(),
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
    op.create_table(
        "histograms",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("benchmark", sa.String(100), nullable=False),
        sa.Column("params", sa.String(500), nullable=False),
        sa.Column("params_json", sa.JSON, nullable=False),
        *_placement(),
        sa.Column("mode", sa.String(10), nullable=False),
        sa.Column("unit", sa.String(20), nullable=False),
        sa.Column("record", sa.JSON, nullable=False),
    )
    op.create_index("ix_histograms_run", "histograms", ["run_id"])
    info = op.create_table(
        "platperf_store",
        sa.Column("key", sa.String(50), primary_key=True),
        sa.Column("value", sa.String(200)),
    )
    # Older platperf builds read this row to refuse a newer database.
    op.bulk_insert(info, [{"key": "schema", "value": "1"}])


def downgrade():
    for table in ("platperf_store", "histograms", "results", "runs"):
        op.drop_table(table)
