"""Alembic environment: the target is SQLModel's metadata; the connection is handed in by bot.db.engine."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from bot.db import models  # noqa: F401  (registers the tables)

target_metadata = SQLModel.metadata
from bot.db.migrations_filter import include_object  # noqa: E402


def run_migrations() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        from bot.config import get_settings
        from bot.db.engine import make_engine

        engine = make_engine(get_settings().database_url)
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
        return
    _run(connection)


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == "sqlite", compare_type=True,
                      include_object=include_object)
    with context.begin_transaction():
        context.run_migrations()


run_migrations()
