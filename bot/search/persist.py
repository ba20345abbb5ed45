"""The search's analysis of each document, stored in the database so no process analyses a document twice.

`search_document` holds one row per help section or ticket: its terms (as numbers) with their frequency in
each field, its surface words (for typo correction), its field lengths, and `source`, the version of the
rows it was analysed from (a ticket's newest message id). `search_term` numbers every term and word once per
database. Writers store a document when they change it (the reply and update tools); a reader that finds a
row missing or older than its source analyses the rows itself and stores the result, so the index needs
nothing but the desk's own rows to be right.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import bindparam, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlmodel import Session, col

from bot.db.models import SearchDocument, SearchTerm, table_of
from bot.search import vectors
from bot.search.analyzer import Analyzer
from bot.search.documents import Document

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
    """A stored document, decoded: term ids (ascending) with their field frequencies, word ids, lengths."""

    key: str
    source: int
    updated: float
    lengths: np.ndarray  # int32 (fields,)
    terms: np.ndarray  # int32 (n,)
    tfs: np.ndarray  # uint8 (n, fields)
    words: np.ndarray  # int32 (m,)
    vector: np.ndarray | None = None  # float16 (vectors.DIM,): a ticket's vector (vectors.py); None for help


class Vocabulary:
    """term <-> number, for one database. Only numbers whose rows are committed are remembered."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.names: dict[int, str] = {}
        self._lock = threading.Lock()

    def learn(self, pairs: Iterable[tuple[int, str]]) -> None:
        with self._lock:
            for number, term in pairs:
                self.ids[term] = number
                self.names[number] = term

    def numbers(self, session: Session, terms: Iterable[str]) -> dict[str, int]:
        """Numbers for `terms`, creating the missing ones in `session`'s transaction; what this transaction
        created is remembered once it commits."""
        wanted = set(terms)
        found = {t: self.ids[t] for t in wanted if t in self.ids}
        missing = sorted(wanted - found.keys())
        if missing:
            fetched = self._select(session, missing)
            new = [t for t in missing if t not in fetched]
            if new:
                _insert_terms(session, new)
                fetched.update(self._select(session, new))
            found.update(fetched)
            pairs = [(fetched[t], t) for t in missing]
            session.info.setdefault("after_commit", []).append(lambda: self.learn(pairs))
        return found

    def names_for(self, session: Session, numbers: Iterable[int]) -> None:
        """Make sure every number in `numbers` has its term (another process may have created it)."""
        unknown = sorted({int(n) for n in numbers} - self.names.keys())
        for start in range(0, len(unknown), CHUNK):
            chunk = unknown[start:start + CHUNK]
            rows = session.execute(select(col(SearchTerm.id), col(SearchTerm.term)).where(col(SearchTerm.id).in_(chunk))).all()
            self.learn((int(n), t) for n, t in rows)

    def unknown(self, arrays: list[np.ndarray]) -> list[int]:
        """The numbers in `arrays` whose term is not known here."""
        if not arrays:
            return []
        numbers = np.concatenate(arrays)
        if not len(numbers):
            return []
        known = np.zeros(max(int(numbers.max()), max(self.names, default=0)) + 1, dtype=bool)
        known[np.fromiter(self.names, dtype=np.int64, count=len(self.names))] = True
        return np.unique(numbers[~known[numbers]]).tolist()

    def load_all(self, session: Session) -> None:
        self.learn((int(n), t) for n, t in session.execute(select(col(SearchTerm.id), col(SearchTerm.term))).all())

    @staticmethod
    def _select(session: Session, terms: list[str]) -> dict[str, int]:
        found: dict[str, int] = {}
        for start in range(0, len(terms), CHUNK):
            rows = session.execute(select(col(SearchTerm.term), col(SearchTerm.id))
                                   .where(col(SearchTerm.term).in_(terms[start:start + CHUNK]))).all()
            found.update((t, int(n)) for t, n in rows)
        return found


def _insert_terms(session: Session, terms: list[str]) -> None:
    table = table_of(SearchTerm)
    module = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    statement = module.insert(table).on_conflict_do_nothing(index_elements=["term"])
    for start in range(0, len(terms), CHUNK):
        session.execute(statement, [{"term": t} for t in terms[start:start + CHUNK]])


# --- documents ---------------------------------------------------------------------------------------

def encode(analysis: Analysis, numbers: dict[str, int], fields: int) -> dict[str, bytes]:
    order = sorted(analysis.terms, key=numbers.__getitem__)
    terms = np.fromiter((numbers[t] for t in order), dtype=np.int32, count=len(order))
    tfs = np.array([analysis.terms[t] for t in order], dtype=np.uint8).reshape(len(order), fields)
    words = np.sort(np.fromiter((numbers[w] for w in analysis.words), dtype=np.int32, count=len(analysis.words)))
    return {"terms": terms.tobytes(), "tfs": tfs.tobytes(), "words": words.tobytes(),
            "lengths": np.array(analysis.lengths, dtype=np.int32).tobytes()}


def decode(row: Any, fields: int) -> Stored:
    terms = np.frombuffer(row.terms, dtype=np.int32)
    return Stored(row.key, int(row.source), float(row.updated), np.frombuffer(row.lengths, dtype=np.int32),
                  terms, np.frombuffer(row.tfs, dtype=np.uint8).reshape(len(terms), fields),
                  np.frombuffer(row.words, dtype=np.int32), vectors.decode(row.vector))


def store(session: Session, vocabulary: Vocabulary, kind: str, docs: list[tuple[Document, int]],
          fields: int) -> list[Stored]:
    """Analyse and store documents (each with its source version), replacing what was stored for them."""
    return store_analysed(session, vocabulary, kind, [(doc, source, analyse(doc.fields)) for doc, source in docs],
                          fields)


def store_analysed(session: Session, vocabulary: Vocabulary, kind: str,
                   analyses: list[tuple[Document, int, Analysis]], fields: int) -> list[Stored]:
    """Store documents already analysed (a bulk load analyses once for several databases); tickets get their
    vector (vectors.py). The vectors are computed before the first write: on SQLite a write holds the
    database's one write lock until commit, and embedding a whole desk on a slow machine held it past every other
    process's busy timeout (six first starts at once: "database is locked")."""
    found = _vectors(kind, [doc for doc, _, _ in analyses])
    numbers = vocabulary.numbers(session, {t for _, _, a in analyses for t in [*a.terms, *a.words]})
    rows: list[dict[str, Any]] = [{"kind": kind, "key": doc.key, "source": source, "updated": doc.updated,
             **encode(analysis, numbers, fields), "vector": vectors.encode(vector)}
                                  for (doc, source, analysis), vector in zip(analyses, found, strict=True)]
    for start in range(0, len(rows), CHUNK):
        session.execute(_upsert(session), rows[start:start + CHUNK])
    return [decode(_Row(**row), fields) for row in rows]


def _vectors(kind: str, docs: list[Document]) -> list[np.ndarray | None]:
    """Tickets' vectors. When the model cannot be used (a broken install), the documents are stored without
    (so a write never fails on the search's account) and similar tickets compare words alone until it can."""
    if kind != "ticket" or not docs:
        return [None] * len(docs)
    try:
        return list(vectors.EMBEDDER.embed([vectors.ticket_text(doc.fields) for doc in docs]))
    except Exception:
        logger.exception("search: no ticket vectors for %d ticket(s); similar tickets compare words alone",
                         len(docs))
        return [None] * len(docs)


def store_now(engine: Engine, vocabulary: Vocabulary, kind: str, docs: list[tuple[Document, int]],
              fields: int) -> list[Stored]:
    """`store` in a transaction of its own, committed before returning."""
    with Session(engine) as session:
        stored = store(session, vocabulary, kind, docs, fields)
        session.commit()
        for hook in session.info.pop("after_commit", ()):
            hook()
    return stored


@dataclass(frozen=True)
class _Row:
    kind: str
    key: str
    source: int
    updated: float
    terms: bytes
    tfs: bytes
    words: bytes
    lengths: bytes
    vector: bytes | None


def _upsert(session: Session) -> Any:
    table = table_of(SearchDocument)
    module = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    statement = module.insert(table)
    return statement.on_conflict_do_update(index_elements=["kind", "key"], set_={
        name: statement.excluded[name] for name in _COLUMNS if name != "key"})


_COLUMNS = ("key", "source", "updated", "lengths", "terms", "tfs", "words", "vector")


def read(session: Session, kind: str, keys: list[str] | None = None, fields: int = 0) -> Iterator[Stored]:
    """Stored documents of `kind` (all, or those of `keys`), decoded."""
    columns = ", ".join(_COLUMNS)
    if keys is None:  # streamed: the whole table is never held twice (driver buffer and rows)
        statement = text(f"SELECT {columns} FROM search_document WHERE kind = :kind")
        for row in session.execute(statement.execution_options(yield_per=2000), {"kind": kind}):
            yield decode(row, fields)
        return
    statement = text(f"SELECT {columns} FROM search_document WHERE kind = :kind AND key IN :keys").bindparams(
        bindparam("keys", expanding=True))
    for start in range(0, len(keys), CHUNK):
        for row in session.execute(statement, {"kind": kind, "keys": keys[start:start + CHUNK]}):
            yield decode(row, fields)
