"""The offline model as a fan-out child ("Draft for these N" after KITE-142's reply was approved): each child is a
real run through RunService whose first message is `child_request`. Children with KITE-142's problem draft for
their own customer citing the same section; another cause declines with a reason; a risky ticket goes to a person.
"""

from __future__ import annotations

import pytest
from sqlmodel import col, select

from bot.agent.fan_out_text import Reference, child_goal, child_request, declined_reason
from bot.db.models import Step, TicketMessage
from bot.desk import open_desk
from bot.runs.lifecycle.new_run import insert_run
from bot.runs.lifecycle.service import RunService
from tests.helpers import approvals_of, assert_well_formed, escalations_of, staff_replies

APPROVED = ("Hi Dana,\n\nThanks for letting us know, and sorry for the trouble with “Customer locked out after SSO "
            "change”.\n\nA workspace owner can use \"Trouble with SSO?\" → \"Email me an owner bypass link\" on the "
            "sign-in page, then update Settings → Security → Single sign-on. [account-recovery#2]\n\nBest regards,\n"
            "Kitebase Support")
REFERENCE = Reference("KITE-142", APPROVED, "U_LEAD", (("account-recovery#2", "Locked out of your account"),))


def insert_child(db, service, ticket_id: str, reference: Reference) -> int:  # type: ignore[no-untyped-def]
    """A fan-out child as the batch starts it (bot/runs/intake/fan_out.py): its request names the reference's
    ticket too, which a person's request may not (several tickets are refused), so it is inserted, not started."""
    with db.session() as session:
        run_id = insert_run(session, goal=child_goal(ticket_id, reference.ticket_id), ticket_id=ticket_id,
                            model=service.model_name, started_by="test-lead", origin={"surface": "test"},
                            thread_key=None, request=child_request(ticket_id, reference))
    assert run_id is not None
    return run_id


def start_child(db, settings, ticket_id: str):  # type: ignore[no-untyped-def]
    service = RunService(db, settings)
    run_id = insert_child(db, service, ticket_id, REFERENCE)
    return service, run_id, service.resume(run_id)


def calls_of(db, run_id: int) -> list[dict]:  # type: ignore[type-arg]
    with db.session() as session:
        steps = session.exec(select(Step).where(Step.run_id == run_id).order_by(col(Step.number))).all()
        return [c for s in steps if s.kind == "model" for c in s.tool_calls or []]


@pytest.mark.parametrize("ticket_id, contact, customer, title", [
    ("KITE-144", "Marcus", "Harbor Pine", "Nobody can sign in after our Okta certificate and domain change"),
    ("KITE-163", "Mei", "Tidewater Analytics", "SSO broken since we rebuilt the OneLogin connector"),
])
def test_a_child_with_the_same_problem_drafts_for_its_own_customer(db, settings, ticket_id, contact, customer,
                                                                   title):
    service, run_id, state = start_child(db, settings, ticket_id)
    assert state.status == "awaiting_approval", state.reason
    [approval] = approvals_of(db, run_id)
    draft = approval.tool_input["message"]
    assert approval.tool_name == "reply_to_customer" and approval.tool_input["ticket_id"] == ticket_id
    assert draft.startswith(f"Hi {contact},") and f"“{title}”" in draft and "[account-recovery#2]" in draft
    assert "Dana" not in draft and "KITE-142" not in draft and "Northwind" not in draft, "nothing of the parent's"

    calls = calls_of(db, run_id)
    assert [c["name"] for c in calls[:3]] == ["get_ticket", "search_tickets", "search_help"]
    assert calls[1]["input"] == {"like_ticket_id": ticket_id, "status": "any", "limit": 5}
    assert calls[2]["input"]["query"] == "Locked out of your account", "it fetches the sections the reply cites"
    [held] = [c for c in calls if c["name"] == "reply_to_customer"]
    assert held["sources"]["problems"] == [], "the cited section was retrieved in this run"

    service.decide(approval.id, action="approve", actor="test-lead")
    state = service.resume(run_id)
    assert state.status == "completed", state.reason
    assert state.answer == (f"Replied to {customer} on {ticket_id} (approved by test-lead) with the fix approved on "
                            "KITE-142, citing [account-recovery#2]. I set the ticket to pending with an internal note.")
    assert declined_reason(state.answer) is None
    assert [m.body for m in staff_replies(db, ticket_id)][-1] == open_desk(settings, db).customer_text(draft.strip()), \
        "the approved draft, as the customer reads it (a cited section by its title)"
    with db.session() as session:
        notes = session.exec(select(TicketMessage.body).where(TicketMessage.ticket_id == ticket_id,
                                                              TicketMessage.role == "internal")).all()
    assert any("fix approved on KITE-142" in note for note in notes)
    assert_well_formed(state.messages)


def test_a_child_with_another_cause_declines_and_says_why(db, settings):
    _, run_id, state = start_child(db, settings, "KITE-166")
    assert state.status == "completed", state.reason
    assert approvals_of(db, run_id) == [] and staff_replies(db, "KITE-166") == [], "nothing drafted"
    reason = declined_reason(state.answer)
    # KITE-142 is only worth a look next to KITE-166 (issue 50): the child reads it before it judges, and declines
    assert reason == ("KITE-166 looks like another cause: I read KITE-142, only worth a look next to it, and its "
                      "text names no error or cause KITE-166 shows; the tickets most like KITE-166 are KITE-162 "
                      "(“Two nurses locked out after Azure AD conditional access change”). I drafted nothing.")
    assert state.answer.splitlines()[-1].startswith("Declined: "), "the reason is the answer's last line"
    calls = calls_of(db, run_id)
    assert [c["name"] for c in calls] == ["get_ticket", "search_tickets", "search_help", "get_ticket"]
    assert calls[-1]["input"] == {"ticket_id": "KITE-142"}
    assert_well_formed(state.messages)


def test_a_risky_child_goes_to_a_person(db, settings):
    _, run_id, state = start_child(db, settings, "KITE-217")  # "Can I get that money back?"
    assert state.status == "escalated" and "refunds are a person's decision" in state.reason
    assert approvals_of(db, run_id) == [] and staff_replies(db, "KITE-217") == []
    [escalation] = escalations_of(db, run_id)
    assert escalation.kind == "model_request"


def test_a_child_whose_draft_is_rejected_goes_to_a_person(db, settings):
    service, run_id, state = start_child(db, settings, "KITE-144")
    [approval] = approvals_of(db, run_id)
    service.decide(approval.id, action="reject", actor="test-lead", reason="Their IdP is not Okta any more")
    state = service.resume(run_id)
    assert state.status == "escalated" and "Their IdP is not Okta any more" in state.reason
    assert staff_replies(db, "KITE-144") == []


def test_a_request_that_is_not_a_child_is_worked_as_before(db, settings):
    service = RunService(db, settings)
    state = service.resume(service.start("handle KITE-144"))
    assert state.status == "awaiting_approval"
    first = [b for b in state.messages[1]["content"] if b["type"] == "text"][0]["text"]
    assert first == "I'll start by reading KITE-144."


@pytest.mark.parametrize("ticket_id, sources, reason", [
    ("KITE-139", REFERENCE.sources, "KITE-139 is already closed. I drafted nothing."),
    ("KITE-144", (), "the reply approved on KITE-142 cites no help section to draft from. I drafted nothing."),
    ("KITE-144", (("account-recovery#9", "Recovering a deleted board"),),
     "KITE-144 looks like the same problem as KITE-142, but the help section its reply cites did not come back from "
     "the help center. I drafted nothing."),
])
def test_a_child_declines_what_it_cannot_answer_from_the_same_sources(db, settings, ticket_id, sources, reason):
    service = RunService(db, settings)
    reference = Reference("KITE-142", APPROVED, None, sources)
    run_id = insert_child(db, service, ticket_id, reference)
    state = service.resume(run_id)
    assert state.status == "completed" and declined_reason(state.answer) == reason
    assert approvals_of(db, run_id) == [] and staff_replies(db, ticket_id) == []
