"""drop the database's own full-text search (SQLite FTS5 ticket_fts and help_fts; PostgreSQL ticket_search and
help_search with their GIN indexes): bot/search ranks on both databases, nothing reads them any more, and the
benchmark's "engine FTS (before)" builds its own in its scratch database (bench/engine_fts.py)

Downgrade makes them again as 0001 made them and fills them from the tickets, their messages and the help
sections, as the code before this revision wrote them.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03 09:00:00.000000
"""
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

# Dropping a table drops its indexes (PostgreSQL) and an FTS5 table its shadow tables (SQLite).
TABLES = {"sqlite": ("ticket_fts", "help_fts"), "postgresql": ("ticket_search", "help_search")}

SQLITE = [
    "CREATE VIRTUAL TABLE IF NOT EXISTS ticket_fts USING fts5("
    "ticket_id UNINDEXED, title, tags, body, tokenize='porter unicode61')",
    "CREATE VIRTUAL TABLE IF NOT EXISTS help_fts USING fts5("
    "section_id UNINDEXED, heading, article_title, body, tokenize='porter unicode61')",
    # a ticket: its title, its tags joined by spaces, its messages in order joined by new lines
    "INSERT INTO ticket_fts (ticket_id, title, tags, body) SELECT t.id, t.title, "
    "COALESCE((SELECT group_concat(j.value, ' ') FROM json_each(t.tags) j), ''), "
    "COALESCE((SELECT group_concat(m.body, char(10)) FROM "
    "(SELECT body FROM ticket_message WHERE ticket_id = t.id ORDER BY id) m), '') FROM ticket t",
    "INSERT INTO help_fts (section_id, heading, article_title, body) "
    "SELECT id, heading, article_title, body FROM help_section",
]
POSTGRESQL = [
    "CREATE TABLE IF NOT EXISTS ticket_search (ticket_id TEXT PRIMARY KEY, document TSVECTOR NOT NULL)",
    "CREATE INDEX IF NOT EXISTS ix_ticket_search_document ON ticket_search USING GIN (document)",
    "CREATE TABLE IF NOT EXISTS help_search (section_id TEXT PRIMARY KEY, document TSVECTOR NOT NULL)",
    "CREATE INDEX IF NOT EXISTS ix_help_search_document ON help_search USING GIN (document)",
    "INSERT INTO ticket_search (ticket_id, document) SELECT t.id, "
    "setweight(to_tsvector('english', t.title), 'A') || setweight(to_tsvector('english', COALESCE(("
    "SELECT string_agg(tag, ' ') FROM json_array_elements_text(CASE WHEN json_typeof(t.tags) = 'array' "
    "THEN t.tags ELSE CAST('[]' AS JSON) END) tag), '')), 'B') || setweight(to_tsvector('english', COALESCE(("
    "SELECT string_agg(m.body, chr(10) ORDER BY m.id) FROM ticket_message m WHERE m.ticket_id = t.id), '')), 'D') "
    "FROM ticket t",
    "INSERT INTO help_search (section_id, document) SELECT id, "
    "setweight(to_tsvector('english', heading), 'A') || setweight(to_tsvector('english', article_title), 'B') "
    "|| setweight(to_tsvector('english', body), 'D') FROM help_section",
]


def upgrade() -> None:
    for table in TABLES.get(op.get_bind().dialect.name, ()):
        op.execute(f"DROP TABLE IF EXISTS {table}")


def downgrade() -> None:
    for statement in SQLITE if op.get_bind().dialect.name == "sqlite" else POSTGRESQL:
        op.execute(statement)
