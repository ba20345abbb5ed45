"""Keep the mirror in step with Zendesk: the Incremental Ticket Export (cursor-based) for tickets, their
comments per ticket, requesters and organizations sideloaded (and whoever the side-loads left out looked up, see
people.py), and the Help Center's published articles.

The export's cursor is stored in the same transaction as the page it led to, so a sync killed at any point
resumes at the first page it had not finished, and fetches no finished page again. The export leaves out the
last minute's changes (Zendesk's rule), so a poll alone is always at least a minute behind: webhooks
(`POST /zendesk/webhook`) fetch the tickets they name at once, through `refresh_tickets`."""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from bot import search
from bot.db.engine import Database
from bot.db.models import DeskSync, HelpSection, utcnow
from bot.desk.base import NoSuchTicket
from bot.desk.zendesk import mirror, people
from bot.desk.zendesk.client import Forbidden, RateLimited, ZendeskClient

logger = logging.getLogger(__name__)
EXPORT = "/api/v2/incremental/tickets/cursor.json"
TICKETS = "tickets"
COMMENT_THREADS = 4  # comments are one request per ticket: a few at once


@dataclass
class SyncReport:
    pages: int = 0
    tickets: int = 0
    deleted: int = 0
    sections: int = 0
    caught_up: bool = False

    def line(self) -> str:
        state = "caught up" if self.caught_up else "stopped before the end"
        return (f"{self.pages} export page(s), {self.tickets} ticket(s) mirrored, {self.deleted} removed, "
                f"{self.sections} help section change(s); {state}")


def state(db: Database, name: str = TICKETS) -> DeskSync | None:
    with db.session() as session:
        row = session.get(DeskSync, name)
        if row is not None:
            session.expunge(row)
        return row


def sync(client: ZendeskClient, db: Database, *, since_seconds: float, full: bool = False, per_page: int = 1000,
         stop: threading.Event | None = None, sleep: Callable[[float], None] = time.sleep) -> SyncReport:
    """One pass: the help center, then the ticket export from the stored cursor (or from `since_seconds` ago)
    until the end of the stream."""
    report = SyncReport()
    report.sections = _with_retries(lambda: sync_help(client, db), stop, sleep)
    stored = None if full else state(db)
    params: dict[str, Any] = {"per_page": per_page, "include": "users,organizations"}
    if stored is not None and stored.cursor:
        params["cursor"] = stored.cursor
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
        comments = _comments(client, [t["id"] for t in live], users, stop, sleep)
        _with_retries(functools.partial(people.complete, client, live, comments.values(), users, orgs), stop, sleep)
        cursor = body.get("after_cursor") or params.get("cursor")
        with db.session() as session:
            for ticket in tickets:
                if ticket.get("status") == "deleted":
                    report.deleted += mirror.remove_ticket(session, str(ticket["id"]))
            mirrored = mirror.upsert_tickets(session, [(t, comments[t["id"]]) for t in live if t["id"] in comments],
                                             users, orgs)
            search.index_tickets(session, mirrored)  # the page's analysis, stored with it
            report.tickets += len(mirrored)
            _save(session, cursor, len(tickets))
        report.pages += 1
        if body.get("end_of_stream") or not body.get("after_cursor"):
            report.caught_up = True
            return report
        params = {"cursor": body["after_cursor"], "per_page": per_page, "include": "users,organizations"}
    return report


def refresh_tickets(client: ZendeskClient, db: Database, ticket_ids: Iterable[str]) -> list[str]:
    """Fetch the named tickets now (a webhook named them) and mirror them; deleted ones leave. The ids done."""
    done = []
    for ticket_id in ticket_ids:
        try:
            body = client.get(f"/api/v2/tickets/{int(ticket_id)}.json", {"include": "users,organizations"})
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
            mirror.upsert_ticket(session, ticket, comments, users, orgs)
        done.append(str(ticket_id))
    return done


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
        return mirror.replace_help(session, sections)


def _comments(client: ZendeskClient, ids: list[int], users: dict[int, dict[str, Any]],
              stop: threading.Event | None, sleep: Callable[[float], None]) -> dict[int, list[dict[str, Any]]]:
    found: dict[int, list[dict[str, Any]]] = {}
    if not ids:
        return found

    def one(ticket_id: int) -> None:
        seen: dict[int, dict[str, Any]] = {}
        try:
            comments = _with_retries(lambda: fetch_comments(client, ticket_id, seen), stop, sleep)
        except NoSuchTicket:  # deleted between the export and now: the next export says so
            return
        if comments is not None:
            found[ticket_id] = comments
            users.update({k: v for k, v in seen.items() if k not in users})

    with ThreadPoolExecutor(COMMENT_THREADS, thread_name_prefix="zendesk-comments") as pool:
        list(pool.map(one, ids))
    missing = [i for i in ids if i not in found]
    if missing and (stop is None or not stop.is_set()):
        raise RuntimeError(f"comments of {len(missing)} ticket(s) could not be read")
    return found


def _newest(tickets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The export may list a ticket more than once: keep its newest state."""
    newest: dict[Any, dict[str, Any]] = {}
    for ticket in tickets:
        old = newest.get(ticket["id"])
        if old is None or (ticket.get("generated_timestamp") or 0) >= (old.get("generated_timestamp") or 0):
            newest[ticket["id"]] = ticket
    return list(newest.values())


def _save(session: Session, cursor: str | None, count: int) -> None:
    row = session.get(DeskSync, TICKETS) or DeskSync(name=TICKETS)
    row.cursor = cursor
    row.synced_at = utcnow()
    row.pages = (row.pages or 0) + 1
    row.tickets = (row.tickets or 0) + count
    session.add(row)


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
