"""One fix for many on the Zendesk desk, through the real Bolt app and the Slack stand-in, with the offline model,
on both databases, asserted on the Zendesk stand-in's own state: #4821 (KITE-142 in kb_data) worked from a mention
and its reply approved → **Draft for these 2** (4823, 4842) → **Approve all** → exactly one new public comment on
each incident, `type: problem` on 4821 and `type: incident` with `problem_id: 4821` on each; Approve all clicked
twice (one after the other, and two at once) still leaves one comment each. A ticket whose draft a lead rejected,
or that no Approve all showed, gets no comment and keeps its type; a decoy with another cause (4845, KITE-166)
gets nothing unless its draft was approved."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sqlmodel import col, select

from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Approval, Run
from bot.desk.zendesk import writes as desk_writes
from bot.desk.zendesk.desk import client_for
from bot.vocabulary import ApprovalStatus, RunStatus
from standins.slack_harness import Harness, start_harness
from standins.zendesk_server import ZendeskServer
from tests import test_desk_zendesk as zendesk_tests
from tests.test_desk_zendesk import synced

zd, zdb = zendesk_tests.zd, zendesk_tests.zdb  # the stand-in loaded with kb_data, and an empty database for it

GOAL = "handle #4821, and tell me if other customers have hit the same problem"
PROBLEM, ONE, TWO, DECOY = 4821, 4823, 4842, 4845  # KITE-142, KITE-144, KITE-163, KITE-166


@pytest.fixture
def lead(zdb: tuple[Database, Settings], zd: ZendeskServer) -> Iterator[tuple[Harness, Database, Settings]]:
    """The mirror after its first fill, and the Slack app with one approver, ULEAD."""
    db, settings = synced(zdb)
    settings = settings.model_copy(update={"approvers": frozenset({"ULEAD"})})
    harness, stop = start_harness(settings, db)
    yield harness, db, settings
    stop()


class Before:
    """The stand-in's tickets as they were before the batch: what a test compares with."""

    def __init__(self, zd: ZendeskServer, tickets: tuple[int, ...]) -> None:
        self.zd = zd
        self.comments = {t: len(zd.comments_of(t)) for t in tickets}
        self.fields = {t: fields(zd, t) for t in tickets}

    def public_added(self, ticket: int) -> list[str]:
        return [c["body"] for c in self.zd.comments_of(ticket)[self.comments[ticket]:] if c["public"]]

    def added(self, ticket: int) -> list[dict[str, Any]]:
        return self.zd.comments_of(ticket)[self.comments[ticket]:]

    def untouched(self, ticket: int) -> bool:
        return self.added(ticket) == [] and fields(self.zd, ticket) == self.fields[ticket]


def fields(zd: ZendeskServer, ticket: int) -> tuple[Any, Any]:
    live = zd.tickets[ticket]
    return live.get("type"), live.get("problem_id")


def drain(harness: Harness, db: Database, settings: Settings) -> None:
    """Everything settled: the runs and Slack (the harness), and the desk's own writes sent to Zendesk."""
    for _ in range(2):  # a sent reply continues its run, whose link is a desk write of its own
        harness.drain()
        assert desk_writes.DeskSender(db, client_for(settings)).drain(timeout=30)
    harness.drain()


def parent_done(harness: Harness, db: Database, settings: Settings) -> dict[str, Any]:
    """4821 worked from a mention and its reply approved and sent: the Draft for these N button."""
    _, (status, _) = harness.send.mention(GOAL)
    assert status == 200
    harness.drain()
    card = harness.approval_card()
    harness.send.click("approve_reply", card["value"], message_ts=card["ts"])
    drain(harness, db, settings)
    return harness.shown_button("draft_for_these")


def children(db: Database) -> dict[str, Run]:
    with db.session() as session:
        return {str(r.ticket_id): r for r in session.exec(select(Run).where(col(Run.batch_id).is_not(None))).all()}


def draft_of(db: Database, run_id: int | None) -> Approval | None:
    with db.session() as session:
        return session.exec(select(Approval).where(Approval.run_id == run_id)).first()


def row_button(harness: Harness, action_id: str, approval_id: int | None) -> str:
    """The value of the batch card's per-ticket button `action_id` for the draft `approval_id`."""
    for message in harness.slack.messages.values():
        for block in message.get("blocks") or []:
            for element in block.get("elements", []) if block.get("type") == "actions" else []:
                if element.get("action_id") == action_id and \
                        json.loads(element["value"]).get("approval_id") == approval_id:
                    return str(element["value"])
    raise AssertionError(f"no {action_id} button for draft {approval_id}:\n" + harness.slack.summary())


def card_posts(harness: Harness) -> int:
    return sum((c.get("text") or "").startswith("The fix approved on") for c in harness.slack.calls_to("chat.postMessage"))


def test_approve_all_leaves_one_comment_on_each_incident_and_links_them_even_clicked_twice(
        lead: tuple[Harness, Database, Settings], zd: ZendeskServer) -> None:
    harness, db, settings = lead
    before = Before(zd, (PROBLEM, ONE, TWO, DECOY))
    offer = parent_done(harness, db, settings)
    assert offer["text"]["text"] == "Draft for these 2"
    assert offer["value_json"]["tickets"] == [str(ONE), str(TWO)]
    assert len(before.public_added(PROBLEM)) == 1, "4821's own reply, once"
    parent_fields = fields(zd, PROBLEM)

    harness.send.click("draft_for_these", offer["value"], message_ts=offer["ts"])
    harness.send.click("draft_for_these", offer["value"], message_ts=offer["ts"])  # a double click
    drain(harness, db, settings)
    kids = children(db)
    assert sorted(kids) == [str(ONE), str(TWO)]
    assert all(r.status == RunStatus.AWAITING_APPROVAL for r in kids.values())
    assert all(draft_of(db, r.id) is not None for r in kids.values()), "one draft per child"
    assert before.added(ONE) == [] and before.added(TWO) == [], "nothing reaches Zendesk before Approve all"
    assert fields(zd, ONE) == before.fields[ONE] and fields(zd, PROBLEM) == parent_fields, "nor any link"

    approve_all = harness.shown_button("approve_batch")
    assert approve_all["text"]["text"] == "Approve all 2"
    harness.send.click("approve_batch", approve_all["value"], message_ts=approve_all["ts"])
    drain(harness, db, settings)
    harness.send.click("approve_batch", approve_all["value"], message_ts=approve_all["ts"])  # clicked again, later
    clicks = [threading.Thread(target=harness.send.click, args=("approve_batch", approve_all["value"]),
                               kwargs={"message_ts": approve_all["ts"]}) for _ in range(2)]  # and twice at once
    for click in clicks:
        click.start()
    for click in clicks:
        click.join()
    drain(harness, db, settings)

    for ticket in (ONE, TWO):
        assert len(before.public_added(ticket)) == 1, f"{ticket}: exactly one public comment"
        assert fields(zd, ticket) == ("incident", PROBLEM), f"{ticket} is an incident of {PROBLEM}"
    assert zd.tickets[PROBLEM]["type"] == "problem"
    assert len(before.public_added(PROBLEM)) == 1, "the children wrote nothing on the problem itself"
    assert before.untouched(DECOY)
    assert all(r.status == RunStatus.COMPLETED for r in children(db).values())
    assert card_posts(harness) == 1, "one batch card; its changes are chat.update"
    assert not harness.slack.warnings


def test_a_rejected_draft_an_unshown_draft_and_a_decoy_get_nothing_unless_approved(
        lead: tuple[Harness, Database, Settings], zd: ZendeskServer) -> None:
    harness, db, settings = lead
    before = Before(zd, (PROBLEM, ONE, TWO, DECOY))
    offer = parent_done(harness, db, settings)
    value = {**offer["value_json"], "tickets": [*offer["value_json"]["tickets"], str(DECOY)]}  # as if named too
    harness.send.click("draft_for_these", json.dumps(value), message_ts=offer["ts"])
    drain(harness, db, settings)
    kids = children(db)
    assert sorted(kids) == [str(ONE), str(TWO), str(DECOY)]
    approve_all = harness.shown_button("approve_batch")
    shown = approve_all["value_json"]["approvals"]
    one, two = draft_of(db, kids[str(ONE)].id), draft_of(db, kids[str(TWO)].id)
    assert one is not None and two is not None
    decoy = draft_of(db, kids[str(DECOY)].id)  # none if the child declined it ("Declined: …")

    # TWO: rejected on its own row of the card (Reject… opens the form Slack then submits), with a reason
    harness.send.click("reject_reply", row_button(harness, "reject_reply", two.id), message_ts=approve_all["ts"])
    harness.drain()
    view = harness.slack.calls_to("views.open")[-1]["view"]
    assert view["callback_id"] == "reject_reply_modal"
    answer = harness.send.submit(view, {"reason": {"reason": "Their connector is not the cause."}})
    assert answer[0] == 200, answer
    drain(harness, db, settings)
    # an Approve all from a card drawn before DECOY's draft: it names ONE (and TWO, rejected meanwhile) only
    stale = {**approve_all["value_json"],
             "approvals": {k: v for k, v in shown.items() if decoy is None or int(k) != decoy.id}}
    harness.send.click("approve_batch", json.dumps(stale), message_ts=approve_all["ts"])
    drain(harness, db, settings)

    assert len(before.public_added(ONE)) == 1 and fields(zd, ONE) == ("incident", PROBLEM)
    assert zd.tickets[PROBLEM]["type"] == "problem"
    assert before.untouched(TWO), "a rejected draft: no comment, no link"
    with db.session() as session:
        assert session.get(Approval, two.id).status == ApprovalStatus.REJECTED
    assert before.untouched(DECOY), "a decoy no Approve all showed: no comment, no link"
    if decoy is not None:  # today's offline model drafts for it too: only its own approval may send it
        with db.session() as session:
            assert session.get(Approval, decoy.id).status == ApprovalStatus.PENDING
        harness.send.click("approve_batch", approve_all["value"], message_ts=approve_all["ts"])  # the full card
        drain(harness, db, settings)
        assert len(before.public_added(DECOY)) == 1 and fields(zd, DECOY) == ("incident", PROBLEM)
        assert before.untouched(TWO), "still: Approve all does not undo a rejection"
    assert len(before.public_added(ONE)) == 1, "ONE approved again by the full card: still one comment"
    assert card_posts(harness) == 1
    assert not harness.slack.warnings
