"""Results and histograms record the package of their CPU.

Where a machine's cluster ids restart in each package (an Arm server with several sockets:
Linux numbers ``socketN/clusterM`` of the device tree from 0 in each), (cluster, core) names
two CPUs; the package makes the place unique (``platperf.topology``). It is NULL elsewhere,
so the results stored before keep their keys.

Revision ID: 0003
Revises: 0002
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_TABLES = ("results", "histograms")


def upgrade():
    inspector = sa.inspect(op.get_bind())
    for table in _TABLES:
        if "package" not in {c["name"] for c in inspector.get_columns(table)}:
            op.add_column(table, sa.Column("package", sa.Integer))


def downgrade():
    for table in _TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("package")
