"""Which like-ticket hits are the same problem is read off the desk's own similarities (bot/search/similar.py),
so a desk of another product, written by other people, keeps its matches (issue 35)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bench.gen_desks import build_desk, write_desk
from bot import search
from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.seed import seed_desk
from bot.search import similar
from bot.search.params import PARAMS


def test_the_bar_follows_the_background_not_a_fixed_number():
    params = dataclasses.replace(PARAMS, like_background_from=2, like_z=2.0, like_relative=0.0,
                                 like_prior=(0.3, 0.05, 0.0))
    low_desk = [0.50, 0.45] + [0.10, 0.12, 0.08, 0.11, 0.09, 0.10]
    high_desk = [0.80, 0.75] + [0.40, 0.42, 0.38, 0.41, 0.39, 0.40]
    low, high = similar.bar(low_desk, params), similar.bar(high_desk, params)
    assert 0.10 < low < 0.45 and 0.40 < high < 0.75  # the same shape on two scales: the same two hits kept
    assert high - low == pytest.approx(0.30, abs=1e-9)
    assert set(similar.same_problem(dict(zip("abcdefgh", low_desk, strict=True)), params)) == {"a", "b"}
    assert set(similar.same_problem(dict(zip("abcdefgh", high_desk, strict=True)), params)) == {"a", "b"}


def test_a_second_cause_well_below_the_first_is_left_out():
    params = dataclasses.replace(PARAMS, like_background_from=2, like_z=0.0, like_relative=0.8,
                                 like_prior=(0.0, 0.0, 0.0))
    assert set(similar.same_problem({"a": 0.9, "b": 0.85, "c": 0.6, "d": 0.1, "e": 0.1}, params)) == {"a", "b"}


def test_with_little_background_the_prior_decides():
    params = dataclasses.replace(PARAMS, like_background_from=5, like_z=2.0, like_relative=0.0,
                                 like_prior=(0.3, 0.05, 5.0))
    assert similar.bar([0.9, 0.2], params) == pytest.approx(0.4)  # no background: the prior's mean + 2 sd
    assert set(similar.same_problem({"a": 0.9, "b": 0.35}, params)) == {"a"}
    assert similar.same_problem({}, params) == {}


@pytest.fixture(scope="module")
def other_desk(tmp_path_factory):
    """A generated desk of another product (Payfern payroll, a tuning desk), with its known clusters."""
    folder = tmp_path_factory.mktemp("payroll")
    desk = build_desk("payroll", seed=2)
    write_desk(desk, folder / "desk")
    url = f"sqlite:///{folder}/desk.db"
    settings = Settings(database_url=url, data_dir=folder / "desk")
    db = Database.from_url(url)
    create_schema(db.engine)
    seed_desk(db, settings.data_dir)
    yield db, json.loads((folder / "desk" / "groups.json").read_text(encoding="utf-8"))["groups"]
    db.engine.dispose()


def test_a_desk_of_another_product_keeps_most_of_its_matches(other_desk):
    db, groups = other_desk
    found = wanted = returned = 0
    with db.session() as session:
        for group in groups:
            for ticket in group["tickets"]:
                hits = [h.id for h in search.similar_tickets(session, ticket, limit=5)]
                same = set(group["tickets"]) - {ticket}
                found += len(same & set(hits))
                wanted += min(5, len(same))
                returned += len(hits)
    # measured when written (payroll seed 2, 29 queries, 76 matches to find): 56 found in 81 hits, recall 0.74 and
    # precision 0.69; the fixed cut-off and weights before issue 35 found 51 in 77 (0.67, 0.66). Give or take
    # three misses.
    assert found >= 53 and found / wanted >= 0.69 and found / returned >= 0.64, (found, wanted, returned)


def test_the_ceiling_bench_bounds_what_the_cut_off_reaches(other_desk):
    """bench/search_ceiling.py reads the search's ranking with every checked hit kept: the real cut-off returns
    a head of that ranking, so the ceiling's oracle (the best head per query) does at least as well on every
    query, and the real first hit is the ranking's first hit."""
    from bench.search_ceiling import OPEN, like_ceiling, target
    from bench.search_metrics import SimilarCase, similar_scores

    db, groups = other_desk
    cases = [SimilarCase(t, frozenset(g["tickets"]) - {t}, frozenset(g.get("near_misses", ())), "tune")
             for g in groups for t in g["tickets"]]
    with db.session() as session:
        ceiling = like_ceiling(session, cases)
        real = {c.ticket: [h.id for h in search.similar_tickets(session, c.ticket, limit=5)] for c in cases}
        for c in cases:
            whole = [h.id for h in search.similar_tickets(session, c.ticket, limit=50, params=OPEN)]
            assert real[c.ticket] == whole[:len(real[c.ticket])], c.ticket
    reached = sum(target(similar_scores(real[c.ticket], c)) for c in cases) / len(cases)
    assert ceiling["oracle target"] >= reached
    assert ceiling["oracle target"] > reached + 0.05  # on this desk the cut-off leaves room (0.96 against 0.68 when written)
    assert 0.5 <= ceiling["P@1"] <= 1.0 and 0.5 <= ceiling["R-prec"] <= 1.0
    assert 0 <= ceiling["near misses"] <= ceiling["wrong"]
