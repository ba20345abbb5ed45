"""The lock for setting a database up (creating the schema, loading the desk), held by the database itself.

Any number of processes may start at once on a fresh database (six `kitebase run` in a new folder, a `serve` and a
`run` on a new machine): one sets it up, the others wait on this lock and then find the work done. The lock is the
database's own, so it ends with its holder, whatever kills it:

- PostgreSQL: a transaction-level advisory lock, released at commit, rollback or the end of the session;
- SQLite: `BEGIN IMMEDIATE`, the write lock on the database file, released at commit or when the process dies.

Whoever holds it does its work inside the same transaction, and checks again there whether the work is still to
do (another process may have done it while this one waited)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.engine import Connection, Engine

logger = logging.getLogger(__name__)

SETUP_LOCK = 727271  # PostgreSQL advisory lock key (procrastinate's schema lock is 727272)
SETUP_WAIT_SECONDS = 600  # a holder alive but stuck this long is reported, rather than waited for forever


@contextmanager
def setup_lock(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that holds the set-up lock; commits when the block succeeds, else rolls back."""
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        busy_ms = connection.exec_driver_sql("PRAGMA busy_timeout").scalar() if sqlite else None
        try:
            if sqlite:
                connection.exec_driver_sql(f"PRAGMA busy_timeout={SETUP_WAIT_SECONDS * 1000}")
                connection.commit()  # (a pragma outside any transaction; pysqlite begins none for it)
                connection.exec_driver_sql("BEGIN IMMEDIATE")
            elif connection.dialect.name == "postgresql":
                connection.exec_driver_sql(f"SET LOCAL lock_timeout = '{SETUP_WAIT_SECONDS}s'")
                connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({SETUP_LOCK})")
            yield connection
            connection.commit()
        except BaseException:
            connection.rollback()
            raise
        finally:
            if sqlite:  # the pooled connection goes back with the engine's own busy timeout
                connection.exec_driver_sql(f"PRAGMA busy_timeout={int(busy_ms or 0)}")
                connection.commit()
