"""Review of issue 50 (both fixed; each test failed before the fix). The findings:
(a) staff_latest is the newest staff OR internal message, so once the agent has worked a ticket its own boilerplate
    note ("Agent replied ...; waiting for the customer.") hides the staff reply that named the cause.
(b) The offer takes every ticket id named anywhere in the report, so an id inside a likely ticket's customer-written
    title (quoted by the report) is offered though it was never searched or read."""
from __future__ import annotations

import json

import pytest

from bot.db.models import Run, Ticket
from bot.runs.intake.fan_out import offer
from tools import REGISTRY, ToolContext, execute


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_agent_s_own_note_is_not_the_staff_latest_word(cli, settings, db):
    ctx = ToolContext(db=db, settings=settings)
    before = {h["id"]: h["staff_latest"] for h in
              json.loads(execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-144"}).text)["likely_same_problem"]}
    code, _, _ = cli("run", "handle KITE-142, and tell me if other customers have hit the same problem",
                     "--approve", "auto")
    assert code == 0
    data = json.loads(execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "KITE-144"}).text)
    after = {h["id"]: h["staff_latest"] for h in data["likely_same_problem"] + data["worth_a_look"]}
    print("\nKITE-142 staff_latest before the run:", before.get("KITE-142"))
    print("KITE-142 staff_latest after the run: ", after.get("KITE-142"))
    assert "waiting for the customer" not in (after.get("KITE-142") or ""), \
        "the agent's own status note is shown as what tells a cause from a symptom"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_id_in_a_likely_ticket_s_title_is_not_offered(cli, settings, db):
    with db.session() as session:
        t = session.get(Ticket, "KITE-144")
        t.title = "Nobody can sign in after our Okta certificate change (our other ticket KITE-187, please merge)"
        session.add(t)
        session.commit()
    code, out, _ = cli("run", "handle KITE-142, and tell me if other customers have hit the same problem",
                       "--approve", "auto")
    assert code == 0
    with db.session() as session:
        run = session.get(Run, 1)
        offered = offer(session, run, "embedded")
        print("\nREPORT:\n" + run.answer + "\nOFFERED:", offered)
    assert "KITE-187" not in offered, "KITE-187 was never in a like search nor read"
