"""A scratch copy of the desk per case: never the live desk, and nothing reaches a customer or Slack.

The embedded desk (kb_data/) is loaded once into a template SQLite file and its search analysis stored; each case
gets a copy of that file, with the case's own tickets and help articles added."""

from __future__ import annotations

import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from bot.db.engine import Database, create_schema
from bot.db.models import HelpSection, Ticket, TicketMessage, table_of
from bot.db.seed import parse_article, seed_desk
from bot.search import index_tickets
from bot.search.warm import warm_up


class ScratchDesks:
    """A folder of scratch databases, removed on close."""

    def __init__(self, data_dir: Path):
        self.folder = Path(tempfile.mkdtemp(prefix="kitebase-eval-"))
        self.template = self.folder / "template.db"
        db = Database.from_url(self._url(self.template))
        create_schema(db.engine)
        seed_desk(db, data_dir)
        warm_up(db)  # the search's analysis of every document is stored in the template, not redone per case
        db.engine.dispose()

    def desk(self, name: str, setup: dict[str, Any]) -> Database:
        """A copy of the desk with `setup`'s tickets and help articles added."""
        path = self.folder / f"{name}.db"
        shutil.copyfile(self.template, path)
        db = Database.from_url(self._url(path))
        if setup:
            add(db, setup)
        return db

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    @staticmethod
    def _url(path: Path) -> str:
        return f"sqlite:///{path}"


def add(db: Database, setup: dict[str, Any]) -> None:
    now = datetime.now(UTC)
    with db.session() as session:
        tickets = setup.get("tickets") or []
        for raw in tickets:
            row = {k: v for k, v in raw.items() if k != "messages"}
            row.setdefault("status", "open")
            row.setdefault("priority", "normal")
            row.setdefault("assignee", None)
            row.setdefault("tags", [])
            row["created_at"] = row["updated_at"] = now
            session.execute(insert(table_of(Ticket)), [row])
            for message in raw.get("messages") or []:
                session.add(TicketMessage(ticket_id=raw["id"], created_at=now, **message))
        for article in setup.get("help") or []:
            sections = parse_article(article["slug"], article["markdown"])
            session.add_all(HelpSection(**{k: getattr(s, k) for k in ("id", "article", "article_title", "number",
                                                                       "heading", "body")}) for s in sections)
        session.flush()
        if tickets:
            index_tickets(session, [t["id"] for t in tickets])
