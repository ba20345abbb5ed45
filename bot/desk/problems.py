"""A problem ticket and its incidents, read from our own tables (the embedded desk's, or the Zendesk mirror):
one fix for many. An incident names its problem in `ticket.problem_id`; a problem is a ticket of type
`problem` (or, on a mirror a person changed meanwhile, one that still has incidents)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from bot.db.models import Customer as CustomerRow
from bot.db.models import Ticket
from bot.desk.base import DeskError, TicketLink
from bot.desk.mirror import no_such_ticket, when


@dataclass(frozen=True)
class LinkPlan:
    """What linking changes: the problem's type, and each incident's type and problem (in the order asked)."""
    problem: Ticket
    incidents: list[Ticket]


def links_of(session: Session, ticket_id: str, problem_id: str | None) -> tuple[TicketLink | None,
                                                                                tuple[TicketLink, ...]]:
    """(the problem of `ticket_id`, its incidents) as the tables hold them."""
    problem = None
    if problem_id:
        row = session.get(Ticket, problem_id)
        problem = _link(session, row) if row is not None else TicketLink(problem_id, "(not in the mirror yet)",
                                                                          None, None)
    return problem, tuple(_link(session, row) for row in _incident_rows(session, ticket_id))


def incidents_of(session: Session, problem_id: str, example: str) -> list[dict[str, Any]]:
    """The incidents of `problem_id`, each as search_tickets shows a ticket; a sentence if it is not a problem."""
    problem = session.get(Ticket, problem_id)
    if problem is None:
        raise no_such_ticket(problem_id, example)
    rows = _incident_rows(session, problem_id)
    if not rows and problem.type != "problem":
        hint = (f" It is an incident of {problem.problem_id}: list that ticket's incidents instead."
                if problem.problem_id else " Use like_ticket_id to find tickets with the same problem instead.")
        raise DeskError(f"Ticket {problem_id} is not a problem ticket, so it has no incidents.{hint}")
    names = _customer_names(session, rows)
    return [{"id": row.id, "title": row.title, "customer": names.get(row.customer_id), "customer_id": row.customer_id,
             "status": row.status, "priority": row.priority, "assignee": row.assignee,
             "updated_at": when(row.updated_at)} for row in rows]


def plan_link(session: Session, problem_id: str, incident_ids: list[str], example: str) -> LinkPlan:
    """Check a link before anything is written: every ticket exists, the problem is not an incident itself, no
    incident is the problem or a problem with incidents of its own. A DeskError says what to do instead."""
    wanted = list(dict.fromkeys(incident_ids))
    if not wanted:
        raise DeskError("Name at least one incident ticket to link to the problem.")
    if problem_id in wanted:
        raise DeskError(f"Ticket {problem_id} cannot be an incident of itself: leave it out of the incidents.")
    problem = session.get(Ticket, problem_id)
    if problem is None:
        raise no_such_ticket(problem_id, example)
    if problem.type == "incident" and problem.problem_id:
        raise DeskError(f"Ticket {problem_id} is itself an incident of {problem.problem_id}: link the tickets to "
                        f"{problem.problem_id} instead.")
    incidents = []
    for ticket_id in wanted:
        row = session.get(Ticket, ticket_id)
        if row is None:
            raise no_such_ticket(ticket_id, example)
        own = len(_incident_rows(session, ticket_id))
        if own:
            raise DeskError(f"Ticket {ticket_id} is a problem with {own} incident(s) of its own, and a problem "
                            f"cannot be an incident. Leave it out, or link {problem_id} to it instead.")
        incidents.append(row)
    return LinkPlan(problem, incidents)


def _incident_rows(session: Session, problem_id: str) -> list[Ticket]:
    return list(session.exec(select(Ticket).where(col(Ticket.problem_id) == problem_id)
                             .order_by(func.length(Ticket.id), col(Ticket.id))).all())


def _customer_names(session: Session, rows: list[Ticket]) -> dict[str, str]:
    ids = sorted({row.customer_id for row in rows})
    if not ids:
        return {}
    return {c.id: c.name for c in session.exec(select(CustomerRow).where(col(CustomerRow.id).in_(ids))).all()}


def _link(session: Session, row: Ticket) -> TicketLink:
    customer = session.get(CustomerRow, row.customer_id)
    return TicketLink(row.id, row.title, customer.name if customer else None, row.status)
