"""A sender's claim on one `desk_write` row, fenced: the claim carries its owner (a token new with each claim), and
every later change of the row is an UPDATE conditional on that token. A sender whose claim was taken over (it
was paused, or slower than its claim) changes nothing: its next step raises LostClaim and it stops.

Times are the database's (bot/db/clock.py), so hosts whose clocks differ agree on when a claim has run out.
"""

from __future__ import annotations

import os
import secrets
import socket
from datetime import datetime
from typing import Any

from sqlalchemy import func, update
from sqlmodel import col, select

from bot.db import clock
from bot.db.engine import Database
from bot.db.models import DeskWrite
from bot.db.statements import changed

OPEN = ("pending", "sending", "unknown")


class LostClaim(Exception):
    """Another sender owns the row now: whatever this one was doing with it, it stops."""


def take(db: Database, write_id: int, seconds: float) -> Claim | None:
    """Claim the row for `seconds` if it is still to be sent and nobody holds it; None otherwise."""
    token = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(6)}"
    with db.session() as session:
        taken = changed(session.execute(
            update(DeskWrite).where(col(DeskWrite.id) == write_id, col(DeskWrite.status).in_(OPEN),
                                    (col(DeskWrite.claimed_until).is_(None)) | (col(DeskWrite.claimed_until) < clock.now()))
            .values(claimed_by=token, claimed_until=clock.now(seconds))))
    return Claim(db, write_id, token, seconds) if taken == 1 else None


class Claim:
    def __init__(self, db: Database, write_id: int, token: str, seconds: float) -> None:
        self.db, self.write_id, self.token, self.seconds = db, write_id, token, seconds

    def _fenced(self, **values: Any) -> bool:
        with self.db.session() as session:
            return changed(session.execute(
                update(DeskWrite).where(col(DeskWrite.id) == self.write_id, col(DeskWrite.claimed_by) == self.token)
                .values(**values))) == 1

    def renew(self) -> None:
        """Before each request: the claim outlasts it, or the sender learns it lost the row and stops."""
        if not self._fenced(claimed_until=clock.now(self.seconds)):
            raise LostClaim(f"desk write {self.write_id} was taken over by another sender")

    def sending(self, zendesk_since: datetime) -> None:
        """A PUT is about to go: from now on its outcome may be unknown. The first attempt's Zendesk time stays."""
        if not self._fenced(status="sending", attempts=col(DeskWrite.attempts) + 1,
                            first_tried_at=func.coalesce(col(DeskWrite.first_tried_at), clock.now()),
                            zendesk_since=func.coalesce(col(DeskWrite.zendesk_since), zendesk_since),
                            claimed_until=clock.now(self.seconds)):
            raise LostClaim(f"desk write {self.write_id} was taken over by another sender")

    def found(self, comment_id: int) -> None:
        """The comment is on the ticket (posted by an earlier attempt); what else the write carries is not yet."""
        if not self._fenced(comment_id=comment_id):
            raise LostClaim(f"desk write {self.write_id} was taken over by another sender")

    def done(self, comment_id: int | None) -> bool:
        values: dict[str, Any] = {"status": "sent", "sent_at": clock.now(), "claimed_until": None, "claimed_by": None,
                                  "last_error": None}
        if comment_id is not None:
            values["comment_id"] = comment_id
        return self._fenced(**values)

    def later(self, seconds: float, why: str, *, status: str) -> bool:
        return self._fenced(status=status, next_attempt_at=clock.now(seconds), claimed_until=None, claimed_by=None,
                            last_error=why[:500])

    def fail(self, why: str) -> bool:
        return self._fenced(status="failed", claimed_until=None, claimed_by=None, last_error=why[:500])

    def recorded_elsewhere(self, ticket_id: str) -> set[int]:
        """The comment ids other writes to this ticket have recorded as theirs: never this write's."""
        with self.db.session() as session:
            return {int(i) for i in session.exec(
                select(DeskWrite.comment_id).where(col(DeskWrite.ticket_id) == ticket_id,
                                                   col(DeskWrite.id) != self.write_id,
                                                   col(DeskWrite.comment_id).is_not(None))).all() if i is not None}
