"""The search index of one database, built from its rows and kept in step with them.

Every search first reads the desk's generation (the newest ticket message id and the ticket and
help-section counts: one indexed query). When it moved, the index re-reads what changed: the tickets
that got new messages, or everything after tickets or sections were added or removed. So a reply
written by another process or another worker is searchable on the next query, and the ranking is the
same Python code over the same rows on SQLite and PostgreSQL.
"""

from __future__ import annotations

import functools
import logging
import threading
import weakref
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from bot.db.models import HelpSection, Ticket, TicketMessage
from bot.db.search.analyzer import Analyzer
from bot.db.search.bm25f import Bm25fIndex
from bot.db.search.documents import HELP_FIELDS, TICKET_FIELDS, Document, help_document, ticket_document

logger = logging.getLogger(__name__)

ANALYZER = Analyzer()
_GENERATION = text("SELECT (SELECT max(id) FROM ticket_message), (SELECT count(*) FROM ticket), "
                   "(SELECT count(*) FROM help_section)")


@dataclass
class Corpus:
    """One index plus the documents it was built from (for the lines that matched)."""

    index: Bm25fIndex
    docs: dict[str, Document] = field(default_factory=dict)

    def put(self, doc: Document) -> None:
        fields, words = _analysed(doc.fields)
        self.index.put(doc.key, fields, words)
        self.docs[doc.key] = doc


@functools.lru_cache(maxsize=1024)
def _analysed(fields: tuple[str, ...]) -> tuple[list[list[str]], list[str]]:
    """Terms per field and surface words of a document; remembered, since every process (and every test
    database) indexes mostly the same texts."""
    terms = [ANALYZER.terms(value) for value in fields]
    return terms, [w for value in fields for w in ANALYZER.words(value) if not ANALYZER.is_stop(w)]


class HelpIndex:
    """Help sections: rebuilt whenever their number changes (they are only ever loaded with the desk)."""

    def __init__(self) -> None:
        self.corpus = Corpus(Bm25fIndex(HELP_FIELDS))
        self.lock = threading.RLock()
        self._count = -1

    def refresh(self, session: Session, generation: tuple[int, int, int]) -> None:
        if generation[2] == self._count:
            return
        corpus = Corpus(Bm25fIndex(HELP_FIELDS))
        for section in session.exec(select(HelpSection)).all():
            corpus.put(help_document(section.id, section.heading, section.article_title, section.body))
        self.corpus, self._count = corpus, generation[2]


class TicketIndex:
    """Tickets: re-read the ones with messages newer than the last seen, or all when tickets come or go."""

    def __init__(self) -> None:
        self.corpus = Corpus(Bm25fIndex(TICKET_FIELDS))
        self.lock = threading.RLock()
        self._seen = (0, -1)  # newest message id, number of tickets

    def refresh(self, session: Session, generation: tuple[int, int, int]) -> None:
        newest, count = generation[0], generation[1]
        if (newest, count) == self._seen:
            return
        if count != self._seen[1] or newest < self._seen[0]:
            self.corpus = Corpus(Bm25fIndex(TICKET_FIELDS))
            self._load(session, None)
        else:
            changed = session.exec(select(TicketMessage.ticket_id).where(col(TicketMessage.id) > self._seen[0])
                                   .distinct()).all()
            self._load(session, list(changed))
        logger.debug("ticket index refreshed: %s → %s", self._seen, (newest, count))
        self._seen = (newest, count)

    def _load(self, session: Session, ids: list[str] | None) -> None:
        tickets = select(Ticket)
        messages = select(TicketMessage.ticket_id, TicketMessage.body).order_by(
            col(TicketMessage.created_at), col(TicketMessage.id))
        if ids is not None:
            tickets = tickets.where(col(Ticket.id).in_(ids))
            messages = messages.where(col(TicketMessage.ticket_id).in_(ids))
        bodies: dict[str, list[str]] = {}
        for ticket_id, body in session.exec(messages).all():
            bodies.setdefault(ticket_id, []).append(body)
        for ticket in session.exec(tickets).all():
            self.corpus.put(ticket_document(ticket.id, ticket.title, ticket.tags or [], bodies.get(ticket.id, []),
                                            _timestamp(ticket.updated_at)))


@dataclass
class DeskIndex:
    help: HelpIndex = field(default_factory=HelpIndex)
    tickets: TicketIndex = field(default_factory=TicketIndex)


def _timestamp(value: datetime) -> float:
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()


_indexes: weakref.WeakKeyDictionary[Engine, DeskIndex] = weakref.WeakKeyDictionary()
_registry_lock = threading.Lock()


def _desk(session: Session) -> DeskIndex:
    bind = session.get_bind()
    engine = bind if isinstance(bind, Engine) else bind.engine
    with _registry_lock:
        index = _indexes.get(engine)
        if index is None:
            index = _indexes[engine] = DeskIndex()
    return index


def _generation(session: Session) -> tuple[int, int, int]:
    row = session.execute(_GENERATION).one()
    return row[0] or 0, row[1], row[2]


def help_index(session: Session) -> HelpIndex:
    """The help index of the session's database, up to date with what the session sees. Hold `.lock`
    while using `.corpus`."""
    index = _desk(session).help
    with index.lock:
        index.refresh(session, _generation(session))
    return index


def ticket_index(session: Session) -> TicketIndex:
    """The ticket index of the session's database, up to date with what the session sees. Hold `.lock`
    while using `.corpus`."""
    index = _desk(session).tickets
    with index.lock:
        index.refresh(session, _generation(session))
    return index
