"""Keeping the stored analysis in step with the desk's rows.

Writers that change a ticket store its analysis in their own transaction (`index_ticket`, `index_tickets`: the
reply and update tools, the Zendesk mirror, `kitebase desk add`). Database triggers (migration 0019) put every
changed ticket and help section in `search_pending` whoever writes, and storing a document takes it out again;
so what a writer left unanalysed (a seed, a bulk load, a script, a help center sync) waits there, and the next
search of any process stores it first (`catch_up`), a batch at a time. A process never compares the desk with
anything it holds: a reply written by another worker is searchable on the next query.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Session

from bot.search import persist, vectors
from bot.search.documents import HELP_FIELDS, TICKET_FIELDS
from bot.search.rows import documents
from bot.search.terms import Vocabulary

logger = logging.getLogger(__name__)

FIELDS = {"help": len(HELP_FIELDS), "ticket": len(TICKET_FIELDS)}
BATCH = 200  # documents stored in one transaction by a search
MOST = 5000  # documents a search stores before it answers; past that (a bulk load) it answers over what is stored
CHUNK = 500
PROGRESS = 20_000  # drain says how far it got every this many documents
DRAIN_BATCH = 2000  # ... storing this many in one transaction

_vocabularies: weakref.WeakKeyDictionary[Engine, Vocabulary] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def engine_of(session: Session) -> Engine:
    bind = session.get_bind()
    return bind if isinstance(bind, Engine) else bind.engine


def vocabulary(session: Session) -> Vocabulary:
    """The term numbers this process remembers for the session's database."""
    engine = engine_of(session)
    with _lock:
        found = _vocabularies.get(engine)
        if found is None:
            found = _vocabularies[engine] = Vocabulary()
    return found


def index_ticket(session: Session, ticket_id: str) -> None:
    """Store the analysis of a ticket the session just changed (in its transaction), so no reader has to."""
    index_tickets(session, [ticket_id])


def index_tickets(session: Session, ticket_ids: list[str]) -> None:
    """`index_ticket` for many tickets at once (a mirror's page of a thousand): one analysis pass, one store."""
    store_rows(session, "ticket", sorted(set(ticket_ids)))


def store_rows(session: Session, kind: str, keys: list[str]) -> None:
    """Store the analysis of `keys` as their rows are in `session` now; forget those whose rows are gone."""
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start:start + CHUNK]
        found = documents(session, kind, chunk)
        persist.store(session, vocabulary(session), kind, [found[key] for key in chunk if key in found],
                      FIELDS[kind])
        persist.remove(session, kind, [key for key in chunk if key not in found], FIELDS[kind])


_CLAIM = {  # take up to :n pending documents, waiting for those another process is storing right now
    "postgresql": text("DELETE FROM search_pending WHERE (kind, key) IN (SELECT kind, key FROM search_pending "
                       "ORDER BY kind, key LIMIT :n FOR UPDATE) RETURNING kind, key"),
    "sqlite": text("DELETE FROM search_pending WHERE rowid IN (SELECT rowid FROM search_pending ORDER BY kind, key "
                   "LIMIT :n) RETURNING kind, key"),
}
_ANY = text("SELECT 1 FROM search_pending LIMIT 1")


_PEEK = text("SELECT kind, key FROM search_pending ORDER BY kind, key LIMIT :n")


def catch_up(session: Session, batch: int = BATCH, *, most: int = MOST, warn: bool = True) -> int:
    """Store what writers left pending, `batch` documents a transaction, up to `most` (a search answers over the
    whole desk: it waits for what another process is storing right now too); how many this process stored. Each
    batch in a transaction of its own, committed before the search reads, unless the session has written already:
    then in the session's own transaction (a second writer would wait for the first, which waits for the search).

    The vectors of what is pending are computed before that transaction writes (`_embed_ahead`): on SQLite the
    first write takes the database's one write lock until commit, and embedding a desk inside it on a slow
    machine held it past every other process's busy timeout ("database is locked")."""
    engine = engine_of(session)
    total = 0
    while total < most and session.execute(_ANY).first() is not None:
        if has_written(session):
            taken = _store_claimed(session, engine, min(batch, most - total))
        else:
            with Session(engine) as reader:
                _embed_ahead(reader, min(batch, most - total))
            with Session(engine) as writer:
                taken = _store_claimed(writer, engine, min(batch, most - total))
                writer.commit()
                for hook in writer.info.pop("after_commit", ()):
                    hook()
        total += taken
    if warn and total >= most:
        left = session.execute(text("SELECT count(*) FROM search_pending")).scalar() or 0
        if left:
            logger.warning("search: %d documents wait to be analysed; each search stores %d of them until they are "
                           "done, and finds only what is stored (`kitebase db upgrade` stores them all at once)",
                           left, most)
    return total


def _embed_ahead(session: Session, batch: int) -> None:
    """Embed the documents the next claim will take, reading only: the embedder remembers the last few thousand
    texts (vectors.REMEMBERED), so storing them in the write transaction finds their vectors computed. A document
    another process claims first, or that changes in between, costs a vector computed for nothing, or again."""
    by_kind: dict[str, list[str]] = {}
    for kind, key in session.execute(_PEEK, {"n": min(batch, vectors.REMEMBERED)}).all():
        by_kind.setdefault(kind, []).append(key)
    for kind, keys in sorted(by_kind.items()):
        if kind in FIELDS:
            found = documents(session, kind, keys)
            persist.embed([doc for doc, _ in found.values()])


def _store_claimed(session: Session, engine: Engine, batch: int) -> int:
    claimed = session.execute(_CLAIM[engine.dialect.name], {"n": batch}).all()  # a write: SQLite's lock first
    by_kind: dict[str, list[str]] = {}
    for kind, key in claimed:
        by_kind.setdefault(kind, []).append(key)
    for kind, keys in sorted(by_kind.items()):
        if kind in FIELDS:
            store_rows(session, kind, sorted(keys))
    return len(claimed)


def has_written(session: Session) -> bool:
    """Whether the session's transaction has written anything yet (it then holds locks until it ends)."""
    if not session.in_transaction():
        return False
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        return connection.execute(text("SELECT pg_current_xact_id_if_assigned() IS NOT NULL")).scalar() is True
    raw = connection.connection.dbapi_connection
    return bool(getattr(raw, "in_transaction", False))  # pysqlite begins a transaction at the first write


def drain(engine: Engine, batch: int | None = None) -> int:
    """Store everything pending (start-up, `kitebase db upgrade`); how many documents were stored. On a big desk
    it says how far it got every PROGRESS documents (a warning, so the CLI shows it)."""
    batch = batch or DRAIN_BATCH
    total = 0
    started = time.monotonic()
    with Session(engine) as session:
        waiting = session.execute(text("SELECT count(*) FROM search_pending")).scalar() or 0
        if waiting >= PROGRESS:
            logger.warning("search: %d documents to analyse and store in the search's index", waiting)
        while True:
            taken = catch_up(session, batch, most=batch, warn=False)
            total += taken
            if taken and total // PROGRESS != (total - taken) // PROGRESS:
                logger.warning("search: %d of %d documents analysed and stored (%.0f s)", total, max(total, waiting),
                               time.monotonic() - started)
            if taken == 0:
                return total
