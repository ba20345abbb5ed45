"""The search in the database (bot/search/): candidates from its full-text index, ranked exactly; statistics
that stay exact through every kind of write, concurrent ones included; bounded work on a big desk."""

from __future__ import annotations

import threading
from collections import Counter

import numpy as np
import pytest
from sqlalchemy import text

from bot import search
from bot.db.engine import Database
from bot.search import fts
from bot.search.bm25f import Bm25fIndex
from bot.search.catch_up import index_tickets
from bot.search.documents import HELP_FIELDS, TICKET_FIELDS
from bot.search.params import PARAMS
from bot.search.persist import ANALYZER
from bot.search.queries import Budget, Term, picks
from bot.search.rows import documents
from bot.search.terms import Totals
from tools import REGISTRY, ToolContext, execute

QUERIES = ["sso locked out okta", "webhook retries duplicate", "invoice vat", "export csv timeout",
           "two factor codes not arriving", "slack reconnect banner enterprise grid", "okta certficate"]


def recount(db: Database) -> None:
    """search_stat, search_total and the full-text rows are what the stored documents say, exactly."""
    fields = {"help": len(HELP_FIELDS), "ticket": len(TICKET_FIELDS)}
    with db.engine.connect() as conn:
        for kind, width in fields.items():
            docs: Counter[int] = Counter()
            words: Counter[int] = Counter()
            lengths = np.zeros(5, dtype=np.int64)
            rows = conn.execute(text("SELECT id, terms, tfs, words, lengths FROM search_document WHERE kind = :k"),
                                {"k": kind}).all()
            for row in rows:
                docs.update(np.frombuffer(row.terms, dtype=np.int32).tolist())
                words.update(np.frombuffer(row.words, dtype=np.int32).tolist())
                own = np.frombuffer(row.lengths, dtype=np.int32)
                lengths[:len(own)] += own
            stored = {int(t): (int(d), int(w)) for t, d, w in conn.execute(
                text("SELECT term_id, docs, words FROM search_stat WHERE kind = :k AND (docs <> 0 OR words <> 0)"),
                {"k": kind})}
            assert stored == {t: (docs[t], words[t]) for t in set(docs) | set(words)}, kind
            total = conn.execute(text("SELECT docs, field_0, field_1, field_2, field_3, field_4 FROM search_total "
                                      "WHERE kind = :k"), {"k": kind}).one()
            assert tuple(total) == (len(rows), *lengths.tolist()), kind
            column = "id" if db.dialect == "postgresql" else "rowid"
            indexed = {int(i) for (i,) in conn.execute(text(f"SELECT {column} FROM search_fts_{kind}"))}
            assert indexed == {int(row.id) for row in rows}, f"one full-text row per {kind} document"
            assert width


def test_the_statistics_and_the_full_text_rows_stay_exact_through_every_kind_of_write(db, settings):
    recount(db)
    ctx = ToolContext(db=db, settings=settings, tool_use_id="toolu_stats")
    assert not execute(REGISTRY, ctx, "reply_to_customer",
                       {"ticket_id": "KITE-142", "message": "Zanzibar quokkas rotate the Okta certificate."}).is_error
    with db.engine.begin() as conn:  # behind the app's back: a new ticket, a changed section, a removed ticket
        conn.execute(text("INSERT INTO ticket (id, customer_id, title, status, priority, tags, created_at, "
                          "updated_at) SELECT 'KITE-990', customer_id, 'Quokka sticker sheet missing', 'open', "
                          "'low', tags, created_at, updated_at FROM ticket WHERE id = 'KITE-142'"))
        conn.execute(text("UPDATE help_section SET body = body || ' Quokkas.' WHERE id = 'account-recovery#2'"))
        conn.execute(text("DELETE FROM ticket_message WHERE ticket_id = 'KITE-101'"))
        conn.execute(text("DELETE FROM ticket WHERE id = 'KITE-101'"))
    with db.session() as session:
        assert [h.id for h in search.search_tickets(session, "quokka", limit=5)] == ["KITE-990", "KITE-142"]
        assert "KITE-101" not in [h.id for h in search.search_tickets(session, "VAT partita IVA", limit=20)]
    recount(db)
    with db.engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM search_pending")).scalar() == 0


def plain_ranking(db: Database, query: str, limit: int) -> list[tuple[str, float]]:
    """The whole desk scored by the plain BM25F index (no database, no candidates)."""
    plain = Bm25fIndex(TICKET_FIELDS)
    with db.session() as session:
        keys = [row[0] for row in session.execute(text("SELECT id FROM ticket"))]
        found = documents(session, "ticket", keys)
    for key, (doc, _source) in found.items():
        words = [w for value in doc.fields for w in ANALYZER.words(value) if not ANALYZER.is_stop(w)]
        plain.put(key, [ANALYZER.terms(value) for value in doc.fields], words)
    weights = ANALYZER.query(query, plain.words, PARAMS.phrase_weight)
    weights = {t: w for t, w in weights.items() if plain.df(t)}
    scored = plain.score(weights, PARAMS.tickets)
    ordered = sorted(scored.items(), key=lambda kv: (-round(kv[1], 9), -found[kv[0]][0].updated, kv[0]))
    return ordered[:limit]


def test_on_a_desk_this_size_the_candidates_are_every_match_and_the_scores_are_plain_bm25f(db):
    for query in QUERIES:
        with db.session() as session:
            hits = search.search_tickets(session, query, limit=8)
        expected = plain_ranking(db, query, 8)
        assert [h.id for h in hits] == [key for key, _ in expected], query
        assert [h.score for h in hits] == pytest.approx([score for _, score in expected], rel=1e-9), query


def test_a_big_desk_ranks_a_bounded_number_of_rows_and_the_telling_terms_first():
    totals = Totals(300_000, (1,) * 5)
    budget = Budget(everything=1000, rows=4000, scan=2000, pool=300)
    terms = [Term(1, "okta", 1.0, 900), Term(2, "sign", 1.0, 90_000), Term(3, "aadsts53003", 1.0, 12),
             Term(4, "workspac", 1.0, 250_000), Term(5, "certif", 1.0, 2500), Term(6, "loop", 0.5, 1800)]
    chosen, scan = picks(terms, totals, budget)
    numbers = [n for n, _ in chosen]
    assert numbers[0] == 3 and 1 in numbers, "the rarest, most telling terms first"
    assert sum(min(next(t.df for t in terms if t.number == n), scan) for n in numbers) <= budget.rows
    assert 4 not in numbers and 2 not in numbers, "terms half the desk holds are not ranked one by one"
    assert all(share <= max(budget.least, budget.pool // len(chosen)) for _, share in chosen)
    few = [Term(1, "okta", 1.0, 40), Term(2, "loop", 1.0, 30)]
    assert picks(few, totals, budget) == ([(1, 40), (2, 30)], 40), "few matches: every one is a candidate"
    common = [Term(4, "workspac", 1.0, 250_000)]
    assert picks(common, totals, budget) == ([(4, 300)], 2000), "a common term alone: a sample of it, ranked"


def test_the_full_text_tokens_are_term_numbers_repeated_by_frequency():
    terms = np.array([7, 12], dtype=np.int32)
    tfs = np.array([[1, 0, 3, 0, 0], [0, 0, 0, 0, 20]], dtype=np.uint8)
    tokens = fts.field_tokens(terms, tfs)
    assert tokens == [["t7"], [], ["t7"] * 3, [], ["t12"] * fts.REPEAT_MAX]
    assert fts.tsvector(tokens, "BBABD").startswith("t7:1B,2A,3A,4A t12:5D,6D")


def test_concurrent_stores_of_one_ticket_count_it_once(db, settings):
    """Four processes store the same tickets at the same moment (a reply, the mirror's page, two searches
    catching up): whichever order their transactions take, every count stays exact."""
    with db.engine.begin() as conn:
        conn.execute(text("INSERT INTO ticket (id, customer_id, title, status, priority, tags, created_at, "
                          "updated_at) SELECT 'KITE-991', customer_id, 'Brand new', 'open', 'low', tags, created_at, "
                          "updated_at FROM ticket WHERE id = 'KITE-142'"))
        conn.execute(text("INSERT INTO ticket_message (ticket_id, author, role, body, created_at) "
                          "SELECT 'KITE-142', author, 'staff', 'A wombat reply', created_at FROM ticket_message "
                          "WHERE ticket_id = 'KITE-142' LIMIT 1"))
        conn.execute(text("DELETE FROM search_pending"))
    engines = [Database.from_url(settings.database_url) for _ in range(4)]
    start = threading.Barrier(len(engines))
    errors: list[BaseException] = []

    def store(database: Database) -> None:
        try:
            start.wait(timeout=30)
            with database.session() as session:
                index_tickets(session, ["KITE-991", "KITE-142", "KITE-144"])
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=store, args=(e,)) for e in engines]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    for engine in engines:
        engine.engine.dispose()
    assert not errors, errors
    recount(db)
    with db.session() as session:
        assert [h.id for h in search.search_tickets(session, "wombat", limit=5)] == ["KITE-142"]


def test_scores_of_many_documents_at_once_are_each_documents_bm25f_in_the_querys_order():
    """scoring.scores matches all candidates' terms against the query in one pass: each document must get
    exactly the score the formula gives it alone, whatever the order of the query's terms, and None when it
    holds none of them."""
    from bot.search.persist import Stored
    from bot.search.scoring import Desk, scores

    rng = np.random.default_rng(7)
    totals = Totals(docs=500, lengths=(900.0, 400.0, 6000.0, 300.0, 9000.0))
    docs = []
    for i in range(40):
        held = np.sort(rng.choice(60, size=int(rng.integers(0, 12)), replace=False)).astype(np.int32)
        tfs = rng.integers(0, 4, size=(len(held), 5)).astype(np.uint8)
        tfs[:, 2] += 1  # every held term occurs somewhere
        docs.append(Stored(i, f"KITE-{i}", 0, 0.0, rng.integers(1, 40, size=5).astype(np.int32), held, tfs,
                           np.zeros(0, np.int32)))
    query = {int(n): float(w) for n, w in zip(rng.permutation(60)[:15], rng.uniform(0.2, 3.0, 15), strict=True)}
    desk = Desk(totals, {n: int(rng.integers(1, 80)) for n in query})
    params = PARAMS.like
    norm = desk.norm(params)
    for doc, got in zip(docs, scores(docs, query, desk, params), strict=True):
        total, matched = 0.0, False
        for number, weight in query.items():
            at = np.flatnonzero(doc.terms == number)
            if not len(at):
                continue
            matched = True
            tf = sum(w * float(doc.tfs[at[0], f]) / (one_minus_b + b_avg * float(doc.lengths[f]))
                     for f, (w, one_minus_b, b_avg) in enumerate(norm) if doc.tfs[at[0], f])
            total += weight * desk.idf(number) * (params.k1 + 1) * tf / (params.k1 + tf)
        assert (got is None) == (not matched), doc.key
        if matched:
            assert got == pytest.approx(total, rel=1e-12), doc.key
