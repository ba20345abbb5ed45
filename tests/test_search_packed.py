"""The packed index scores exactly as the plain BM25F index (bm25f.Bm25fIndex): the same floating-point
numbers, so the ranking does not depend on how the index is held, before and after documents change."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bot.search.bm25f import Bm25fIndex
from bot.search.documents import TICKET_FIELDS, ticket_document
from bot.search.packed import PackedIndex
from bot.search.params import PARAMS
from bot.search.persist import ANALYZER, Stored, Vocabulary, analyse, encode

DESK = json.loads((Path(__file__).resolve().parents[1] / "kb_data" / "tickets.json").read_text(encoding="utf-8"))
QUERIES = ["sso locked out okta", "webhook retries duplicate", "invoice vat", "export csv timeout",
           "two factor codes not arriving", "slack reconnect banner enterprise grid"]


class Desk:
    """The same documents in both indexes, term numbers assigned here (no database)."""

    def __init__(self) -> None:
        self.vocabulary = Vocabulary()
        self.plain = Bm25fIndex(TICKET_FIELDS)
        self.packed = PackedIndex(TICKET_FIELDS, self.vocabulary)

    def stored(self, key: str, title: str, tags: list[str], messages: list[str]) -> Stored:
        doc = ticket_document(key, title, tags, messages)
        analysis = analyse(doc.fields)
        fresh = sorted({*analysis.terms, *analysis.words} - self.vocabulary.ids.keys())
        first = len(self.vocabulary.ids)
        self.vocabulary.learn([(first + i, t) for i, t in enumerate(fresh)])
        numbers = {t: self.vocabulary.ids[t] for t in [*analysis.terms, *analysis.words]}
        blobs = encode(analysis, numbers, len(TICKET_FIELDS))
        fields = [ANALYZER.terms(value) for value in doc.fields]
        words = [w for value in doc.fields for w in ANALYZER.words(value) if not ANALYZER.is_stop(w)]
        self.plain.put(key, fields, words)
        terms = np.frombuffer(blobs["terms"], dtype=np.int32)
        return Stored(key, 0, 0.0, np.frombuffer(blobs["lengths"], dtype=np.int32), terms,
                      np.frombuffer(blobs["tfs"], dtype=np.uint8).reshape(len(terms), len(TICKET_FIELDS)),
                      np.frombuffer(blobs["words"], dtype=np.int32))


@pytest.fixture
def desk() -> Desk:
    found = Desk()
    found.packed.load([found.stored(t["id"], t["title"], t["tags"], [m["body"] for m in t["messages"]])
                       for t in DESK])
    return found


def assert_same(desk: Desk) -> None:
    assert len(desk.packed) == len(desk.plain)
    for query in QUERIES:
        weights = ANALYZER.query(query)
        scores, matched = desk.packed.scores(weights, PARAMS.tickets)
        packed = {desk.packed.keys[s]: float(scores[s]) for s in np.flatnonzero(matched)}
        assert packed == desk.plain.score(weights, PARAMS.tickets), query
        some = sorted(packed)[:7] + ["KITE-142"]
        assert desk.packed.score_keys(weights, PARAMS.tickets, some) == desk.plain.score(weights, PARAMS.tickets,
                                                                                          only=some)
        for term in weights:
            assert desk.packed.df_of(term) == desk.plain.df(term) and desk.packed.idf(term) == desk.plain.idf(term)
    for word in ("okta", "webhook", "nosuchword"):
        assert desk.packed.words.count(word) == desk.plain.words[word]


def test_the_same_scores_as_plain_bm25f(desk):
    assert_same(desk)
    assert dict(desk.packed.terms_of("KITE-142")) == {t: (s, desk.plain.df(t))
                                                      for t, s in sorted(desk.plain.terms_of("KITE-142").items())}


def test_still_the_same_after_documents_change_and_after_repacking(desk):
    first = DESK[0]
    desk.packed.put(desk.stored(first["id"], first["title"], first["tags"],
                                [m["body"] for m in first["messages"]] + ["Okta webhooks duplicate again."]))
    desk.packed.put(desk.stored("KITE-9000", "Okta SSO locked out", ["sso"], ["Locked out after the SSO change."]))
    desk.packed.remove(DESK[1]["id"])
    desk.plain.remove(DESK[1]["id"])
    assert_same(desk)
    desk.packed.repack()
    assert_same(desk)


def test_ranking_breaks_ties_by_newer_then_key(desk):
    scores = np.array([1.0, 2.0, 2.0, 0.5] + [0.0] * (len(desk.packed.keys) - 4))
    matched = scores > 0
    desk.packed.updated[:4] = [0.0, 1.0, 2.0, 0.0]
    ranked = desk.packed.ranked(scores, matched, 2)
    assert [key for key, _ in ranked] == [desk.packed.keys[2], desk.packed.keys[1]]
    assert [key for key, _ in desk.packed.best(scores, matched, 2)] == sorted(desk.packed.keys[1:3], reverse=True)


def plain_like_query(desk: Desk, key: str) -> dict[str, float]:
    """A like-ticket query spelled out over the plain index: the document's terms held by two documents or
    more, weighted by the like fields they occur in; the rarest `like_terms` of them (weight × idf, ties by
    text) when there are more, else all in the order of their text."""
    weights = {term: sum(PARAMS.like_fields[f] for f, _ in shape)
               for term, shape in sorted(desk.plain.terms_of(key).items()) if desk.plain.df(term) >= 2}
    if len(weights) <= PARAMS.like_terms:
        return weights
    rarest = sorted(weights, key=lambda t: (-weights[t] * desk.plain.idf(t), t))[:PARAMS.like_terms]
    return {term: weights[term] for term in rarest}


def test_like_queries_and_their_check_both_ways_score_as_plain_bm25f(desk):
    names = desk.vocabulary.names
    keys = [t["id"] for t in DESK]
    for i, key in enumerate(keys):
        query = desk.packed.like_terms(key, PARAMS.like_fields, PARAMS.like_terms)
        expected = plain_like_query(desk, key)
        assert [(names[n], w) for n, w, _ in query] == list(expected.items()), key
        others = keys[i + 1:i + 6] + ["KITE-NONE"]
        checks = {other: desk.packed.like_checks(other, {key: query}, PARAMS.tickets)[key] for other in others}
        for other in others:
            plain = desk.plain.score(expected, PARAMS.tickets, only=[other, key])
            assert checks[other] == (plain.get(other, 0.0), plain.get(key, 0.0)), (key, other)
    # a dozen at once, as a like-ticket search checks its candidates: each as if checked alone
    queries = {key: desk.packed.like_terms(key, PARAMS.like_fields, PARAMS.like_terms) for key in keys[1:13]}
    together = desk.packed.like_checks(keys[0], queries, PARAMS.tickets)
    assert together == {key: desk.packed.like_checks(keys[0], {key: q}, PARAMS.tickets)[key]
                        for key, q in queries.items()}
