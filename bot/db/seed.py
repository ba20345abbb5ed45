"""Load the desk in kb_data/ into the database: once, in one transaction, harmless to repeat or to race."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, func, select

from bot.db.engine import Database
from bot.db.models import Customer, HelpSection, Ticket, TicketMessage, table_of
from bot.db.setup_lock import setup_lock

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeedResult:
    loaded: bool
    customers: int
    tickets: int
    sections: int


def seed_desk(db: Database, data_dir: Path) -> SeedResult:
    """Load customers, tickets and help sections unless the desk is already there: once, however many processes
    start at once (the first to take the database's set-up lock loads it; the others wait, then find it there)."""
    with db.session() as session:
        if session.exec(select(func.count()).select_from(Ticket)).one() > 0:
            return SeedResult(False, *_counts(session))
    with setup_lock(db.engine) as connection, Session(connection, expire_on_commit=False) as session:
        if session.exec(select(func.count()).select_from(Ticket)).one() > 0:  # loaded while this one waited
            return SeedResult(False, *_counts(session))
        _load(session, data_dir)
        session.flush()
        counts = _counts(session)
    logger.info("seeded desk: %d customers, %d tickets, %d help sections", *counts)
    return SeedResult(True, *counts)


def _counts(session: Session) -> tuple[int, int, int]:
    customers, tickets, sections = (session.exec(select(func.count()).select_from(model)).one()
                                    for model in (Customer, Ticket, HelpSection))
    return customers, tickets, sections


def _load(session: Session, data_dir: Path) -> None:
    for row in json.loads((data_dir / "customers.json").read_text(encoding="utf-8")):
        session.execute(insert(table_of(Customer)), [row])  # the file's columns only (as add_tickets)
    session.flush()
    add_tickets(session, json.loads((data_dir / "tickets.json").read_text(encoding="utf-8")))
    add_articles(session, {path.stem: path.read_text(encoding="utf-8")
                           for path in sorted((data_dir / "help").glob("*.md"))})


def add_tickets(session: Session, rows: list[dict[str, Any]]) -> None:
    """Tickets in kb_data/'s shape (their messages inside), with kb_data's own columns only (a mirror's requester
    column and its messages' attachments are not the embedded desk's); a missing time is now."""
    now = datetime.now(UTC)
    for raw in rows:
        row = {k: v for k, v in raw.items() if k != "messages"}
        row["created_at"] = _ts(row["created_at"]) if row.get("created_at") else now
        row["updated_at"] = _ts(row["updated_at"]) if row.get("updated_at") else now
        session.execute(insert(table_of(Ticket)), [row])
        for message in raw.get("messages") or []:
            when = _ts(message["created_at"]) if message.get("created_at") else now
            session.execute(insert(table_of(TicketMessage)), [{**message, "ticket_id": row["id"], "created_at": when}])


def add_articles(session: Session, articles: dict[str, str]) -> None:
    """Help articles ({slug: markdown}) as their sections, with the columns kb_data/ has (no customer link: the
    embedded desk builds it from KITEBASE_HELP_CENTER_URL)."""
    sections = [{name: getattr(section, name) for name in _SECTION_COLUMNS}
                for slug, markdown in articles.items() for section in parse_article(slug, markdown)]
    if sections:
        session.execute(insert(table_of(HelpSection)), sections)


_SECTION_COLUMNS = ("id", "article", "article_title", "number", "heading", "body")


def parse_article(slug: str, markdown: str) -> list[HelpSection]:
    """Split an article into sections: `# Title`, then `## Heading` sections numbered from 1."""
    title = slug.replace("-", " ").capitalize()
    sections: list[HelpSection] = []
    heading: str | None = None
    lines: list[str] = []

    def close() -> None:
        if heading is not None:
            number = len(sections) + 1
            sections.append(HelpSection(id=f"{slug}#{number}", article=slug, article_title=title,
                                        number=number, heading=heading, body="\n".join(lines).strip()))

    for line in markdown.splitlines():
        if line.startswith("# ") and not sections and heading is None:
            title = line[2:].strip()
        elif line.startswith("## "):
            close()
            heading, lines = line[3:].strip(), []
        elif heading is not None:
            lines.append(line)
    close()
    for section in sections:
        section.article_title = title
    return sections


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))
