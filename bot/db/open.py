"""Open the database for a command: schema up to date, desk loaded, or one clear sentence naming
DATABASE_URL when that cannot be done (unknown scheme, unreachable server, missing directory, read-only)."""

from __future__ import annotations

import logging

from sqlalchemy import text
from sqlalchemy.exc import ArgumentError, DatabaseError, OperationalError

from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.seed import seed_desk

logger = logging.getLogger(__name__)


class DatabaseUnusable(RuntimeError):
    """DATABASE_URL points at something we cannot use; the message says what and what to do."""


def open_database(settings: Settings) -> Database:
    url = str(settings.database_url)
    shown = _hide_password(url)
    try:
        db = Database.from_url(url)
    except (ArgumentError, ImportError, ValueError) as exc:
        raise DatabaseUnusable(f"DATABASE_URL={shown} is not a database URL we can use ({_first_line(exc)}); "
                               "use sqlite:///path/to/kitebase.db or postgresql+psycopg://user@host/db") from None
    try:
        create_schema(db.engine)
        if settings.desk == "embedded":  # a real desk fills its mirror by syncing (`kitebase desk sync`)
            seed_desk(db, settings.data_dir)
        _check_writable(db)
    except OperationalError as exc:
        raise DatabaseUnusable(f"DATABASE_URL={shown}: {_explain(exc)}") from None
    except DatabaseError as exc:
        raise DatabaseUnusable(f"DATABASE_URL={shown}: the database refused the schema ({_first_line(exc)})") from None
    return db


def _check_writable(db: Database) -> None:
    """A write that changes nothing, rolled back: a read-only database is named now, not mid-run."""
    with db.engine.connect() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = version_num"))
        conn.rollback()


def _explain(exc: OperationalError) -> str:
    text = _first_line(exc.orig if exc.orig is not None else exc)
    if "readonly" in text or "read-only" in text:
        return "the database file is read-only; give this process write access or point DATABASE_URL elsewhere"
    if "database is locked" in text or "lock timeout" in text:
        return ("another process kept the database locked too long (setting it up on a first start, or a long "
                "write); try again, and if it lasts look for a stuck kitebase process")
    if "unable to open database file" in text:
        return "cannot open the database file (does its directory exist, and may this process write there?)"
    if "connection" in text.lower() or "connect" in text.lower():
        return f"cannot connect ({text}); is the server running and reachable?"
    return text


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]


def _hide_password(url: str) -> str:
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@")[-1] if "@" in url else url
