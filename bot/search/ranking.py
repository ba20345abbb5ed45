"""Searches over the desk: help sections, tickets by words, and tickets like a given ticket.

Each search first stores what writers left pending (catch_up.py), then asks the database's full-text index for
candidates (queries.py, fts.py), reads their stored analysis and vectors, and ranks them exactly (scoring.py).
Nothing of the desk stays in the process between searches.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, replace

import numpy as np
from sqlmodel import Session

from bot import heap
from bot.search import fts, persist, similar, vectors
from bot.search.bm25f import FieldParams
from bot.search.catch_up import FIELDS
from bot.search.catch_up import catch_up as _catch_up
from bot.search.highlight import matched_lines
from bot.search.params import PARAMS, SearchParams
from bot.search.persist import ANALYZER, Stored
from bot.search.queries import Budget, Term, like_terms, picks, query_terms, rarest
from bot.search.rows import highlight_texts, statuses
from bot.search.scoring import Desk, idf, ranked, scores
from bot.search.terms import Totals, by_number, totals

# The budgets: every match is a candidate while the query's terms are held at most `everything` times in all;
# past that the database ranks at most `rows` rows (PostgreSQL ranks about 250 a millisecond), and a search
# reads a few hundred candidates' analysis.
HELP = Budget(everything=1000, rows=4000, scan=2000, pool=150)
WORDS = Budget(everything=1000, rows=4000, scan=2000, pool=300)
LIKE = Budget(everything=1000, rows=4000, scan=2000, pool=300)


@dataclass(frozen=True)
class Hit:
    id: str
    score: float
    matched: list[str]
    likely: bool = True  # like a ticket: False for a hit that is only worth a look (similar.worth_a_look)


class UnknownTicket(LookupError):
    """`like` names a ticket the desk doesn't have."""


def catch_up(session: Session) -> None:
    """What writers left unanalysed, stored first. The first search of a process also moves what is alive out
    of the garbage collector's full passes (bot/heap.py): a full collection walking every imported module
    (55–80 ms on these machines) would otherwise land in whichever search came next."""
    _catch_up(session)
    heap.settle_once("the first search")


def search_help(session: Session, query: str, *, limit: int, params: SearchParams = PARAMS) -> list[Hit]:
    catch_up(session)
    stats = totals(session, "help", FIELDS["help"])
    terms = query_terms(session, "help", query, stats, params.phrase_weight, params.max_terms)
    docs = _candidates(session, "help", terms, stats, HELP, params.help, vectors=False)
    found = ranked(docs, scores(docs, _weights(terms), _desk(stats, terms), params.help), params.help_rerank)
    ordered = _about(session, query, found, params.help_vector_weight if _short(query, params) else 0.0)
    return _hits(session, "help", ordered[:limit], terms, stats)


def _short(query: str, params: SearchParams) -> bool:
    """A question, not a pasted message: no more words than a query keeps (`max_terms`). The mean vector of a
    long message is about its greeting and its story, not the one line that names the problem; its rarest
    words (which the word score keeps) are the better guide there."""
    return len(set(ANALYZER.words(query))) <= params.max_terms


def _about(session: Session, query: str, found: list[tuple[Stored, float]], weight: float) -> list[tuple[str, float]]:
    """The best sections by words, ordered again by a blend with what they are about: the query's vector
    against each section's (vectors.py), so "moving over from atlassian" can rank the Jira import above a
    section that shares its one common word. The words' share is the score over the best score."""
    if not found or weight <= 0:
        return [(d.key, s) for d, s in found]
    try:
        [wanted] = vectors.EMBEDDER.embed([query])
    except vectors.ModelMissing:
        return [(d.key, s) for d, s in found]
    stored = {d.key: d.vector for d in persist.read(session, "help", FIELDS["help"], ids=[d.id for d, _ in found],
                                                   vector=True)}
    top = found[0][1] or 1.0
    wanted = wanted.astype(np.float32)
    blended = []
    for doc, score in found:
        vector = stored.get(doc.key)
        cosine = float(vector.astype(np.float32) @ wanted) if vector is not None else 0.0
        blended.append((doc, (1 - weight) * score / top + weight * max(0.0, cosine)))
    blended.sort(key=lambda item: (-round(item[1], 9), -item[0].updated, item[0].key))
    return [(d.key, s) for d, s in blended]


def search_tickets(session: Session, query: str, *, limit: int, status: str | None = None,
                   exclude: str | None = None, params: SearchParams = PARAMS) -> list[Hit]:
    catch_up(session)
    stats = totals(session, "ticket", FIELDS["ticket"])
    terms = query_terms(session, "ticket", query, stats, params.phrase_weight, params.max_terms)
    docs = _candidates(session, "ticket", terms, stats, WORDS, params.tickets, vectors=False, status=status)
    found = ranked(docs, scores(docs, _weights(terms), _desk(stats, terms), params.tickets), limit, exclude=exclude)
    return _hits(session, "ticket", [(d.key, s) for d, s in found], terms, stats)


def similar_tickets(session: Session, ticket_id: str, *, limit: int, status: str | None = None, query: str = "",
                    params: SearchParams = PARAMS, look: bool = False) -> list[Hit]:
    """Tickets like `ticket_id`, compared on title, tags, first message, error text and notes.

    Two signals, blended (`like_vector_weight`): the words, as a mutual similarity (how much of each one's own
    score the other reaches under its query, geometric mean: a long ticket full of words can't look like
    everything, and a short one can't match a long one on a single shared word); and what the two tickets
    are about, as the similarity of their vectors (vectors.py), which joins tickets that tell one cause in
    different words. Which of them are the same problem is decided against this desk's own similarities
    (similar.py): at most `limit` of them. With `look`, the hits after them that are worth a look follow
    (`likely` False), until both together are `like_look_depth`."""
    catch_up(session)
    fields = FIELDS["ticket"]
    me = next(iter(persist.read(session, "ticket", fields, keys=[ticket_id])), None)
    if me is None:
        raise UnknownTicket(ticket_id)
    stats = totals(session, "ticket", fields)
    own = by_number(session, "ticket", me.terms.tolist())
    terms = like_terms(me, own, stats, params.like_fields, params.like_terms)
    if query.strip():
        terms = _added(terms, query_terms(session, "ticket", query, stats, params.phrase_weight, params.max_terms))
    seeds = rarest(terms, stats, params.like_seed_terms)
    pool = [d for d in _candidates(session, "ticket", seeds, stats, LIKE, params.like, vectors=True)
            if d.key != ticket_id]
    desk = _desk(stats, terms)
    seeded = scores(pool, _weights(seeds), desk, params.like)
    best = heapq.nlargest(params.like_pool, ((s, d.key, d) for d, s in zip(pool, seeded, strict=True) if s is not None),
                          key=lambda item: (item[0], item[1]))
    candidates = [d for _, _, d in best]
    blended = _mutual(session, me, candidates, terms, desk, params)
    likely = similar.same_problem(blended, params)
    kept = similar.worth_a_look(blended, params) | likely if look else likely
    by_key = {d.key: d for d in candidates}
    ordered = sorted(kept.items(), key=lambda kv: (-round(kv[1], 9), -by_key[kv[0]].updated, kv[0]))
    if status is not None:
        now = statuses(session, [key for key, _ in ordered])
        ordered = [(key, sim) for key, sim in ordered if now.get(key) == status]
    first = [(key, sim) for key, sim in ordered if key in likely]
    rest = [(key, sim) for key, sim in ordered if key not in likely][:max(0, params.like_look_depth - len(first))]
    hits = _hits(session, "ticket", first[:limit] + rest, terms, stats)
    return [replace(hit, likely=False) if hit.id not in likely else hit for hit in hits]


def _mutual(session: Session, me: Stored, candidates: list[Stored], terms: list[Term], desk: Desk,
            params: SearchParams) -> dict[str, float]:
    """The best candidates by the full query, and the closest of them by vector, checked both ways and
    blended with their vector similarity."""
    found = scores([me, *candidates], _weights(terms), desk, params.like)
    own = found[0] or 1.0
    forward_scores = {d.key: s for d, s in zip(candidates, found[1:], strict=True) if s is not None}
    forward = heapq.nlargest(params.like_candidates, ((s, key) for key, s in forward_scores.items()))
    cosines = _cosines(me, candidates)
    close = heapq.nlargest(params.like_vector_candidates, ((c, key) for key, c in cosines.items()))
    checked = sorted({key for _, key in forward} | {key for _, key in close})
    by_key = {d.key: d for d in candidates}
    theirs = by_number(session, "ticket", np.concatenate([by_key[k].terms for k in checked]).tolist()
                       if checked else [])
    weight = params.like_vector_weight if cosines else 0.0
    blended = {}
    for key in checked:
        query = like_terms(by_key[key], theirs, desk.totals, params.like_fields, params.like_terms)
        check = Desk(desk.totals, {t.number: t.df for t in query})
        reached, itself = scores([me, by_key[key]], _weights(query), check, params.like)
        words = math.sqrt(forward_scores.get(key, 0.0) / own * (reached or 0.0) / (itself or 1.0))
        blended[key] = (1 - weight) * words + weight * max(0.0, cosines.get(key, 0.0))
    return blended


def _cosines(me: Stored, others: list[Stored]) -> dict[str, float]:
    """The similarity of `me`'s vector with each of `others` (unit vectors: a dot product); a document without
    a vector is left out."""
    if me.vector is None:
        return {}
    have = [(d, d.vector) for d in others if d.vector is not None]
    if not have:
        return {}
    rows = np.vstack([vector for _, vector in have]).astype(np.float32)
    values = rows @ me.vector.astype(np.float32)
    return {d.key: value for (d, _), value in zip(have, values.tolist(), strict=True)}


def _candidates(session: Session, kind: str, terms: list[Term], stats: Totals, budget: Budget,
                fields: FieldParams, *, vectors: bool, status: str | None = None) -> list[Stored]:
    chosen, scan = picks(terms, stats, budget)
    ids = fts.candidates(session, kind, chosen, fields, scan, status)
    return list(persist.read(session, kind, FIELDS[kind], ids=ids, vector=vectors))


def _weights(terms: list[Term]) -> dict[int, float]:
    return {t.number: t.weight for t in terms}


def _desk(stats: Totals, terms: list[Term]) -> Desk:
    return Desk(stats, {t.number: t.df for t in terms})


def _added(terms: list[Term], more: list[Term]) -> list[Term]:
    """A like-query with a query's words added (their weights summed where both have a term)."""
    merged = {t.number: t for t in terms}
    for t in more:
        merged[t.number] = Term(t.number, t.name, merged[t.number].weight + t.weight, t.df) if t.number in merged else t
    return list(merged.values())


def _hits(session: Session, kind: str, ranked_keys: list[tuple[str, float]], terms: list[Term],
          stats: Totals) -> list[Hit]:
    """Each ranked document with the lines that matched (its texts read from the rows)."""
    texts = highlight_texts(session, kind, [key for key, _ in ranked_keys])
    query = {t.name: t.weight for t in terms}
    rarity = {t.name: idf(t.df, stats.docs) for t in terms}
    hits = []
    for key, score in ranked_keys:
        if key not in texts and kind == "ticket":
            texts[key] = ("", "")  # a ticket without messages
        if key in texts:  # (a section deleted since it was ranked is left out)
            hits.append(Hit(key, score, matched_lines(ANALYZER, texts[key], query, lambda t: rarity.get(t, 0.0))))
    return hits
