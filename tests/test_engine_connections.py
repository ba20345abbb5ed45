"""PostgreSQL connections from the pool: checked before use only when they may be dead (bot/db/engine.py), so a
burst of requests pays no round trip per checkout and a connection the server ended is never handed out."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from bot.db import engine as engine_module
from bot.db.engine import Database

pytestmark = [pytest.mark.postgres, pytest.mark.parametrize("database_url", ["postgres"], indirect=True)]


@pytest.fixture
def pg(database_url: str):  # type: ignore[no-untyped-def]
    db = Database.from_url(database_url)
    pings: list[int] = []
    real_ping = db.engine.dialect.do_ping

    def counted(dbapi_connection):  # type: ignore[no-untyped-def]
        pings.append(1)
        return real_ping(dbapi_connection)

    db.engine.dialect.do_ping = counted  # type: ignore[method-assign]
    yield db, pings
    db.engine.dispose()


def backend_pid(db: Database) -> int:
    with db.engine.connect() as conn:
        return int(conn.execute(text("SELECT pg_backend_pid()")).scalar_one())


def end_backend(db: Database, pid: int) -> None:
    """What a server restart or an idle-connection killer does to one pooled connection."""
    other = Database.from_url(str(db.engine.url.render_as_string(hide_password=False)))
    try:
        with other.engine.connect() as conn:
            # with a timeout, pg_terminate_backend returns once the backend has exited (its socket closed)
            assert conn.execute(text("SELECT pg_terminate_backend(:pid, 5000)"), {"pid": pid}).scalar_one()
            conn.commit()
    finally:
        other.engine.dispose()


def test_a_connection_checked_in_moments_ago_is_used_without_a_round_trip(pg):
    db, pings = pg
    first = backend_pid(db)
    before = len(pings)
    pids = {backend_pid(db) for _ in range(20)}
    assert pids == {first}, "LIFO: the same warm connection each time"
    assert len(pings) == before, f"{len(pings) - before} pings for 20 checkouts of a healthy, busy connection"


def test_a_connection_the_server_ended_is_replaced_before_anyone_uses_it(pg):
    db, pings = pg
    dead = backend_pid(db)
    end_backend(db, dead)
    before = len(pings)
    with db.session() as session:  # no error: the pool noticed and connected again
        now = session.execute(text("SELECT pg_backend_pid()")).scalar_one()
    assert now != dead
    assert len(pings) > before, "the connection was checked because its socket had something to read"


def test_a_connection_idle_for_long_is_checked_first(pg, monkeypatch):
    db, pings = pg
    backend_pid(db)
    monkeypatch.setattr(engine_module, "IDLE_PING_SECONDS", 0.0)
    before = len(pings)
    backend_pid(db)
    assert len(pings) == before + 1

