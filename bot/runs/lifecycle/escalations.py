"""The human queue's own state: claiming and closing escalations (atomic, the first person wins)."""

from __future__ import annotations

from sqlalchemy import update
from sqlmodel import Session, col, select

from bot import outbox
from bot.db.engine import Database
from bot.db.models import Escalation, id_of, utcnow
from bot.db.statements import changed
from bot.runs import BadInput
from bot.vocabulary import UNRESOLVED, EscalationStatus


def claim(db: Database, escalation_id: int, *, actor: str) -> tuple[bool, str]:
    with db.session() as session:
        won = changed(session.execute(update(Escalation).where(col(Escalation.id) == escalation_id,
                                                       col(Escalation.status) == EscalationStatus.OPEN)
                              .values(status=EscalationStatus.CLAIMED, claimed_by=actor, updated_at=utcnow()))) == 1
        if won:
            outbox.queue_changed(session, escalation_id)
            outbox.homes_changed(session)
        row = session.get(Escalation, escalation_id)
    if row is None:
        return False, "That escalation no longer exists."
    if not won:
        return False, f"Already {row.status}" + (f" by {row.claimed_by}." if row.claimed_by else ".")
    return True, f"Claimed by {actor}."

def close(db: Database, escalation_id: int, *, actor: str, note: str) -> tuple[bool, str]:
    if not note or not note.strip():
        raise BadInput("Add a short note on how it was resolved.")
    with db.session() as session:
        won = changed(session.execute(update(Escalation).where(col(Escalation.id) == escalation_id,
                                                       col(Escalation.status).in_(UNRESOLVED))
                              .values(status=EscalationStatus.CLOSED, note=f"{note.strip()} (closed by {actor})",
                                      claimed_by=actor, updated_at=utcnow()))) == 1
        if won:
            outbox.queue_changed(session, escalation_id)
            outbox.homes_changed(session)
        row = session.get(Escalation, escalation_id)
    if row is None:
        return False, "That escalation no longer exists."
    return (True, f"Closed by {actor}.") if won else (False, f"Already {row.status}.")


def mark_resumed(session: Session, run_id: int, *, actor: str) -> None:
    """A person resumed the run: its open escalations say so, in the queue too."""
    rows = session.exec(select(Escalation).where(Escalation.run_id == run_id,
                                                 col(Escalation.status).in_(UNRESOLVED))).all()
    for row in rows:
        row.status, row.claimed_by, row.note, row.updated_at = "resumed", actor, f"resumed by {actor}", utcnow()
        session.add(row)
        outbox.queue_changed(session, id_of(row))
