"""Schema versions of the store.

Placeholder until alembic migrations land (host issue): creates the tables on a new
database, records the schema version, refuses a database written by a newer platperf.
"""
from sqlalchemy import select


def upgrade(engine, metadata, store_info, version: int):
    from . import StoreError
    metadata.create_all(engine)
    with engine.begin() as c:
        row = c.execute(select(store_info.c.value).where(store_info.c.key == "schema")).first()
        if row is None:
            c.execute(store_info.insert().values(key="schema", value=str(version)))
        elif int(row[0]) > version:
            raise StoreError(f"database {engine.url.database} has schema {row[0]}, newer than this "
                             f"platperf understands ({version}); upgrade platperf")
