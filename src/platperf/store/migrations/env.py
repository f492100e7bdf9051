"""alembic environment: always run by platperf.store on a connection it already holds."""
from alembic import context

from platperf.store.schema import metadata

conn = context.config.attributes["connection"]
context.configure(connection=conn, target_metadata=metadata,
                  render_as_batch=conn.dialect.name == "sqlite")  # SQLite cannot ALTER most things
with context.begin_transaction():
    context.run_migrations()
