"""The human checkpoint: a gated call waits, and a decision taken later — in another process — continues
the run. Approve, edit and reject each do what they say; a customer reply is never sent twice."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.db.engine import Database
from bot.desk import open_desk
from bot.runs.lifecycle.service import BadInput, RunService
from tests.helpers import approvals_of, assert_well_formed, run_row, service_with, staff_replies
from tests.scripted import ScriptedModel, respond, text, use

DRAFT = "Hi Dana,\n\nUse the owner bypass link [account-recovery#2].\n\nKitebase Support"


def gated_script(messages):
    """Reads the ticket, drafts a reply alongside a lookup, then reports on what the reviewer decided."""
    turn = sum(1 for m in messages if m["role"] == "assistant")
    if turn == 0:
        return respond(text("Drafting while I look up related tickets."),
                       use("reply_to_customer", ticket_id="KITE-142", message=DRAFT),
                       use("search_tickets", query="sso locked"))
    last = messages[-1]["content"][0]
    return respond(text(f"Reviewer outcome: {last['content']} (error={last.get('is_error', False)})"))


def start_waiting(db, settings):
    model = ScriptedModel(gated_script)
    service = service_with(db, settings, model)
    run_id = service.start("handle KITE-142")
    state = service.resume(run_id)
    return service, model, run_id, state


def test_gated_call_waits_while_the_rest_of_the_turn_runs(db, settings):
    _, model, run_id, state = start_waiting(db, settings)
    assert state.status == "awaiting_approval"
    assert len(model.sent) == 1
    [approval] = approvals_of(db, run_id)
    assert approval.status == "pending" and approval.tool_input["message"] == DRAFT
    stored = run_row(db, run_id)
    assert stored.status == "awaiting_approval"
    search_id = stored.messages[-1]["content"][2]["id"]
    assert [r["tool_use_id"] for r in stored.pending_results] == [search_id], "the lookup ran; its result is held"
    assert "KITE-162" in stored.pending_results[0]["content"]
    assert staff_replies(db, "KITE-142") == [], "nothing reached the customer"
    assert stored.messages[-1]["role"] == "assistant", "results go back only when the whole turn is decided"


@pytest.mark.parametrize("decision", ["approve", "edit", "reject"])
def test_decision_from_a_fresh_process_continues_the_run(db, settings, decision):
    _, _, run_id, _ = start_waiting(db, settings)
    [approval] = approvals_of(db, run_id)
    extra = {"approve": [], "edit": ["--edit", "Hi Dana, an owner bypass link is on its way."],
             "reject": ["--reason", "Ask which IdP they moved to first"]}[decision]
    command = "reject" if decision == "reject" else "approve"
    # Another process records the decision from the database alone; a new service here continues the run.
    done = subprocess.run([sys.executable, "-c", DECIDE_ONLY, settings.database_url, str(approval.id), command, *extra],
                          capture_output=True, text=True, cwd=Path(__file__).parents[1], timeout=120)
    assert done.returncode == 0, done.stderr
    fresh = Database.from_url(settings.database_url)  # a new engine: nothing shared with the first service
    model = ScriptedModel(gated_script)
    state = RunService(fresh, settings, model_factory=lambda: model).resume(run_id)
    assert state.status == "completed"
    result = model.sent[-1][2]["content"][0]
    replies = staff_replies(db, "KITE-142")
    if decision == "approve":
        assert [r.body for r in replies] == [open_desk(settings, db).customer_text(DRAFT.strip())], \
            "the customer's copy: the cited section by its title (no KITEBASE_HELP_CENTER_URL here)"
        assert "Account recovery › Locked out of your account" in replies[0].body
        assert "Approved by lead-priya" in result["content"] and not result.get("is_error")
    elif decision == "edit":
        assert [r.body for r in replies] == ["Hi Dana, an owner bypass link is on its way."]
        assert "edited your draft" in result["content"] and "owner bypass link is on its way" in result["content"]
    else:
        assert replies == []
        assert result["is_error"] and "Ask which IdP they moved to first" in result["content"]
    assert_well_formed(state.messages)
    assert [b["type"] for b in state.messages[2]["content"]] == ["tool_result", "tool_result"], "one message, both results"
    fresh.engine.dispose()


DECIDE_ONLY = """
import sys
from bot.config import Settings
from bot.db.engine import Database
from bot.desk import open_desk
from bot.runs.lifecycle.service import RunService
url, approval_id, command, *rest = sys.argv[1:]
db = Database.from_url(url)
service = RunService(db, Settings(database_url=url))
if command == "reject":
    d = service.decide(int(approval_id), action="reject", actor="lead-priya", reason=rest[1])
elif rest:
    d = service.decide(int(approval_id), action="edit", actor="lead-priya", message=rest[1])
else:
    d = service.decide(int(approval_id), action="approve", actor="lead-priya")
print(d.outcome)
assert d.outcome in ("approved", "edited", "rejected"), d
"""


def test_two_decisions_send_one_reply(db, settings):
    service, _, run_id, _ = start_waiting(db, settings)
    [approval] = approvals_of(db, run_id)
    first = service.decide(approval.id, action="approve", actor="lead-a")
    second = service.decide(approval.id, action="approve", actor="lead-b")
    third = service.decide(approval.id, action="reject", actor="lead-c", reason="too late")
    assert first.outcome == "approved"
    assert second.outcome == third.outcome == "already_decided" and "lead-a" in second.message
    service.resume(run_id)
    service.resume(run_id)  # resuming again is harmless
    assert len(staff_replies(db, "KITE-142")) == 1


def test_a_decision_for_a_changed_call_is_refused(db, settings):
    service, _, run_id, _ = start_waiting(db, settings)
    [approval] = approvals_of(db, run_id)
    outcome = service.decide(approval.id, action="approve", actor="lead", expected_fingerprint="0" * 64)
    assert outcome.outcome == "mismatch"
    assert approvals_of(db, run_id)[0].status == "pending"


def test_bad_decisions_change_nothing(db, settings):
    service, _, run_id, _ = start_waiting(db, settings)
    [approval] = approvals_of(db, run_id)
    with pytest.raises(BadInput, match="empty"):
        service.decide(approval.id, action="edit", actor="lead", message="   ")
    with pytest.raises(BadInput, match="Say why"):
        service.decide(approval.id, action="reject", actor="lead", reason="")
    assert service.decide(999_999, action="approve", actor="lead").outcome == "not_found"
    assert approvals_of(db, run_id)[0].status == "pending"


def test_gated_call_for_an_unknown_ticket_is_not_shown_to_a_person(db, settings):
    model = ScriptedModel([respond(use("reply_to_customer", ticket_id="KITE-999", message="hi")), respond(text("ok"))])
    service = service_with(db, settings, model)
    run_id = service.start("handle KITE-142")
    state = service.resume(run_id)
    assert state.status == "completed" and approvals_of(db, run_id) == []
    assert model.sent[1][-1]["content"][0]["is_error"]


def test_a_second_live_run_on_the_same_ticket_is_refused(db, settings):
    start_waiting(db, settings)
    with pytest.raises(BadInput, match="already has a live run"):
        RunService(db, settings).start("handle KITE-142 again")
