"""Searches over the desk index: help sections, tickets by words, and tickets like a given ticket."""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from sqlmodel import Session, col, select

from bot.db.fts import EmptyQuery
from bot.db.models import Ticket
from bot.db.search.bm25f import Bm25fIndex
from bot.db.search.highlight import matched_lines
from bot.db.search.params import PARAMS, SearchParams
from bot.db.search.store import ANALYZER, Corpus, help_index, ticket_index


@dataclass(frozen=True)
class Hit:
    id: str
    score: float
    matched: list[str]


class UnknownTicket(LookupError):
    """`like` names a ticket the desk doesn't have."""


def search_help(session: Session, query: str, *, limit: int, params: SearchParams = PARAMS) -> list[Hit]:
    index = help_index(session)
    with index.lock:
        corpus = index.corpus
        terms = query_weights(corpus.index, query, params)
        ranked = _ranked(corpus, corpus.index.score(terms, params.help), limit)
        return [_hit(corpus, key, score, terms, body_only=True) for key, score in ranked]


def search_tickets(session: Session, query: str, *, limit: int, status: str | None = None,
                   exclude: str | None = None, params: SearchParams = PARAMS) -> list[Hit]:
    index = ticket_index(session)
    with index.lock:
        corpus = index.corpus
        terms = query_weights(corpus.index, query, params)
        scores = corpus.index.score(terms, params.tickets)
        scores.pop(exclude or "", None)
        ranked = _ranked(corpus, scores, None if status else limit)
    ranked = _with_status(session, ranked, status, limit)
    with index.lock:
        return [_hit(corpus, key, score, terms) for key, score in ranked]


def similar_tickets(session: Session, ticket_id: str, *, limit: int, status: str | None = None, query: str = "",
                    params: SearchParams = PARAMS) -> list[Hit]:
    """Tickets like `ticket_id`, compared on title, tags, first message, error text and notes.

    The similarity of two tickets is mutual: how much of each one's own score the other reaches under its
    query (geometric mean). A long ticket full of words can't look like everything, and a short one can't
    match a long one on a single shared word. Hits under `like_min_similarity`, or far below the best hit
    (`like_relative`), are left out: they are usually the same symptom with another cause.
    """
    index = ticket_index(session)
    with index.lock:
        corpus = index.corpus
        if ticket_id not in corpus.index:
            raise UnknownTicket(ticket_id)
        terms = like_weights(corpus.index, ticket_id, params)
        if query.strip():
            for term, weight in query_weights(corpus.index, query, params).items():
                terms[term] = terms.get(term, 0.0) + weight
        similar = _mutual(corpus.index, ticket_id, terms, params)
        best = max(similar.values(), default=0.0)
        similar = {key: sim for key, sim in similar.items()
                   if sim >= max(params.like_min_similarity, params.like_relative * best)}
        ranked = _ranked(corpus, similar)
    ranked = _with_status(session, ranked, status, limit)
    with index.lock:
        return [_hit(corpus, key, score, terms) for key, score in ranked]


# --- queries ------------------------------------------------------------------------------------------

def query_weights(index: Bm25fIndex, query: str, params: SearchParams) -> dict[str, float]:
    """Weighted terms of free text: typos fixed, synonyms added, long text cut to its rarest terms."""
    weights = ANALYZER.query(query, index.words, params.phrase_weight)
    if not weights:
        raise EmptyQuery(query)
    known = {term: weight for term, weight in weights.items() if index.df(term)}
    return _rarest(index, known, params.max_terms)


def like_weights(index: Bm25fIndex, ticket_id: str, params: SearchParams) -> dict[str, float]:
    """A query made of a ticket's own terms, each weighted by the fields it occurs in."""
    weights = {}
    for term, shape in index.terms_of(ticket_id).items():
        if index.df(term) > 1:
            weights[term] = sum(params.like_fields[f] for f, _ in shape)
    return _rarest(index, weights, params.like_terms)


def _mutual(index: Bm25fIndex, ticket_id: str, terms: dict[str, float], params: SearchParams) -> dict[str, float]:
    """Candidates are the best matches of the ticket's rarest terms; the best of them by the full query
    are checked both ways."""
    seeds = index.score(_rarest(index, terms, params.like_seed_terms), params.tickets)
    candidates = {key for key, _ in heapq.nlargest(params.like_pool, seeds.items(), key=lambda kv: (kv[1], kv[0]))}
    scores = index.score(terms, params.tickets, only=candidates | {ticket_id})
    own = scores.pop(ticket_id, 0.0) or 1.0
    forward = heapq.nlargest(params.like_candidates, scores.items(), key=lambda item: (item[1], item[0]))
    mutual = {}
    for key, score in forward:
        back = index.score(like_weights(index, key, params), params.tickets, only=(ticket_id, key))
        mutual[key] = math.sqrt(score / own * back.get(ticket_id, 0.0) / (back.get(key) or 1.0))
    return mutual


def _rarest(index: Bm25fIndex, weights: dict[str, float], keep: int) -> dict[str, float]:
    if len(weights) <= keep:
        return weights
    best = sorted(weights, key=lambda t: (-weights[t] * index.idf(t), t))[:keep]
    return {term: weights[term] for term in best}


# --- results ------------------------------------------------------------------------------------------

def _ranked(corpus: Corpus, scores: dict[str, float], limit: int | None = None) -> list[tuple[str, float]]:
    """Best first (the first `limit`, or all); ties (to 9 digits, so float noise can't reorder them) by the
    newer document, then id."""
    def key(item: tuple[str, float]) -> tuple[float, float, str]:
        return -round(item[1], 9), -corpus.docs[item[0]].updated, item[0]
    return sorted(scores.items(), key=key) if limit is None else heapq.nsmallest(limit, scores.items(), key=key)


def _with_status(session: Session, ranked: list[tuple[str, float]], status: str | None,
                 limit: int) -> list[tuple[str, float]]:
    """The first `limit` hits whose ticket is in `status` now (read from the rows, not the index)."""
    if status is None:
        return ranked[:limit]
    kept: list[tuple[str, float]] = []
    for start in range(0, len(ranked), 100):
        chunk = ranked[start:start + 100]
        ids = [key for key, _ in chunk]
        current = dict(session.exec(select(Ticket.id, Ticket.status).where(col(Ticket.id).in_(ids))).all())
        kept += [(key, score) for key, score in chunk if current.get(key) == status]
        if len(kept) >= limit:
            break
    return kept[:limit]


def _hit(corpus: Corpus, key: str, score: float, terms: dict[str, float], body_only: bool = False) -> Hit:
    fields = corpus.docs[key].fields
    texts = fields[2:3] if body_only else (fields[2], fields[4])
    return Hit(key, score, matched_lines(ANALYZER, texts, terms, corpus.index.idf))
