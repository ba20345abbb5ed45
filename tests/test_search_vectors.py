"""Ticket vectors (bot/search/vectors.py): the model's own files, stored with each ticket's analysis, kept
aligned with the index's documents, and blended into "tickets like this one"."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sqlalchemy import text

from bot import search
from bot.db.engine import Database
from bot.search import vectors
from bot.search.documents import TICKET_FIELDS, ticket_document
from bot.search.packed import PackedIndex
from bot.search.persist import Stored, Vocabulary, analyse, encode
from bot.search.store import ticket_index
from tools import REGISTRY, ToolContext, execute


def test_vectors_are_unit_length_deterministic_and_about_the_text():
    okta, loop, vat, empty = vectors.EMBEDDER.embed([
        "We can't log in since we turned on Okta", "SSO sign-in loop after enabling Okta for the workspace",
        "The invoice shows VAT although we entered our VAT number", ""])
    assert okta.dtype == np.float16 and okta.shape == (vectors.DIM,)
    assert abs(float(np.linalg.norm(okta.astype(np.float32))) - 1) < 1e-2
    assert not empty.any(), "no words, no direction"
    again = vectors.EMBEDDER.embed(["We can't log in since we turned on Okta"])[0]
    assert np.array_equal(okta, again)
    sign_in, billing = (float(okta.astype(np.float32) @ v.astype(np.float32)) for v in (loop, vat))
    assert sign_in > billing + 0.2, (sign_in, billing)


def test_a_missing_model_is_named_not_downloaded(monkeypatch):
    monkeypatch.setattr(vectors.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(vectors.ModelMissing, match="pip install wordllama"):
        vectors.model_files()


def test_another_models_vector_is_not_read_as_this_ones():
    assert vectors.decode(np.zeros(vectors.DIM, np.float16).tobytes()) is not None
    assert vectors.decode(np.zeros(128, np.float16).tobytes()) is None
    assert vectors.decode(None) is None


def _stored(vocabulary: Vocabulary, key: str, title: str, message: str, vector: np.ndarray | None) -> Stored:
    doc = ticket_document(key, title, ["sso"], [message])
    analysis = analyse(doc.fields)
    vocabulary.learn(enumerate(sorted({*analysis.terms, *analysis.words} - vocabulary.ids.keys()),
                               start=len(vocabulary.ids) + 1))
    row = encode(analysis, vocabulary.ids, len(TICKET_FIELDS))
    return Stored(key, 0, 0.0, np.frombuffer(row["lengths"], np.int32), np.frombuffer(row["terms"], np.int32),
                  np.frombuffer(row["tfs"], np.uint8).reshape(-1, len(TICKET_FIELDS)),
                  np.frombuffer(row["words"], np.int32), vector)


def test_the_index_keeps_each_vector_with_its_document_through_changes():
    vocabulary = Vocabulary()
    texts = {"A": "okta sign in loop", "B": "okta certificate rotated", "C": "invoice vat wrong", "D": "csv export"}
    found = dict(zip(texts, vectors.EMBEDDER.embed(list(texts.values())), strict=True))
    index = PackedIndex(TICKET_FIELDS, vocabulary)
    index.load([_stored(vocabulary, key, key, body, found[key]) for key, body in texts.items() if key != "D"])

    def expected(a: str, b: str) -> float:
        return float(found[a].astype(np.float32) @ found[b].astype(np.float32))

    close = {"rel": 1e-4, "abs": 1e-6}  # float32 sums in another order
    assert index.cosines("A", ["B", "C"]) == pytest.approx({"B": expected("A", "B"), "C": expected("A", "C")},
                                                           **close)
    index.put(_stored(vocabulary, "D", "D", texts["D"], found["D"]))  # added later: the overlay
    index.put(_stored(vocabulary, "E", "E", "no vector stored", None))
    index.remove("B")
    assert index.cosines("A", ["B", "C", "D", "E"]) == pytest.approx({"C": expected("A", "C"),
                                                                      "D": expected("A", "D")}, **close)
    index.repack()
    assert index.cosines("D", ["A", "C"]) == pytest.approx({"A": expected("D", "A"), "C": expected("D", "C")},
                                                           **close)
    assert index.cosines("E", ["A"]) == {}, "a document without a vector compares with nothing"


def test_every_stored_ticket_has_its_vector_and_old_rows_get_one(db):
    with db.session() as session:
        ticket_index(session)  # the first search analyses and stores the desk
    with db.engine.begin() as conn:
        missing = conn.execute(text("SELECT COUNT(*) FROM search_document WHERE kind = 'ticket' "
                                    "AND vector IS NULL")).scalar()
        helps = conn.execute(text("SELECT COUNT(*) FROM search_document WHERE kind = 'help' "
                                  "AND vector IS NOT NULL")).scalar()
        conn.execute(text("UPDATE search_document SET vector = NULL WHERE key IN ('KITE-142', 'KITE-144')"))
    assert missing == 0 and helps == 0
    later = Database.from_url(db.engine.url.render_as_string(hide_password=False))  # a new process's index
    try:
        with later.session() as session:
            assert search.similar_tickets(session, "KITE-142", limit=5)
    finally:
        later.engine.dispose()
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM search_document WHERE vector IS NULL "
                                 "AND kind = 'ticket'")).scalar() == 0


def test_a_ticket_written_by_a_tool_is_stored_with_its_vector(db, settings):
    ctx = ToolContext(db=db, settings=settings, tool_use_id="toolu_vec")
    assert not execute(REGISTRY, ctx, "reply_to_customer",
                       {"ticket_id": "KITE-153", "message": "Please re-upload the logo as a PNG."}).is_error
    with db.engine.connect() as conn:
        stored = conn.execute(text("SELECT vector FROM search_document WHERE kind = 'ticket' "
                                   "AND key = 'KITE-153'")).scalar()
    assert vectors.decode(stored) is not None


def test_tickets_telling_one_cause_in_other_words_are_found(db):
    """From the evaluation set's held-out half (the parameters were chosen on the other half): three exports
    that ran past the 60 s limit (a 504, a spinner that fails, an export that never finishes). The words alone
    found one of the two others for KITE-117 and KITE-167, and nothing but the words' near neighbours for
    KITE-155, a GitHub organisation renamed (KITE-194: moved to a new one)."""
    with db.session() as session:
        found = {ticket: [h.id for h in search.similar_tickets(session, ticket, limit=5)]
                 for ticket in ("KITE-117", "KITE-167", "KITE-155")}
    assert {"KITE-102", "KITE-167"} <= set(found["KITE-117"]), json.dumps(found)
    assert {"KITE-102", "KITE-117"} <= set(found["KITE-167"]), json.dumps(found)
    assert "KITE-194" in found["KITE-155"], json.dumps(found)


def test_a_broken_model_never_fails_a_write_and_search_falls_back_to_words(db, settings, monkeypatch, caplog):
    def broken(texts):  # a damaged install: the model's files cannot be read
        raise vectors.ModelMissing("wordllama is installed without weights/l2_supercat_256.safetensors")

    monkeypatch.setattr(vectors.EMBEDDER, "embed", broken)
    ctx = ToolContext(db=db, settings=settings, tool_use_id="toolu_broken")
    result = execute(REGISTRY, ctx, "reply_to_customer",
                     {"ticket_id": "KITE-142", "message": "Could you check the new Okta app's certificate?"})
    assert not result.is_error, result.text
    hits = execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-162"})
    assert not hits.is_error and [h["id"] for h in hits.data] == ["KITE-166"]
    assert "compare words alone" in caplog.text
