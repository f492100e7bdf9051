"""The store: migrations on open, refusal of newer or unusable databases, round trips."""
import os
import sqlite3

import pytest
from sqlalchemy import create_engine, text

from platperf.records import Result
from platperf.store import Store, StoreError
from platperf.store.migrations import HEAD
from platperf.store.schema import metadata, store_info


def _version(path):
    with sqlite3.connect(path) as c:
        return c.execute("SELECT version_num FROM alembic_version").fetchall()


def test_a_new_database_is_migrated_to_head_in_wal_mode(tmp_path):
    db = tmp_path / "new.db"
    Store(str(db))
    assert _version(db) == [(HEAD,)]
    with sqlite3.connect(db) as c:
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_head_constant_is_the_newest_revision_in_versions():
    from alembic.script import ScriptDirectory
    from platperf.store import migrations
    script = ScriptDirectory(os.path.dirname(migrations.__file__))
    assert script.get_current_head() == HEAD


def test_migrations_create_exactly_the_schema_of_schema_py(tmp_path):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    store = Store(str(tmp_path / "m.db"))
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == []


def test_opening_twice_keeps_the_data(db_url):
    db = db_url
    run_id = Store(db).begin_run(label="v2.10")
    assert Store(db).run(run_id)["label"] == "v2.10"


def test_a_database_from_a_newer_platperf_is_refused(tmp_path):
    db = tmp_path / "newer.db"
    Store(str(db))
    with sqlite3.connect(db) as c:
        c.execute("UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(StoreError, match="newer than this platperf"):
        Store(str(db))


def test_a_pre_migration_database_is_adopted(tmp_path):
    # What the placeholder before alembic created: schema 1's tables (revision 0001's, which
    # writes them out) and platperf_store.schema = 1, with no alembic_version.
    from alembic import command
    from platperf.store.migrations import _config
    db = tmp_path / "legacy.db"
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        command.upgrade(_config(conn), "0001")
    with engine.begin() as c:
        c.execute(text("DROP TABLE alembic_version"))
        c.execute(text("INSERT INTO runs (target, status, source, started_at, label) "
                       "VALUES ('local', 'complete', 'probe', '2026-01-01T00:00:00Z', 'old')"))
    engine.dispose()
    store = Store(str(db))
    assert [r["label"] for r in store.runs()] == ["old"]
    assert _version(db) == [(HEAD,)]


def test_a_pre_migration_database_of_a_newer_schema_is_refused(tmp_path):
    db = tmp_path / "legacy2.db"
    engine = create_engine(f"sqlite:///{db}")
    metadata.create_all(engine)
    with engine.begin() as c:
        c.execute(store_info.insert().values(key="schema", value="2"))
    engine.dispose()
    with pytest.raises(StoreError, match="newer"):
        Store(str(db))


def test_a_path_in_a_missing_directory_is_refused(tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        Store(str(tmp_path / "no" / "such" / "dir.db"))


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    bogus = tmp_path / "notes.txt"
    bogus.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match="cannot open database"):
        Store(str(bogus))


def test_samples_labels_and_notes_round_trip(db_url):
    store = Store(db_url)
    label, note = "v2.12 'rc1' \"<b>\" [red]|*`", "ünïcode; DROP TABLE runs; -- \n second line"
    run_id = store.begin_run(label=label, note=note)
    samples = [1.0, 0.1 + 0.2, 1e-300, 12345.678901234]
    store.add_result(run_id, Result("mem-latency", {"pattern": "random", "size": 16384}, "latency",
                                    "ns", "lower", samples, cpu=1, cluster=0, core=1))
    got = store.run(label)
    assert (got["label"], got["note"]) == (label, note)
    [res] = store.results(run_id)
    assert res.samples == samples
    assert res.key == ("mem-latency", "pattern=random,size=16384", "serial", None, 0, 1, "latency")
    assert res.summary["n"] == 4
    assert store.result_counts() == {run_id: 1}


def test_any_label_and_note_round_trip(db_url):
    from hypothesis import given, settings
    from hypothesis import strategies as st
    store = Store(db_url)

    text = st.text(alphabet=st.characters(codec="utf-8", blacklist_characters="\0"), max_size=200)

    @settings(max_examples=60, deadline=None)
    @given(label=text, note=text)
    def round_trip(label, note):
        run_id = store.begin_run(label=label, note=note)
        got = store.run(run_id)
        assert (got["label"], got["note"]) == (label, note)

    round_trip()


def test_a_run_records_its_owner_and_heartbeat(db_url):
    import socket
    store = Store(db_url)
    run_id = store.begin_run(label="v2.12")
    run = store.run(run_id)
    assert (run["owner_host"], run["owner_pid"]) == (socket.gethostname(), os.getpid())
    assert run["heartbeat_at"] == run["started_at"]
    with store.transaction() as c:  # an old beat, then a new one moves it
        store.update_run(run_id, conn=c, heartbeat_at="2000-01-01T00:00:00Z")
    store.heartbeat(run_id)
    assert store.run(run_id)["heartbeat_at"] > "2000-01-01T00:00:00Z"


def old_database(tmp_path, revision: str):
    """A SQLite file at schema ``revision`` holding run 1 (v2.9)."""
    from alembic import command
    from platperf.store.migrations import _config
    db = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        command.upgrade(_config(conn), revision)
        conn.execute(text("INSERT INTO runs (id, target, status, source, started_at, label) "
                          "VALUES (1, 'local', 'complete', 'probe', '2026-01-01T00:00:00Z', 'v2.9')"))
    engine.dispose()
    return db


def test_migrating_from_0001_keeps_every_run_and_result(tmp_path):
    # 0002 copies the runs table on SQLite: with foreign keys on, dropping the old copy
    # would cascade and delete every result.
    db = old_database(tmp_path, "0001")
    with sqlite3.connect(db) as c:
        c.execute("PRAGMA foreign_keys=ON")
        c.execute("INSERT INTO results (run_id, benchmark, params, params_json, mode, metric, unit, "
                  "direction, n, samples) VALUES (1, 'b', '', '{}', 'serial', 'm', 'ns', 'lower', 1, ?)",
                  (b"\0" * 8,))
    store = Store(str(db))
    assert _version(db) == [(HEAD,)]
    assert [(r["label"], r["status"], r["owner_pid"]) for r in store.runs()] == [("v2.9", "complete", None)]
    assert store.result_counts() == {1: 1}
    store.begin_run(label="x" * 10_000)
    assert store.runs()[-1]["label"] == "x" * 10_000


def test_migrating_from_0002_keeps_the_keys_of_stored_results(tmp_path):
    # 0003 adds the package: NULL for every stored result, so their keys stay as they were
    # and compare with results of a one-package machine stored after the upgrade.
    db = old_database(tmp_path, "0002")
    engine = create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO results (run_id, benchmark, params, params_json, cpu, cluster, core, "
                          "mode, metric, unit, direction, n, samples) VALUES (1, 'b', '', '{}', 3, 1, 1, "
                          "'serial', 'm', 'ns', 'lower', 1, :s)"), {"s": b"\0" * 8})
        conn.execute(text("INSERT INTO histograms (run_id, benchmark, params, params_json, cpu, cluster, "
                          "core, mode, unit, record) VALUES (1, 'b', '', '{}', 3, 1, 1, 'serial', 'ns', '{}')"))
    engine.dispose()
    store = Store(str(db))
    assert _version(db) == [(HEAD,)]
    [res] = store.results(1)
    assert res.key == ("b", "", "serial", None, 1, 1, "m")
    assert [(h["package"], h["cluster"], h["core"]) for h in store.histograms(1)] == [(None, 1, 1)]
    new = store.begin_run(label="v2.10")
    store.add_result(new, Result("b", {}, "m", "ns", "lower", [1.0], cpu=7, package=1, cluster=1, core=1))
    assert [r.key for r in store.results(new)] == [("b", "", "serial", 1, 1, 1, "m")]


def test_a_nul_character_in_a_label_is_refused_in_one_line(db_url):
    store = Store(db_url)
    with pytest.raises(StoreError, match="label contains a NUL character"):
        store.begin_run(label="v2\0.12")
    assert store.runs() == []


def test_a_10000_character_label_and_target_store_whole(db_url):
    store = Store(db_url)
    label, target = "v" * 10_000, "ssh://" + "b" * 9_994
    run_id = store.begin_run(label=label, target=target, suite="s" * 10_000)
    got = store.run(label)
    assert (got["id"], got["label"], got["target"], len(got["suite"])) == (run_id, label, target, 10_000)
