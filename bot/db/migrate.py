"""Schema changes through Alembic: `kitebase db upgrade`, also run at start-up."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Engine

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(engine: Engine | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("path_separator", "os")
    config.set_main_option("version_locations", str(MIGRATIONS / "versions"))
    return config


def upgrade(engine: Engine) -> None:
    """Bring the database to the newest schema (idempotent; safe for two processes thanks to the DB's locks)."""
    config = alembic_config()
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":  # one migrator at a time across processes
            connection.exec_driver_sql("SELECT pg_advisory_xact_lock(727271)")
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def revision(engine: Engine, message: str) -> None:
    """Autogenerate a new revision from the models (for developers)."""
    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.revision(config, message=message, autogenerate=True)
