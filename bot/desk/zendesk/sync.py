"""Keep the mirror in step with Zendesk: the Incremental Ticket Export (cursor-based) for tickets, their
comments per ticket, requesters and organizations sideloaded (and whoever the side-loads left out looked up, see
people.py), and the Help Center's published articles.

The export's cursor is stored in the same transaction as the page it led to, so a sync killed at any point
resumes at the first page it had not finished, and fetches no finished page again. That write is conditional on
the cursor the page was read from (and on the caller's fence, the sync's lock: bot/runs/execution/desk_work.py),
so a pass that another overtook writes nothing and the stored cursor never moves back. The export leaves out the
last minute's changes (Zendesk's rule), so a poll alone is always at least a minute behind: webhooks
(`POST /zendesk/webhook`) fetch the tickets they name at once, through `refresh_tickets`.

What is due on each ticket is Zendesk's (its `slas` side-load, bot/desk/sla.py): the export's documented
side-loads do not include `slas`, so each page's changed tickets that are not closed are read again with
`GET /api/v2/tickets/show_many.json?ids=…&include=slas`, a hundred a request, and their `slas` is mirrored with
the page; a webhook's ticket comes with its `slas` (`include=slas` on the ticket's read). A customer's tier comes
from their organization's field (`tiers`, tiers.py), mirrored with the tickets.

Neither a Help Center that cannot be read (an account without one answers 404; a user without a Guide role, 403)
nor a ticket deleted between the export and the read of its comments stops the tickets: the first is a sentence
in `kitebase desk status`, the second leaves the mirror and the page goes on."""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col

from bot import search
from bot.db.engine import Database
from bot.db.models import DeskSync, HelpSection, table_of, utcnow
from bot.db.statements import changed, insert_ignore
from bot.desk.base import DeskError, NoSuchTicket
from bot.desk.zendesk import mirror, people
from bot.desk.zendesk.client import AuthFailed, Forbidden, RateLimited, ZendeskClient
from bot.desk.zendesk.tiers import Tiers

logger = logging.getLogger(__name__)
EXPORT = "/api/v2/incremental/tickets/cursor.json"
TICKETS = "tickets"
HELP = "help"
Fence = Callable[[Session], bool]  # in a page's transaction: True while this pass may still write
COMMENT_THREADS = 4  # comments are one request per ticket: a few at once
SHOW_MANY = 100  # ids per show_many request: Zendesk's limit
TICKET_INCLUDE = "users,organizations,slas"  # a ticket's own read: its people and what is due on it


@dataclass
class SyncReport:
    pages: int = 0
    tickets: int = 0
    deleted: int = 0
    sections: int = 0
    caught_up: bool = False
    superseded: bool = False  # another pass took over (the lock, or the cursor moved): this one wrote no more
    help_problem: str | None = None

    def line(self) -> str:
        state = ("caught up" if self.caught_up else "another process took the sync over" if self.superseded
                 else "stopped before the end")
        return (f"{self.pages} export page(s), {self.tickets} ticket(s) mirrored, {self.deleted} removed, "
                f"{self.sections} help section change(s); {state}"
                + (f". {self.help_problem.rstrip('.')}" if self.help_problem else ""))


class Superseded(Exception):
    """A page's write refused: the pass no longer holds the sync's lock, or the stored cursor moved."""


def state(db: Database, name: str = TICKETS) -> DeskSync | None:
    with db.session() as session:
        row = session.get(DeskSync, name)
        if row is not None:
            session.expunge(row)
        return row


def sync(client: ZendeskClient, db: Database, *, since_seconds: float, full: bool = False, per_page: int = 1000,
         stop: threading.Event | None = None, sleep: Callable[[float], None] = time.sleep,
         fence: Fence | None = None, arrivals: bool = False, tiers: Tiers | None = None) -> SyncReport:
    """One pass: the help center, then the ticket export from the stored cursor (or from `since_seconds` ago)
    until the end of the stream. `fence` is asked in each page's transaction (the caller's lock). With
    `arrivals` (intake is on), new tickets and customers' new comments are recorded for the intake rules, except
    in the mirror's first fill (no stored cursor, or `full`): what was on the desk before is not new. `tiers`:
    which organization field names a customer's tier (None: the stored tiers stay as they are)."""
    report = SyncReport()
    report.sections, report.help_problem = _help(client, db, stop, sleep)
    stored = state(db)
    expected = stored.cursor if stored is not None else None  # what each page's cursor write replaces
    arrivals = arrivals and expected is not None and not full
    params: dict[str, Any] = {"per_page": per_page, "include": "users,organizations"}
    if expected and not full:
        params["cursor"] = expected
    else:
        params["start_time"] = int(time.time() - since_seconds)
    while stop is None or not stop.is_set():
        body = _with_retries(functools.partial(client.get, EXPORT, params), stop, sleep)
        if body is None:
            return report
        tickets = _newest(body.get("tickets") or [])
        users = {u["id"]: u for u in body.get("users") or []}
        orgs = {o["id"]: o for o in body.get("organizations") or []}
        live = [t for t in tickets if t.get("status") != "deleted"]
        comments, gone = _comments(client, [t["id"] for t in live], users, stop, sleep)
        _with_retries(functools.partial(people.complete, client, [t for t in live if t["id"] not in gone],
                                        comments.values(), users, orgs), stop, sleep)
        slas = _with_retries(functools.partial(fetch_slas, client, [t["id"] for t in live if t["id"] not in gone
                                                                    and t.get("status") != "closed"]), stop, sleep)
        for ticket in live:
            if ticket["id"] in (slas or {}):
                ticket["slas"] = slas[ticket["id"]]
        cursor = body.get("after_cursor") or params.get("cursor")
        try:
            with db.session() as session:
                if fence is not None and not fence(session):
                    raise Superseded("this pass no longer holds the sync's lock")
                if not save_cursor(session, expected=expected, cursor=cursor, tickets=len(tickets)):
                    raise Superseded("the stored cursor moved since this pass read it")
                for ticket in tickets:
                    if ticket.get("status") == "deleted" or ticket["id"] in gone:
                        report.deleted += mirror.remove_ticket(session, str(ticket["id"]))
                mirrored = mirror.upsert_tickets(session, [(t, comments[t["id"]]) for t in live
                                                           if t["id"] in comments], users, orgs,
                                                  arrivals=arrivals, tiers=tiers)
                search.index_tickets(session, mirrored)  # the page's analysis, stored with it
                report.tickets += len(mirrored)
        except Superseded as exc:
            logger.warning("zendesk sync: page not written, %s; another pass has it", exc)
            report.superseded = True
            return report
        expected = cursor
        report.pages += 1
        if body.get("end_of_stream") or not body.get("after_cursor"):
            report.caught_up = True
            return report
        params = {"cursor": body["after_cursor"], "per_page": per_page, "include": "users,organizations"}
    return report


def refresh_tickets(client: ZendeskClient, db: Database, ticket_ids: Iterable[str], *,
                    arrivals: bool = False, tiers: Tiers | None = None) -> list[str]:
    """Fetch the named tickets now (a webhook named them) and mirror them, with what is due on them; deleted
    ones leave. The ids done. With `arrivals` (intake is on), what is new is recorded for the intake once the
    mirror has had its first fill (before that, the sync's first pass is still bringing in what was already on
    the desk)."""
    arrivals = arrivals and filled(db)
    done = []
    for ticket_id in ticket_ids:
        try:
            body = client.get(f"/api/v2/tickets/{int(ticket_id)}.json", {"include": TICKET_INCLUDE})
        except (NoSuchTicket, Forbidden):
            with db.session() as session:
                mirror.remove_ticket(session, str(ticket_id))
            done.append(str(ticket_id))
            continue
        ticket = body["ticket"]
        users = {u["id"]: u for u in body.get("users") or []}
        orgs = {o["id"]: o for o in body.get("organizations") or []}
        comments = fetch_comments(client, ticket["id"], users)
        people.complete(client, [ticket], [comments], users, orgs)  # a deleted requester or org: left out
        with db.session() as session:
            mirror.upsert_ticket(session, ticket, comments, users, orgs, arrivals=arrivals, tiers=tiers)
        done.append(str(ticket_id))
    return done


def fetch_slas(client: ZendeskClient, ticket_ids: list[int]) -> dict[int, Any]:
    """Each ticket's `slas` side-load, read with show_many a hundred at a time; a ticket show_many leaves out
    (deleted or out of reach since) is left out here too, and keeps what the mirror had."""
    found: dict[int, Any] = {}
    for start in range(0, len(ticket_ids), SHOW_MANY):
        chunk = ticket_ids[start:start + SHOW_MANY]
        body = client.get("/api/v2/tickets/show_many.json", {"ids": ",".join(str(i) for i in chunk),
                                                              "include": "slas"})
        found.update({t["id"]: t["slas"] for t in body.get("tickets") or [] if isinstance(t, dict) and "slas" in t})
    return found


def filled(db: Database) -> bool:
    """Whether the mirror has had its first fill (a cursor is stored): from then on, what the mirror sees for the
    first time arrived on the desk, and is recorded for the intake."""
    stored = state(db)
    return stored is not None and stored.cursor is not None


def fetch_comments(client: ZendeskClient, ticket_id: int | str, users: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """A ticket's comments, oldest first, with every attachment (inline images too); their authors are added to
    `users` (those the side-load leaves out are for people.complete)."""
    comments: list[dict[str, Any]] = []
    params = {"include": "users", "page[size]": 100, "include_inline_images": "true"}
    path = f"/api/v2/tickets/{ticket_id}/comments.json"
    while True:
        body = client.get(path, params)
        comments.extend(body.get("comments") or [])
        users.update({u["id"]: u for u in body.get("users") or []})
        meta = body.get("meta") or {}
        if not meta.get("has_more") or not meta.get("after_cursor"):
            return comments
        params = {**params, "page[after]": meta["after_cursor"]}


def _help(client: ZendeskClient, db: Database, stop: threading.Event | None,
          sleep: Callable[[float], None]) -> tuple[int, str | None]:
    """The Help Center's pass: (sections changed, None), or (0, the sentence that says why it could not be
    read), recorded for `kitebase desk status`. A refused token is not the Help Center's problem: it raises."""
    try:
        return _with_retries(lambda: sync_help(client, db), stop, sleep) or 0, None
    except AuthFailed:
        raise
    except DeskError as exc:
        problem = help_problem(exc)
        logger.warning("zendesk sync: %s", problem)
        with db.session() as session:
            row = session.get(DeskSync, HELP) or DeskSync(name=HELP)
            row.problem = problem
            session.add(row)
        return 0, problem


def help_problem(exc: DeskError) -> str:
    """What a Help Center that cannot be read means, in a sentence that says what to do."""
    after = "The tickets sync on; search_help has no Zendesk articles until the Help Center can be read."
    if isinstance(exc, NoSuchTicket):
        return ("The Help Center answered 404: this Zendesk account has no Help Center (or it is not activated). "
                + after)
    if isinstance(exc, Forbidden):
        return ("The Help Center answered 403: ZENDESK_EMAIL's user may not read its articles (give it a Guide "
                "role). " + after)
    return f"The Help Center could not be read: {exc} {after}"


def sync_help(client: ZendeskClient, db: Database) -> int:
    """The published articles as sections (drafts never enter the index); the number of sections changed."""
    sections: list[HelpSection] = []
    taken: set[str] = set()
    for page in client.pages("/api/v2/help_center/articles.json", {"page[size]": 100}, "articles"):
        for article in page:
            if article.get("draft"):
                continue
            slug = mirror.article_slug(article, taken)
            taken.add(slug)
            sections.extend(mirror.article_sections(article, slug))
    with db.session() as session:
        row = session.get(DeskSync, HELP) or DeskSync(name=HELP)
        row.synced_at, row.problem = utcnow(), None
        session.add(row)
        return mirror.replace_help(session, sections)


def _comments(client: ZendeskClient, ids: list[int], users: dict[int, dict[str, Any]],
              stop: threading.Event | None, sleep: Callable[[float], None]
              ) -> tuple[dict[int, list[dict[str, Any]]], set[int]]:
    """Each ticket's comments, and the tickets gone meanwhile (404: deleted since the export; 403: out of this
    user's reach): those leave the mirror, the others' page goes on."""
    found: dict[int, list[dict[str, Any]]] = {}
    gone: set[int] = set()
    if not ids:
        return found, gone

    def one(ticket_id: int) -> None:
        seen: dict[int, dict[str, Any]] = {}
        try:
            comments = _with_retries(lambda: fetch_comments(client, ticket_id, seen), stop, sleep)
        except (NoSuchTicket, Forbidden):  # deleted between the export and now: the next export says so too
            gone.add(ticket_id)
            return
        if comments is not None:
            found[ticket_id] = comments
            users.update({k: v for k, v in seen.items() if k not in users})

    with ThreadPoolExecutor(COMMENT_THREADS, thread_name_prefix="zendesk-comments") as pool:
        list(pool.map(one, ids))
    missing = [i for i in ids if i not in found and i not in gone]
    if missing and (stop is None or not stop.is_set()):
        raise RuntimeError(f"comments of {len(missing)} ticket(s) could not be read")
    return found, gone


def _newest(tickets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The export may list a ticket more than once: keep its newest state."""
    newest: dict[Any, dict[str, Any]] = {}
    for ticket in tickets:
        old = newest.get(ticket["id"])
        if old is None or (ticket.get("generated_timestamp") or 0) >= (old.get("generated_timestamp") or 0):
            newest[ticket["id"]] = ticket
    return list(newest.values())


def save_cursor(session: Session, *, expected: str | None, cursor: str | None, tickets: int) -> bool:
    """Store the export's cursor, only if the stored one is still `expected` (the cursor the page was read
    from): one atomic UPDATE, so two passes can never move it back. False when it moved meanwhile."""
    insert_ignore(session, table_of(DeskSync), {"name": TICKETS, "pages": 0, "tickets": 0}, conflict=("name",))
    return changed(session.execute(
        update(DeskSync).where(col(DeskSync.name) == TICKETS, col(DeskSync.cursor).is_not_distinct_from(expected))
        .values(cursor=cursor, synced_at=utcnow(), pages=col(DeskSync.pages) + 1,
                tickets=col(DeskSync.tickets) + tickets))) == 1


def _with_retries(call: Callable[[], Any], stop: threading.Event | None, sleep: Callable[[float], None],
                  attempts: int = 6) -> Any:
    """A sync is background work: a 429 is waited for here (Retry-After), never in a run."""
    for attempt in range(attempts):
        try:
            return call()
        except RateLimited as exc:
            if attempt == attempts - 1 or (stop is not None and stop.is_set()):
                raise
            logger.info("zendesk sync: rate limited, waiting %.0f s", exc.retry_after)
            sleep(exc.retry_after)
    return None
