"""A scratch copy of the desk per case: never the live desk, and nothing reaches a customer or Slack.

The embedded desk (kb_data/) is loaded once into a template SQLite file and its search analysis stored; each case
gets a copy of that file, with the case's own tickets and help articles added."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from bot.db.engine import Database, create_schema
from bot.db.seed import add_articles, add_tickets, seed_desk
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
    """A case's own tickets (kb_data/'s shape; status open, priority normal unless given) and help articles."""
    tickets = [{"status": "open", "priority": "normal", "assignee": None, "tags": [], **t}
               for t in setup.get("tickets") or []]
    with db.session() as session:
        add_tickets(session, tickets)
        add_articles(session, {a["slug"]: a["markdown"] for a in setup.get("help") or []})
        session.flush()
        if tickets:
            index_tickets(session, [t["id"] for t in tickets])
