"""Which due line each kept Slack message shows, and while when: the one answer the views (bot/runs/reports/
for_slack.py, read by the renderer) and the due-refresh job (bot/runs/execution/due_refresh.py) share, so the job
bumps a message exactly when what it shows would now read differently.

- an approval card: its ticket's line while the draft waits (a decided card shows none);
- a queue item: its run's ticket while the run is in the human queue (open or taken);
- a batch card: each child's ticket while that child works or its draft waits (not while its reply is sent);
- an intake pick-up message: its ticket while the run is live (queued, working, waiting for a decision);
- App Home: the lines of the waiting drafts and the queue, in their order.
The renderer keeps what it drew in the row's `state["due"]`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from bot.db.models import Approval, Escalation, Run
from bot.runs.reports import due
from bot.vocabulary import LIVE, UNRESOLVED, ApprovalStatus


def approval_ticket(approval: Approval, run: Run) -> str | None:
    return (approval.tool_input or {}).get("ticket_id") or run.ticket_id


Lookup = Callable[[str | None], due.TicketDue]  # a ticket's line at one time


def lookup(session: Session, at: datetime) -> Lookup:
    """Tickets' lines read one at a time (a view of one message)."""
    return lambda ticket_id: due.of_ticket(session, ticket_id, at)


def prefetched(session: Session, ticket_ids: list[str | None], at: datetime) -> Lookup:
    """These tickets' lines read at once (the due-refresh job's pass over many messages)."""
    found = due.of_tickets(session, ticket_ids, at)
    return lambda ticket_id: found.get(ticket_id or "", due.NOTHING)


def card(approval: Approval, run: Run, lines: Lookup) -> due.TicketDue:
    if approval.status != ApprovalStatus.PENDING:
        return due.NOTHING
    return lines(approval_ticket(approval, run))


def queue_item(escalation: Escalation, run: Run, lines: Lookup) -> due.TicketDue:
    if escalation.status not in UNRESOLVED:
        return due.NOTHING
    return lines(run.ticket_id)


def pick_up(run: Run, lines: Lookup) -> due.TicketDue:
    if run.status not in LIVE:
        return due.NOTHING
    return lines(run.ticket_id)


def batch(session: Session, batch_id: int, at: datetime) -> dict[str, due.TicketDue]:
    """Each working or waiting child's ticket (a child done shows none, nor one whose reply was approved and is
    being sent: "Approved… sending…" needs no "due in")."""
    children = session.exec(select(Run.id, Run.ticket_id).where(col(Run.batch_id) == batch_id,
                                                                col(Run.status).in_(LIVE))).all()
    latest: dict[int | None, str] = dict(session.exec(  # each child's newest draft, as its card shows it
        select(Approval.run_id, Approval.status).where(col(Approval.run_id).in_([r for r, _ in children]))
        .order_by(col(Approval.id))).all())
    sending = {ApprovalStatus.APPROVED, ApprovalStatus.EDITED}
    return due.of_tickets(session, [t for r, t in children if latest.get(r) not in sending], at)


def batch_lines(found: dict[str, due.TicketDue]) -> dict[str, str | None]:
    return {ticket: d.line for ticket, d in sorted(found.items())}


def home_lines(queue: list[dict[str, Any]], approvals: list[dict[str, Any]]) -> list[list[Any]]:
    """What App Home shows of what is due, in its order (an order that changes is a change too)."""
    return [["queue", q["escalation_id"], q.get("due")] for q in queue] + \
        [["draft", a["approval_id"], a.get("due")] for a in approvals]
