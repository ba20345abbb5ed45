"""Thumbs up or down on a run, per person: the latest click counts, a note can follow a thumbs down."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, func, select

from bot.db.engine import Database
from bot.db.models import Feedback, Run, table_of, utcnow
from bot.db.statements import insert_ignore
from bot.runs import BadInput

VALUES = ("up", "down")
NOTE_MAX_CHARS = 2000


def record(db: Database, run_id: int, *, user: str, value: str) -> None:
    """`user` says the run was good (up) or not (down); a second click replaces the first."""
    if value not in VALUES:
        raise BadInput(f"Feedback is 'up' or 'down', not {value!r}.")
    if not user:
        raise BadInput("Feedback needs to say who gives it.")
    with db.session() as session:
        if session.get(Run, run_id) is None:
            raise BadInput(f"There is no run {run_id}.")
        now = utcnow()
        inserted = insert_ignore(session, table_of(Feedback), {"run_id": run_id, "user": user, "value": value,
                                                                "note": None, "created_at": now, "updated_at": now},
                                 conflict=("run_id", "user"), returning="id")
        if inserted is None:  # this person had given feedback on the run: the latest click counts
            session.execute(update(Feedback).where(col(Feedback.run_id) == run_id, col(Feedback.user) == user)
                            .values(value=value, updated_at=now))


def add_note(db: Database, run_id: int, *, user: str, note: str) -> None:
    """The note that goes with `user`'s feedback on the run (a thumbs down if they gave none yet)."""
    note = (note or "").strip()[:NOTE_MAX_CHARS]
    if not note:
        return
    record_if_missing(db, run_id, user=user)
    with db.session() as session:
        session.execute(update(Feedback).where(col(Feedback.run_id) == run_id, col(Feedback.user) == user)
                        .values(note=note, updated_at=utcnow()))


def record_if_missing(db: Database, run_id: int, *, user: str) -> None:
    with db.session() as session:
        exists = session.exec(select(Feedback.id).where(Feedback.run_id == run_id, Feedback.user == user)).first()
    if exists is None:
        record(db, run_id, user=user, value="down")


def counts(session: Session, since: datetime, until: datetime) -> dict[str, Any]:
    """Feedback on the runs started in [since, until): thumbs up, thumbs down, and the notes."""
    rows = session.exec(select(Feedback.value, func.count()).join(Run, col(Run.id) == col(Feedback.run_id))
                        .where(col(Run.created_at) >= since, col(Run.created_at) < until)
                        .group_by(col(Feedback.value))).all()
    notes = session.exec(select(Feedback.run_id, Feedback.note).join(Run, col(Run.id) == col(Feedback.run_id))
                         .where(col(Run.created_at) >= since, col(Run.created_at) < until,
                                col(Feedback.note).is_not(None)).order_by(col(Feedback.id))).all()
    found = dict(rows)
    return {"up": int(found.get("up", 0)), "down": int(found.get("down", 0)),
            "notes": [{"run_id": run_id, "note": note} for run_id, note in notes]}
