"""Searches over the desk index: help sections, tickets by words, and tickets like a given ticket."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass

from sqlmodel import Session, col, select

from bot.db.models import Ticket
from bot.search.highlight import matched_lines
from bot.search.packed import PackedIndex
from bot.search.params import PARAMS, SearchParams
from bot.search.store import ANALYZER, KindIndex, help_index, highlight_texts, ticket_index
from bot.search.words import EmptyQuery


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
        packed = index.packed
        terms = query_weights(packed, query, params)
        ranked = packed.ranked(*packed.scores(terms, params.help), limit)
    return _hits(session, index, ranked, terms, body_only=True)


def search_tickets(session: Session, query: str, *, limit: int, status: str | None = None,
                   exclude: str | None = None, params: SearchParams = PARAMS) -> list[Hit]:
    index = ticket_index(session)
    with index.lock:
        packed = index.packed
        terms = query_weights(packed, query, params)
        scores, matched = packed.scores(terms, params.tickets)
        ranked = _with_status(session, lambda n: packed.ranked(scores, matched, n, exclude=exclude), status, limit)
    return _hits(session, index, ranked, terms)


def similar_tickets(session: Session, ticket_id: str, *, limit: int, status: str | None = None, query: str = "",
                    params: SearchParams = PARAMS) -> list[Hit]:
    """Tickets like `ticket_id`, compared on title, tags, first message, error text and notes.

    Two signals, blended (`like_vector_weight`): the words, as a mutual similarity (how much of each one's own
    score the other reaches under its query, geometric mean: a long ticket full of words can't look like
    everything, and a short one can't match a long one on a single shared word); and what the two tickets
    are about, as the similarity of their vectors (vectors.py), which joins tickets that tell one cause in
    different words. Hits under `like_min_similarity`, or far below the best hit (`like_relative`), are left
    out: they are usually the same symptom with another cause.
    """
    index = ticket_index(session)
    with index.lock:
        packed = index.packed
        if ticket_id not in packed:
            raise UnknownTicket(ticket_id)
        terms = like_weights(packed, ticket_id, params)
        if query.strip():
            for term, weight in query_weights(packed, query, params).items():
                terms[term] = terms.get(term, 0.0) + weight
        similar = _mutual(packed, ticket_id, terms, params)
        best = max(similar.values(), default=0.0)
        similar = {key: sim for key, sim in similar.items()
                   if sim >= max(params.like_min_similarity, params.like_relative * best)}
        ordered = sorted(similar.items(), key=lambda kv: (-round(kv[1], 9), -packed.updated_of(kv[0]), kv[0]))
        ranked = _with_status(session, lambda n: ordered[:n], status, limit)
    return _hits(session, index, ranked, terms)


# --- queries ------------------------------------------------------------------------------------------

def query_weights(index: PackedIndex, query: str, params: SearchParams) -> dict[str, float]:
    """Weighted terms of free text: typos fixed, synonyms added, long text cut to its rarest terms."""
    weights = ANALYZER.query(query, index.words, params.phrase_weight)
    if not weights:
        raise EmptyQuery(query)
    known = {term: weight for term, weight in weights.items() if index.df_of(term)}
    return _rarest(index, known, params.max_terms)


def like_weights(index: PackedIndex, ticket_id: str, params: SearchParams) -> dict[str, float]:
    """A query made of a ticket's own terms, each weighted by the fields it occurs in (the rarest
    `like_terms` of them)."""
    names = index.vocabulary.names
    return {names[number]: weight
            for number, weight, _ in index.like_terms(ticket_id, params.like_fields, params.like_terms)}


def _mutual(index: PackedIndex, ticket_id: str, terms: dict[str, float], params: SearchParams) -> dict[str, float]:
    """Candidates are the best matches of the ticket's rarest terms; the best of them by the full query, and
    the closest of them by vector, are checked both ways and blended with their vector similarity."""
    seeds = index.best(*index.scores(_rarest(index, terms, params.like_seed_terms), params.tickets),
                       params.like_pool)
    candidates = {key for key, _ in seeds} - {ticket_id}
    scores = index.score_keys(terms, params.tickets, candidates | {ticket_id})
    own = scores.pop(ticket_id, 0.0) or 1.0
    forward = heapq.nlargest(params.like_candidates, scores.items(), key=lambda item: (item[1], item[0]))
    cosines = index.cosines(ticket_id, candidates)
    close = heapq.nlargest(params.like_vector_candidates, cosines.items(), key=lambda item: (item[1], item[0]))
    checked = sorted({key for key, _ in forward} | {key for key, _ in close})
    checks = index.like_checks(ticket_id, {key: index.like_terms(key, params.like_fields, params.like_terms)
                                           for key in checked}, params.tickets)
    weight = params.like_vector_weight if cosines else 0.0
    blended = {}
    for key in checked:
        reached, itself = checks[key]
        words = math.sqrt(scores.get(key, 0.0) / own * reached / (itself or 1.0))
        blended[key] = (1 - weight) * words + weight * max(0.0, cosines.get(key, 0.0))
    return blended


def _rarest(index: PackedIndex, weights: dict[str, float], keep: int) -> dict[str, float]:
    if len(weights) <= keep:
        return weights
    rarity = {term: index.idf(term) for term in weights}
    best = sorted(weights, key=lambda t: (-weights[t] * rarity[t], t))[:keep]
    return {term: weights[term] for term in best}


# --- results ------------------------------------------------------------------------------------------

def _with_status(session: Session, ranked: Callable[[int | None], list[tuple[str, float]]], status: str | None,
                 limit: int) -> list[tuple[str, float]]:
    """The first `limit` hits whose ticket is in `status` now (read from the rows, not the index); the
    ranking is asked for more hits only when the first ones are in other statuses."""
    if status is None:
        return ranked(limit)
    wanted: int | None = max(limit * 4, 100)
    while True:
        candidates = ranked(wanted)
        kept: list[tuple[str, float]] = []
        for start in range(0, len(candidates), 100):
            chunk = candidates[start:start + 100]
            ids = [key for key, _ in chunk]
            current = dict(session.exec(select(Ticket.id, Ticket.status).where(col(Ticket.id).in_(ids))).all())
            kept += [(key, score) for key, score in chunk if current.get(key) == status]
            if len(kept) >= limit:
                return kept[:limit]
        if wanted is None or len(candidates) < wanted:
            return kept
        wanted = wanted * 8 if wanted < 100_000 else None


def _hits(session: Session, index: KindIndex, ranked: list[tuple[str, float]], terms: dict[str, float],
          body_only: bool = False) -> list[Hit]:
    """Each ranked document with the lines that matched (its texts read from the rows)."""
    texts = highlight_texts(session, index.kind, [key for key, _ in ranked])
    with index.lock:
        idf = {term: index.packed.idf(term) for term in terms}
    hits = []
    for key, score in ranked:
        if key not in texts and not body_only:
            texts[key] = ("", "")  # a ticket without messages
        if key in texts:  # (a section deleted since it was ranked is left out)
            hits.append(Hit(key, score, matched_lines(ANALYZER, texts[key], terms, lambda t: idf.get(t, 0.0))))
    return hits
