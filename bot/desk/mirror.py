"""Reads over our own tables, shared by every desk: the embedded desk *is* these tables; a Zendesk desk mirrors
its tickets, customers and help sections into them so our search (bot/search) ranks them."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Executable, and_, bindparam, exists, or_
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from bot import search
from bot.db import clock
from bot.db.engine import Database
from bot.db.models import Customer as CustomerRow
from bot.db.models import DeskWrite, HelpSection, Ticket, TicketMessage
from bot.desk import sla
from bot.desk.base import Attachment, Customer, DeskError, Message, NoSuchTicket, Section, TicketView


def when(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M UTC")


def customer_of(row: CustomerRow | None) -> Customer | None:
    if row is None:
        return None
    return Customer(id=row.id, name=row.name, plan=row.plan, seats=row.seats, contact_name=row.contact_name,
                    contact_email=row.contact_email, sso_provider=row.sso_provider, tier=row.tier)


def mirrored_ticket(session: Session, ticket_id: str, *, link: str | None = None,
                    example: str = "KITE-142") -> TicketView:
    ticket = session.get(Ticket, ticket_id)
    if ticket is None:
        raise no_such_ticket(ticket_id, example)
    customer = session.get(CustomerRow, ticket.customer_id)
    messages = session.exec(select(TicketMessage).where(TicketMessage.ticket_id == ticket.id)
                            .order_by(col(TicketMessage.created_at), col(TicketMessage.id))).all()
    return TicketView(
        id=ticket.id, title=ticket.title, status=ticket.status, priority=ticket.priority, assignee=ticket.assignee,
        tags=list(ticket.tags or []), created_at=ticket.created_at, updated_at=ticket.updated_at,
        customer=customer_of(customer), link=link, due=sla.Due.from_json(ticket.sla),
        conversation=[Message(author=m.author, role=m.role, at=m.created_at, body=m.body,
                              attachments=attachments_of(m.attachments)) for m in messages])


def attachments_of(stored: list[dict[str, Any]] | None) -> tuple[Attachment, ...]:
    """A message's attachments as the mirror stores them (ticket_message.attachments)."""
    return tuple(Attachment(name=str(a.get("name") or "?"), content_type=a.get("content_type"), size=a.get("size"),
                            url=a.get("url"), inline=bool(a.get("inline"))) for a in stored or [])


def no_such_ticket(ticket_id: str, example: str = "KITE-142") -> NoSuchTicket:
    return NoSuchTicket(f"No ticket {ticket_id!r}. Ids look like {example}; use search_tickets to find a ticket by "
                        "its words.")


def search_help(db: Database, query: str, limit: int) -> list[tuple[Section, search.Hit]]:
    """The best sections for `query`, with what the search matched."""
    with db.session() as session:
        try:
            found = search.search_help(session, query, limit=limit)
        except search.EmptyQuery:
            raise DeskError("The query has no searchable words. Use a few plain keywords, e.g. 'locked out sso'.") \
                from None
        rows = {row.id: row for row in session.exec(
            select(HelpSection).where(col(HelpSection.id).in_([hit.id for hit in found]))).all()}
        return [(Section(id=row.id, heading=row.heading, article_title=row.article_title, body=row.body,
                         internal=row.internal), hit)
                for hit in found if (row := rows.get(hit.id)) is not None]


def search_tickets(db: Database, query: str, *, limit: int, status: str | None, exclude: str | None,
                   like: str | None, example: str = "KITE-142") -> list[dict[str, Any]]:
    """Tickets matching `query`, or like the ticket `like`: each as the model sees it."""
    with db.session() as session:
        try:
            if like:
                found = [h for h in search.similar_tickets(session, like, limit=limit + 1, status=status, query=query,
                                                           look=True) if h.id != exclude]
                likely = [h for h in found if h.likely]
                # those only worth a look rank below every likely one: none is shown when a likely one is left out
                worth = [h for h in found if not h.likely] if len(likely) <= limit else []
                return _ticket_hits(session, likely[:limit] + worth, like=True)
            else:
                found = search.search_tickets(session, query, limit=limit, status=status, exclude=exclude)
        except search.EmptyQuery:
            raise DeskError("The query has no searchable words. Use a few plain keywords, e.g. 'sso login'.") from None
        except search.UnknownTicket:  # the index holds every ticket of the mirror as of this search
            raise no_such_ticket(like or "", example) from None
        return _ticket_hits(session, found)


# What a like-ticket hit carries of the staff's latest word at most (the tool cuts it further to its budget).
STAFF_CHARS = 400


def _ticket_hits(session: Session, found: list[search.Hit], *, like: bool = False) -> list[dict[str, Any]]:
    ids = [hit.id for hit in found]
    if not ids:
        return []
    # plain columns on the connection (no ORM objects): a search's rows cost a fraction of a millisecond
    rows = {row.id: row for row in session.connection().execute(_HIT_ROWS, {"ids": ids})}
    if like:
        return _like_hits(session, found, rows)
    return [{
        "id": row.id, "title": row.title, "customer": row.customer, "customer_id": row.customer_id,
        "status": row.status, "priority": row.priority, "assignee": row.assignee, "tags": row.tags or [],
        "updated_at": when(row.updated_at), "matched": hit.matched, "score": round(hit.score, 3),
    } for hit in found if (row := rows.get(hit.id)) is not None]


def _like_hits(session: Session, found: list[search.Hit], rows: dict[str, Any]) -> list[dict[str, Any]]:
    """Hits like a ticket, each with its tier and what tells a cause from a symptom: how old it is, and the
    staff's latest word on it (a public reply or an internal note, which often names the cause)."""
    now = clock.read_now(session)
    staff: dict[str, Any] = {}
    for message in session.connection().execute(_STAFF_LATEST, {"ids": [hit.id for hit in found]}):
        staff.setdefault(message.ticket_id, message)  # newest first
    hits = []
    for hit in found:
        row = rows.get(hit.id)
        if row is None:
            continue
        latest = staff.get(hit.id)
        hits.append({
            "id": row.id, "tier": "likely" if hit.likely else "worth_a_look", "title": row.title,
            "customer": row.customer, "status": row.status, "assignee": row.assignee, "tags": row.tags or [],
            "opened": _ago(now, row.created_at), "matched": hit.matched,
            "staff_latest": f"{'reply' if latest.role == 'staff' else 'internal note'} "
                            f"{_ago(now, latest.created_at)}: {cut(_GREETING.sub('', latest.body.strip()), STAFF_CHARS)}"
            if latest is not None else None,
            "score": round(hit.score, 3),
        })
    return hits


# "Hi Mei Lin, " at the start of a staff reply: room the cause can use
_GREETING = re.compile(r"^(?i:hi|hello|hey|dear)(?:\s+[A-Z][\w'.-]*){0,3},\s+(?=\S)")


def _ago(now: datetime, then: datetime) -> str:
    seconds = (now - (then if then.tzinfo else then.replace(tzinfo=UTC))).total_seconds()
    return "just now" if seconds < 60 else f"{sla.span(seconds)} ago"


def cut(text: str, width: int) -> str:
    """`text` on one line, at most `width` characters, cut at a word where one is near."""
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:max(0, width)]
    cut = text[: width - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > width // 2 else cut).rstrip(" ,;:") + "…"


_HIT_ROWS: Executable = (
    sa_select(col(Ticket.id), col(Ticket.title), col(CustomerRow.name).label("customer"), col(Ticket.customer_id),
              col(Ticket.status), col(Ticket.priority), col(Ticket.assignee), col(Ticket.tags), col(Ticket.updated_at),
              col(Ticket.created_at))
    .join(CustomerRow, col(CustomerRow.id) == col(Ticket.customer_id))
    .where(col(Ticket.id).in_(bindparam("ids", expanding=True))))
_STAFF_LATEST: Executable = (
    sa_select(col(TicketMessage.ticket_id), col(TicketMessage.role), col(TicketMessage.body),
              col(TicketMessage.created_at))
    .where(col(TicketMessage.ticket_id).in_(bindparam("ids", expanding=True)),
           col(TicketMessage.role).in_(("staff", "internal")),
           # not the agent's own bookkeeping ("Agent replied citing …"): a person's note, or a reply that went out.
           # The embedded desk marks what a run wrote (run_id); a real desk's mirror knows it by the write we sent.
           or_(col(TicketMessage.role) == "staff",
               and_(col(TicketMessage.run_id).is_(None),
                    ~exists().where(col(DeskWrite.ticket_id) == col(TicketMessage.ticket_id),
                                    col(DeskWrite.body) == col(TicketMessage.body),
                                    col(DeskWrite.run_id).is_not(None), col(DeskWrite.public).is_(False)))))
    .order_by(col(TicketMessage.created_at).desc(), col(TicketMessage.id).desc()))
