"""A draft that repeats internal text word for word (an internal note, an internal help section) is flagged for the
person approving it, with the span shown: the pure check (bot/runs/lifecycle/quotes.py), the sources check that
feeds the card, the terminal and `kitebase replay`, and the card itself."""

from __future__ import annotations

import io
import json

import pytest

from bot.agent.replay import source_lines, timeline
from bot.db.models import HelpSection
from bot.runs.lifecycle import citations
from bot.runs.lifecycle.quotes import MIN_WORDS, quoted_spans
from bot.slack_ui.cards import build_approval_decided, build_approval_request
from standins.slack_server import message_block_errors
from tests.helpers import approvals_of, run_row, service_with, steps_of
from tests.scripted import ScriptedModel, respond, text, use
from tools import REGISTRY, ToolContext
from tools.base import ToolError

# KITE-142's internal note (kb_data/tickets.json), by Priya Raman
NOTE = ("SSO log since 07:12 UTC: assertions now signed by a new cert with Issuer http://www.okta.com/exk9q2newtenant; "
        "stored IdP entity ID is still the old tenant's, so they're rejected and the user is bounced back to login.")
LEAK = ("Hi Dana,\n\nWe checked: Assertions now SIGNED by a new cert   with issuer "
        "http://www.okta.com/exk9q2newtenant,\nso Kitebase rejects them. [account-recovery#2]\n\nBest regards,\n"
        "Kitebase Support")


# --- the pure check ------------------------------------------------------------------------------------------

def test_a_long_verbatim_span_is_found_whatever_its_case_spacing_and_punctuation():
    [span] = quoted_spans(LEAK, NOTE)
    assert span == "Assertions now SIGNED by a new cert with issuer http://www.okta.com/exk9q2newtenant", \
        "shown as the draft writes it, spacing collapsed"


def test_long_means_eight_consecutive_words():
    note = "one two three four five six seven eight nine ten"
    assert MIN_WORDS == 8
    assert quoted_spans("we said: one two three four five six seven. Then more.", note) == []
    assert quoted_spans("we said: One two three four five six seven eight. Then more.", note) == \
        ["One two three four five six seven eight"]
    assert quoted_spans("one two three four five six seven X eight nine ten", note) == [], "a break in the run"


def test_separate_spans_are_separate_and_overlapping_windows_one():
    note = "alpha beta gamma delta epsilon zeta eta theta iota kappa. lambda mu nu xi omicron pi rho sigma tau"
    draft = ("Alpha beta gamma delta epsilon zeta eta theta iota kappa, and then something else entirely, "
             "lambda mu nu xi omicron pi rho sigma")
    assert quoted_spans(draft, note) == ["Alpha beta gamma delta epsilon zeta eta theta iota kappa",
                                         "lambda mu nu xi omicron pi rho sigma"]


def test_greetings_and_public_text_a_note_shares_are_not_flagged():
    note = ("Thank you for your patience while we look into this. Go to Settings → Security → Single sign-on and "
            "upload the new metadata file. Internal: their contract renewal is at risk, escalate to Renata today.")
    help_text = "Go to Settings → Security → Single sign-on and upload the new metadata file, then test it."
    draft = ("Hi Dana, thank you for your patience while we look into this. Go to Settings → Security → Single "
             "sign-on and upload the new metadata file.")
    assert quoted_spans(draft, note, public=[help_text]) == [], "a stock greeting and the help center's own words"
    assert quoted_spans(draft, note) == ["Go to Settings → Security → Single sign-on and upload the new metadata file"]
    leak = draft + " Your contract renewal is at risk, escalate to Renata today."
    assert quoted_spans(leak, note, public=[help_text]) == ["contract renewal is at risk, escalate to Renata today"]


def test_nothing_to_compare_is_nothing_found():
    assert quoted_spans("", NOTE) == [] and quoted_spans(LEAK, "") == [] and quoted_spans("short", "short") == []


# --- the sources check over what the run read ------------------------------------------------------------------

def conversation(draft: str, ticket: str = "KITE-142") -> list[dict]:
    return [
        {"role": "user", "content": [{"type": "text", "text": f"handle {ticket}"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get_ticket",
                                           "input": {"ticket_id": ticket.lower()}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "{…}"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t3", "name": "reply_to_customer",
                                           "input": {"ticket_id": ticket, "message": draft}}]},
    ]


def test_the_check_flags_a_draft_quoting_an_internal_note_of_a_ticket_the_run_read(db):
    with db.session() as session:
        checked = citations.check(session, LEAK, conversation(LEAK), "t3")
        clean = citations.check(session, "Hi Dana, use the owner bypass link. [account-recovery#2]",
                                conversation("x"), "t3")
    [found] = checked["quotes"]
    assert found["what"] == "an internal note by Priya Raman on KITE-142" and found["ticket"] == "KITE-142"
    assert found["span"].startswith("Assertions now SIGNED by a new cert")
    assert clean["quotes"] == []
    lines = "\n".join(source_lines(checked))
    assert "⚠ quotes an internal note by Priya Raman on KITE-142 word for word: “Assertions now SIGNED" in lines


def test_the_check_flags_quoting_and_citing_an_internal_help_section(db, settings):
    body = "Tier two resets the stored IdP entity ID from the staff console; never send the customer the link."
    with db.session() as session:
        session.add(HelpSection(id="escalation-runbook#1", article="escalation-runbook", article_title="Runbook",
                                number=1, heading="Okta tenant merges", body=body, internal=True))
        session.commit()
    draft = ("Hi Dana, tier two resets the stored IdP entity ID from the staff console. [escalation-runbook#1]")
    messages = conversation(draft)
    messages[1]["content"].append({"type": "tool_use", "id": "t2", "name": "search_help", "input": {"query": "x"}})
    messages[2]["content"].append({"type": "tool_result", "tool_use_id": "t2",
                                   "content": f"[escalation-runbook#1] Okta tenant merges — Runbook\nINTERNAL…\n{body}"})
    with db.session() as session:
        checked = citations.check(session, draft, messages, "t3")
    assert checked["cited"][0]["internal"] is True
    assert checked["problems"] == ["cites escalation-runbook#1, which is internal (restricted to a user segment: "
                                   "the customer cannot open it)"]
    assert checked["internal_read"] == [{"id": "escalation-runbook#1", "heading": "Okta tenant merges"}]
    [found] = checked["quotes"]
    assert found["what"] == "internal help section escalation-runbook#1 (Okta tenant merges)"
    assert found["span"] == "tier two resets the stored IdP entity ID from the staff console"
    card = json.dumps(build_approval_request(
        approval_id=1, fingerprint="f", approvers_hint="", tool="reply_to_customer",
        arguments={"ticket_id": "KITE-142", "message": draft}, target=None, run_ticket=None, sources=checked,
        help_url="https://help.kitebase.com")[1])
    assert "https://help.kitebase.com/escalation-runbook" not in card, "an internal section is never linked"
    assert ":lock: internal" in card and "Internal help the run read" in card
    ctx = ToolContext(db=db, settings=settings)  # the embedded desk refuses it too, for the model or an edit
    with pytest.raises(ToolError, match="escalation-runbook#1, which is internal"):
        REGISTRY["reply_to_customer"].preflight(ctx, ticket_id="KITE-142", message=draft)


def test_the_card_shows_the_span_to_whoever_decides(db):
    hostile = LEAK.replace("Kitebase rejects them", "<!channel> & <http://evil|kitebase.com>")
    with db.session() as session:
        checked = citations.check(session, LEAK, conversation(LEAK), "t3")
    checked["quotes"].append({"span": "x " * 400 + "<!channel>", "what": "an internal note by <@U1>"})
    common = {"tool": "reply_to_customer", "arguments": {"ticket_id": "KITE-142", "message": hostile},
              "target": None, "run_ticket": None, "sources": checked, "help_url": None}
    _, pending = build_approval_request(approval_id=1, fingerprint="f", approvers_hint="", **common)
    _, decided = build_approval_decided(status="approved", actor="U1", when=None, reason=None,
                                        result={"text": "sent", "is_error": False}, **common)
    shown = json.dumps(pending, ensure_ascii=False)
    assert "Quotes internal text" in shown and "an internal note by Priya Raman on KITE-142" in shown
    assert "“Assertions now SIGNED by a new cert with issuer http://www.okta.com/exk9q2newtenant”" in shown
    assert "<!channel>" not in shown and "<@U1>" not in shown, "spans and names are escaped"
    assert message_block_errors(pending) == [] and message_block_errors(decided) == []
    assert "Quotes internal text" not in json.dumps(decided), "the flag is for whoever decides"
    flag = next(i for i, b in enumerate(pending) if "Quotes internal text" in json.dumps(b))
    assert flag < [b["type"] for b in pending].index("actions"), "above the buttons"


def test_the_terminal_and_replay_show_the_quoted_span(db, settings):
    from bot.cli_run import decide_at_terminal

    model = ScriptedModel([
        respond(text("Reading."), use("get_ticket", ticket_id="KITE-142")),
        respond(text("Drafting."), use("reply_to_customer", ticket_id="KITE-142", message=LEAK)),
        respond(text("Stopped: the lead rejected it.")),
    ])
    service = service_with(db, settings, model)
    run_id = service.start("handle KITE-142")
    state = service.resume(run_id)
    assert state.status == "awaiting_approval"
    out = io.StringIO()
    decide_at_terminal(service, run_id, state, "reject", "lead", out)
    printed = out.getvalue()
    assert "⚠ quotes an internal note by Priya Raman on KITE-142 word for word: “Assertions now SIGNED" in printed
    replayed = timeline(run_row(db, run_id), steps_of(db, run_id))
    assert "⚠ quotes an internal note by Priya Raman on KITE-142 word for word" in replayed
    assert approvals_of(db, run_id)[0].status == "rejected"
