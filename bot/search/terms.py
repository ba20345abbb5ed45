"""Terms by number and their statistics, read from the database when a search needs them.

`search_term` numbers every term and surface word once per database. `search_stat` says, per kind of
document, how many documents hold a term (its df) and how many hold it as a surface word (what typo
correction chooses from); `search_total` has the number of documents and the sum of each field's length.
persist.py keeps both in step with every document it stores, in the same transaction, so a search reads exact
figures with a few primary-key reads and no process holds the desk's vocabulary.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from bot.db.models import SearchTerm, table_of

CHUNK = 500
REMEMBERED = 50_000  # numbers kept in a process (the terms of what it stored and searched lately)


def listed(session: Session, column: str, name: str) -> str:
    """`column` is one of the values of the list parameter `name` (see `values`): one parameter however long
    the list, on both databases."""
    if session.get_bind().dialect.name == "postgresql":
        return f"{column} = ANY(:{name})"
    return f"{column} IN (SELECT value FROM json_each(:{name}))"


def values(session: Session, items: Sequence[Any]) -> Any:
    """A list as the parameter `listed` reads."""
    return list(items) if session.get_bind().dialect.name == "postgresql" else json.dumps(list(items))


class Vocabulary:
    """term <-> number, for one database. Only numbers whose rows are committed are remembered, and only the
    last REMEMBERED of them."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self._lock = threading.Lock()

    def learn(self, pairs: Iterable[tuple[int, str]]) -> None:
        with self._lock:
            for number, term in pairs:
                self.ids[term] = number
            if len(self.ids) > REMEMBERED:
                for term in list(self.ids)[:len(self.ids) - REMEMBERED]:
                    del self.ids[term]

    def numbers(self, session: Session, terms: Iterable[str]) -> dict[str, int]:
        """Numbers for `terms`, creating the missing ones in `session`'s transaction; what this transaction
        created is remembered once it commits."""
        wanted = set(terms)
        with self._lock:
            found = {t: self.ids[t] for t in wanted if t in self.ids}
        missing = sorted(wanted - found.keys())
        if missing:
            fetched = self.select(session, missing)
            new = [t for t in missing if t not in fetched]
            if new:
                _insert_terms(session, new)
                fetched.update(self.select(session, new))
            found.update(fetched)
            pairs = [(fetched[t], t) for t in missing]
            session.info.setdefault("after_commit", []).append(lambda: self.learn(pairs))
        return found

    @staticmethod
    def select(session: Session, terms: Sequence[str]) -> dict[str, int]:
        found: dict[str, int] = {}
        statement = text(f"SELECT term, id FROM search_term WHERE {listed(session, 'term', 'terms')}")
        for start in range(0, len(terms), CHUNK * 4):
            rows = session.execute(statement, {"terms": values(session, terms[start:start + CHUNK * 4])}).all()
            found.update((t, int(n)) for t, n in rows)
        return found


def _insert_terms(session: Session, terms: list[str]) -> None:
    table = table_of(SearchTerm)
    module = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    statement = module.insert(table).on_conflict_do_nothing(index_elements=["term"])
    for start in range(0, len(terms), CHUNK):
        session.execute(statement, [{"term": t} for t in terms[start:start + CHUNK]])


# --- statistics ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Totals:
    """One kind of document: how many, and the sum of each field's length."""

    docs: int
    lengths: tuple[int, ...]


@dataclass(frozen=True)
class TermStat:
    id: int
    name: str
    docs: int  # documents holding it as a term
    words: int  # documents holding it as a surface word


def totals(session: Session, kind: str, fields: int) -> Totals:
    row = session.execute(text("SELECT docs, field_0, field_1, field_2, field_3, field_4 FROM search_total "
                               "WHERE kind = :kind"), {"kind": kind}).first()
    if row is None:
        return Totals(0, (0,) * fields)
    return Totals(int(row[0]), tuple(int(v) for v in row[1:1 + fields]))


def by_name(session: Session, kind: str, names: Iterable[str]) -> dict[str, TermStat]:
    """The statistics of the terms (or words) called `names` that the desk's documents of `kind` hold."""
    wanted = sorted(set(names))
    found: dict[str, TermStat] = {}
    statement = text("SELECT t.id, t.term, s.docs, s.words FROM search_term t JOIN search_stat s ON "
                     f"s.term_id = t.id AND s.kind = :kind WHERE {listed(session, 't.term', 'names')} "
                     "AND (s.docs > 0 OR s.words > 0)")
    for start in range(0, len(wanted), CHUNK * 8):
        for number, name, docs, words in session.execute(
                statement, {"kind": kind, "names": values(session, wanted[start:start + CHUNK * 8])}):
            found[name] = TermStat(int(number), name, int(docs), int(words))
    return found


def by_number(session: Session, kind: str, numbers: Iterable[int]) -> dict[int, TermStat]:
    """The names and statistics of term numbers (those a stored document holds)."""
    wanted = sorted({int(n) for n in numbers})
    found: dict[int, TermStat] = {}
    statement = text("SELECT t.id, t.term, COALESCE(s.docs, 0), COALESCE(s.words, 0) FROM search_term t "
                     "LEFT JOIN search_stat s ON s.term_id = t.id AND s.kind = :kind "
                     f"WHERE {listed(session, 't.id', 'numbers')}")
    for start in range(0, len(wanted), CHUNK * 8):
        for number, name, docs, words in session.execute(
                statement, {"kind": kind, "numbers": values(session, wanted[start:start + CHUNK * 8])}):
            found[int(number)] = TermStat(int(number), name, int(docs), int(words))
    return found
