"""Zendesk's records as rows of our tables: organizations (or requesters without one) as customers, tickets with
their comments as the conversation, Help Center articles split into sections at their <h2> headings."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

from sqlalchemy import delete
from sqlmodel import Session, col, select

from bot import search
from bot.db.models import Customer, HelpSection, SearchDocument, Ticket, TicketMessage
from bot.desk.links import heading_anchor

# Zendesk's six statuses in the three the mirror's search filters know; get_ticket shows Zendesk's own
STATUS = {"new": "open", "open": "open", "pending": "pending", "hold": "pending", "solved": "closed",
          "closed": "closed"}


def zendesk_time(value: str | None) -> datetime:
    if not value:
        return datetime.now(UTC)
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def customer_id(ticket: dict[str, Any]) -> str:
    org = ticket.get("organization_id")
    return f"zd-org-{org}" if org else f"zd-user-{ticket.get('requester_id')}"


def upsert_customer(session: Session, ticket: dict[str, Any], users: dict[int, dict[str, Any]],
                    orgs: dict[int, dict[str, Any]]) -> str:
    key = customer_id(ticket)
    requester = users.get(ticket.get("requester_id") or 0) or {}
    org = orgs.get(ticket.get("organization_id") or 0)
    row = session.get(Customer, key) or Customer(id=key, name="", plan="")
    fields = (org or {}).get("organization_fields") or {}
    row.name = (org or {}).get("name") or requester.get("name") or key
    row.plan = str(fields.get("plan") or row.plan or "")
    row.contact_name = requester.get("name") or row.contact_name
    row.contact_email = requester.get("email") or row.contact_email
    notes = "\n".join(str(part) for part in ((org or {}).get("details"), (org or {}).get("notes")) if part)
    row.notes = notes or row.notes
    session.add(row)
    return key


def upsert_ticket(session: Session, ticket: dict[str, Any], comments: list[dict[str, Any]],
                  users: dict[int, dict[str, Any]], orgs: dict[int, dict[str, Any]]) -> None:
    """The ticket and its whole conversation as Zendesk has them now (messages replaced when they changed, so
    every search index sees the change: it follows new message rows)."""
    ticket_id = str(ticket["id"])
    owner = upsert_customer(session, ticket, users, orgs)
    row = session.get(Ticket, ticket_id)
    assignee = users.get(ticket.get("assignee_id") or 0)
    values: dict[str, Any] = {"customer_id": owner, "title": ticket.get("subject") or ticket.get("raw_subject") or "(no subject)",
              "status": STATUS.get(ticket.get("status") or "open", "open"), "priority": ticket.get("priority") or "normal",
              "assignee": (assignee or {}).get("name"), "tags": list(ticket.get("tags") or []),
              "created_at": zendesk_time(ticket.get("created_at")), "updated_at": zendesk_time(ticket.get("updated_at"))}
    if row is None:
        row = Ticket(id=ticket_id, **values)
    else:
        for name, value in values.items():
            setattr(row, name, value)
    session.add(row)
    messages = [_message(ticket_id, c, users) for c in comments]
    stored = session.exec(select(TicketMessage).where(TicketMessage.ticket_id == ticket_id)
                          .order_by(col(TicketMessage.created_at), col(TicketMessage.id))).all()
    if [(m.author, m.role, m.body) for m in stored] != [(m.author, m.role, m.body) for m in messages]:
        session.execute(delete(TicketMessage).where(col(TicketMessage.ticket_id) == ticket_id))
        session.add_all(messages)
    session.flush()
    search.index_ticket(session, ticket_id)


def _message(ticket_id: str, comment: dict[str, Any], users: dict[int, dict[str, Any]]) -> TicketMessage:
    author = users.get(comment.get("author_id") or 0) or {}
    if not comment.get("public", True):
        role = "internal"
    elif author.get("role") in ("agent", "admin"):
        role = "staff"
    else:
        role = "customer"
    body = comment.get("plain_body") or comment.get("body") or _text(comment.get("html_body") or "")
    return TicketMessage(ticket_id=ticket_id, author=author.get("name") or f"user {comment.get('author_id')}",
                         role=role, body=body, created_at=zendesk_time(comment.get("created_at")))


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
    """An article's sections: one per <h2>, numbered from 1, each linked to the heading's anchor."""
    parser = _Sections()
    parser.feed(article.get("body") or "")
    parser.close()
    url = article.get("html_url") or ""
    title = article.get("title") or article.get("name") or slug
    return [HelpSection(id=f"{slug}#{n}", article=slug, article_title=title, number=n, heading=heading,
                        body=body, url=f"{url}#{anchor}" if url else None)
            for n, (heading, anchor, body) in enumerate(parser.sections, start=1)]


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
        elif (old.article, old.article_title, old.number, old.heading, old.body, old.url) != \
                (section.article, section.article_title, section.number, section.heading, section.body, section.url):
            old.article, old.article_title, old.number = section.article, section.article_title, section.number
            old.heading, old.body, old.url = section.heading, section.body, section.url
            session.add(old)
            changed += 1
    return changed


class _Sections(HTMLParser):
    BLOCKS = {"p", "li", "br", "div", "h3", "h4", "pre", "tr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[tuple[str, str, str]] = []
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
        if self._current is not None:
            lines = [" ".join(line.split()) for line in "".join(self._body).split("\n")]
            body = "\n".join(line for line in lines if line).strip()
            self.sections.append((*self._current, body))
        self._current, self._body = None, []


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())
