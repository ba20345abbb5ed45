"""The database's own full-text index of the stored documents, where a search's candidates come from.

One index per kind of document: `search_fts_help` and `search_fts_ticket` (migration 0019). A document's row has
the same id as its `search_document` row and holds its analysed terms as tokens `t<term number>`, each
repeated by its frequency in a field (at most REPEAT_MAX times): on SQLite an FTS5 table with a column per
field, ranked by FTS5's bm25 with the fields' weights; on PostgreSQL a tsvector whose positions carry a weight
class per field, in a GIN index, ranked by ts_rank. Tokens are numbers, so no tokenizer or dictionary of
either database changes what a term is: the analyser (analyzer.py) decided that once for both.

A search asks for each of its chosen terms the best few documents holding it (`candidates`); the database
ranks at most `scan` rows per term, so the work stays bounded on a desk of any size, and scores nothing
itself beyond that: the candidates are ranked exactly in Python (scoring.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy import text
from sqlmodel import Session

from bot.search.bm25f import FieldParams
from bot.search.documents import HELP_FIELDS, TICKET_FIELDS
from bot.search.terms import listed, values

FIELDS = {"help": HELP_FIELDS, "ticket": TICKET_FIELDS}
WEIGHT_CLASSES = {"help": "ABC", "ticket": "BBABD"}  # PostgreSQL's class of each field, as migration 0019 wrote
REPEAT_MAX = 8
CHUNK = 500


def token(number: int) -> str:
    return f"t{number}"


def field_tokens(terms: np.ndarray, tfs: np.ndarray) -> list[list[str]]:
    """Per field, a document's terms as tokens, each repeated by its frequency there (at most REPEAT_MAX)."""
    out: list[list[str]] = [[] for _ in range(tfs.shape[1])]
    for number, row in zip(terms.tolist(), tfs.tolist(), strict=True):
        for f, count in enumerate(row):
            if count:
                out[f] += [token(number)] * min(count, REPEAT_MAX)
    return out


def tsvector(fields: list[list[str]], classes: str) -> str:
    """PostgreSQL's text form of a tsvector: each token with its positions, each position with its field's
    weight class."""
    position = 0
    found: dict[str, list[str]] = {}
    for tokens, weight in zip(fields, classes, strict=True):
        for name in tokens:
            position += 1
            found.setdefault(name, []).append(f"{min(position, 16383)}{weight}")
    return " ".join(f"{name}:{','.join(positions)}" for name, positions in found.items())


@dataclass(frozen=True)
class Row:
    id: int
    terms: np.ndarray
    tfs: np.ndarray


def _postgres(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def delete(session: Session, kind: str, ids: Sequence[int]) -> None:
    if not ids:
        return
    column = "id" if _postgres(session) else "rowid"
    statement = text(f"DELETE FROM search_fts_{kind} WHERE {listed(session, column, 'ids')}")
    for start in range(0, len(ids), CHUNK):
        session.execute(statement, {"ids": values(session, list(ids[start:start + CHUNK]))})


def put(session: Session, kind: str, rows: Sequence[Row]) -> None:
    """Index documents whose rows are new (`delete` first what a changed document had)."""
    if not rows:
        return
    fields = FIELDS[kind]
    if _postgres(session):
        statement = text(f"INSERT INTO search_fts_{kind} (id, tsv) VALUES (:id, CAST(:tsv AS tsvector))")
        params = [{"id": row.id, "tsv": tsvector(field_tokens(row.terms, row.tfs), WEIGHT_CLASSES[kind])}
                  for row in rows]
    else:
        statement = text(f"INSERT INTO search_fts_{kind} (rowid, {', '.join(fields)}) VALUES "
                         f"(:id, {', '.join(':' + name for name in fields)})")
        params = [{"id": row.id, **{name: " ".join(tokens) for name, tokens in
                                    zip(fields, field_tokens(row.terms, row.tfs), strict=True)}} for row in rows]
    for start in range(0, len(params), CHUNK):
        session.execute(statement, params[start:start + CHUNK])


def candidates(session: Session, kind: str, picks: Sequence[tuple[int, int]], params: FieldParams, scan: int,
               status: str | None = None) -> list[int]:
    """Document ids: for each (term number, n) of `picks`, the n documents the database ranks best for that
    term among the first `scan` holding it (all of them when fewer), optionally only tickets in `status`
    now. One statement."""
    if not picks:
        return []
    parts: list[str] = []
    bound: dict[str, object] = {}
    postgres = _postgres(session)
    for i, (number, n) in enumerate(picks):
        bound[f"q{i}"], bound[f"n{i}"] = token(number), int(n)
        parts.append(_pg_part(kind, i, status, params) if postgres else _sqlite_part(kind, i, status, params))
    bound["scan"] = int(scan)
    if status is not None:
        bound["status"] = status
    statement = text(" UNION ".join(parts))
    return [int(row[0]) for row in session.execute(statement, bound)]


def _sqlite_part(kind: str, i: int, status: str | None, params: FieldParams) -> str:
    table = f"search_fts_{kind}"
    rank = f"bm25({table}, {', '.join(repr(float(w)) for w in params.weights)})"
    if status is None:
        inner = f"SELECT rowid AS id, {rank} AS r FROM {table} WHERE {table} MATCH :q{i} LIMIT :scan"
    else:
        inner = (f"SELECT {table}.rowid AS id, {rank} AS r FROM {table} JOIN search_document d ON "
                 f"d.id = {table}.rowid JOIN ticket t ON t.id = d.key WHERE {table} MATCH :q{i} "
                 f"AND t.status = :status LIMIT :scan")
    return f"SELECT id FROM (SELECT id FROM ({inner}) ORDER BY r LIMIT :n{i})"


def _pg_part(kind: str, i: int, status: str | None, params: FieldParams) -> str:
    table = f"search_fts_{kind}"
    query = f"CAST(:q{i} AS tsquery)"
    if status is None:
        inner = f"SELECT id, tsv FROM {table} WHERE tsv @@ {query} LIMIT :scan"
    else:
        inner = (f"SELECT f.id, f.tsv FROM {table} f JOIN search_document d ON d.id = f.id JOIN ticket t ON "
                 f"t.id = d.key WHERE f.tsv @@ {query} AND t.status = :status LIMIT :scan")
    return (f"(SELECT s.id FROM ({inner}) s ORDER BY ts_rank('{_pg_weights(kind, params)}', s.tsv, {query}, 1) "
            f"DESC LIMIT :n{i})")


def _pg_weights(kind: str, params: FieldParams) -> str:
    """ts_rank's weights of the classes D, C, B, A: each class's heaviest field, relative to the heaviest field
    (a class no field uses keeps 0.1)."""
    heaviest = max(params.weights) or 1.0
    by_class: dict[str, float] = {}
    for weight_class, weight in zip(WEIGHT_CLASSES[kind], params.weights, strict=True):
        by_class[weight_class] = max(weight / heaviest, by_class.get(weight_class, 0.0))
    return "{" + ", ".join(f"{by_class.get(c, 0.1):.3f}" for c in "DCBA") + "}"
