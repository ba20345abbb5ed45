"""Engine and session factory. The URL decides the dialect; nothing else here is SQLite-specific."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, create_engine

from bot.db import models as _models  # noqa: F401  (registers the tables)

logger = logging.getLogger(__name__)


def make_engine(url: str) -> Engine:
    """Create an engine for `url` (sqlite:///file.db or postgresql+psycopg://...)."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20,
                         connect_args={"connect_timeout": 10} if url.startswith("postgresql") else {})


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def create_schema(engine: Engine) -> None:
    """Bring the schema up to date through the Alembic migrations (idempotent)."""
    from bot.db.migrate import upgrade

    upgrade(engine)


class Database:
    """The engine plus a way to open short transactions; passed to tools and the loop."""

    def __init__(self, engine: Engine):
        self.engine = engine

    @classmethod
    def from_url(cls, url: str) -> Database:
        return cls(make_engine(url))

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session whose transaction commits on success and rolls back on any error. Callables a writer put
        in `session.info["after_commit"]` run once the commit succeeded (e.g. waking the outbox sender)."""
        with Session(self.engine, expire_on_commit=False) as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise
            for hook in session.info.pop("after_commit", ()):
                hook()

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name
