"""The search index of one database, loaded from the stored analysis of its rows and kept in step with them.

Every search first reads the desk's generation: the newest ticket message id, and the versions the
database's triggers bump when tickets are added or removed and when help sections change (desk_change; one
query of primary-key reads). When it moved, the index takes in what changed: the tickets that got new
messages, the tickets added or removed, or all help sections when they changed. A document
is read from `search_document` (persist.py); when its row is missing or older than the ticket's newest
message, the rows are analysed here and the result is stored for every later process. So a reply written
by another process or another worker is searchable on the next query, the ranking is the same code over
the same rows on SQLite and PostgreSQL, and a process starting on a big desk loads arrays instead of
analysing a hundred thousand tickets.
"""

from __future__ import annotations

import logging
import threading
import weakref
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import bindparam, text
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from bot import heap
from bot.db.models import HelpSection, Ticket, TicketMessage
from bot.search import persist
from bot.search.documents import HELP_FIELDS, TICKET_FIELDS, Document, help_document, ticket_document
from bot.search.packed import PackedIndex
from bot.search.persist import ANALYZER, Stored, Vocabulary

logger = logging.getLogger(__name__)

__all__ = ["ANALYZER", "KindIndex", "documents", "help_index", "highlight_texts", "index_ticket", "index_tickets",
           "ticket_index"]

# The desk's generation in one round trip of primary-key reads: the newest ticket message, and the versions the
# database's triggers bump when tickets are added or removed and when help sections change (table desk_change).
_GENERATION = text("SELECT (SELECT max(id) FROM ticket_message), "
                   "(SELECT version FROM desk_change WHERE kind = 'ticket'), "
                   "(SELECT version FROM desk_change WHERE kind = 'help')")
_TICKET_SOURCES = text("SELECT t.id, COALESCE(MAX(m.id), 0) FROM ticket t LEFT JOIN ticket_message m "
                       "ON m.ticket_id = t.id GROUP BY t.id")
_CHANGED_SINCE = text("SELECT ticket_id, MAX(id) FROM ticket_message WHERE ticket_id IN "
                      "(SELECT DISTINCT ticket_id FROM ticket_message WHERE id > :seen) GROUP BY ticket_id")
CHUNK = 500
FREEZE_FROM = 20_000  # documents: an index this big is kept out of the garbage collector's full passes


def _settled(packed: PackedIndex) -> None:
    """A freshly loaded index is long-lived, and so is what the process imported before its first search: a
    full garbage collection walking them stalls whichever search is unlucky (55–80 ms on the desk, about 50 ms
    more with a hundred thousand tickets; the p99 was that pause). They move out of the collector's way
    (bot/heap.py) at the process's first load, and again whenever a big index is loaded."""
    if len(packed) >= FREEZE_FROM:
        heap.settle(f"loading {len(packed)} search documents")
    else:
        heap.settle_once("the first search index")


class KindIndex:
    """One kind of document (help sections or tickets) of one database. Hold `.lock` while using `.packed`."""

    def __init__(self, kind: str, fields: tuple[str, ...], vocabulary: Vocabulary):
        self.kind, self.fields, self.vocabulary = kind, fields, vocabulary
        self.packed = PackedIndex(fields, vocabulary)
        self.lock = threading.RLock()

    def current(self, session: Session, expected: dict[str, int]) -> list[Stored]:
        """The stored analysis of each document in `expected` (key -> source version), analysing and
        storing those whose row is missing or stale."""
        keys = list(expected)
        stored = {d.key: d for d in persist.read(session, self.kind, None if len(keys) > CHUNK else keys,
                                                 len(self.fields))}
        stale = [key for key in keys if key not in stored or stored[key].source != expected[key]
                 or (self.kind == "ticket" and stored[key].vector is None)]  # (stored before vectors were)
        if stale:
            logger.info("search: analysing %d %s document(s) not stored yet", len(stale), self.kind)
            docs = documents(session, self.kind, stale)
            fresh = persist.store_now(_engine(session), self.vocabulary, self.kind,
                                      [(docs[key], expected[key]) for key in stale if key in docs],
                                      len(self.fields))
            stored.update((d.key, d) for d in fresh)
        found = [stored[key] for key in keys if key in stored]
        self.vocabulary.names_for(session, self.vocabulary.unknown([a for d in found for a in (d.terms, d.words)]))
        return found


class HelpIndex(KindIndex):
    """Help sections: loaded again whenever they change (they are only ever loaded with the desk)."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        super().__init__("help", HELP_FIELDS, vocabulary)
        self._version = -1

    def refresh(self, session: Session, generation: tuple[int, int, int]) -> None:
        if generation[2] == self._version:
            return
        keys = [row[0] for row in session.execute(text("SELECT id FROM help_section"))]
        if self._version < 0:
            self.vocabulary.load_all(session)
        self.packed.load(self.current(session, dict.fromkeys(keys, 0)))
        _settled(self.packed)
        self._version = generation[2]


class TicketIndex(KindIndex):
    """Tickets: the ones with messages newer than the last seen, the added and the removed ones."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        super().__init__("ticket", TICKET_FIELDS, vocabulary)
        self._seen = (0, -1)  # newest message id, the tickets' version

    def refresh(self, session: Session, generation: tuple[int, int, int]) -> None:
        newest, version = generation[0], generation[1]
        if (newest, version) == self._seen:
            return
        if self._seen[1] < 0 or newest < self._seen[0]:
            self.vocabulary.load_all(session)
            sources = {key: int(source) for key, source in session.execute(_TICKET_SOURCES)}
            self.packed.load(self.current(session, sources))
            _settled(self.packed)
        else:
            changed = {key: int(source) for key, source in session.execute(_CHANGED_SINCE, {"seen": self._seen[0]})}
            if version != self._seen[1]:  # tickets were added or removed
                keys = {row[0] for row in session.execute(text("SELECT id FROM ticket"))}
                for gone in set(self.packed.slot_of) - keys:
                    self.packed.remove(gone)
                changed.update(dict.fromkeys(keys - set(self.packed.slot_of) - changed.keys(), 0))
            for doc in self.current(session, changed):
                self.packed.put(doc)
        logger.debug("ticket index refreshed: %s → %s", self._seen, (newest, version))
        self._seen = (newest, version)


@dataclass
class DeskIndex:
    vocabulary: Vocabulary = field(default_factory=Vocabulary)
    help: HelpIndex = field(init=False)
    tickets: TicketIndex = field(init=False)

    def __post_init__(self) -> None:
        self.help, self.tickets = HelpIndex(self.vocabulary), TicketIndex(self.vocabulary)

    def generation(self, session: Session) -> tuple[int, int, int]:
        """The newest ticket message id, the tickets' version and the help center's version."""
        newest, tickets, sections = session.execute(_GENERATION).one()
        return int(newest or 0), int(tickets or 0), int(sections or 0)


_indexes: weakref.WeakKeyDictionary[Engine, DeskIndex] = weakref.WeakKeyDictionary()
_registry_lock = threading.Lock()


def _engine(session: Session) -> Engine:
    bind = session.get_bind()
    return bind if isinstance(bind, Engine) else bind.engine


def _desk(session: Session) -> DeskIndex:
    engine = _engine(session)
    with _registry_lock:
        index = _indexes.get(engine)
        if index is None:
            index = _indexes[engine] = DeskIndex()
    return index


def help_index(session: Session) -> HelpIndex:
    """The help index of the session's database, up to date with what the session sees."""
    desk = _desk(session)
    with desk.help.lock:
        desk.help.refresh(session, desk.generation(session))
    return desk.help


def ticket_index(session: Session) -> TicketIndex:
    """The ticket index of the session's database, up to date with what the session sees."""
    desk = _desk(session)
    with desk.tickets.lock:
        desk.tickets.refresh(session, desk.generation(session))
    return desk.tickets


def index_ticket(session: Session, ticket_id: str) -> None:
    """Store the analysis of a ticket the session just changed (in its transaction), so no reader has to."""
    index_tickets(session, [ticket_id])


def index_tickets(session: Session, ticket_ids: list[str]) -> None:
    """`index_ticket` for many tickets at once (a mirror's page of a thousand): one analysis pass, one store."""
    for start in range(0, len(ticket_ids), CHUNK):
        chunk = ticket_ids[start:start + CHUNK]
        sources = dict(session.execute(text("SELECT ticket_id, MAX(id) FROM ticket_message WHERE ticket_id IN "
                                            ":ids GROUP BY ticket_id").bindparams(bindparam("ids", expanding=True)),
                                       {"ids": chunk}).all())
        docs = documents(session, "ticket", chunk)
        persist.store(session, _desk(session).vocabulary, "ticket",
                      [(docs[key], int(sources.get(key) or 0)) for key in chunk if key in docs], len(TICKET_FIELDS))


# --- the rows behind documents ------------------------------------------------------------------------

def documents(session: Session, kind: str, keys: list[str]) -> dict[str, Document]:
    """The documents of `keys` built from their rows (texts for analysis and for the lines that matched)."""
    found: dict[str, Document] = {}
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start:start + CHUNK]
        if kind == "help":
            for section in session.exec(select(HelpSection).where(col(HelpSection.id).in_(chunk))).all():
                found[section.id] = help_document(section.id, section.heading, section.article_title, section.body)
            continue
        bodies: dict[str, list[str]] = {}
        for ticket_id, body in session.exec(select(TicketMessage.ticket_id, TicketMessage.body)
                                            .where(col(TicketMessage.ticket_id).in_(chunk))
                                            .order_by(col(TicketMessage.created_at), col(TicketMessage.id))).all():
            bodies.setdefault(ticket_id, []).append(body)
        for ticket in session.exec(select(Ticket).where(col(Ticket.id).in_(chunk))).all():
            found[ticket.id] = ticket_document(ticket.id, ticket.title, ticket.tags or [], bodies.get(ticket.id, []),
                                               _timestamp(ticket.updated_at))
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


_SECTION_BODIES = (select(col(HelpSection.id), col(HelpSection.body))
                   .where(col(HelpSection.id).in_(bindparam("keys", expanding=True))))
_MESSAGE_BODIES = (select(col(TicketMessage.ticket_id), col(TicketMessage.body))
                   .where(col(TicketMessage.ticket_id).in_(bindparam("keys", expanding=True)))
                   .order_by(col(TicketMessage.created_at), col(TicketMessage.id)))


def _timestamp(value: datetime) -> float:
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()
