"""At-most-once handling of inbound messages: the first process to claim a key acts on it."""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError

from bot.db.engine import Database
from bot.db.models import Delivery


def claim(db: Database, key: str) -> bool:
    """True for the first claim of `key`, False for every later one (retries, duplicate events)."""
    try:
        with db.session() as session:
            session.add(Delivery(key=key[:200]))
        return True
    except IntegrityError:
        return False


def link_run(db: Database, key: str, run_id: int) -> None:
    with db.session() as session:
        row = session.get(Delivery, key[:200])
        if row is not None:
            row.run_id = run_id
            session.add(row)
