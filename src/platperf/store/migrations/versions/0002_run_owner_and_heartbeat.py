"""Runs know who writes them: owner host and pid, a heartbeat; free-length text.

A run left ``running`` by a process that died (OOM killer, power loss) is recognised by
its owner (same host, pid gone or reused) or by a heartbeat gone stale, and marked
``abandoned`` by the next command that opens the database (see ``store/sweep.py``).
Labels, targets, suites and sources become unbounded text: a 10,000-character label
must store in PostgreSQL too (SQLite never enforced the length).

Revision ID: 0002
Revises: 0001
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

_OWNER = (("owner_host", sa.Text), ("owner_pid", sa.Integer), ("heartbeat_at", sa.String(40)))
_FREE_TEXT = (("label", True, 200), ("target", False, 200), ("suite", True, 200),
              ("source", False, 100))


def upgrade():
    # A database adopted from before the migrations may already have some of this.
    inspector = sa.inspect(op.get_bind())
    have = {c["name"] for c in inspector.get_columns("runs")}
    indexes = {i["name"] for i in inspector.get_indexes("runs")}
    # On SQLite this copies the table; the store turns foreign keys off around migrations
    # so that dropping the old copy does not cascade to results and histograms.
    with op.batch_alter_table("runs") as batch:
        for name, type_ in _OWNER:
            if name not in have:
                batch.add_column(sa.Column(name, type_))
        for name, nullable, length in _FREE_TEXT:
            batch.alter_column(name, type_=sa.Text, existing_type=sa.String(length),
                               existing_nullable=nullable)
    # The sweep on open looks for running runs: one indexed lookup, however many runs.
    if "ix_runs_status" not in indexes:
        op.create_index("ix_runs_status", "runs", ["status"])


def downgrade():
    op.drop_index("ix_runs_status", "runs")
    with op.batch_alter_table("runs") as batch:
        for name, nullable, length in _FREE_TEXT:
            batch.alter_column(name, type_=sa.String(length), existing_type=sa.Text,
                               existing_nullable=nullable)
        for name, _ in _OWNER:
            batch.drop_column(name)
