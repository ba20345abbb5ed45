"""Zendesk's records as rows of our tables: organizations (or requesters without one) as customers, tickets with
their comments as the conversation (attachments as names, types, sizes and links), Help Center articles split into
sections at their <h2> headings (the text before the first one, or a whole article without one, is section 0).

What is due on a ticket is Zendesk's own: its `slas` side-load (the caller fetches it) as `Ticket.sla` and
`Ticket.due_at` (bot/desk/sla.py), kept whenever the ticket is mirrored; a customer's tier comes from their
organization's field as configured (tiers.py)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

from sqlalchemy import delete, insert, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from bot import search
from bot.db.models import Customer, HelpSection, SearchDocument, Ticket, TicketMessage, table_of
from bot.desk import arrivals as desk_arrivals
from bot.desk import sla
from bot.desk.base import TicketLink
from bot.desk.links import heading_anchor
from bot.desk.zendesk.tiers import Tiers

_CUSTOMERS, _TICKETS, _MESSAGES = table_of(Customer), table_of(Ticket), table_of(TicketMessage)
# Zendesk's six statuses in the three the mirror's search filters know; get_ticket shows Zendesk's own
NEW_FOR_SECONDS = 86400  # a ticket first mirrored more than a day after its creation is not an arrival
STATUS = {"new": "open", "open": "open", "pending": "pending", "hold": "pending", "solved": "closed",
          "closed": "closed"}


def zendesk_time(value: str | None) -> datetime:
    if not value:
        return datetime.now(UTC)
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def customer_id(ticket: dict[str, Any]) -> str:
    org = ticket.get("organization_id")
    return f"zd-org-{org}" if org else f"zd-user-{ticket.get('requester_id')}"


def _customer(ticket: dict[str, Any], users: dict[int, dict[str, Any]], orgs: dict[int, dict[str, Any]],
              old: Any, tiers: Tiers | None) -> dict[str, Any]:
    requester = users.get(ticket.get("requester_id") or 0) or {}
    org = orgs.get(ticket.get("organization_id") or 0) or {}
    fields = org.get("organization_fields") or {}
    notes = "\n".join(str(part) for part in (org.get("details"), org.get("notes")) if part)
    key = customer_id(ticket)
    row = {"id": key, "name": org.get("name") or requester.get("name") or (old.name if old else key),
           "plan": str(fields.get("plan") or (old.plan if old else "") or ""),
           "contact_name": requester.get("name") or (old.contact_name if old else None),
           "contact_email": requester.get("email") or (old.contact_email if old else None),
           "notes": notes or (old.notes if old else None)}
    if tiers is not None:  # None: this caller does not know the configuration; the stored tier stays
        row["tier"] = tier_of(ticket, orgs, tiers, old.tier if old else None)
    return row


def tier_of(ticket: dict[str, Any], orgs: dict[int, dict[str, Any]], tiers: Tiers, stored: str | None) -> str | None:
    """The customer's tier from their organization's field; a requester without an organization has none, and an
    organization Zendesk could not give now (deleted, or the lookup failed) or one without the configured field
    (renamed or deleted in Zendesk: tiers.py logs it) keeps the one stored."""
    org_id = ticket.get("organization_id")
    if not org_id:
        return None
    org = orgs.get(org_id)
    return tiers.of(org, stored) if org is not None else stored


def first_reply_breach(slas: Any) -> datetime | None:
    """When the first reply was or is due: the first_reply_time metric's breach_at, whatever its stage."""
    metrics = slas.get("policy_metrics") if isinstance(slas, dict) else None
    for metric in metrics if isinstance(metrics, list) else []:
        if isinstance(metric, dict) and metric.get("metric") == "first_reply_time" and metric.get("breach_at"):
            try:
                return zendesk_time(str(metric["breach_at"]))
            except ValueError:
                return None
    return None


def store_dues(session: Session, tickets: list[dict[str, Any]]) -> None:
    """Keep what is due on the mirrored rows of `tickets`: from each one's `slas` side-load when it came with
    one; a solved or closed ticket without one has nothing due; any other keeps what it had."""
    wanted = {str(t["id"]): t for t in tickets if "slas" in t or t.get("status") in ("solved", "closed")}
    if not wanted:
        return
    rows = session.exec(select(Ticket).where(col(Ticket.id).in_(sorted(wanted)))
                        .execution_options(populate_existing=True)).all()
    for row in rows:
        slas = wanted[row.id].get("slas")
        sla.store(session, row, sla.from_zendesk(slas), first_reply_due=first_reply_breach(slas))


def upsert_ticket(session: Session, ticket: dict[str, Any], comments: list[dict[str, Any]],
                  users: dict[int, dict[str, Any]], orgs: dict[int, dict[str, Any]], *, index: bool = True,
                  arrivals: bool = False, tiers: Tiers | None = None) -> None:
    """One ticket and its whole conversation as Zendesk has them now (see upsert_tickets)."""
    upsert_tickets(session, [(ticket, comments)], users, orgs, arrivals=arrivals, tiers=tiers)
    if index:
        search.index_ticket(session, str(ticket["id"]))


def upsert_tickets(session: Session, items: list[tuple[dict[str, Any], list[dict[str, Any]]]],
                   users: dict[int, dict[str, Any]], orgs: dict[int, dict[str, Any]], *,
                   arrivals: bool = False, tiers: Tiers | None = None) -> list[str]:
    """Tickets with their whole conversations as Zendesk has them now, in a few statements per page (a page is
    a thousand tickets). A ticket's messages are replaced only when they changed, so every search index sees
    the change (it follows new message rows); the caller stores the analysis (search.index_tickets). What is
    due comes from each ticket's `slas` (store_dues); each customer's tier from `tiers` (None: kept as stored).

    With `arrivals` (intake is on and this is not the first fill of the mirror), what is new is recorded for the
    intake rules in the same transaction: a ticket the mirror did not have, and a customer's public comment a
    mirrored ticket did not have."""
    if not items:
        return []
    conn = session.connection()
    ids = [str(t["id"]) for t, _ in items]
    keys = sorted({customer_id(t) for t, _ in items})
    old_customers = {row.id: row for row in conn.execute(sa_select(_CUSTOMERS).where(_CUSTOMERS.c.id.in_(keys)))}
    customers = {customer_id(t): _customer(t, users, orgs, old_customers.get(customer_id(t)), tiers)
                 for t, _ in items}
    new = [row for key, row in customers.items() if key not in old_customers]
    if new:
        conn.execute(insert(_CUSTOMERS), [{**row, "seats": 0} for row in new])
    for key, row in customers.items():
        old = old_customers.get(key)
        if old is not None and any(getattr(old, name) != value for name, value in row.items()):
            conn.execute(update(_CUSTOMERS).where(_CUSTOMERS.c.id == key).values(**row))
    known = {row[0] for row in conn.execute(sa_select(_TICKETS.c.id).where(_TICKETS.c.id.in_(ids)))}
    stored: dict[str, list[tuple[Any, ...]]] = {}
    newest: dict[str, datetime] = {}  # each ticket's newest mirrored comment, by Zendesk's clock
    for line in conn.execute(sa_select(_MESSAGES.c.ticket_id, _MESSAGES.c.author, _MESSAGES.c.role, _MESSAGES.c.body,
                                       _MESSAGES.c.attachments, _MESSAGES.c.created_at)
                             .where(_MESSAGES.c.ticket_id.in_(sorted(known)))
                             .order_by(_MESSAGES.c.ticket_id, _MESSAGES.c.created_at, _MESSAGES.c.id)):
        stored.setdefault(line.ticket_id, []).append((line.author, line.role, line.body, line.attachments))
        newest[line.ticket_id] = _aware(line.created_at)
    fresh: list[dict[str, Any]] = []
    changed: list[str] = []
    messages: list[dict[str, Any]] = []
    for ticket, comments in items:
        values = _ticket_values(ticket, users)
        if values["id"] in known:
            conn.execute(update(_TICKETS).where(_TICKETS.c.id == values["id"]).values(**values))
        else:
            fresh.append(values)
        rows = [message(values["id"], c, users, ticket.get("requester_id")) for c in comments]
        if [(m["author"], m["role"], m["body"], m["attachments"]) for m in rows] != stored.get(values["id"], []):
            changed.append(values["id"])
            messages.extend(rows)
            if arrivals and values["id"] in known:
                _arrivals(session, ticket, comments, rows, stored.get(values["id"], []), newest.get(values["id"]))
        if arrivals and values["id"] not in known:
            _arrivals(session, ticket, comments, rows, None)
    if fresh:
        conn.execute(insert(_TICKETS), fresh)
    if changed:
        conn.execute(delete(_MESSAGES).where(_MESSAGES.c.ticket_id.in_(changed)))
    if messages:
        conn.execute(insert(_MESSAGES), messages)
    store_dues(session, [t for t, _ in items])
    return ids


def _arrivals(session: Session, ticket: dict[str, Any], comments: list[dict[str, Any]], rows: list[dict[str, Any]],
              before: list[tuple[Any, ...]] | None, newest: datetime | None = None) -> None:
    """Record what is new for the intake: the ticket (`before` None: the mirror did not have it), or the
    customer's public comments it did not have. A ticket first seen long after it was created (an old ticket that
    changed, outside the mirror's window) is not new on the desk, and is not recorded. A comment is new when it
    is newer, on Zendesk's clock, than the newest the mirror holds (`newest`): a renamed author, a redaction or an
    edit of an earlier comment changes its text, not its time, and replays nothing."""
    ticket_id = str(ticket["id"])
    if before is None:
        created, updated = zendesk_time(ticket.get("created_at")), zendesk_time(ticket.get("updated_at"))
        if (updated - created).total_seconds() <= NEW_FOR_SECONDS:
            desk_arrivals.ticket_arrived(session, key=f"zendesk-ticket:{ticket_id}", ticket_id=ticket_id,
                                    fields=ticket_fields(ticket))
        return
    seen = list(before)
    for comment, row in zip(comments, rows, strict=True):
        shape = (row["author"], row["role"], row["body"], row["attachments"])
        if shape in seen:
            seen.remove(shape)
        elif newest is not None and _aware(row["created_at"]) < newest:
            continue  # an earlier comment whose author or text changed since: not a new message
        elif newest is not None and _aware(row["created_at"]) == newest and len(rows) <= len(before):
            continue  # the same count at the same newest time: an edit, not an addition
        elif row["role"] == "customer" and comment.get("id") is not None:
            desk_arrivals.message_arrived(session, key=f"zendesk-comment:{comment['id']}", ticket_id=ticket_id,
                                          author=row["author"], body=row["body"], attachments=row["attachments"])


def _aware(value: datetime) -> datetime:
    """A stored time as UTC-aware (SQLite hands it back without its zone)."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def ticket_fields(ticket: dict[str, Any]) -> dict[str, Any]:
    """The fields intake rules match on, as Zendesk names them (its six statuses, its priorities)."""
    via = ticket.get("via") or {}
    return {"status": ticket.get("status"), "priority": ticket.get("priority"), "tags": list(ticket.get("tags") or []),
            "brand": ticket.get("brand_id"), "group": ticket.get("group_id"),
            "via": via.get("channel") if isinstance(via, dict) else None, "created_at": ticket.get("created_at")}


def mark_incidents(session: Session, problem_id: str, incidents: list[dict[str, Any]]) -> tuple[TicketLink, ...]:
    """The problem's incidents as Zendesk listed them: set on the mirror's rows it holds (the rest of each
    ticket comes with the sync), and as links (customer names as the mirror knows them)."""
    conn = session.connection()
    for incident in incidents:
        conn.execute(update(_TICKETS).where(_TICKETS.c.id == str(incident["id"]))
                     .values(type=incident.get("type") or "incident", problem_id=problem_id))
    keys = sorted({customer_id(t) for t in incidents})
    names = {row.id: row.name for row in session.exec(select(Customer).where(col(Customer.id).in_(keys)))} \
        if keys else {}
    return tuple(TicketLink(str(t["id"]), t.get("subject") or "(no subject)", names.get(customer_id(t)),
                            STATUS.get(t.get("status") or "open", "open")) for t in incidents)


def _ticket_values(ticket: dict[str, Any], users: dict[int, dict[str, Any]]) -> dict[str, Any]:
    assignee = users.get(ticket.get("assignee_id") or 0) or {}
    requester = users.get(ticket.get("requester_id") or 0) or {}
    who = f"{requester.get('name')} <{requester.get('email')}>" if requester.get("email") else requester.get("name")
    return {"id": str(ticket["id"]), "customer_id": customer_id(ticket), "requester": who,
            "title": ticket.get("subject") or ticket.get("raw_subject") or "(no subject)",
            "status": STATUS.get(ticket.get("status") or "open", "open"), "priority": ticket.get("priority"),
            "assignee": assignee.get("name"), "tags": list(ticket.get("tags") or []),
            "created_at": zendesk_time(ticket.get("created_at")), "updated_at": zendesk_time(ticket.get("updated_at")),
            # a problem and its incidents, also as people link them in Zendesk
            "type": ticket.get("type") or None,
            "problem_id": str(ticket["problem_id"]) if ticket.get("problem_id") is not None else None}


def message(ticket_id: str, comment: dict[str, Any], users: dict[int, dict[str, Any]],
            requester_id: int | None = None) -> dict[str, Any]:
    """A comment as a ticket_message row. Its author's role comes from their Zendesk user: a public comment by a
    user `users` lacks (deleted, or the lookup failed) is by an unknown author, never taken for the customer."""
    author_id = comment.get("author_id")
    author = users.get(author_id or 0)
    if not comment.get("public", True):
        role = "internal"
    elif author is None:
        role = "unknown"
    elif author.get("role") in ("agent", "admin"):
        role = "staff"
    else:
        role = "customer"
    if author is not None:
        name = author.get("name") or f"user {author_id}"
    else:
        name = f"unknown user {author_id}" + (" (the requester)" if author_id and author_id == requester_id else "")
    body = comment.get("plain_body") or comment.get("body") or _text(comment.get("html_body") or "")
    return {"ticket_id": ticket_id, "author": name, "role": role, "body": body,
            "created_at": zendesk_time(comment.get("created_at")), "attachments": attachments(comment)}


def attachments(comment: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A comment's files as Zendesk lists them (name, type, size, link, inline), deleted ones left out; the files
    themselves are never fetched."""
    files = [{"name": str(a.get("file_name") or "?"), "content_type": a.get("content_type"), "size": a.get("size"),
              "url": a.get("content_url"), "inline": bool(a.get("inline"))}
             for a in comment.get("attachments") or [] if isinstance(a, dict) and not a.get("deleted")]
    return files or None


def remove_ticket(session: Session, ticket_id: str) -> bool:
    """A ticket deleted in Zendesk leaves the mirror and the search."""
    row = session.get(Ticket, ticket_id)
    if row is None:
        return False
    session.execute(delete(TicketMessage).where(col(TicketMessage.ticket_id) == ticket_id))
    session.execute(delete(SearchDocument).where(col(SearchDocument.kind) == "ticket",
                                                 col(SearchDocument.key) == ticket_id))
    session.delete(row)
    session.flush()
    return True


# --- Help Center ---------------------------------------------------------------------------------------

def article_sections(article: dict[str, Any], slug: str) -> list[HelpSection]:
    """An article's sections: one per <h2>, numbered from 1, each linked to the heading's anchor; and section 0,
    headed by the article's title and linked to the article, for the text before the first <h2> (all of it when
    there is none, as in Zendesk's own "Welcome to your Help Center!"). Numbering from the first <h2> is what
    it always was, so a section already cited keeps its id. All are internal when the article is restricted to
    a user segment."""
    parser = _Sections()
    parser.feed(article.get("body") or "")
    parser.close()
    url = article.get("html_url") or ""
    title = article.get("title") or article.get("name") or slug
    internal = restricted(article)
    sections = [HelpSection(id=f"{slug}#0", article=slug, article_title=title, number=0, heading=title,
                            body=parser.intro, url=url or None, internal=internal)] if parser.intro else []
    return sections + [HelpSection(id=f"{slug}#{n}", article=slug, article_title=title, number=n, heading=heading,
                                   body=body, url=f"{url}#{anchor}" if url else None, internal=internal)
                       for n, (heading, anchor, body) in enumerate(parser.sections, start=1)]


def restricted(article: dict[str, Any]) -> bool:
    """Whether only a user segment may view the article: `user_segment_id` set, or on Enterprise a non-empty
    `user_segment_ids` (any of them may view). Who is in a segment (signed-in users, agents only, some
    organizations or tags) is not looked up: the requester may not be, so none of it is cited to a customer."""
    return article.get("user_segment_id") is not None or bool(article.get("user_segment_ids"))


def article_slug(article: dict[str, Any], taken: set[str]) -> str:
    """`account-recovery` from `.../articles/360001-account-recovery` (or from the title); unique."""
    match = re.search(r"/articles/\d+-([^/?#]+)", article.get("html_url") or "")
    slug = heading_anchor(match.group(1) if match else article.get("title") or "") or f"article-{article['id']}"
    return slug if slug not in taken else f"{slug}-{article['id']}"


def replace_help(session: Session, sections: list[HelpSection]) -> int:
    """Make the help center exactly `sections`; only what changed is written (each change re-analyses it)."""
    stored = {row.id: row for row in session.exec(select(HelpSection)).all()}
    wanted = {s.id: s for s in sections}
    changed = 0
    for key in stored.keys() - wanted.keys():
        session.delete(stored[key])
        changed += 1
    for key, section in wanted.items():
        old = stored.get(key)
        if old is None:
            session.add(section)
            changed += 1
        elif (old.article, old.article_title, old.number, old.heading, old.body, old.url, old.internal) != \
                (section.article, section.article_title, section.number, section.heading, section.body, section.url,
                 section.internal):
            old.article, old.article_title, old.number = section.article, section.article_title, section.number
            old.heading, old.body, old.url, old.internal = section.heading, section.body, section.url, section.internal
            session.add(old)
            changed += 1
    return changed


class _Sections(HTMLParser):
    BLOCKS = {"p", "li", "br", "div", "h3", "h4", "pre", "tr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[tuple[str, str, str]] = []
        self.intro = ""  # the text before the first <h2>
        self._heading: list[str] | None = None
        self._anchor = ""
        self._current: tuple[str, str] | None = None
        self._body: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "h2":
            self._flush()
            self._heading, self._anchor = [], dict(attrs).get("id") or ""
        elif tag in self.BLOCKS:
            self._body.append("\n- " if tag == "li" else "\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "h2" and self._heading is not None:
            heading = " ".join("".join(self._heading).split())
            self._current = (heading, self._anchor or heading_anchor(heading))
            self._heading, self._body = None, []

    def handle_data(self, data: str) -> None:
        (self._heading if self._heading is not None else self._body).append(data)

    def close(self) -> None:
        super().close()
        self._flush()

    def _flush(self) -> None:
        lines = [" ".join(line.split()) for line in "".join(self._body).split("\n")]
        body = "\n".join(line for line in lines if line).strip()
        if self._current is not None:
            self.sections.append((*self._current, body))
        elif not self.sections and not self.intro:
            self.intro = body
        self._current, self._body = None, []


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())
