"""Engine and session factory. The URL decides the dialect; nothing else here is SQLite-specific."""

from __future__ import annotations

import logging
import select
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import InvalidatePoolError
from sqlalchemy.pool import ConnectionPoolEntry
from sqlmodel import Session, create_engine

from bot.db import models as _models  # noqa: F401  (registers the tables)

logger = logging.getLogger(__name__)


def make_engine(url: str) -> Engine:
    """Create an engine for `url` (sqlite:///file.db or postgresql+psycopg://...)."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                               pool_size=20, max_overflow=100, pool_use_lifo=True)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    # LIFO: the connections used most stay warm (their prepared statements and caches), the rest go idle
    engine = create_engine(url, pool_size=10, max_overflow=20, pool_use_lifo=True,
                           connect_args={"connect_timeout": 10} if url.startswith("postgresql") else {})
    _ping_when_in_doubt(engine)
    return engine


IDLE_PING_SECONDS = 30.0


def _ping_when_in_doubt(engine: Engine) -> None:
    """Check a pooled connection before it is handed out only when it may be dead: it sat idle for a while, or
    the server wrote to it while it was idle (a server that shuts down or ends a backend says so and closes the
    socket, which then reads as ready). A connection checked in moments ago with a quiet socket is used as it
    is. SQLAlchemy's pool_pre_ping makes a round trip on every checkout: in a burst of Slack mentions that was
    a third of each acknowledgement's wait, and a share of every turn's transactions. A failed check
    invalidates the pool (as pre-ping does) and the pool connects again."""

    @event.listens_for(engine, "checkin")
    def _checked_in(dbapi_connection: DBAPIConnection, record: ConnectionPoolEntry) -> None:
        record.info["idle_since"] = (id(dbapi_connection), time.monotonic())

    @event.listens_for(engine, "checkout")
    def _checked_out(dbapi_connection: DBAPIConnection, record: ConnectionPoolEntry, _proxy: Any) -> None:
        since = record.info.get("idle_since")
        if (since is not None and since[0] == id(dbapi_connection)
                and time.monotonic() - since[1] < IDLE_PING_SECONDS and not _server_spoke(dbapi_connection)):
            return
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:
            raise InvalidatePoolError(f"the pooled connection failed its check: {type(exc).__name__}") from exc
        if not alive:
            raise InvalidatePoolError("the pooled connection failed its check")


def _server_spoke(dbapi_connection: DBAPIConnection) -> bool:
    """True when an idle connection's socket has something to read (an error, a notice, end of file), or its
    socket cannot be checked: either way it needs a ping before use."""
    fileno = getattr(dbapi_connection, "fileno", None)  # psycopg's connections have one
    if fileno is None or not hasattr(select, "poll"):
        return True
    try:
        fd = fileno()
    except Exception:  # a closed connection
        return True
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))


def _sqlite_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    # WAL with synchronous=NORMAL: a commit survives the process dying at any point (what the outbox and the
    # intake rely on); only a power cut may lose the last commits. It saves an fsync per commit.
    cursor.execute("PRAGMA synchronous=NORMAL")
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
