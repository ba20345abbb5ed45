"""What a search asks: a query's weighted terms, and which of them the database is asked for candidates.

Free text becomes weighted terms (analyzer.py): typos fixed against the words the desk's documents hold (read
from the statistics, terms.py: the query's words and their one-edit neighbours, in one query), synonyms added,
a long text cut to its rarest terms. "Like this ticket" becomes the ticket's own terms weighted by the fields
they occur in. Then `picks` chooses the terms whose documents the full-text index offers as candidates
(fts.py): all of them when few documents hold them; otherwise the most telling terms first, each asked for its
best few documents, until the rows the database ranks reach a budget. The work of a search therefore stays
bounded however big the desk is, and on a small desk every matching document is a candidate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sqlmodel import Session

from bot.search import typos
from bot.search.persist import ANALYZER, Stored
from bot.search.scoring import idf
from bot.search.terms import TermStat, Totals, by_name
from bot.search.words import EmptyQuery

MAX_CORRECTED = 12  # unknown words of a query looked up for a typo (a pasted log has many; a typo is one or two)


@dataclass(frozen=True)
class Term:
    number: int
    name: str
    weight: float
    df: int


@dataclass(frozen=True)
class Budget:
    """How many candidates a search takes and how much ranking it asks of the database."""

    everything: int  # when the query's terms are held this many times or fewer, every match is a candidate
    rows: int  # otherwise the database ranks at most this many rows in all...
    scan: int  # ... and at most this many for one term
    pool: int  # candidates wanted in all (a term gives its share, at least `least`)
    least: int = 20


def query_terms(session: Session, kind: str, query: str, totals: Totals, phrase_weight: float,
                max_terms: int) -> list[Term]:
    """The weighted terms of free text that the desk's documents of `kind` hold: typos fixed, synonyms added,
    a long text cut to its `max_terms` rarest terms. EmptyQuery when the text has no searchable words."""
    words = ANALYZER.words(query)
    plain = [w for w in dict.fromkeys(words) if not ANALYZER.is_stop(w)]
    known = {name: stat.words for name, stat in by_name(session, kind, plain).items() if stat.words > 0}
    unknown = [w for w in plain if w not in known and w not in ANALYZER.phrase_words and _correctable(w)]
    if unknown:
        neighbours = set().union(*(typos.edits1(w) for w in unknown[:MAX_CORRECTED]))
        known.update({name: stat.words for name, stat in by_name(session, kind, neighbours).items() if stat.words > 0})
    weights = ANALYZER.query(query, known, phrase_weight)
    if not weights:
        raise EmptyQuery(query)
    stats = by_name(session, kind, weights)
    terms = [Term(stats[name].id, name, weight, stats[name].docs) for name, weight in weights.items()
             if name in stats and stats[name].docs > 0]
    return rarest(terms, totals, max_terms)


def _correctable(word: str) -> bool:
    return len(word) >= typos.MIN_LENGTH and word.isalpha() and word.isascii()


def rarest(terms: list[Term], totals: Totals, keep: int) -> list[Term]:
    """The `keep` terms with the highest weight × idf (ties by name), in their first order; all when fewer."""
    if len(terms) <= keep:
        return terms
    best = set(sorted(range(len(terms)), key=lambda i: (-terms[i].weight * idf(terms[i].df, totals.docs),
                                                        terms[i].name))[:keep])
    return [term for i, term in enumerate(terms) if i in best]


def like_terms(doc: Stored, stats: dict[int, TermStat], totals: Totals, field_weights: Sequence[float], keep: int,
               min_df: int = 2) -> list[Term]:
    """A document's own terms as a query ("like this one"): those held by at least `min_df` documents, each
    weighted by the sum of `field_weights` over the fields it occurs in; more than `keep` of them: the `keep`
    rarest by weight × idf (ties by the term's text). In the order of their text."""
    present = doc.tfs > 0
    weights = np.zeros(len(doc.terms), dtype=np.float64)
    for f, weight in enumerate(field_weights):  # field by field, as a sum over the fields
        weights = weights + np.where(present[:, f], weight, 0.0)
    found = [Term(number, stats[number].name, weight, stats[number].docs)
             for number, weight in zip(doc.terms.tolist(), weights.tolist(), strict=True)
             if number in stats and stats[number].docs >= min_df]
    if len(found) > keep:
        found = sorted(found, key=lambda t: (-t.weight * idf(t.df, totals.docs), t.name))[:keep]
    return sorted(found, key=lambda t: t.name)


def picks(terms: Sequence[Term], totals: Totals, budget: Budget) -> tuple[list[tuple[int, int]], int]:
    """Which terms the full-text index is asked for, with how many documents each gives, and the rows one term
    may rank: (picks, scan)."""
    held = [t for t in terms if t.df > 0]
    if sum(t.df for t in held) <= budget.everything:
        return [(t.number, t.df) for t in held], max((t.df for t in held), default=0)
    chosen: list[Term] = []
    rows = 0
    for term in sorted(held, key=lambda t: (-t.weight * idf(t.df, totals.docs), t.name)):
        cost = min(term.df, budget.scan)
        if chosen and rows + cost > budget.rows:
            continue  # too common to rank now: its documents still come through the rarer terms
        chosen.append(term)
        rows += cost
    share = max(budget.least, budget.pool // max(1, len(chosen)))
    return [(t.number, min(t.df, share)) for t in chosen], budget.scan
