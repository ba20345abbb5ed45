"""Sources on every draft: which help sections a draft cites, which similar tickets the run looked at, and what
is wrong with the citations, the same on the card, in the step log and in `kitebase replay`."""

from __future__ import annotations

import json

from bot.agent import trace
from bot.agent.replay import timeline
from bot.runs.lifecycle import citations
from bot.slack_ui.cards import build_approval_decided, build_approval_request
from bot.slack_ui.sources import build_sources
from standins.slack_server import message_block_errors
from tests.helpers import run_row, service_with, steps_of
from tests.scripted import ScriptedModel, respond, text, use

HIT = "[account-recovery#2] Locked out of your account — Account recovery\nIf your workspace uses SSO…"
TICKETS = json.dumps([{"id": "KITE-144", "title": "Nobody can sign in", "customer": "Harbor Pine", "status": "open",
                       "score": 3.1}])


def conversation(draft: str) -> list[dict]:
    return [
        {"role": "user", "content": [{"type": "text", "text": "handle KITE-142"}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "search_help", "input": {"query": "locked sso"}},
            {"type": "tool_use", "id": "t2", "name": "search_tickets", "input": {"query": "sso"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": HIT},
                                     {"type": "tool_result", "tool_use_id": "t2", "content": TICKETS}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t3", "name": "reply_to_customer",
             "input": {"ticket_id": "KITE-142", "message": draft}}]},
    ]


def test_citations_are_found_bracketed_bare_and_in_links():
    found = citations.cited("See [account-recovery#2], single-sign-on#1 and https://help.kitebase.com/billing-and-"
                          "invoices#3; again [account-recovery#2]. Not KITE-142#2 or C#1.")
    assert found == ["account-recovery#2", "single-sign-on#1", "billing-and-invoices#3"]


def test_what_the_run_retrieved_before_the_draft():
    seen = citations.retrieved(conversation("x"), "t3")
    assert seen["sections"] == {"account-recovery#2": "Locked out of your account — Account recovery"}
    assert [t["id"] for t in seen["tickets"]] == ["KITE-144"]
    assert citations.retrieved(conversation("x")[:2], "t3") == {"sections": {}, "tickets": [], "opened": []}, \
        "no results yet"


def test_a_good_draft_has_no_problems(db):
    with db.session() as session:
        checked = citations.check(session, "Do this. [account-recovery#2]", conversation("x"), "t3")
    [source] = checked["cited"]
    assert source["exists"] and source["retrieved"] and source["heading"] == "Locked out of your account"
    assert checked["problems"] == [] and checked["similar"][0]["customer"] == "Harbor Pine"


def test_a_made_up_a_never_retrieved_and_a_missing_citation_are_flagged(db):
    with db.session() as session:
        bad = citations.check(session, "See [account-recovery#9] and [billing-and-invoices#1].", conversation("x"), "t3")
        none = citations.check(session, "Just restart it.", conversation("x"), "t3")
    assert bad["problems"] == ["cites account-recovery#9, which does not exist",
                               "cites billing-and-invoices#1, which the run never retrieved"]
    assert none["problems"] == ["cites no help-center section"]


def test_sources_under_the_draft_escape_and_link(db):
    with db.session() as session:
        checked = citations.check(session, "[account-recovery#2] [account-recovery#9]", conversation("x"), "t3")
    checked["similar"][0]["customer"] = "<!channel> & co"
    blocks = build_sources(checked, "https://help.kitebase.com")
    shown = json.dumps(blocks)
    assert "<https://help.kitebase.com/account-recovery#2|account-recovery#2>" in shown
    assert "cites account-recovery#9, which does not exist" in shown and ":warning:" in shown
    assert "&lt;!channel&gt; &amp; co" in shown and "<!channel>" not in shown
    assert "https://" not in json.dumps(build_sources(checked, None)), "no link without KITEBASE_HELP_CENTER_URL"
    assert build_sources(None) == []


def test_the_card_shows_sources_for_pending_and_decided_drafts(db):
    with db.session() as session:
        checked = citations.check(session, "Hi. [account-recovery#2]", conversation("x"), "t3")
    common = {"tool": "reply_to_customer", "arguments": {"ticket_id": "KITE-142", "message": "Hi. [account-recovery#2]"},
              "target": None, "run_ticket": None, "sources": checked, "help_url": None}
    _, pending = build_approval_request(approval_id=1, fingerprint="f", approvers_hint="", **common)
    _, decided = build_approval_decided(status="edited", actor="U1", when=None, reason=None,
                                        result={"text": "sent", "is_error": False}, **common)
    for blocks in (pending, decided):
        assert "Sources cited" in json.dumps(blocks) and "KITE-144" in json.dumps(blocks)
        assert message_block_errors(blocks) == []
    checked["problems"] = ["cites no help-center section"]
    _, pending = build_approval_request(approval_id=1, fingerprint="f", approvers_hint="", **common)
    _, decided = build_approval_decided(status="edited", actor="U1", when=None, reason=None,
                                        result={"text": "sent", "is_error": False}, **common)
    assert "Check the sources" in json.dumps(pending) and "Check the sources" not in json.dumps(decided), \
        "the warning is for whoever decides; a decided card only lists the sources"
    assert [b["type"] for b in pending].index("actions") > [i for i, b in enumerate(pending)
                                                              if "Sources cited" in json.dumps(b)][0]


def test_the_step_log_and_replay_carry_the_check(db, settings, tmp_path):
    log = tmp_path / "steps.jsonl"
    model = ScriptedModel([
        respond(text("Looking."), use("search_help", query="locked out sso")),
        respond(text("Drafting."), use("reply_to_customer", ticket_id="KITE-142",
                                       message="Hi Dana, see [account-recovery#9].")),
    ])
    service = service_with(db, settings, model, step_log_path=log)
    run_id = service.start("handle KITE-142")
    assert service.resume(run_id).status == "awaiting_approval"
    held = [c for s in steps_of(db, run_id) for c in s.tool_calls or [] if c.get("status") == "held"]
    assert held[0]["sources"]["problems"] == ["cites account-recovery#9, which does not exist"]
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert any(c.get("sources", {}).get("problems") for line in logged for c in line["tool_calls"]), "in the step log"
    replayed = timeline(run_row(db, run_id), steps_of(db, run_id))
    assert "⚠ cites account-recovery#9, which does not exist" in replayed
    assert trace.step_line(run_id, {"tool_calls": held}).count("does not exist") == 1


def test_a_failing_check_never_stops_the_run(db, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("help center down")

    monkeypatch.setattr(citations, "check", boom)
    calls = [{"id": "t3", "name": "reply_to_customer", "input": {"message": "x"}}]
    with db.session() as session:
        citations.annotate(session, conversation("x"), calls)
    assert "sources" not in calls[0]
