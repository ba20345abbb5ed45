"""The Alembic migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import bindparam, inspect, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel

from bot.db.engine import Database, create_schema
from bot.db.migrate import alembic_config
from bot.db.migrations_filter import include_object
from bot.db.seed import seed_desk
from tests.conftest import make_settings


def test_migrations_match_the_models_and_are_idempotent(db):
    create_schema(db.engine)  # a second upgrade changes nothing
    with db.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"include_object": include_object,
                                                               "compare_type": False})
        assert compare_metadata(context, SQLModel.metadata) == []
        version = connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    heads = ScriptDirectory.from_config(alembic_config()).get_heads()
    assert [version] == heads, "the database is at the newest migration"
    tables = set(inspect(db.engine).get_table_names())
    assert {"run", "step", "approval", "escalation", "delivery", "ticket", "help_section"} <= tables


FULL_TEXT = {"sqlite": ("ticket_fts", "help_fts"),
             "postgresql": ("ticket_search", "help_search", "ix_ticket_search_document", "ix_help_search_document")}


def _full_text_objects(engine: Engine) -> set[str]:
    """The database's own full-text tables and indexes (with SQLite FTS5's shadow tables) that are there."""
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            rows = connection.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE name LIKE 'ticket_fts%' OR name LIKE 'help_fts%'")
        else:
            rows = connection.execute(text("SELECT relname FROM pg_class WHERE relname IN :names")
                                      .bindparams(bindparam("names", expanding=True)),
                                      {"names": list(FULL_TEXT["postgresql"])})
        return {row[0] for row in rows}


def _migrate(engine: Engine, step: Callable[..., None], revision: str) -> None:
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        step(config, revision)


def _desk_before_0022(tmp_path, database_url):
    """kb_data/ as a schema older than 0022 can hold it: customers without their tier (added by 0022)."""
    import json
    import shutil

    source = make_settings(database_url).data_dir
    target = tmp_path / "kb_data"
    shutil.copytree(source, target)
    customers = json.loads((target / "customers.json").read_text(encoding="utf-8"))
    (target / "customers.json").write_text(json.dumps([{k: v for k, v in c.items() if k != "tier"}
                                                       for c in customers]), encoding="utf-8")
    return target


def test_0008_drops_the_engines_full_text_search_and_its_downgrade_refills_it(database_url, tmp_path):
    database = Database.from_url(database_url)
    engine = database.engine
    try:
        _migrate(engine, command.upgrade, "0007")
        seed_desk(database, _desk_before_0022(tmp_path, database_url))
        made = _full_text_objects(engine)
        assert set(FULL_TEXT[engine.dialect.name]) <= made, "0001 made them"

        _migrate(engine, command.upgrade, "head")
        assert _full_text_objects(engine) == set(), "no table, index or FTS5 shadow table is left"

        _migrate(engine, command.downgrade, "0007")  # made again, filled from the rows
        assert _full_text_objects(engine) == made
        with engine.connect() as connection:
            if engine.dialect.name == "sqlite":
                count = connection.exec_driver_sql("SELECT COUNT(*) FROM ticket_fts").scalar()
                tags, body = connection.exec_driver_sql(
                    "SELECT tags, body FROM ticket_fts WHERE ticket_id = 'KITE-142'").one()
                found = connection.exec_driver_sql(
                    "SELECT ticket_id FROM ticket_fts WHERE ticket_fts MATCH 'okta AND bypass'").scalars().all()
                help_count = connection.exec_driver_sql("SELECT COUNT(*) FROM help_fts").scalar()
                assert tags == "sso login okta locked-out"
                assert body.startswith("Hello, we need help urgently.") and body.count("\n") >= 3
            else:
                count = connection.exec_driver_sql("SELECT COUNT(*) FROM ticket_search").scalar()
                found = connection.exec_driver_sql(
                    "SELECT ticket_id FROM ticket_search WHERE document @@ to_tsquery('english', 'okta & bypass')"
                ).scalars().all()
                help_count = connection.exec_driver_sql("SELECT COUNT(*) FROM help_search").scalar()
            tickets = connection.exec_driver_sql("SELECT COUNT(*) FROM ticket").scalar()
            sections = connection.exec_driver_sql("SELECT COUNT(*) FROM help_section").scalar()
        assert (count, help_count) == (tickets, sections) and tickets > 100
        assert "KITE-142" in found, "a ticket's tags and messages are searchable again"

        _migrate(engine, command.upgrade, "head")
        assert _full_text_objects(engine) == set()
    finally:
        engine.dispose()


def test_0012_lets_a_ticket_have_no_priority_and_keeps_every_row_trigger_and_foreign_key(database_url):
    """On SQLite the NOT NULL goes by copying `ticket`, which ticket_message's rows point at and 0006's triggers
    hang on (0019's since): every row, the foreign key and the triggers come through, and the downgrade makes NULL 'normal'."""
    database = Database.from_url(database_url)
    engine = database.engine
    before = ScriptDirectory.from_config(alembic_config()).get_revision("0012").down_revision
    assert isinstance(before, str)
    stamp = "'2026-12-01 10:00:00+00:00'"
    try:
        _migrate(engine, command.upgrade, before)
        with engine.begin() as connection:
            connection.exec_driver_sql("INSERT INTO customer (id, name, plan, seats) VALUES ('c1', 'Acme', 'team', 3)")
            for n in (1, 2):
                connection.exec_driver_sql(
                    "INSERT INTO ticket (id, customer_id, title, status, priority, created_at, updated_at) "
                    f"VALUES ('T{n}', 'c1', 'Ticket {n}', 'open', 'high', {stamp}, {stamp})")
                connection.exec_driver_sql("INSERT INTO ticket_message (ticket_id, author, role, body, created_at) "
                                           f"VALUES ('T{n}', 'Dana', 'customer', 'Help {n}', {stamp})")
        _migrate(engine, command.upgrade, "head")
        with engine.begin() as connection:
            assert connection.exec_driver_sql("SELECT id, priority FROM ticket ORDER BY id").all() == [
                ("T1", "high"), ("T2", "high")]
            assert connection.exec_driver_sql("SELECT COUNT(*) FROM ticket_message").scalar() == 2
            connection.exec_driver_sql("DELETE FROM search_pending")
            connection.exec_driver_sql(
                "INSERT INTO ticket (id, customer_id, title, status, priority, created_at, updated_at) "
                f"VALUES ('T3', 'c1', 'No priority', 'open', NULL, {stamp}, {stamp})")
            connection.exec_driver_sql("UPDATE ticket_message SET attachments = '[{\"name\": \"trace.log\"}]'")
            assert connection.exec_driver_sql("SELECT kind, key FROM search_pending ORDER BY key").all() == [
                ("ticket", "T1"), ("ticket", "T2"), ("ticket", "T3")], "the triggers fire (0019's, on the copy)"
        with pytest.raises(IntegrityError), engine.begin() as connection:  # the foreign key still holds
            connection.exec_driver_sql("INSERT INTO ticket_message (ticket_id, author, role, body, created_at) "
                                       f"VALUES ('T9', 'Dana', 'customer', 'orphan', {stamp})")
        _migrate(engine, command.downgrade, before)
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SELECT id, priority FROM ticket ORDER BY id").all() == [
                ("T1", "high"), ("T2", "high"), ("T3", "normal")]
            assert connection.exec_driver_sql("SELECT COUNT(*) FROM ticket_message").scalar() == 2
        _migrate(engine, command.upgrade, "head")
    finally:
        engine.dispose()


def _store_as_0018_did(engine: Engine, leave_out: set[str]) -> None:
    """The search's analysis of every ticket and section but `leave_out`, in 0018's search_document (kind and key
    its key), as a process of that release stored it."""
    from sqlmodel import Session

    from bot.search import persist, vectors
    from bot.search.catch_up import FIELDS
    from bot.search.rows import documents

    with Session(engine) as session:
        keys = {"ticket": session.execute(text("SELECT id FROM ticket ORDER BY id")).scalars().all(),
                "help": session.execute(text("SELECT id FROM help_section ORDER BY id")).scalars().all()}
        for kind, wanted in keys.items():
            found = documents(session, kind, [key for key in wanted if key not in leave_out])
            analyses = {key: persist.analyse(doc.fields) for key, (doc, _) in found.items()}
            names = sorted({t for a in analyses.values() for t in [*a.terms, *a.words]})
            session.execute(text("INSERT INTO search_term (term) VALUES (:t) ON CONFLICT DO NOTHING"),
                            [{"t": name} for name in names])
            numbers = dict(session.execute(text("SELECT term, id FROM search_term")).all())
            for key, (doc, source) in found.items():
                vector = vectors.EMBEDDER.embed([vectors.document_text(doc.fields)])[0] if kind == "ticket" else None
                session.execute(text("INSERT INTO search_document (kind, key, source, updated, terms, tfs, words, "
                                     "lengths, vector) VALUES (:kind, :key, :source, :updated, :terms, :tfs, :words, "
                                     ":lengths, :vector)"),
                                {"kind": kind, "key": key, "source": source, "updated": doc.updated,
                                 **persist.encode(analyses[key], numbers, FIELDS[kind]),
                                 "vector": vectors.encode(vector)})
        session.commit()


def test_0019_builds_the_full_text_index_and_statistics_from_the_stored_analysis(database_url, tmp_path):
    """An existing desk: 0019 builds the full-text rows and the statistics from what 0018 stored, without
    analysing anything again, and queues what it cannot build (never analysed; help sections had no vectors);
    once `kitebase db upgrade` has stored those, every search answers as on a desk indexed from scratch."""
    from bot.search.catch_up import drain
    from tests.test_search_engine import recount

    database = Database.from_url(database_url)
    engine = database.engine
    try:
        _migrate(engine, command.upgrade, "0018")
        seed_desk(database, _desk_before_0022(tmp_path, database_url))
        with engine.begin() as connection:
            connection.exec_driver_sql("DELETE FROM search_document")
        _store_as_0018_did(engine, leave_out={"KITE-150", "KITE-151"})

        _migrate(engine, command.upgrade, "head")
        recount(database)  # the statistics and the full-text rows are exactly what the stored analysis says
        with engine.connect() as connection:
            pending = set(connection.exec_driver_sql("SELECT kind, key FROM search_pending").all())
            sections = connection.exec_driver_sql("SELECT COUNT(*) FROM help_section").scalar()
        assert {("ticket", "KITE-150"), ("ticket", "KITE-151")} <= pending, "never analysed: queued"
        assert len([kind for kind, _ in pending if kind == "help"]) == sections, "no vector yet: queued"
        assert len(pending) == sections + 2, "every analysed ticket is built from what 0018 stored"

        assert drain(engine) == sections + 2
        recount(database)
        migrated = _answers(database)
        assert {"KITE-144", "KITE-163"} <= {hit.id for hit in migrated[-3]}, "KITE-142's like-tickets"

        with engine.begin() as connection:  # the same desk indexed from scratch
            for table in ("search_document", "search_stat", "search_total", "search_fts_help", "search_fts_ticket"):
                connection.exec_driver_sql(f"DELETE FROM {table}")
            connection.exec_driver_sql("INSERT INTO search_pending (kind, key) SELECT 'ticket', id FROM ticket")
            connection.exec_driver_sql("INSERT INTO search_pending (kind, key) SELECT 'help', id FROM help_section")
        drain(engine)
        assert _answers(database) == migrated
    finally:
        engine.dispose()


def _answers(database: Database) -> list[list]:
    from bot import search

    with database.session() as session:
        return [*(search.search_help(session, query, limit=5) for query in (
                    "locked out after the okta change", "invoice vat number", "webhook signature")),
                *(search.similar_tickets(session, ticket, limit=5) for ticket in ("KITE-142", "KITE-150", "KITE-162"))]
