"""The AI notice: every message the agent writes in Slack carries it exactly once (bot/slack_ui/notice.py), also
at Slack's block limit; first builder by builder, then every message the Slack stand-in received in whole runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.slack_ui import blocks as ui
from bot.slack_ui import cards, queue
from bot.slack_ui.batch import build_batch_card
from bot.slack_ui.limits import MAX_BLOCKS_MESSAGE, MAX_BLOCKS_VIEW
from bot.slack_ui.notice import AI_NOTICE, ai_notice, notice_count
from standins.slack_harness import start_harness
from standins.slack_server import SlackAPIServer, message_block_errors, view_errors
from tests.test_slack_app import GOAL

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
STEP = {"kind": "model", "stop_reason": "tool_use", "text": "Reading the ticket.", "number": 1,
        "tool_calls": [{"id": "t1", "name": "get_ticket", "input": {"ticket_id": "KITE-142"}, "result": "ok"}]}
TARGET = {"id": "KITE-142", "customer": "Northwind", "title": "SSO", "status": "open", "contact": "Dana"}
CARD = {"tool": "reply_to_customer", "arguments": {"ticket_id": "KITE-142", "message": "Hi Dana,\n\nDo this."},
        "target": TARGET, "run_ticket": TARGET}
ESCALATION = {"escalation_id": 1, "run_id": 1, "ticket_id": "KITE-142", "kind": "guard", "reason": "steps",
              "summary": "line\n" * 4000, "thread_link": None}
QUEUE = [{"ticket_id": f"KITE-{i}", "run_id": i, "kind": "guard", "reason": "x" * 2500} for i in range(80)]


def _batch_view(children: int) -> dict[str, Any]:
    approvals = [{"id": n, "fingerprint": "f", "status": "pending", "message": "word " * 600, "decided_by": None,
                  "decided_at": None, "reason": None, "result": None, "sources": {"cited": [], "problems": []}}
                 for n in range(children)]
    kids = [{"run_id": n, "ticket_id": f"KITE-{n}", "ticket": {"customer": "C", "title": "t"}, "run_status": "x",
             "reason": None, "linked": False, "declined": None, "state": "draft", "approval": approvals[n]}
            for n in range(children)]
    return {"id": 7, "problem": "KITE-142", "requested_by": "ULEAD", "reference": {"message": "word " * 500},
            "skipped": [{"ticket_id": "KITE-99", "reason": "closed"}], "children": kids, "working": 0,
            "pending": approvals, "done": False}


MESSAGES: dict[str, Callable[[], ui.Message]] = {
    "timeline": lambda: ui.build_timeline("head", [STEP] * 30, "working"),
    "timeline, 60 long steps": lambda: ui.build_timeline("head", [{**STEP, "text": "w " * 1400}] * 60, "done"),
    "request": lambda: ui.build_request("ULEAD", GOAL),
    "intake request": lambda: ui.build_intake_request("urgent", "KITE-142", "SSO", ["priority urgent"]),
    "notice": lambda: ui.build_notice("Approved by <@ULEAD>."),
    "reminder": lambda: ui.build_reminder(ticket_id="KITE-142", customer="Northwind", tool="reply_to_customer",
                                          waited_seconds=3600, expires_at=NOW.isoformat(), approvers=["UBOSS"],
                                          backups=[]),
    "final": lambda: ui.build_final(run_id=1, status="completed", answer="Done.", reason=None, steps=3, tokens=9,
                                    cost=0.01, offer=["KITE-144"]),
    "final, a long answer": lambda: ui.build_final(run_id=1, status="completed", answer="a\n" * 80_000, reason=None,
                                                   steps=3, tokens=9, cost=0.01, offer=["KITE-144", "KITE-163"]),
    "final, stopped": lambda: ui.build_final(run_id=1, status="escalated", answer=None, reason="steps", steps=3,
                                             tokens=9, cost=0.01),
    "approval card": lambda: cards.build_approval_request(approval_id=1, fingerprint="f",
                                                          approvers_hint="Approvers: <@UBOSS>.", **CARD),
    "approval card, longest draft": lambda: cards.build_approval_request(
        approval_id=1, fingerprint="f", approvers_hint="", **{**CARD, "arguments": {
            "ticket_id": "KITE-142", "message": "word " * (cards.DRAFT_MAX_CHARS // 5)}}),
    "decided card": lambda: cards.build_approval_decided(status="approved", actor="ULEAD", when=NOW, reason=None,
                                                         result={"text": "ok", "is_error": False}, **CARD),
    "batch card, ten tickets": lambda: build_batch_card(_batch_view(10)),
    "escalation, a long summary": lambda: queue.build_escalation(**ESCALATION),
    "escalation, claimed": lambda: queue.build_escalation(**ESCALATION, status="claimed", actor="ULEAD"),
    "queue answer, empty": lambda: queue.build_queue_message([]),
    "queue answer, long": lambda: queue.build_queue_message(QUEUE),
    "digest, long": lambda: queue.build_digest("2026-12-01", QUEUE, None, {"topics": []}),
}


@pytest.mark.parametrize("name", MESSAGES)
def test_every_message_builder_carries_the_notice_once_within_slacks_limits(name: str) -> None:
    _, blocks = MESSAGES[name]()
    assert notice_count(blocks) == 1, name
    assert len(blocks) <= MAX_BLOCKS_MESSAGE and message_block_errors(blocks) == []


def test_an_escalation_past_the_block_limit_keeps_its_buttons_and_the_notice() -> None:
    _, blocks = queue.build_escalation(**{**ESCALATION, "summary": "word " * 60_000})
    assert len(blocks) == MAX_BLOCKS_MESSAGE and message_block_errors(blocks) == []
    assert blocks[-1] == ai_notice() and blocks[-2]["type"] == "actions", "the summary is cut, not the buttons"
    assert "more blocks left out" in blocks[-3]["elements"][0]["text"]


def test_app_home_carries_it_near_the_top_even_when_full() -> None:
    approvals = [{"ticket_id": "KITE-1", "run_id": 1, "created_at": NOW, "message": "x"}] * 15
    runs = [{"run_id": 1, "ticket_id": "KITE-1", "status": "completed", "goal": "g"}] * 15
    home = queue.build_home(queue=QUEUE, approvals=approvals, runs=runs)
    assert notice_count(home["blocks"]) == 1 and home["blocks"].index(ai_notice()) < 3
    assert len(home["blocks"]) <= MAX_BLOCKS_VIEW and view_errors(home) == []


def test_the_approval_card_says_who_decides_and_does_not_repeat_the_notice() -> None:
    _, blocks = cards.build_approval_request(approval_id=1, fingerprint="f", approvers_hint="Approvers: <@UBOSS>.",
                                             **CARD)
    assert blocks[-1] == ai_notice()
    assert blocks[-2]["elements"][0]["text"] == "The whole draft is above (18 characters). Approvers: <@UBOSS>."
    assert "Nothing is sent" not in str(blocks), "the notice already says a person approves every reply"
    assert AI_NOTICE.startswith(":robot_face: Kitebase is an AI agent") and len(AI_NOTICE) < 120


def _shown(slack: SlackAPIServer) -> list[tuple[str, list[dict[str, Any]] | None]]:
    """What every message and view the stand-in received shows, as (what, blocks)."""
    calls = [(c["method"], c["args"]) for c in slack.calls if c["response"].get("ok")]
    shown = [(f"{m} {a.get('text', '')[:60]!r}", a.get("blocks")) for m, a in calls
             if m in ("chat.postMessage", "chat.update", "chat.stopStream")]
    shown += [(f"{m} view", a["view"]["blocks"]) for m, a in calls if m == "views.publish"]
    shown += [(f"message {ts} now", msg.get("blocks")) for (_, ts), msg in slack.messages.items()
              if msg.get("subtype") != "file_share"]  # a transcript: a file and a plain comment, under the queue post
    return shown


def _assert_every_message_carries_it_once(slack: SlackAPIServer) -> None:
    shown = _shown(slack)
    assert len(shown) > 5, slack.summary()
    wrong = [what for what, blocks in shown if notice_count(blocks) != 1]
    assert wrong == [], "messages without the AI notice, or with it twice:\n" + "\n".join(wrong)


def test_a_streamed_run_through_approval_and_app_home(harness, db) -> None:
    harness.send.mention(GOAL)
    harness.drain()
    harness.send.click("approve_reply", harness.approval_card()["value"])
    harness.drain()
    harness.send.event({"type": "app_home_opened", "user": "ULEAD", "channel": "D1", "tab": "home"})
    harness.drain()
    assert harness.slack.calls_to("chat.stopStream"), "the timeline was streamed"
    _assert_every_message_carries_it_once(harness.slack)


def test_a_slash_command_run_posted_without_streaming_that_reaches_the_queue(settings, db) -> None:
    h, stop = start_harness(settings.model_copy(update={"max_steps": 2}), db)
    try:
        h.slack.streaming_supported = False
        h.send.command(GOAL)
        h.drain()
        posted = h.slack.calls_to("chat.postMessage")
        assert any(c["channel"] == "CQUEUE" for c in posted) and any("asked:" in c["text"] for c in posted)
        status, body = h.send.command("queue")
        assert status == 200 and notice_count(json.loads(body)["blocks"]) == 1, "the /kitebase queue answer too"
        _assert_every_message_carries_it_once(h.slack)
    finally:
        stop()
