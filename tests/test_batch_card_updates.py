"""The batch card is updated when what it shows of a child changes (its status, a new draft), not at every step a
child takes: with ten children, identical updates spent the workspace's chat.update burst and the update showing
Approve all waited for it (docs/performance.md, "One fix for many: from the click to the batch card")."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import col, func, select

from bot.db.models import Outbox, Run, Step
from standins.slack_harness import Harness
from tests.test_one_fix_for_many import batch_card, parent_done


def test_a_childs_steps_update_the_batch_card_only_when_what_it_shows_changes(lead: Harness, db: Any) -> None:
    _, offer = parent_done(lead)
    lead.send.click("draft_for_these", offer["value"], message_ts=offer["ts"])
    lead.drain()
    with db.session() as session:
        row = session.exec(select(Outbox).where(Outbox.kind == "batch")).one()
        kids = session.exec(select(Run).where(col(Run.batch_id).is_not(None))).all()
        steps = session.exec(select(func.count()).select_from(Step)
                             .where(col(Step.run_id).in_([k.id for k in kids]))).one()
    assert len(kids) == 2 and steps > 2 * len(kids), "each child took several steps before its draft"
    assert row.version == 1 + len(kids), "written once, then once per child's draft (not once per step)"
    card = batch_card(lead)
    assert card["all_text"].count("Draft waiting for a decision") == 2
    assert lead.shown_button("approve_batch")["text"]["text"] == "Approve all 2"
    updates = [c for c in lead.slack.calls_to("chat.update") if "The fix approved on" in json.dumps(c.get("blocks"))]
    assert len(updates) <= len(kids)


def test_no_message_is_updated_to_what_it_already_shows(lead: Harness, db: Any) -> None:
    """A writer bumps a row whenever what it shows may have changed (a child finishing after its reply was sent
    changes nothing on the card); the sender sends an update only when the message would look different."""
    _, offer = parent_done(lead)
    lead.send.click("draft_for_these", offer["value"], message_ts=offer["ts"])
    lead.drain()
    lead.send.click("approve_batch", lead.shown_button("approve_batch")["value"], message_ts=batch_card(lead)["ts"])
    lead.drain()
    with db.session() as session:
        bumped = session.exec(select(Outbox.version).where(Outbox.kind == "batch")).one()
    last: dict[str, str] = {}
    repeats = 0
    for call in lead.slack.calls_to("chat.update"):
        shown = json.dumps([call.get("text"), call.get("blocks")], sort_keys=True)
        repeats += last.get(call["ts"]) == shown
        last[call["ts"]] = shown
    sent = [c for c in lead.slack.calls_to("chat.update") if c["ts"] == batch_card(lead)["ts"]]
    assert repeats == 0, "an update identical to the one before it on the same message"
    assert len(sent) < bumped - 1, "some bumps of the card changed nothing it shows, and were not sent"
