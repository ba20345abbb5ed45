"""The search's analysis of each document, stored in the database with everything a search reads of it.

`search_document` holds one row per help section or ticket: its terms (as numbers, terms.py) with their
frequency in each field, its surface words (for typo correction), its field lengths, its vector (vectors.py)
and `source`, the version of the rows it was analysed from (a ticket's newest message id). Storing a document
also writes, in the same transaction: its row of the full-text index (fts.py), the change it makes to the
statistics (how many documents hold each term and word, the number of documents and their field lengths:
terms.py), and the end of its entry in search_pending (catch_up.py). So what a search reads is always one
consistent state, whoever wrote.

Concurrent stores of one document are serialised by its row (PostgreSQL: SELECT … FOR UPDATE, keys in order;
SQLite: the database's one writer, taken by the first statement, a write) and each counts the change from
the row it replaced, so the statistics stay exact. The statistics' rows are updated last and in the order of
their keys, so two transactions never wait on each other's in a circle.
"""

from __future__ import annotations

import functools
import logging
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlmodel import Session

from bot.search import fts, vectors
from bot.search.analyzer import Analyzer
from bot.search.documents import Document
from bot.search.terms import Vocabulary, listed, values

logger = logging.getLogger(__name__)

ANALYZER = Analyzer()
MAX_TERM_CHARS = 240  # a pasted token longer than this is stored cut (a unique index has a size limit)
TF_MAX = 255
CHUNK = 500


@dataclass(frozen=True)
class Analysis:
    """A document as the index sees it: term -> frequency in each field, surface words, field lengths."""

    terms: dict[str, tuple[int, ...]]
    words: frozenset[str]
    lengths: tuple[int, ...]


@functools.lru_cache(maxsize=4096)
def analyse(fields: tuple[str, ...]) -> Analysis:
    """Remembered: every process (and every test database) analyses mostly the same texts."""
    terms: dict[str, list[int]] = {}
    words: set[str] = set()
    lengths = []
    for f, value in enumerate(fields):
        counts, surface, length = _field(value)
        for term, count in counts.items():
            row = terms.get(term)
            if row is None:
                row = terms[term] = [0] * len(fields)
            row[f] = min(count, TF_MAX)
        words.update(surface)
        lengths.append(length)
    if any(len(t) > MAX_TERM_CHARS for t in terms) or any(len(w) > MAX_TERM_CHARS for w in words):
        return _cut_long(terms, words, tuple(lengths))
    return Analysis({t: tuple(c) for t, c in terms.items()}, frozenset(words), tuple(lengths))


@functools.lru_cache(maxsize=8192)
def _field(value: str) -> tuple[Counter[str], frozenset[str], int]:
    """One field's term counts, surface words and length (titles, tags and notes repeat across documents)."""
    found, surface = ANALYZER.terms_and_words(value)
    return Counter(found), frozenset(surface), len(found)


def _cut_long(terms: dict[str, list[int]], words: set[str], lengths: tuple[int, ...]) -> Analysis:
    """Terms longer than the stored limit, cut (two of them may become one)."""
    cut: dict[str, list[int]] = {}
    for term, counts in terms.items():
        row = cut.setdefault(term[:MAX_TERM_CHARS], [0] * len(counts))
        cut[term[:MAX_TERM_CHARS]] = [min(a + b, TF_MAX) for a, b in zip(row, counts, strict=True)]
    return Analysis({t: tuple(c) for t, c in cut.items()}, frozenset(w[:MAX_TERM_CHARS] for w in words), lengths)


@dataclass
class Stored:
    """A stored document, decoded: term numbers (ascending) with their field frequencies, word numbers,
    field lengths, vector."""

    id: int
    key: str
    source: int
    updated: float
    lengths: np.ndarray  # int32 (fields,)
    terms: np.ndarray  # int32 (n,)
    tfs: np.ndarray  # uint8 (n, fields)
    words: np.ndarray  # int32 (m,)
    vector: np.ndarray | None = None  # float16 (vectors.DIM,)


def encode(analysis: Analysis, numbers: dict[str, int], fields: int) -> dict[str, bytes]:
    order = sorted(analysis.terms, key=numbers.__getitem__)
    terms = np.fromiter((numbers[t] for t in order), dtype=np.int32, count=len(order))
    tfs = np.array([analysis.terms[t] for t in order], dtype=np.uint8).reshape(len(order), fields)
    words = np.sort(np.fromiter((numbers[w] for w in analysis.words), dtype=np.int32, count=len(analysis.words)))
    return {"terms": terms.tobytes(), "tfs": tfs.tobytes(), "words": words.tobytes(),
            "lengths": np.array(analysis.lengths, dtype=np.int32).tobytes()}


def decode(row: Any, fields: int) -> Stored:
    terms = np.frombuffer(row.terms, dtype=np.int32)
    vector = getattr(row, "vector", None)
    return Stored(int(row.id), row.key, int(getattr(row, "source", 0)), float(getattr(row, "updated", 0.0)),
                  np.frombuffer(row.lengths, dtype=np.int32), terms,
                  np.frombuffer(row.tfs, dtype=np.uint8).reshape(len(terms), fields),
                  np.frombuffer(row.words, dtype=np.int32) if getattr(row, "words", None) is not None
                  else np.zeros(0, np.int32), vectors.decode(vector))


# --- storing ------------------------------------------------------------------------------------------

def store(session: Session, vocabulary: Vocabulary, kind: str, docs: list[tuple[Document, int]],
          fields: int) -> None:
    """Analyse and store documents (each with its source version), replacing what was stored for them."""
    store_analysed(session, vocabulary, kind, [(doc, source, analyse(doc.fields)) for doc, source in docs], fields)


def store_analysed(session: Session, vocabulary: Vocabulary, kind: str,
                   analyses: list[tuple[Document, int, Analysis]], fields: int) -> None:
    """Store documents already analysed (a bulk load analyses once for several databases), with their vectors.
    The vectors are computed before the first write: on SQLite a write holds the database's one write lock
    until commit, and embedding a whole desk on a slow machine held it past every other process's busy timeout
    (six first starts at once: "database is locked")."""
    if not analyses:
        return
    found = _vectors([doc for doc, _, _ in analyses])
    latest = {doc.key: (doc, source, analysis, vector)
              for (doc, source, analysis), vector in zip(analyses, found, strict=True)}
    keys = sorted(latest)
    _done_pending(session, kind, keys)  # first, and a write: SQLite's write lock before anything is read
    old = _locked(session, kind, keys, fields)
    numbers = vocabulary.numbers(session, {t for _, _, a, _ in latest.values() for t in [*a.terms, *a.words]})
    rows = {key: {"kind": kind, "key": key, "source": source, "updated": doc.updated,
                  **encode(analysis, numbers, fields), "vector": vectors.encode(vector)}
            for key, (doc, source, analysis, vector) in latest.items()}
    new = [key for key in keys if key not in old]
    inserted = _insert(session, [rows[key] for key in new])
    raced = [key for key in new if key not in inserted]  # another transaction stored it first: replace theirs
    if raced:
        old.update(_locked(session, kind, raced, fields))
    changed = [key for key in keys if key in old]
    if changed:
        session.execute(text("UPDATE search_document SET source = :source, updated = :updated, terms = :terms, "
                             "tfs = :tfs, words = :words, lengths = :lengths, vector = :vector WHERE id = :id"),
                        [{**rows[key], "id": old[key].id} for key in changed])
    ids = {**inserted, **{key: old[key].id for key in changed}}
    fts.delete(session, kind, [old[key].id for key in changed])
    fresh = {key: decode(SimpleNamespace(id=ids[key], **rows[key]), fields) for key in keys}
    fts.put(session, kind, [fts.Row(fresh[key].id, fresh[key].terms, fresh[key].tfs) for key in keys])
    _count(session, kind, [old[key] for key in changed], [fresh[key] for key in keys])


def remove(session: Session, kind: str, keys: Sequence[str], fields: int) -> None:
    """Forget documents whose rows are gone: their analysis, their full-text row, what they counted."""
    keys = sorted(set(keys))
    if not keys:
        return
    _done_pending(session, kind, keys)
    old = _locked(session, kind, keys, fields)
    if not old:
        return
    ids = [row.id for row in old.values()]
    session.execute(text(f"DELETE FROM search_document WHERE {listed(session, 'id', 'ids')}"),
                    {"ids": values(session, ids)})
    fts.delete(session, kind, ids)
    _count(session, kind, list(old.values()), [])


def embed(docs: list[Document]) -> None:
    """Compute the documents' vectors ahead of storing them (they are remembered: vectors.Embedder.embed),
    quietly: storing them computes what is missing and says what went wrong."""
    try:
        vectors.EMBEDDER.embed([vectors.document_text(doc.fields) for doc in docs])
    except Exception:  # noqa: BLE001 - _vectors logs it when the documents are stored
        return


def _vectors(docs: list[Document]) -> list[np.ndarray | None]:
    """Each document's vector. When the model cannot be used (a broken install), the documents are stored
    without (so a write never fails on the search's account) and searches compare words alone until it can."""
    try:
        return list(vectors.EMBEDDER.embed([vectors.document_text(doc.fields) for doc in docs]))
    except Exception:
        logger.exception("search: no vectors for %d document(s); their searches compare words alone", len(docs))
        return [None] * len(docs)


def _done_pending(session: Session, kind: str, keys: list[str]) -> None:
    session.execute(text(f"DELETE FROM search_pending WHERE kind = :kind AND {listed(session, 'key', 'keys')}"),
                    {"kind": kind, "keys": values(session, keys)})


def _locked(session: Session, kind: str, keys: list[str], fields: int) -> dict[str, Stored]:
    """The stored rows of `keys`, locked until the transaction ends (PostgreSQL; SQLite's writer holds the
    whole database already), taken in the order of their keys."""
    lock = " FOR UPDATE" if session.get_bind().dialect.name == "postgresql" else ""
    statement = text(f"SELECT id, key, terms, tfs, words, lengths FROM search_document WHERE kind = :kind AND "
                     f"{listed(session, 'key', 'keys')} ORDER BY key{lock}")
    found: dict[str, Stored] = {}
    for start in range(0, len(keys), CHUNK):
        for row in session.execute(statement, {"kind": kind, "keys": values(session, keys[start:start + CHUNK])}):
            found[row.key] = decode(row, fields)
    return found


def _insert(session: Session, rows: list[dict[str, Any]]) -> dict[str, int]:
    """Insert new documents; the id of each one inserted (a key another transaction inserted first is left out)."""
    inserted: dict[str, int] = {}
    statement = text("INSERT INTO search_document (kind, key, source, updated, terms, tfs, words, lengths, vector) "
                     "VALUES (:kind, :key, :source, :updated, :terms, :tfs, :words, :lengths, :vector) "
                     "ON CONFLICT (kind, key) DO NOTHING RETURNING id")
    for row in rows:  # one by one: RETURNING says for each row whether it went in
        found = session.execute(statement, row).first()
        if found is not None:
            inserted[row["key"]] = int(found[0])
    return inserted


def _count(session: Session, kind: str, before: list[Stored], after: list[Stored]) -> None:
    """What replacing `before` by `after` changes in the statistics, written in the order of their keys."""
    docs: Counter[int] = Counter()
    words: Counter[int] = Counter()
    for stored, sign in [*((b, -1) for b in before), *((a, 1) for a in after)]:
        for number in stored.terms.tolist():
            docs[number] += sign
        for number in stored.words.tolist():
            words[number] += sign
    rows = [{"kind": kind, "t": n, "d": docs[n], "w": words[n]}
            for n in sorted(set(docs) | set(words)) if docs[n] or words[n]]
    statement = text("INSERT INTO search_stat (kind, term_id, docs, words) VALUES (:kind, :t, :d, :w) "
                     "ON CONFLICT (kind, term_id) DO UPDATE SET docs = search_stat.docs + excluded.docs, "
                     "words = search_stat.words + excluded.words")
    for start in range(0, len(rows), CHUNK):
        session.execute(statement, rows[start:start + CHUNK])
    lengths = [0] * 5
    for stored, sign in [*((b, -1) for b in before), *((a, 1) for a in after)]:
        for f, length in enumerate(stored.lengths.tolist()):
            lengths[f] += sign * int(length)
    session.execute(text("INSERT INTO search_total (kind, docs, field_0, field_1, field_2, field_3, field_4) "
                         "VALUES (:kind, :docs, :f0, :f1, :f2, :f3, :f4) ON CONFLICT (kind) DO UPDATE SET "
                         "docs = search_total.docs + excluded.docs, "
                         + ", ".join(f"field_{i} = search_total.field_{i} + excluded.field_{i}" for i in range(5))),
                    {"kind": kind, "docs": len(after) - len(before), **{f"f{i}": lengths[i] for i in range(5)}})


COLUMNS = "id, key, source, updated, terms, tfs, words, lengths, vector"


def read(session: Session, kind: str, fields: int, *, ids: Sequence[int] | None = None,
         keys: Sequence[str] | None = None, vector: bool = True) -> Iterator[Stored]:
    """Stored documents of `kind` by id or by key, decoded."""
    columns = COLUMNS if vector else COLUMNS.replace(", vector", "")
    column, wanted = ("id", list(ids)) if ids is not None else ("key", list(keys or []))
    statement = text(f"SELECT {columns} FROM search_document WHERE kind = :kind AND "
                     f"{listed(session, column, 'wanted')}")
    for start in range(0, len(wanted), CHUNK):
        for row in session.execute(statement, {"kind": kind, "wanted": values(session, wanted[start:start + CHUNK])}):
            yield decode(row, fields)
