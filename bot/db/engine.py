"""Engine and session factory. The URL decides the dialect; nothing else here is SQLite-specific."""

from __future__ import annotations

import logging
import select
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine, ExecutionContext
from sqlalchemy.engine.interfaces import DBAPIConnection, DBAPICursor
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
        _gates[engine] = WriteGate().attach(engine)
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


_urgent = threading.local()
_gates: weakref.WeakKeyDictionary[Engine, WriteGate] = weakref.WeakKeyDictionary()


def write_gate(engine: Engine) -> WriteGate | None:
    """The engine's write gate (SQLite), for writes made on the driver's connection itself."""
    return _gates.get(engine)


@contextmanager
def urgent_writes() -> Iterator[None]:
    """Writes made inside this block go before background writers (someone, e.g. Slack, waits for them)."""
    _urgent.on = True
    try:
        yield
    finally:
        _urgent.on = False


class WriteGate:
    """SQLite allows one writer at a time, and its busy handler makes a waiting writer sleep in growing steps
    (up to 100 ms each), which under load turns a 2 ms wait into a 100 ms one. Writers of this process queue
    on this gate instead: taken right before a connection's first write, released once its transaction has
    committed or rolled back. Urgent writers (a Slack request being answered) go before background ones (runs,
    the outbox sender). Other processes still meet SQLite's own busy timeout."""

    WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER")
    TIMEOUT = 30.0

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._owner: int | None = None
        self._depth = 0
        self._urgent_waiting = 0
        self.holders: set[int] = set()  # ids of the DBAPI connections inside a write transaction

    def attach(self, engine: Engine) -> WriteGate:
        event.listen(engine, "before_cursor_execute", self._before)
        event.listen(engine, "reset", lambda dbapi_connection, *rest: self._release(dbapi_connection))
        dialect = engine.dialect
        for name in ("do_commit", "do_rollback"):
            original = getattr(dialect, name)

            def finish(dbapi_connection: DBAPIConnection, _original: Callable[[DBAPIConnection], None] = original
                       ) -> None:
                try:
                    _original(dbapi_connection)
                finally:
                    self._release(dbapi_connection)

            setattr(dialect, name, finish)
        return self

    @contextmanager
    def held(self, dbapi_connection: DBAPIConnection) -> Iterator[None]:
        """Hold the gate around writes made on the driver's connection (no SQLAlchemy events fire there);
        the caller commits or rolls back inside the block."""
        if not self._acquire(bool(getattr(_urgent, "on", False))):
            logger.warning("waited %g s for this process's other SQLite writer; going ahead", self.TIMEOUT)
            yield
            return
        self.holders.add(id(dbapi_connection))
        try:
            yield
        finally:
            self._release(dbapi_connection)

    def _before(self, conn: Connection, cursor: DBAPICursor, statement: str, parameters: Any,
                context: ExecutionContext | None, executemany: bool) -> None:
        dbapi = conn.connection.dbapi_connection
        if id(dbapi) in self.holders or not statement.lstrip()[:7].upper().startswith(self.WRITES):
            return
        if self._acquire(bool(getattr(_urgent, "on", False))):
            self.holders.add(id(dbapi))
        else:
            logger.warning("waited %g s for this process's other SQLite writer; going ahead", self.TIMEOUT)

    def _acquire(self, urgent: bool) -> bool:
        me = threading.get_ident()
        with self._cond:
            if self._owner == me:
                self._depth += 1
                return True
            self._urgent_waiting += urgent
            try:
                free = self._cond.wait_for(
                    lambda: self._owner is None and (urgent or not self._urgent_waiting), self.TIMEOUT)
            finally:
                self._urgent_waiting -= urgent
            if free:
                self._owner, self._depth = me, 1
            return free

    def _release(self, dbapi_connection: object) -> None:
        if id(dbapi_connection) not in self.holders:
            return
        self.holders.discard(id(dbapi_connection))
        with self._cond:
            self._depth -= 1
            if self._depth <= 0:
                self._owner, self._depth = None, 0
                self._cond.notify_all()


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
