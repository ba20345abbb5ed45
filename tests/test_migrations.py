"""The Alembic migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect
from sqlmodel import SQLModel

from bot.db.engine import create_schema
from bot.db.migrate import alembic_config
from bot.db.migrations_filter import include_object


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
