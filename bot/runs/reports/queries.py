"""Read-only views over runs for the CLI, Slack and the App Home."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from bot.db.models import Approval, Customer, Escalation, Run, Ticket, id_of
from bot.runs.lifecycle import held
from bot.runs.reports import due
from bot.vocabulary import UNRESOLVED, ApprovalStatus, RunStatus, stop_words


def queue(session: Session) -> list[dict[str, Any]]:
    """The runs handed to a person and not resolved, what is due first on top (then priority, then arrival):
    the human queue in Slack and at the terminal. Each with its due line as the database's clock reads it now."""
    rows = session.exec(select(Escalation, Run).join(Run, col(Run.id) == col(Escalation.run_id))
                        .where(col(Escalation.status).in_(UNRESOLVED)).order_by(col(Escalation.id))).all()
    dues = due.of_tickets(session, [r.ticket_id for _, r in rows], due.now(session))
    ordered = sorted(rows, key=lambda pair: dues.get(pair[1].ticket_id or "", due.NOTHING).order(int(pair[0].id or 0)))
    names = customer_names(session, [r.ticket_id for _, r in rows])
    return [{"escalation_id": e.id, "run_id": r.id, "ticket_id": r.ticket_id,
             "customer": names.get(r.ticket_id) if r.ticket_id else None, "kind": e.kind,
             "why": stop_words(e.kind, e.reason), "reason": e.reason, "summary": e.summary, "status": e.status,
             "claimed_by": e.claimed_by, "created_at": e.created_at.isoformat(),
             "held": held.for_a_person(session, r.ticket_id),
             **_due_fields(dues.get(r.ticket_id or "", due.NOTHING))} for e, r in ordered]


def _due_fields(found: due.TicketDue) -> dict[str, Any]:
    return {"due": found.line, "due_at": due.aware(found.due_at).isoformat() if found.due_at else None}


def waiting_approvals(session: Session) -> list[dict[str, Any]]:
    """Every gated call that waits for a person, what is due first on top (then priority, then arrival): App
    Home's list and `kitebase drafts`."""
    rows = session.exec(select(Approval, Run).join(Run, col(Run.id) == col(Approval.run_id))
                        .where(col(Approval.status) == ApprovalStatus.PENDING, col(Run.status) == RunStatus.AWAITING_APPROVAL)
                        .order_by(col(Approval.id))).all()
    tickets = [(a.tool_input or {}).get("ticket_id", r.ticket_id) for a, r in rows]
    dues = due.of_tickets(session, tickets, due.now(session))
    names = customer_names(session, tickets)
    found = []
    for (a, r), ticket_id in zip(rows, tickets, strict=True):
        shown = dues.get(ticket_id or "", due.NOTHING)
        found.append(({"approval_id": a.id, "run_id": r.id, "ticket_id": ticket_id,
                       "customer": names.get(ticket_id) if ticket_id else None, "tool": a.tool_name,
                       "message": (a.tool_input or {}).get("message", ""), "created_at": a.created_at,
                       "started_by": r.started_by, "reminded": a.reminded_at is not None, **_due_fields(shown)},
                      shown.order(int(a.id or 0))))
    return [item for item, _ in sorted(found, key=lambda pair: pair[1])]


def latest_runs(session: Session, limit: int = 20) -> list[dict[str, Any]]:
    runs = session.exec(select(Run).order_by(col(Run.id).desc()).limit(limit)).all()
    handoffs: dict[int, Escalation] = {}  # each run's latest hand-off to a person: open, taken, closed, resumed
    ids = [r.id for r in runs]
    for row in session.exec(select(Escalation).where(col(Escalation.run_id).in_(ids)).order_by(col(Escalation.id))):
        handoffs[row.run_id] = row
    return [{"run_id": r.id, "ticket_id": r.ticket_id, "status": r.status, "reason": r.reason, "steps": r.steps,
             "total_tokens": r.total_tokens, "cost_usd": round(r.cost_usd, 6), "goal": r.goal,
             "started_by": r.started_by, "created_at": r.created_at.isoformat(),
             "handoff": _handoff(handoffs.get(int(r.id or 0)))} for r in runs]


def _handoff(row: Escalation | None) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"status": row.status, "by": row.claimed_by, "note": row.note}


def latest_run_for_ticket(session: Session, ticket_id: str) -> Run | None:
    return session.exec(select(Run).where(Run.ticket_id == ticket_id).order_by(col(Run.id).desc())).first()


def customer_name(session: Session, ticket_id: str) -> str:
    ticket = session.get(Ticket, ticket_id)
    customer = session.get(Customer, ticket.customer_id) if ticket else None
    return customer.name if customer else "the customer"


def customer_names(session: Session, ticket_ids: list[str | None]) -> dict[str, str]:
    """customer_name of many tickets in one query ("the customer" for a ticket or customer not stored)."""
    wanted = sorted({t for t in ticket_ids if t})
    rows = session.exec(select(Ticket.id, Customer.name).join(Customer, col(Customer.id) == col(Ticket.customer_id))
                        .where(col(Ticket.id).in_(wanted))).all() if wanted else []
    found = dict(rows)
    return {t: found.get(t) or "the customer" for t in wanted}


def decided_but_waiting(session: Session, *, older_than: Any) -> list[int]:
    """Runs waiting for approval although every draft of their turn is decided, and nobody continues them
    (the process that recorded the decision died before it could dispatch the run)."""
    runs = session.exec(select(Run).where(col(Run.status) == RunStatus.AWAITING_APPROVAL, col(Run.lease_owner).is_(None),
                                          col(Run.updated_at) <= older_than)).all()
    found = []
    for run in runs:
        asked = [b.get("id") for b in (run.messages or [{}])[-1].get("content", []) if b.get("type") == "tool_use"]
        rows = session.exec(select(Approval).where(Approval.run_id == run.id,
                                                   col(Approval.tool_use_id).in_(asked))).all()
        if rows and all(a.status != ApprovalStatus.PENDING for a in rows):
            found.append(id_of(run))
    return found


def desk_counts(session: Session) -> dict[str, int]:
    from sqlmodel import func

    from bot.db.models import HelpSection

    return {name: session.exec(select(func.count()).select_from(model)).one()
            for name, model in (("customers", Customer), ("tickets", Ticket), ("sections", HelpSection))}
