"""Approve all on a batch card: every draft the card showed, each decided as its own card's Approve would be
(the first decision on each draft wins, an atomic UPDATE), so a second click, or a per-ticket Reject at the same
moment, leaves each ticket exactly one outcome. A draft that changed since the card was drawn is not approved."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, select

from bot.db.engine import Database
from bot.db.models import Approval, Run
from bot.runs import BadInput
from bot.runs.lifecycle import approvals
from bot.runs.lifecycle.approvals import CallCheck, Decision


@dataclass(frozen=True)
class AllDecided:
    decisions: list[tuple[str, Decision]]  # (ticket, what happened to its draft)

    @property
    def run_ids(self) -> list[int]:
        """The children to continue: those whose draft this click approved."""
        return [d.run_id for _, d in self.decisions if d.outcome == "approved" and d.run_id is not None]

    def sentence(self) -> str | None:
        """What the person who clicked should hear, when not every draft was approved by this click."""
        missed = [f"{ticket}: {d.message}" for ticket, d in self.decisions if d.outcome != "approved"]
        return " ".join(missed) if missed else None


def approve_all(db: Database, batch_id: int, *, actor: str, shown: dict[int, str],
                check: CallCheck | None = None) -> AllDecided:
    """Approve each of `shown` (approval id → the fingerprint the card showed) that belongs to batch `batch_id`."""
    with db.session() as session:
        rows = session.exec(select(Approval.id, Run.ticket_id).join(Run, col(Run.id) == col(Approval.run_id))
                            .where(col(Run.batch_id) == batch_id, col(Approval.id).in_(list(shown)))).all()
    ours = {int(i or 0): str(t) for i, t in rows}
    if not ours:
        raise BadInput("None of those drafts belongs to this batch any more; nothing was sent.")
    decided = [(ours[a], approvals.decide(db, a, action="approve", actor=actor, expected_fingerprint=shown[a],
                                          check=check)) for a in sorted(ours)]
    return AllDecided(decided)
