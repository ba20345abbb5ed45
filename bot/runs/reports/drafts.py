"""The drafts that wait for a person, as the terminal lists them (`kitebase drafts`): the counterpart of the cards."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from bot.db.engine import Database
from bot.db.models import Approval, Customer, Run, Ticket
from bot.vocabulary import ApprovalStatus, RunStatus


def waiting_drafts(db: Database) -> list[dict[str, Any]]:
    """Every gated call that waits, oldest first, with its run, ticket, customer and who may decide."""
    with db.session() as session:
        rows = session.exec(select(Approval, Run).join(Run, col(Run.id) == col(Approval.run_id))
                            .where(col(Approval.status) == ApprovalStatus.PENDING,
                                   col(Run.status) == RunStatus.AWAITING_APPROVAL)
                            .order_by(col(Approval.created_at), col(Approval.id))).all()
        found = []
        for approval, run in rows:
            arguments = approval.tool_input or {}
            ticket_id = str(arguments.get("ticket_id") or run.ticket_id or "") or None
            ticket = session.get(Ticket, ticket_id) if ticket_id else None
            customer = session.get(Customer, ticket.customer_id) if ticket else None
            found.append({"run_id": run.id, "ticket_id": ticket_id, "customer": customer.name if customer else None,
                          "tool": approval.tool_name, "message": arguments.get("message"),
                          "created_at": approval.created_at, "started_by": run.started_by,
                          "reminded": approval.reminded_at is not None})
        return found
