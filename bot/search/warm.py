"""Loading what a process's first searches need while it waits on something else.

The first search of a process loads the analyzer's tables and the synonyms, and stores what writers left
unanalysed (catch_up.py: on a freshly seeded desk, all of it, with the vector model loaded to do so: 170–310 ms
on the 117-ticket desk); every later search costs a few ms. A `kitebase run` would pay that between two model
calls, so it starts the warm-up in the background as its first model call goes out (the call takes hundreds of
ms); `serve` and `worker` warm up at start-up, beside their other work, before they say they are ready. A
search that comes while the warm-up stores documents takes what is left (another batch, or nothing).
"""

from __future__ import annotations

import logging
import threading
import time
import weakref

from sqlalchemy.engine import Engine
from sqlmodel import col, select

from bot.db.engine import Database
from bot.db.models import Ticket
from bot.search.catch_up import drain
from bot.search.ranking import search_help, search_tickets, similar_tickets
from bot.search.words import EmptyQuery

logger = logging.getLogger(__name__)

_started: weakref.WeakSet[Engine] = weakref.WeakSet()
_lock = threading.Lock()
QUERY = "cannot sign in after the sso change"  # any words: what matters is that every stage runs once


def warm_up(db: Database) -> float:
    """Store everything pending and run one search of each kind; the seconds it took."""
    started = time.perf_counter()
    drain(db.engine)
    with db.session() as session:
        try:
            search_help(session, QUERY, limit=1)
            search_tickets(session, QUERY, limit=1)
            some = session.exec(select(col(Ticket.id)).limit(1)).first()
            if some is not None:
                similar_tickets(session, some, limit=1)
        except EmptyQuery:  # an empty desk: nothing to load
            pass
    took = time.perf_counter() - started
    logger.info("search ready in %.0f ms", took * 1000)
    return took


class Warming(threading.Thread):
    """The warm-up's thread; `took` is the seconds the load took (None until it is done, or if it failed)."""

    def __init__(self, db: Database, after: float):
        super().__init__(name="search-warm-up", daemon=True)
        self.db, self.after = db, after
        self.took: float | None = None

    def run(self) -> None:
        time.sleep(self.after)
        try:
            self.took = warm_up(self.db)
        except Exception:  # the first real search will load it, and say what is wrong
            logger.warning("warming up the search failed", exc_info=True)


def warm_up_in_background(db: Database, after: float = 0.0) -> Warming | None:
    """`warm_up` on a daemon thread, once per database per process (None when it was started already), `after`
    seconds from now. Analysing documents holds the interpreter for long stretches, so a process that has a
    request to send first lets it go out before the warm-up starts."""
    with _lock:
        if db.engine in _started:
            return None
        _started.add(db.engine)
    thread = Warming(db, after)
    thread.start()
    return thread
