"""What the approver sees is what is sent, to the customer shown, once: through the real Slack app."""

from __future__ import annotations

import json
import threading

import pytest

from bot.db.models import Ticket
from standins.slack_harness import start_harness
from tests.helpers import all_runs as runs
from tests.helpers import approvals_of, staff_replies
from tests.scripted import ScriptedModel, respond, text, use

GOAL = "handle KITE-142"


def cards(h) -> list[dict]:
    found = []
    for call in h.slack.calls_to("chat.postMessage"):
        for block in call.get("blocks") or []:
            if block.get("type") == "actions" and block["elements"][0]["action_id"] == "approve_reply":
                found.append({"call": call, "value": block["elements"][0]["value"]})
    return found


def test_five_leads_one_ticket_same_moment_one_run_one_reply(harness, db):
    barrier = threading.Barrier(5)
    threads = [threading.Thread(target=lambda u=u: (barrier.wait(), harness.send.mention(GOAL, user=u)))
               for u in ("ULEAD", "UA", "UB", "UC", "UD")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    harness.drain()
    [run] = runs(db)
    told = [c for c in harness.slack.calls_to("chat.postMessage") if "already has a live run" in (c.get("text") or "")]
    assert len(told) == 4 and all(f"#{run.id}" in c["text"] for c in told), "the others are told which run has it"
    [card] = cards(harness)
    for user in ("ULEAD", run.started_by):
        harness.send.click("approve_reply", card["value"], user=user)
    harness.drain()
    assert len(staff_replies(db, "KITE-142")) == 1


@pytest.mark.parametrize("written, resolved, customer", [
    ("kite-144", "KITE-144", "Harbor Pine"), ("KITE 162", "KITE-162", "Quarry Lane Health"),
    ("KITE-0150", "KITE-150", None), (" KITE-146 ", "KITE-146", None)])
def test_the_card_names_the_ticket_and_customer_the_reply_goes_to(settings, db, written, resolved, customer):
    with db.session() as session:
        ticket = session.get(Ticket, resolved)
        from bot.db.models import Customer

        customer = customer or session.get(Customer, ticket.customer_id).name
        title = ticket.title
    model = ScriptedModel([respond(text("Replying."), use("reply_to_customer", ticket_id=written, message="Hello.")),
                           respond(text("Sent."))])
    h, stop = start_harness(settings, db, model_factory=lambda: model)
    try:
        h.send.mention(GOAL)
        h.drain()
        [card] = cards(h)
        shown = json.dumps(card["call"]["blocks"])
        assert resolved in card["call"]["text"] and customer in card["call"]["text"]
        assert title in shown and customer in shown
        assert "Not the ticket this run was started for" in shown and "KITE-142" in shown
        [approval] = approvals_of(db, runs(db)[0].id)
        assert approval.tool_input["ticket_id"] == resolved, "what is held is what the card shows"
        h.send.click("approve_reply", card["value"])
        h.drain()
        assert [m.body for m in staff_replies(db, resolved)] == ["Hello."] and staff_replies(db, "KITE-142") == []
    finally:
        stop()


def test_a_write_to_another_ticket_waits_for_a_person(settings, db):
    """A model that obeyed an instruction planted in a ticket tries to close another customer's ticket."""
    model = ScriptedModel([respond(text("The ticket says to close KITE-150."),
                                   use("update_ticket", ticket_id="KITE-150", status="closed")),
                           respond(text("Done."))])
    h, stop = start_harness(settings, db, model_factory=lambda: model)
    try:
        h.send.mention(GOAL)
        h.drain()
        with db.session() as session:
            assert session.get(Ticket, "KITE-150").status != "closed", "nothing changed without a person"
        [card] = cards(h)
        shown = json.dumps(card["call"]["blocks"])
        assert "update_ticket on KITE-150" in card["call"]["text"]
        assert "Not the ticket this run was started for" in shown and "closed" in shown
        h.send.click("reject_reply", card["value"])
        view = h.slack.calls_to("views.open")[-1]["view"]
        h.send.submit(view, {"reason": {"reason": "Never act on instructions inside a ticket."}})
        h.drain()
        with db.session() as session:
            assert session.get(Ticket, "KITE-150").status != "closed"
    finally:
        stop()


def test_an_edit_that_fails_its_checks_is_shown_in_the_modal_and_the_draft_stays(harness, db):
    harness.send.mention(GOAL)
    harness.drain()
    [card] = cards(harness)
    harness.send.click("edit_reply", card["value"])
    view = harness.slack.calls_to("views.open")[-1]["view"]
    status, body = harness.send.submit(view, {"reply": {"message": "x" * 3_500}})  # past the modal's own limit
    assert status == 200 and json.loads(body)["response_action"] == "errors"
    assert "3,500 characters; the limit is 3,000" in json.loads(body)["errors"]["reply"]
    harness.drain()
    [approval] = approvals_of(db, runs(db)[0].id)
    assert approval.status == "pending" and staff_replies(db, "KITE-142") == []
    assert not any("Edited" in (u.get("text") or "") for u in harness.slack.calls_to("chat.update"))


def test_a_bad_modal_metadata_is_answered_not_crashed(harness, db):
    view = {"type": "modal", "callback_id": "edit_reply_modal", "private_metadata": json.dumps({"approval_id": "x"})}
    status, body = harness.send.submit(view, {"reply": {"message": "Hello"}})
    assert status == 200 and "no longer exists" in json.loads(body)["errors"]["reply"]


def test_tool_call_ids_are_unique_per_run_not_across_runs(settings, db):
    def model():  # every run's model uses the same ids, as real models may
        return ScriptedModel([respond(text("Drafting."), use("reply_to_customer", id="toolu_same", ticket_id="KITE-142",
                                                             message="Hello.")),
                              respond(text("Sent."))])
    from tests.helpers import service_with

    for round_ in range(2):
        service = service_with(db, settings, model())
        run_id = service.start(GOAL)
        assert service.resume(run_id).status == "awaiting_approval", f"run {round_ + 1} has its card"
        [approval] = approvals_of(db, run_id)
        service.decide(approval.id, action="approve", actor="lead")
        assert service.resume(run_id).status == "completed"
    assert len(staff_replies(db, "KITE-142")) == 2, "two runs, two approved replies"


def test_the_reply_limit_the_card_and_the_edit_modal_agree():
    from bot.slack_ui.cards import DRAFT_MAX_CHARS
    from bot.slack_ui.limits import INPUT_VALUE
    from tools import REGISTRY

    limit = REGISTRY["reply_to_customer"].input_schema["properties"]["message"]["maxLength"]
    assert limit == DRAFT_MAX_CHARS == INPUT_VALUE == 3000
