"""The database's own full-text search, the "engine FTS (before)" baseline of `python -m bench.search_eval`:
SQLite FTS5 ranked with bm25, or PostgreSQL tsvector + GIN ranked with ts_rank, as the agent's tools searched
before bot/search. The product no longer keeps these tables (migration 0008 dropped them); `build` makes them
in the benchmark's scratch database from its rows, the way the product wrote them on every change.

Queries are reduced to plain words (bot.search.words.query_terms) before they reach either engine, so FTS
operators, quotes and punctuation are searched for as words, never interpreted.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, literal_column, text
from sqlalchemy.engine import Connection
from sqlmodel import Session, col, select

from bot.db.engine import Database
from bot.db.models import HelpSection, Ticket, TicketMessage

# --- schema -----------------------------------------------------------------------------------


def create_tables(conn: Connection) -> None:
    if conn.dialect.name == "sqlite":
        conn.execute(text(
            "CREATE VIRTUAL TABLE IF NOT EXISTS ticket_fts USING fts5("
            "ticket_id UNINDEXED, title, tags, body, tokenize='porter unicode61')"))
        conn.execute(text(
            "CREATE VIRTUAL TABLE IF NOT EXISTS help_fts USING fts5("
            "section_id UNINDEXED, heading, article_title, body, tokenize='porter unicode61')"))
    elif conn.dialect.name == "postgresql":
        conn.execute(text(
            "CREATE TABLE IF NOT EXISTS ticket_search (ticket_id TEXT PRIMARY KEY, document TSVECTOR NOT NULL)"))
        conn.execute(text(
            "CREATE INDEX IF NOT EXISTS ix_ticket_search_document ON ticket_search USING GIN (document)"))
        conn.execute(text(
            "CREATE TABLE IF NOT EXISTS help_search (section_id TEXT PRIMARY KEY, document TSVECTOR NOT NULL)"))
        conn.execute(text(
            "CREATE INDEX IF NOT EXISTS ix_help_search_document ON help_search USING GIN (document)"))
    else:
        raise RuntimeError(f"full-text search is not implemented for {conn.dialect.name}")


def build(db: Database) -> None:
    """The full-text tables of `db`, made and filled from its tickets, their messages and its help sections,
    in the order the rows were inserted (as the seed wrote them)."""
    with db.session() as session:
        create_tables(session.connection())
        inserted: ColumnElement[Any] = literal_column("rowid" if _dialect(session) == "sqlite" else "ctid")
        bodies: dict[str, list[str]] = {}
        for ticket_id, body in session.exec(select(TicketMessage.ticket_id, TicketMessage.body)
                                            .order_by(col(TicketMessage.id))):
            bodies.setdefault(ticket_id, []).append(body)
        for ticket in session.exec(select(Ticket).order_by(inserted)).all():
            index_ticket(session, ticket_id=ticket.id, title=ticket.title, tags=ticket.tags or [],
                         body="\n".join(bodies.get(ticket.id, [])))
        for section in session.exec(select(HelpSection).order_by(inserted)).all():
            index_help_section(session, section_id=section.id, heading=section.heading,
                               article_title=section.article_title, body=section.body)


# --- indexing -----------------------------------------------------------------------------------

def index_ticket(session: Session, *, ticket_id: str, title: str, tags: list[str], body: str) -> None:
    params = {"id": ticket_id, "title": title, "tags": " ".join(tags), "body": body}
    if _dialect(session) == "sqlite":
        session.execute(text("DELETE FROM ticket_fts WHERE ticket_id = :id"), {"id": ticket_id})
        session.execute(text(
            "INSERT INTO ticket_fts (ticket_id, title, tags, body) VALUES (:id, :title, :tags, :body)"), params)
    else:
        session.execute(text(
            "INSERT INTO ticket_search (ticket_id, document) VALUES (:id, "
            "setweight(to_tsvector('english', :title), 'A') || setweight(to_tsvector('english', :tags), 'B')"
            " || setweight(to_tsvector('english', :body), 'D')) "
            "ON CONFLICT (ticket_id) DO UPDATE SET document = EXCLUDED.document"), params)


def index_help_section(session: Session, *, section_id: str, heading: str, article_title: str, body: str) -> None:
    params = {"id": section_id, "heading": heading, "article": article_title, "body": body}
    if _dialect(session) == "sqlite":
        session.execute(text("DELETE FROM help_fts WHERE section_id = :id"), {"id": section_id})
        session.execute(text(
            "INSERT INTO help_fts (section_id, heading, article_title, body) "
            "VALUES (:id, :heading, :article, :body)"), params)
    else:
        session.execute(text(
            "INSERT INTO help_search (section_id, document) VALUES (:id, "
            "setweight(to_tsvector('english', :heading), 'A') || setweight(to_tsvector('english', :article), 'B')"
            " || setweight(to_tsvector('english', :body), 'D')) "
            "ON CONFLICT (section_id) DO UPDATE SET document = EXCLUDED.document"), params)


# --- querying -----------------------------------------------------------------------------------

def search_ticket_ids(session: Session, terms: list[str], *, status: str | None, limit: int,
                      exclude: str | None = None) -> list[tuple[str, float]]:
    """Ticket ids ranked by relevance (best first), any of the terms matching."""
    params: dict[str, object] = {"status": status, "limit": limit, "exclude": exclude or ""}
    if _dialect(session) == "sqlite":
        params["q"] = " OR ".join(f'"{t}"' for t in terms)
        sql = ("SELECT f.ticket_id, bm25(ticket_fts, 0.0, 6.0, 3.0, 1.0) AS score FROM ticket_fts f "
               "JOIN ticket t ON t.id = f.ticket_id WHERE ticket_fts MATCH :q "
               "AND (:status IS NULL OR t.status = :status) AND f.ticket_id != :exclude "
               "ORDER BY score, t.updated_at DESC LIMIT :limit")
        return [(row[0], -float(row[1])) for row in session.execute(text(sql), params)]
    params["q"] = " | ".join(terms)
    sql = ("SELECT s.ticket_id, ts_rank(s.document, q) AS score FROM ticket_search s "
           "JOIN ticket t ON t.id = s.ticket_id, to_tsquery('english', :q) q WHERE s.document @@ q "
           "AND (CAST(:status AS TEXT) IS NULL OR t.status = :status) AND s.ticket_id != :exclude "
           "ORDER BY score DESC, t.updated_at DESC LIMIT :limit")
    return [(row[0], float(row[1])) for row in session.execute(text(sql), params)]


def search_help_ids(session: Session, terms: list[str], *, limit: int) -> list[tuple[str, float]]:
    """Help section ids ranked by relevance (best first), any of the terms matching."""
    params: dict[str, object] = {"limit": limit}
    if _dialect(session) == "sqlite":
        params["q"] = " OR ".join(f'"{t}"' for t in terms)
        sql = ("SELECT section_id, bm25(help_fts, 0.0, 6.0, 2.0, 1.0) AS score FROM help_fts "
               "WHERE help_fts MATCH :q ORDER BY score LIMIT :limit")
        return [(row[0], -float(row[1])) for row in session.execute(text(sql), params)]
    params["q"] = " | ".join(terms)
    sql = ("SELECT section_id, ts_rank(document, q) AS score FROM help_search, to_tsquery('english', :q) q "
           "WHERE document @@ q ORDER BY score DESC LIMIT :limit")
    return [(row[0], float(row[1])) for row in session.execute(text(sql), params)]


def _dialect(session: Session) -> str:
    return session.get_bind().dialect.name
