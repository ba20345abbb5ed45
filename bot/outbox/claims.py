"""The sender's side of the outbox: read what is due, claim a row before sending it, and record what
happened. Claims stay on a row until its outcome is known, so a row found claimed by a process that died
(or whose last attempt timed out) may already be in Slack: the sender looks before posting it again.

When a row is due is the database's time (bot/db/clock.py): whoever wrote the row, and whoever sends it, a
host whose clock is off neither holds rows back nor sends retries early."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, update
from sqlalchemy import select as sql_select
from sqlmodel import col, select

from bot.db import clock
from bot.db.engine import Database
from bot.db.models import Outbox, Run, table_of
from bot.vocabulary import OutboxKind, OutboxStatus

GIVE_UP_AFTER = 40  # attempts (with backoff capped at 30 s: more than 15 minutes of trying)


@dataclass(frozen=True)
class Due:
    """What the sender needs to choose a row (the row itself is read when it is claimed)."""

    id: int
    kind: str
    channel: str | None
    thread_ts: str | None
    ts: str | None
    parent_id: int | None
    user: str | None
    priority: int
    due: bool  # its next attempt may go now, by the database's clock
    streaming: bool


_OUTBOX = table_of(Outbox).c
_PENDING = sql_select(_OUTBOX.id, _OUTBOX.kind, _OUTBOX.channel, _OUTBOX.thread_ts, _OUTBOX.ts, _OUTBOX.parent_id,
                      _OUTBOX.user, _OUTBOX.priority, _OUTBOX.next_attempt_at <= clock.now(), _OUTBOX.state).where(
    _OUTBOX.status == OutboxStatus.PENDING).order_by(_OUTBOX.id)


def pending(db: Database) -> list[Due]:
    """Every row with something to deliver, oldest first (the sender orders by priority itself)."""
    with db.session() as session:
        rows = session.connection().execute(_PENDING).all()
    return [Due(row_id, kind, channel, thread_ts, ts, parent_id, user, priority, bool(due),
                streaming=(state or {}).get("mode") == "stream")
            for row_id, kind, channel, thread_ts, ts, parent_id, user, priority, due, state in rows]


def count_pending(db: Database) -> int:
    with db.session() as session:
        return len(session.exec(select(Outbox.id).where(col(Outbox.status) == OutboxStatus.PENDING)).all())


def claim(db: Database, row_id: int, owner: str) -> tuple[Outbox, bool] | None:
    """Mark the row as being sent by `owner`. Returns it as it is now (its newest version) and whether an
    earlier attempt may already have reached Slack; None if there is nothing to send."""
    with db.session() as session:
        row = session.get(Outbox, row_id)
        if row is None or row.status != OutboxStatus.PENDING:
            return None
        uncertain = row.claimed_by is not None
        session.execute(update(Outbox).where(col(Outbox.id) == row_id)
                        .values(claimed_by=owner, attempts=col(Outbox.attempts) + 1))
        session.flush()
        session.refresh(row)
        session.expunge(row)
        return row, uncertain


def sent(db: Database, row_id: int, *, version: int, ts: str | None, state: dict[str, Any]) -> None:
    """Delivered `version`: the row is done unless a writer bumped it meanwhile."""
    with db.session() as session:
        session.execute(update(Outbox).where(col(Outbox.id) == row_id).values(
            ts=ts, state=state, sent_version=version,
            status=case((col(Outbox.version) == version, OutboxStatus.SENT), else_=OutboxStatus.PENDING), claimed_by=None, attempts=0,
            last_error=None, sent_at=clock.now(), updated_at=clock.now()))
        row = session.get(Outbox, row_id)
        if row is not None and row.kind == OutboxKind.REQUEST and ts:
            _link_thread(session, row, ts)


def _link_thread(session: Any, row: Outbox, ts: str) -> None:
    """A slash command's first message is in Slack: its ts becomes the run's thread, for the rows waiting on it
    and for follow-ups in that thread. Only its first post: one posted again (deleted in Slack) has no thread
    under it, and the run's thread stays where its timeline and cards are."""
    run = session.get(Run, row.run_id)
    if run is not None and (run.origin or {}).get("thread_ts"):
        return
    if run is not None:
        run.origin = {**(run.origin or {}), "thread_ts": ts}
        run.thread_key = f"{row.channel}:{ts}"
        session.add(run)
    session.execute(update(Outbox).where(col(Outbox.parent_id) == row.id, col(Outbox.kind) != "transcript",
                                         col(Outbox.thread_ts).is_(None)).values(thread_ts=ts))


def retry(db: Database, row_id: int, *, after: float, error: str, uncertain: bool,
          state: dict[str, Any] | None = None) -> bool:
    """Try again `after` seconds from now; an `uncertain` outcome keeps the claim (look before reposting).
    Returns False when the row has been tried too often and is given up."""
    with db.session() as session:
        row = session.get(Outbox, row_id)
        if row is None:
            return False
        values: dict[str, Any] = {"next_attempt_at": clock.now(after), "last_error": error[:2000],
                                  "updated_at": clock.now()}
        if not uncertain:
            values["claimed_by"] = None
        if state is not None:
            values["state"] = state
        if row.attempts >= GIVE_UP_AFTER:
            values.update(status=OutboxStatus.FAILED, claimed_by=None)
        session.execute(update(Outbox).where(col(Outbox.id) == row_id).values(**values))
        return row.attempts < GIVE_UP_AFTER


def failed(db: Database, row_id: int, error: str) -> None:
    """Slack refused the row for good (not in the channel, archived...): kept with its error for the operator;
    a later change to what it shows tries again."""
    with db.session() as session:
        session.execute(update(Outbox).where(col(Outbox.id) == row_id).values(
            status=OutboxStatus.FAILED, claimed_by=None, last_error=error[:2000], updated_at=clock.now()))


def found_in_slack(db: Database, row_id: int, ts: str) -> None:
    """An uncertain post turned out to be in Slack already: keep its ts; what it shows is brought up to date."""
    with db.session() as session:
        session.execute(update(Outbox).where(col(Outbox.id) == row_id).values(ts=ts, claimed_by=None))


def forget_ts(db: Database, row_id: int, state: dict[str, Any]) -> None:
    """The message was deleted in Slack: the row posts it again."""
    with db.session() as session:
        session.execute(update(Outbox).where(col(Outbox.id) == row_id).values(ts=None, state=state, claimed_by=None))


GONE = "gone"  # a row's state: its message was deleted in Slack and is never posted again


def gone(db: Database, row_id: int, version: int, state: dict[str, Any]) -> None:
    """A pick-up message deleted in Slack: never posted again (the sender passes over a row marked so); the row
    forgets its ts, so no refresh looks at it."""
    with db.session() as session:
        session.execute(update(Outbox).where(col(Outbox.id) == row_id).values(
            ts=None, state={**state, GONE: True}, sent_version=version, claimed_by=None, attempts=0, sent_at=clock.now(),
            updated_at=clock.now(),
            status=case((col(Outbox.version) == version, OutboxStatus.SENT), else_=OutboxStatus.PENDING)))


def set_state(db: Database, row_id: int, state: dict[str, Any], *, ts: str | None = None) -> None:
    values: dict[str, Any] = {"state": state}
    if ts is not None:
        values["ts"] = ts
    with db.session() as session:
        session.execute(update(Outbox).where(col(Outbox.id) == row_id).values(**values))

