"""The search's candidates come from the database: a full-text index per kind of document (FTS5 on SQLite, a
tsvector with a GIN index on PostgreSQL), term statistics, and a queue of documents whose rows changed; the
whole desk's index no longer lives in every process's memory (bot/search/)

- search_document gets an integer id (the full-text index's row) and keeps everything it stored: no document is
  analysed again;
- search_fts_help / search_fts_ticket: each document's terms as tokens `t<term number>`, repeated by their
  frequency, one column per field (SQLite) or one weight class per field (PostgreSQL);
- search_stat / search_total: how many documents hold each term and word, and BM25F's field lengths;
- search_pending, filled by triggers whoever writes, replaces desk_change (0006): the search stores what a writer
  left unanalysed, instead of comparing the rows with an index held in memory.

The index is built here from the stored analysis, in chunks, with a line of progress every 20,000 documents on
a big desk (the CLI shows warnings; the line says how far it is).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05 14:00:00.000000
"""
import logging
import time
from collections import Counter

import numpy as np
import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None

logger = logging.getLogger("bot.db.migrate")

FIELDS = {"help": ("heading", "article", "body"), "ticket": ("title", "tags", "first", "errors", "rest")}
# PostgreSQL weight class per field (the classes rank A > B > C > D), as bot/search/fts.py writes them
WEIGHTS = {"help": "ABC", "ticket": "BBABD"}
REPEAT_MAX = 8  # as bot/search/fts.py: a term's frequency in a field is written at most this many times
CHUNK = 2000
PROGRESS_EVERY = 20_000

PENDING = "INSERT INTO search_pending (kind, key) VALUES ('{kind}', {key}) ON CONFLICT DO NOTHING;"
SQLITE_TRIGGERS = [
    ("search_ticket_added", "INSERT", "ticket", PENDING.format(kind="ticket", key="NEW.id")),
    ("search_ticket_changed", "UPDATE OF title, tags", "ticket", PENDING.format(kind="ticket", key="NEW.id")),
    ("search_ticket_removed", "DELETE", "ticket", PENDING.format(kind="ticket", key="OLD.id")),
    ("search_message_added", "INSERT", "ticket_message", PENDING.format(kind="ticket", key="NEW.ticket_id")),
    ("search_message_changed", "UPDATE", "ticket_message", PENDING.format(kind="ticket", key="NEW.ticket_id")),
    ("search_message_removed", "DELETE", "ticket_message", PENDING.format(kind="ticket", key="OLD.ticket_id")),
    ("search_help_added", "INSERT", "help_section", PENDING.format(kind="help", key="NEW.id")),
    ("search_help_changed", "UPDATE", "help_section", PENDING.format(kind="help", key="NEW.id")),
    ("search_help_removed", "DELETE", "help_section", PENDING.format(kind="help", key="OLD.id")),
]
PG_FUNCTIONS = {  # function -> (table, events, the key of the row)
    "search_ticket_pending": ("ticket", "INSERT OR DELETE OR UPDATE OF title, tags", "ticket", "id"),
    "search_message_pending": ("ticket_message", "INSERT OR UPDATE OR DELETE", "ticket", "ticket_id"),
    "search_help_pending": ("help_section", "INSERT OR UPDATE OR DELETE", "help", "id"),
}
OLD_SQLITE_TRIGGERS = ("desk_ticket_added", "desk_ticket_removed", "desk_help_added", "desk_help_changed",
                       "desk_help_removed")


def upgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    _drop_desk_change(postgres)
    _new_document_table()
    op.create_table('search_stat',
                    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
                    sa.Column('term_id', sa.Integer(), nullable=False),
                    sa.Column('docs', sa.Integer(), nullable=False),
                    sa.Column('words', sa.Integer(), nullable=False),
                    sa.PrimaryKeyConstraint('kind', 'term_id'))
    op.create_table('search_total',
                    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
                    sa.Column('docs', sa.BigInteger(), nullable=False),
                    *[sa.Column(f'field_{i}', sa.BigInteger(), nullable=False) for i in range(5)],
                    sa.PrimaryKeyConstraint('kind'))
    op.create_table('search_pending',
                    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
                    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
                    sa.PrimaryKeyConstraint('kind', 'key'))
    for kind in FIELDS:
        if postgres:
            op.execute(f"CREATE TABLE search_fts_{kind} (id INTEGER PRIMARY KEY, tsv tsvector NOT NULL)")
        else:
            op.execute(f"CREATE VIRTUAL TABLE search_fts_{kind} USING fts5({', '.join(FIELDS[kind])})")
    _build(postgres)
    for kind in FIELDS:
        if postgres:  # built after the rows are in: one pass, much faster than keeping it up row by row
            op.execute(f"CREATE INDEX search_fts_{kind}_tsv ON search_fts_{kind} USING gin (tsv)")
            op.execute(f"ANALYZE search_fts_{kind}")
    _pending_triggers(postgres)
    # tickets and sections nobody analysed yet (or changed since): the first search stores them
    op.execute("INSERT INTO search_pending (kind, key) SELECT 'ticket', t.id FROM ticket t WHERE NOT EXISTS "
               "(SELECT 1 FROM search_document d WHERE d.kind = 'ticket' AND d.key = t.id)")
    op.execute("INSERT INTO search_pending (kind, key) SELECT 'help', h.id FROM help_section h WHERE NOT EXISTS "
               "(SELECT 1 FROM search_document d WHERE d.kind = 'help' AND d.key = h.id)")
    op.execute("INSERT INTO search_pending (kind, key) SELECT d.kind, d.key FROM search_document d WHERE "
               "(d.kind = 'ticket' AND NOT EXISTS (SELECT 1 FROM ticket t WHERE t.id = d.key)) OR "
               "(d.kind = 'help' AND NOT EXISTS (SELECT 1 FROM help_section h WHERE h.id = d.key))")
    # stored without a vector (help sections had none; tickets stored while the model could not be used)
    op.execute("INSERT INTO search_pending (kind, key) SELECT kind, key FROM search_document WHERE vector IS NULL "
               "ON CONFLICT DO NOTHING")


def _drop_desk_change(postgres: bool) -> None:
    if postgres:
        op.execute("DROP TRIGGER IF EXISTS desk_tickets_changed ON ticket")
        op.execute("DROP TRIGGER IF EXISTS desk_help_changed ON help_section")
        op.execute("DROP FUNCTION IF EXISTS desk_tickets_changed()")
        op.execute("DROP FUNCTION IF EXISTS desk_help_changed()")
    else:
        for name in OLD_SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    op.drop_table('desk_change')


def _new_document_table() -> None:
    """search_document again with an integer id, every stored row copied."""
    op.create_table('search_document_new',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
                    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
                    sa.Column('source', sa.BigInteger(), nullable=False),
                    sa.Column('updated', sa.Float(), nullable=False),
                    sa.Column('terms', sa.LargeBinary(), nullable=False),
                    sa.Column('tfs', sa.LargeBinary(), nullable=False),
                    sa.Column('words', sa.LargeBinary(), nullable=False),
                    sa.Column('lengths', sa.LargeBinary(), nullable=False),
                    sa.Column('vector', sa.LargeBinary(), nullable=True),
                    sa.PrimaryKeyConstraint('id'),
                    sa.UniqueConstraint('kind', 'key', name='uq_search_document_kind_key'))
    op.execute("INSERT INTO search_document_new (kind, key, source, updated, terms, tfs, words, lengths, vector) "
               "SELECT kind, key, source, updated, terms, tfs, words, lengths, vector FROM search_document "
               "ORDER BY kind, key")
    op.drop_table('search_document')
    op.rename_table('search_document_new', 'search_document')


def _tokens(terms: np.ndarray, tfs: np.ndarray) -> list[list[str]]:
    """Per field, the document's terms as tokens, each repeated by its frequency there (at most REPEAT_MAX)."""
    out: list[list[str]] = [[] for _ in range(tfs.shape[1] if tfs.ndim == 2 else 0)]
    for number, row in zip(terms.tolist(), tfs.tolist(), strict=True):
        for f, count in enumerate(row):
            if count:
                out[f] += [f"t{number}"] * min(count, REPEAT_MAX)
    return out


def _tsvector(fields: list[list[str]], weights: str) -> str:
    position, parts = 0, []
    found: dict[str, list[str]] = {}
    for tokens, weight in zip(fields, weights, strict=False):
        for token in tokens:
            position += 1
            found.setdefault(token, []).append(f"{min(position, 16383)}{weight}")
    for token, positions in found.items():
        parts.append(f"{token}:{','.join(positions)}")
    return " ".join(parts)


def _build(postgres: bool) -> None:
    """The full-text rows and the statistics, from the stored analysis."""
    bind = op.get_bind()
    total = bind.execute(sa.text("SELECT count(*) FROM search_document")).scalar() or 0
    started, done, next_report = time.monotonic(), 0, PROGRESS_EVERY
    if total >= PROGRESS_EVERY:
        logger.warning("search: building the database's full-text index for %d documents (migration 0019)", total)
    for kind, fields in FIELDS.items():
        docs: Counter[int] = Counter()
        words: Counter[int] = Counter()
        count, lengths = 0, np.zeros(5, dtype=np.int64)
        last = 0
        while True:
            rows = bind.execute(sa.text("SELECT id, terms, tfs, words, lengths FROM search_document WHERE kind = :kind "
                                        "AND id > :last ORDER BY id LIMIT :n"),
                                {"kind": kind, "last": last, "n": CHUNK}).all()
            if not rows:
                break
            fts_rows = []
            for row in rows:
                terms = np.frombuffer(row.terms, dtype=np.int32)
                tfs = np.frombuffer(row.tfs, dtype=np.uint8).reshape(len(terms), len(fields))
                docs.update(terms.tolist())
                words.update(np.frombuffer(row.words, dtype=np.int32).tolist())
                own = np.frombuffer(row.lengths, dtype=np.int32)
                lengths[:len(own)] += own
                count += 1
                tokens = _tokens(terms, tfs)
                if postgres:
                    fts_rows.append({"id": row.id, "tsv": _tsvector(tokens, WEIGHTS[kind])})
                else:
                    fts_rows.append({"id": row.id, **{name: " ".join(t) for name, t in zip(fields, tokens, strict=True)}})
            if postgres:
                bind.execute(sa.text(f"INSERT INTO search_fts_{kind} (id, tsv) VALUES (:id, CAST(:tsv AS tsvector))"),
                             fts_rows)
            else:
                bind.execute(sa.text(f"INSERT INTO search_fts_{kind} (rowid, {', '.join(fields)}) VALUES "
                                     f"(:id, {', '.join(':' + name for name in fields)})"), fts_rows)
            last = rows[-1].id
            done += len(rows)
            if done >= next_report:
                logger.warning("search: %d of %d documents in the full-text index (%.0f s)", done, total,
                               time.monotonic() - started)
                next_report += PROGRESS_EVERY
        ids = sorted(set(docs) | set(words))
        for start in range(0, len(ids), CHUNK):
            bind.execute(sa.text("INSERT INTO search_stat (kind, term_id, docs, words) VALUES (:kind, :t, :d, :w)"),
                         [{"kind": kind, "t": t, "d": docs.get(t, 0), "w": words.get(t, 0)}
                          for t in ids[start:start + CHUNK]])
        bind.execute(sa.text("INSERT INTO search_total (kind, docs, field_0, field_1, field_2, field_3, field_4) "
                             "VALUES (:kind, :docs, :f0, :f1, :f2, :f3, :f4)"),
                     {"kind": kind, "docs": count, **{f"f{i}": int(lengths[i]) for i in range(5)}})
    if total >= PROGRESS_EVERY:
        logger.warning("search: the full-text index holds %d documents (%.0f s)", done, time.monotonic() - started)


def _pending_triggers(postgres: bool) -> None:
    if not postgres:
        for name, event, table, body in SQLITE_TRIGGERS:  # SQLite has row triggers only
            op.execute(f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN {body} END")
        return
    for function, (table, events, kind, column) in PG_FUNCTIONS.items():
        op.execute(f"""
            CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    {PENDING.format(kind=kind, key='OLD.' + column)}
                ELSE
                    {PENDING.format(kind=kind, key='NEW.' + column)}
                END IF;
                RETURN NULL;
            END $$""")
        op.execute(f"CREATE TRIGGER {function} AFTER {events} ON {table} FOR EACH ROW EXECUTE FUNCTION {function}()")


def downgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    if postgres:
        for function, (table, _events, _kind, _column) in PG_FUNCTIONS.items():
            op.execute(f"DROP TRIGGER IF EXISTS {function} ON {table}")
            op.execute(f"DROP FUNCTION IF EXISTS {function}()")
    else:
        for name, _event, _table, _body in SQLITE_TRIGGERS:
            op.execute(f"DROP TRIGGER IF EXISTS {name}")
    for kind in FIELDS:
        op.execute(f"DROP TABLE IF EXISTS search_fts_{kind}")
    op.drop_table('search_pending')
    op.drop_table('search_total')
    op.drop_table('search_stat')
    # search_document as 0004 made it (kind and key its primary key), every stored row kept
    op.create_table('search_document_old',
                    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
                    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=128), nullable=False),
                    sa.Column('source', sa.BigInteger(), nullable=False),
                    sa.Column('updated', sa.Float(), nullable=False),
                    sa.Column('terms', sa.LargeBinary(), nullable=False),
                    sa.Column('tfs', sa.LargeBinary(), nullable=False),
                    sa.Column('words', sa.LargeBinary(), nullable=False),
                    sa.Column('lengths', sa.LargeBinary(), nullable=False),
                    sa.Column('vector', sa.LargeBinary(), nullable=True),
                    sa.PrimaryKeyConstraint('kind', 'key'))
    op.execute("INSERT INTO search_document_old SELECT kind, key, source, updated, terms, tfs, words, lengths, vector "
               "FROM search_document")
    op.drop_table('search_document')
    op.rename_table('search_document_old', 'search_document')
    op.create_table('desk_change',
                    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
                    sa.Column('version', sa.BigInteger(), nullable=False),
                    sa.PrimaryKeyConstraint('kind'))
    op.execute("INSERT INTO desk_change (kind, version) VALUES ('ticket', 1), ('help', 1)")
    bump = "UPDATE desk_change SET version = version + 1 WHERE kind = '{kind}';"
    forget = "DELETE FROM search_document WHERE kind = 'help' AND key = OLD.id;"
    if not postgres:
        for name, event, table, body in [
                ("desk_ticket_added", "INSERT", "ticket", bump.format(kind="ticket")),
                ("desk_ticket_removed", "DELETE", "ticket", bump.format(kind="ticket")),
                ("desk_help_added", "INSERT", "help_section", bump.format(kind="help")),
                ("desk_help_changed", "UPDATE", "help_section", forget + " " + bump.format(kind="help")),
                ("desk_help_removed", "DELETE", "help_section", forget + " " + bump.format(kind="help"))]:
            op.execute(f"CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN {body} END")
        return
    op.execute(f"""CREATE FUNCTION desk_tickets_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN {bump.format(kind="ticket")} RETURN NULL; END $$""")
    op.execute(f"""CREATE FUNCTION desk_help_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF TG_OP <> 'INSERT' THEN {forget} END IF; {bump.format(kind="help")} RETURN NULL; END $$""")
    op.execute("CREATE TRIGGER desk_tickets_changed AFTER INSERT OR DELETE ON ticket "
               "FOR EACH STATEMENT EXECUTE FUNCTION desk_tickets_changed()")
    op.execute("CREATE TRIGGER desk_help_changed AFTER INSERT OR UPDATE OR DELETE ON help_section "
               "FOR EACH ROW EXECUTE FUNCTION desk_help_changed()")
