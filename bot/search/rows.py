"""The desk's rows behind the search's documents: what a help section or ticket is made of when it is analysed,
and the texts whose lines are shown as matched."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import bindparam, text
from sqlmodel import Session, col, select

from bot.db.models import HelpSection, Ticket, TicketMessage
from bot.search.documents import Document, help_document, ticket_document

CHUNK = 500
_SOURCES = text("SELECT ticket_id, MAX(id) FROM ticket_message WHERE ticket_id IN :ids GROUP BY ticket_id"
                ).bindparams(bindparam("ids", expanding=True))


def documents(session: Session, kind: str, keys: list[str]) -> dict[str, tuple[Document, int]]:
    """The documents of `keys` built from their rows, each with its source version (a ticket's newest message
    id; 0 for a help section). A key whose row is gone is left out."""
    found: dict[str, tuple[Document, int]] = {}
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start:start + CHUNK]
        if kind == "help":
            for section in session.exec(select(HelpSection).where(col(HelpSection.id).in_(chunk))).all():
                found[section.id] = (help_document(section.id, section.heading, section.article_title,
                                                   section.body), 0)
            continue
        bodies: dict[str, list[str]] = {}
        for ticket_id, body in session.exec(select(TicketMessage.ticket_id, TicketMessage.body)
                                            .where(col(TicketMessage.ticket_id).in_(chunk))
                                            .order_by(col(TicketMessage.created_at), col(TicketMessage.id))).all():
            bodies.setdefault(ticket_id, []).append(body)
        sources = {key: int(source or 0) for key, source in session.execute(_SOURCES, {"ids": chunk})}
        for key, title, tags, updated_at in session.exec(  # the columns the search reads, not the whole row
                select(Ticket.id, Ticket.title, Ticket.tags, Ticket.updated_at).where(col(Ticket.id).in_(chunk))).all():
            found[key] = (ticket_document(key, title, list(tags or []), bodies.get(key, []), _timestamp(updated_at)),
                          sources.get(key, 0))
    return found


def highlight_texts(session: Session, kind: str, keys: list[str]) -> dict[str, tuple[str, ...]]:
    """The texts whose lines are shown as matched: a section's body; a ticket's first message and the rest
    (as `documents` builds those fields), read in one query."""
    if not keys:
        return {}
    connection = session.connection()  # plain rows, no ORM on the way (every search reads these)
    if kind == "help":
        return {key: (body,) for key, body in connection.execute(_SECTION_BODIES, {"keys": keys})}
    bodies: dict[str, list[str]] = {}
    for ticket_id, body in connection.execute(_MESSAGE_BODIES, {"keys": keys}):
        bodies.setdefault(ticket_id, []).append(body)
    return {key: (messages[0], "\n".join(messages[1:])) if messages else ("", "") for key, messages in bodies.items()}


def statuses(session: Session, keys: list[str]) -> dict[str, str]:
    """Tickets' status now (read from the rows, never from the search's documents)."""
    if not keys:
        return {}
    return dict(session.exec(select(Ticket.id, Ticket.status).where(col(Ticket.id).in_(keys))).all())


_SECTION_BODIES = (select(col(HelpSection.id), col(HelpSection.body))
                   .where(col(HelpSection.id).in_(bindparam("keys", expanding=True))))
_MESSAGE_BODIES = (select(col(TicketMessage.ticket_id), col(TicketMessage.body))
                   .where(col(TicketMessage.ticket_id).in_(bindparam("keys", expanding=True)))
                   .order_by(col(TicketMessage.created_at), col(TicketMessage.id)))


def _timestamp(value: datetime) -> float:
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()
