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
from bot.search.rows import documents
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


def _vector_of(db, key: str) -> np.ndarray | None:
    with db.engine.connect() as conn:
        return vectors.decode(conn.execute(text("SELECT vector FROM search_document WHERE key = :key"),
                                           {"key": key}).scalar())


def test_every_stored_document_has_its_vector_and_it_follows_the_text(db, settings):
    with db.session() as session:
        search.search_help(session, "sso", limit=1)  # the first search stores what the seed left
    with db.engine.connect() as conn:
        missing = conn.execute(text("SELECT COUNT(*) FROM search_document WHERE vector IS NULL")).scalar()
    assert missing == 0, "tickets and help sections alike"
    before = _vector_of(db, "KITE-153")
    ctx = ToolContext(db=db, settings=settings, tool_use_id="toolu_vec_change")
    assert not execute(REGISTRY, ctx, "reply_to_customer",
                       {"ticket_id": "KITE-153", "message": "Invoices, VAT and reverse charge, explained."}).is_error
    after = _vector_of(db, "KITE-153")
    assert before is not None and after is not None and not np.array_equal(before, after)
    with db.session() as session:
        doc, _source = documents(session, "ticket", ["KITE-153"])["KITE-153"]
    expected = vectors.EMBEDDER.embed([vectors.document_text(doc.fields)])[0]
    assert np.array_equal(after, expected), "the vector of the ticket as it is now"


def test_a_row_stored_without_its_vector_gets_one_once_it_is_pending(db):
    with db.session() as session:
        search.search_help(session, "sso", limit=1)
    with db.engine.begin() as conn:
        conn.execute(text("UPDATE search_document SET vector = NULL WHERE key IN ('KITE-142', 'KITE-144')"))
        conn.execute(text("INSERT INTO search_pending (kind, key) VALUES ('ticket', 'KITE-142'), "
                          "('ticket', 'KITE-144')"))  # as migration 0019 does for rows without a vector
    later = Database.from_url(db.engine.url.render_as_string(hide_password=False))  # another process
    try:
        with later.session() as session:
            assert search.similar_tickets(session, "KITE-142", limit=5)
    finally:
        later.engine.dispose()
    assert _vector_of(db, "KITE-142") is not None and _vector_of(db, "KITE-144") is not None


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
    assert not hits.is_error and [h["id"] for h in hits.data if h["tier"] == "likely"] == ["KITE-166"]
    assert "compare words alone" in caplog.text
