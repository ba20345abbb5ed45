"""Review of issue 49 (reviewer 2, "shown"): a due-refresh bump is delivered as urgently as a person's decision.

due_refresh.refresh bumps kept card rows with writers.refreshed, which leaves the row's priority as the writer set
it: a card is ANSWER (0), the same as a decision's answer. The sender sends by (priority, id), so the older cards
a pass bumped go before the newer card someone just decided, and they spend the workspace's chat.update budget
(Tier 3: about 50 a minute, a burst of 10) first. The brief: "a refresh must never delay a decision's answer"."""

from __future__ import annotations

import json
import time
from typing import Any

from sqlmodel import col, select

from bot.db.models import Outbox
from bot.outbox.sender import OutboxSender
from bot.runs.execution import due_refresh
from bot.slack.client import make_client
from bot.vocabulary import OutboxKind
from standins.slack_harness import harness_settings, start_harness
from tests.test_due_shown import _due_in, _pass_minutes


def _cards(db: Any) -> list[Outbox]:
    with db.session() as session:
        return list(session.exec(select(Outbox).where(Outbox.kind == OutboxKind.CARD).order_by(col(Outbox.id))).all())


def test_a_decision_is_answered_before_the_cards_a_refresh_bumped(settings: Any, db: Any) -> None:
    tickets = ("KITE-144", "KITE-200", "KITE-195")
    for n, ticket_id in enumerate(tickets):
        _due_in(db, settings, ticket_id, (20 + 10 * n) * 60 + 10)
    harness, stop = start_harness(settings, db)
    try:
        for ticket_id in tickets:
            harness.send.mention(f"handle {ticket_id}")
            harness.drain()
        newest = harness.approval_card()  # KITE-195's card: the newest row
        harness.sender.stop()  # from here on, one sender that may make one chat.update, as Slack's budget allows
        for ticket_id in tickets:
            _pass_minutes(db, ticket_id, 3)
        assert due_refresh.refresh(db) == 3, "the three waiting cards read differently now"
        harness.send.click("approve_reply", newest["value"], message_ts=newest["ts"])
        dispatch: Any = harness.ctx.dispatch
        deadline = time.monotonic() + 20
        while dispatch.busy() and time.monotonic() < deadline:
            time.sleep(0.05)

        tight = harness_settings(settings, harness.slack).model_copy(update={"slack_rate_scale": 0.02})
        sender = OutboxSender(db, tight, make_client(tight))  # chat.update: one now, the next in a minute
        before = len(harness.slack.calls_to("chat.update"))
        sender.tick()
        sender.stop()
        updates = harness.slack.calls_to("chat.update")[before:]
        assert len(updates) == 1, updates
        assert updates[0]["ts"] == newest["ts"], (
            "the one chat.update Slack allowed went to a card only the refresh bumped "
            f"({json.dumps(updates[0]['blocks'], ensure_ascii=False)[:200]}…), not to the card the lead just approved")
    finally:
        harness.sender = OutboxSender(db, harness_settings(settings, harness.slack),
                                      make_client(harness_settings(settings, harness.slack))).start()
        try:
            stop()
        finally:
            harness.sender.stop()
