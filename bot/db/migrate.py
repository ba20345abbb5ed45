"""Schema changes through Alembic: `kitebase db upgrade`, also run at start-up.

Start-up first reads the database's revision and compares it with the newest migration file: when they
match (nearly always) nothing else happens, and Alembic is not even imported (a fifth of a second)."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

from bot.db.setup_lock import setup_lock

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"
_REVISION = re.compile(r"^(down_revision|revision)\s*(?::[^=]*)?=\s*['\"]([^'\"]+)['\"]", re.MULTILINE)


def alembic_config(engine: Engine | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("path_separator", "os")
    config.set_main_option("version_locations", str(MIGRATIONS / "versions"))
    return config


@functools.cache
def head_revision() -> str | None:
    """The newest revision, read from the migration files; None if they do not form one line."""
    revisions, parents = set(), set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        found = dict(_REVISION.findall(path.read_text(encoding="utf-8")))
        if "revision" in found:
            revisions.add(found["revision"])
        if "down_revision" in found:
            parents.add(found["down_revision"])
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def current_revision(engine: Engine) -> str | None:
    """The database's revision, or None when it has none yet."""
    try:
        with engine.connect() as connection:
            return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except DBAPIError:  # no alembic_version table: a new database
        return None


def _revision_of(connection: Connection) -> str | None:
    """current_revision inside a transaction that must go on (a failed SELECT would end it on PostgreSQL)."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def upgrade(engine: Engine) -> None:
    """Bring the database to the newest schema: once, however many processes start at once on a new database
    (the first to take the database's set-up lock migrates; the others wait, then find it done)."""
    if head_revision() is not None and current_revision(engine) == head_revision():
        return
    with setup_lock(engine) as connection:
        if head_revision() is not None and _revision_of(connection) == head_revision():
            return
        from alembic import command

        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def revision(engine: Engine, message: str) -> None:
    """Autogenerate a new revision from the models (for developers)."""
    from alembic import command

    config = alembic_config()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.revision(config, message=message, autogenerate=True)
