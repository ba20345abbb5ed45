"""A bigger desk for the benchmarks: generated tickets and help sections, bulk-loaded into a seeded database.

A generated ticket is a desk ticket (kb_data/tickets.json) under a new id (KITE-1000 on), its first
message followed by 40 words drawn from the desk's messages and an order number; a generated help
section is a desk section with 40 words from the help center and a reference number. So the vocabulary,
the lengths and the word frequencies are the desk's, and every document is different (the generator
bench/search_scale.py used for its figures).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from bot.db.engine import Database
from bot.db.models import HelpSection, Ticket, TicketMessage
from bot.db.seed import parse_article

DATA = Path(__file__).resolve().parents[1] / "kb_data"
FIRST_GENERATED = 1000
EPOCH = datetime(2026, 6, 1, tzinfo=UTC)


@dataclass
class Generated:
    tickets: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    sections: list[dict[str, Any]]


def desk_tickets() -> list[dict[str, Any]]:
    return json.loads((DATA / "tickets.json").read_text(encoding="utf-8"))


def desk_sections() -> list[HelpSection]:
    return [s for path in sorted((DATA / "help").glob("*.md"))
            for s in parse_article(path.stem, path.read_text(encoding="utf-8"))]


def generate(tickets: int = 0, sections: int = 0, seed: int = 7) -> Generated:
    rng = random.Random(seed)
    desk = desk_tickets()
    words = [w for t in desk for m in t["messages"] for w in m["body"].split()]
    out = Generated([], [], [])
    for i in range(tickets):
        source = rng.choice(desk)
        ticket_id = f"KITE-{FIRST_GENERATED + i}"
        created = EPOCH + timedelta(minutes=7 * i)
        out.tickets.append({"id": ticket_id, "customer_id": source["customer_id"], "title": source["title"],
                            "status": source["status"], "priority": source["priority"],
                            "assignee": source["assignee"], "tags": source["tags"], "created_at": created,
                            "updated_at": created + timedelta(hours=1)})
        for k, message in enumerate(source["messages"]):
            body = message["body"]
            if k == 0:
                body += " " + " ".join(rng.choices(words, k=40)) + f" order {rng.randint(1, 10**6)}"
            out.messages.append({"ticket_id": ticket_id, "author": message["author"],
                                 "role": message["role"], "body": body,
                                 "created_at": created + timedelta(minutes=k), "run_id": None, "tool_use_id": None})
    help_sections = desk_sections()
    help_words = [w for s in help_sections for w in s.body.split()]
    for i in range(sections):
        source = rng.choice(help_sections)
        body = source.body + " " + " ".join(rng.choices(help_words, k=40)) + f" ref {rng.randint(1, 10**6)}"
        out.sections.append({"id": f"generated-{i // 8}#{i % 8 + 1}", "article": f"generated-{i // 8}",
                             "article_title": source.article_title, "number": i % 8 + 1,
                             "heading": source.heading, "body": body})
    return out


def load(db: Database, generated: Generated) -> None:
    """Bulk-load generated rows (COPY on PostgreSQL, executemany on SQLite), bypassing the ORM."""
    with db.session() as session:
        connection = session.connection()
        if db.dialect == "postgresql":
            raw = connection.connection.dbapi_connection
            for table, rows in ((Ticket.__table__, generated.tickets), (TicketMessage.__table__, generated.messages),
                                (HelpSection.__table__, generated.sections)):
                _copy(raw, table.name, rows)
        else:
            for table, rows in ((Ticket.__table__, generated.tickets), (TicketMessage.__table__, generated.messages),
                                (HelpSection.__table__, generated.sections)):
                for chunk in _chunks(rows, 5000):
                    connection.execute(insert(table), chunk)


def _chunks(rows: list[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


def _copy(raw: Any, table: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    columns = list(rows[0])
    with raw.cursor() as cursor, cursor.copy(f'COPY "{table}" ({", ".join(columns)}) FROM STDIN') as copy:
        for row in rows:
            copy.write_row([json.dumps(v) if isinstance(v, list) else v for v in (row[c] for c in columns)])

