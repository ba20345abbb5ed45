"""A batch shows every call that waits (issue 48, item 8): with a second gated tool (KITEBASE_APPROVAL_TOOLS =
reply_to_customer,update_ticket), a fan-out child's ticket change after its approved reply waits on a card of its
own in the parent's thread, and the batch card says that call waits instead of "Done"."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import select

from bot.db.models import Approval
from bot.vocabulary import ApprovalStatus, RunStatus
from standins.slack_harness import start_harness
from tests.test_one_fix_for_many import GOAL, batch_card, children


def test_a_childs_gated_ticket_change_has_its_own_card_and_the_batch_is_not_done(settings: Any, db: Any) -> None:
    gated = frozenset({"reply_to_customer", "update_ticket"})
    harness, stop = start_harness(settings.model_copy(update={"approvers": frozenset({"ULEAD"}),
                                                              "approval_tools": gated}), db)
    try:
        harness.send.mention(GOAL)
        harness.drain()
        # the parent's reply, then its own update_ticket: each waits on a card; approve both
        while True:
            with db.session() as session:
                waiting = session.exec(select(Approval).where(Approval.status == ApprovalStatus.PENDING)).all()
            if not waiting:
                break
            for row in waiting:
                harness.send.click("approve_reply", _value(harness, row.id), message_ts=_ts(harness, row.id))
            harness.drain()
        offer = harness.shown_button("draft_for_these")
        harness.send.click("draft_for_these", offer["value"], message_ts=offer["ts"])
        harness.drain()
        approve_all = harness.shown_button("approve_batch")
        harness.send.click("approve_batch", approve_all["value"], message_ts=approve_all["ts"])
        harness.drain()
        kids = children(db)
        assert all(r.status == RunStatus.AWAITING_APPROVAL for r in kids.values()), "each child's change waits"
        with db.session() as session:
            changes = session.exec(select(Approval).where(Approval.tool_name == "update_ticket",
                                                          Approval.status == ApprovalStatus.PENDING)).all()
        assert {c.run_id for c in changes} == {r.id for r in kids.values()}
        posted = [m for (_, _), m in harness.slack.messages.items()
                  if any(f"approval-{c.id}" == b.get("block_id") for c in changes for b in m.get("blocks") or [])]
        assert len(posted) == len(changes), "every waiting call has a card a person can see"
        card = batch_card(harness)
        assert "update_ticket` waits for a decision on its own card" in card["all_text"]
        assert "Done: " not in card["all_text"], "not done while a call of a child waits"
        for change in changes:  # each decided on its own card: the children end, and the batch card says so
            harness.send.click("approve_reply", _value(harness, change.id), message_ts=_ts(harness, change.id))
        harness.drain()
        assert all(r.status == RunStatus.COMPLETED for r in children(db).values())
        assert "Done: " in batch_card(harness)["all_text"]
    finally:
        stop()


def _button(harness: Any, approval_id: int) -> tuple[str, str]:
    for (_, ts), message in harness.slack.messages.items():
        for block in message.get("blocks") or []:
            if block.get("block_id") != f"approval-{approval_id}" and block.get("type") != "actions":
                continue
            for element in block.get("elements") or []:
                if element.get("action_id") == "approve_reply" and \
                        json.loads(element.get("value") or "{}").get("approval_id") == approval_id:
                    return element["value"], ts
    raise AssertionError(f"no Approve button for approval {approval_id}:\n" + harness.slack.summary())


def _value(harness: Any, approval_id: int) -> str:
    return _button(harness, approval_id)[0]


def _ts(harness: Any, approval_id: int) -> str:
    return _button(harness, approval_id)[1]
