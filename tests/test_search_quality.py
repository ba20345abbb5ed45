"""A regression subset of the search evaluation set (bench/search_set/), on both backends.

Every third help query and every third root-cause group must keep the quality they have now, give or take
a miss; the examples the search issue names must find their section. The full set, with the baselines and
latency, runs with `python -m bench.search_eval`.
"""

from __future__ import annotations

import json
from pathlib import Path

from bot import search
from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.seed import seed_desk

SET = Path(__file__).resolve().parents[1] / "bench" / "search_set"
HELP = [json.loads(line) for line in (SET / "help_queries.jsonl").read_text(encoding="utf-8").splitlines()][::3]
GROUPS = json.loads((SET / "similar_tickets.json").read_text(encoding="utf-8"))["groups"][::3]

ISSUE_EXAMPLES = [  # the misses the search issue describes, in the customers' words
    ("can't log in since we turned on Okta", {"single-sign-on#6", "account-recovery#2", "single-sign-on#5"}),
    ("MFA code not accepted", {"two-factor-authentication#2", "account-recovery#3"}),
    ("can we pay by wire", {"payments-and-refunds#1", "billing-and-invoices#5"}),
    ("close our account", {"cancelling-your-subscription#1"}),
    ("kitebase emails go to junk", {"notifications#3"}),
    ("postmortem for the outage", {"service-status-and-incidents#3"}),
    ("just one summary a day please", {"notifications#1"}),
    ("webhok signiture", {"webhooks#2"}),
    ("atachments skiped", {"jira-import#3", "mobile-app#3"}),
    ("add a second admin", {"workspace-admin-transfer#4", "roles-and-permissions#1"}),
    ("restore a deactivated user", {"account-recovery#4", "scim-provisioning#4"}),
]


def top(db: Database, query: str, limit: int = 2) -> list[str]:
    with db.session() as session:
        return [hit.id for hit in search.search_help(session, query, limit=limit)]


def like(db: Database, ticket_id: str) -> list[str]:
    with db.session() as session:
        return [hit.id for hit in search.similar_tickets(session, ticket_id, limit=5)]


def test_the_issue_examples_find_their_section(db):
    misses = [(query, top(db, query, 5)) for query, answers in ISSUE_EXAMPLES if not answers & set(top(db, query))]
    assert misses == []


def test_help_regression_subset(db):
    misses = [(row["q"], top(db, row["q"])) for row in HELP if not set(row["answers"]) & set(top(db, row["q"]))]
    assert len(HELP) >= 50
    assert 1 - len(misses) / len(HELP) >= 0.9, misses  # recall@2 on the subset: 0.96 when written


def test_similar_tickets_regression_subset(db):
    found = returned = wanted = 0
    near_misses = []
    for group in GROUPS:
        for ticket in group["tickets"]:
            hits, same = like(db, ticket), set(group["tickets"]) - {ticket}
            found += len(same & set(hits))
            returned += len(hits)
            wanted += min(5, len(same))
            near_misses += [(ticket, hit) for hit in hits if hit in group["near_misses"]]
    # recall@5 0.92 and precision@5 0.84 on the subset when written (the words alone, before ticket vectors:
    # 0.85 and 0.88); since issue 35's cut-off, which keeps more of a desk's matches on desks of other products,
    # 0.96 and 0.78 (a near miss let through a little more often here); give or take two misses
    assert found / wanted >= 0.92 and found / returned >= 0.74, (found, wanted, returned, near_misses)


def test_the_azure_block_is_not_the_okta_lockout(db):
    assert "KITE-162" not in like(db, "KITE-142") and "KITE-162" not in like(db, "KITE-144")
    assert like(db, "KITE-162") == ["KITE-166"]


def test_both_backends_rank_the_same(postgres_db, sqlite_url):
    settings = Settings(database_url=sqlite_url)
    sqlite_db = Database.from_url(sqlite_url)
    create_schema(sqlite_db.engine)
    seed_desk(sqlite_db, settings.data_dir)
    postgres, _ = postgres_db
    with sqlite_db.session() as a, postgres.session() as b:
        for row in HELP:
            assert search.search_help(a, row["q"], limit=5) == search.search_help(b, row["q"], limit=5)
        for group in GROUPS:
            for ticket in group["tickets"]:
                assert search.similar_tickets(a, ticket, limit=5) == search.similar_tickets(b, ticket, limit=5)
    sqlite_db.engine.dispose()
