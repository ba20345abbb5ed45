"""One fix for many, through the real Bolt app over signed HTTP and the Slack stand-in, with the offline model, on
both databases: KITE-142's approved reply → **Draft for these 2** → one batch card with a draft for KITE-144 and
KITE-163, each greeting its own customer → **Approve all** → one reply on each ticket, both linked as incidents
of KITE-142. A decoy with another cause is declined with its reason; double and concurrent clicks leave each
ticket one outcome; a non-approver's click changes nothing."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from sqlmodel import col, select

from bot.cli import main
from bot.db.models import Approval, Batch, Run, Ticket
from bot.vocabulary import ApprovalStatus, RunStatus
from standins.slack_harness import Harness
from tests.helpers import staff_replies

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"


def parent_done(harness: Harness) -> tuple[str, dict[str, Any]]:
    """KITE-142 worked from a mention and its reply approved: (the thread, the Draft for these N button)."""
    ts, _ = harness.send.mention(GOAL)
    harness.drain()
    card = harness.approval_card()
    harness.send.click("approve_reply", card["value"], message_ts=card["ts"])
    harness.drain()
    return ts, harness.shown_button("draft_for_these")


def batch_card(harness: Harness) -> dict[str, Any]:
    for (channel, ts), message in harness.slack.messages.items():
        if any(b.get("type") == "header" and "The fix approved on" in b["text"]["text"]
               for b in message.get("blocks") or []):
            return {**message, "ts": ts, "channel": channel,
                    "all_text": json.dumps(message.get("blocks"), ensure_ascii=False).replace("*", "")}
    raise AssertionError("no batch card:\n" + harness.slack.summary())


def children(db: Any) -> dict[str, Run]:
    with db.session() as session:
        return {r.ticket_id: r for r in session.exec(select(Run).where(col(Run.batch_id).is_not(None))).all()}


def ticket(db: Any, ticket_id: str) -> Ticket:
    with db.session() as session:
        return session.get(Ticket, ticket_id)


def test_draft_for_these_then_approve_all_sends_once_to_each_and_links_them(lead: Harness, db: Any) -> None:
    thread, offer = parent_done(lead)
    assert offer["text"]["text"] == "Draft for these 2"
    assert offer["value_json"]["tickets"] == ["KITE-144", "KITE-163"]

    lead.send.click("draft_for_these", offer["value"], message_ts=offer["ts"], user="UOTHER")  # not an approver
    lead.drain()
    assert children(db) == {}, "a colleague who may not decide starts nothing"
    assert any("not allowed to decide on drafts here" in c["text"] for c in lead.slack.calls_to("chat.postEphemeral"))

    lead.send.click("draft_for_these", offer["value"], message_ts=offer["ts"])
    lead.send.click("draft_for_these", offer["value"], message_ts=offer["ts"])  # a double click
    lead.drain()
    kids = children(db)
    assert sorted(kids) == ["KITE-144", "KITE-163"], "one child per ticket, whatever was clicked twice"
    assert all(r.status == RunStatus.AWAITING_APPROVAL for r in kids.values())
    card = batch_card(lead)
    assert card["ts"] != thread and lead.slack.messages[(card["channel"], card["ts"])]["thread_ts"] == thread
    assert "Hi Marcus" in card["all_text"] and "Hi Mei" in card["all_text"], "each greets its own customer"
    assert "Hi Dana" not in card["all_text"]
    assert "Harbor Pine" in card["all_text"] and "Tidewater Analytics" in card["all_text"]
    assert "account-recovery#2" in card["all_text"]
    with_buttons = [ts for (_, ts), m in lead.slack.messages.items() if "approve_reply" in json.dumps(m.get("blocks"))]
    assert with_buttons == [card["ts"]], "the children's drafts are on the one card, not a card each"
    with pytest.raises(AssertionError):  # the ending's button gave way to a pointer to the card
        lead.shown_button("draft_for_these")

    approve_all = lead.shown_button("approve_batch")
    assert approve_all["text"]["text"] == "Approve all 2"
    lead.send.click("approve_batch", approve_all["value"], message_ts=card["ts"], user="UOTHER")
    lead.drain()
    assert staff_replies(db, "KITE-144") == [] and staff_replies(db, "KITE-163") == []

    clicks = [threading.Thread(target=lead.send.click, args=("approve_batch", approve_all["value"]),
                               kwargs={"message_ts": card["ts"]}) for _ in range(2)]
    for click in clicks:
        click.start()
    for click in clicks:
        click.join()
    lead.drain()
    for ticket_id in ("KITE-144", "KITE-163"):
        assert len(staff_replies(db, ticket_id)) == 1, f"{ticket_id} got exactly one reply"
        assert ticket(db, ticket_id).problem_id == "KITE-142" and ticket(db, ticket_id).type == "incident"
    assert ticket(db, "KITE-142").type == "problem"
    assert "Hi Marcus" in staff_replies(db, "KITE-144")[0].body
    assert all(r.status == RunStatus.COMPLETED for r in children(db).values())
    final = batch_card(lead)
    assert "Done: KITE-144 replied; KITE-163 replied" in final["all_text"]
    assert "approve_batch" not in final["all_text"] and "approve_reply" not in final["all_text"]
    assert not lead.slack.warnings


def test_a_decoy_is_declined_with_its_reason_and_gets_nothing(lead: Harness, db: Any) -> None:
    _, offer = parent_done(lead)
    value = {**offer["value_json"], "tickets": [*offer["value_json"]["tickets"], "KITE-166"]}  # as if named
    lead.send.click("draft_for_these", json.dumps(value), message_ts=offer["ts"])
    lead.drain()
    card = batch_card(lead)
    assert "Declined" in card["all_text"] and "KITE-166" in card["all_text"]
    decoy = children(db)["KITE-166"]
    assert decoy.status == RunStatus.COMPLETED
    with db.session() as session:
        assert session.exec(select(Approval).where(Approval.run_id == decoy.id)).all() == []
    approve_all = lead.shown_button("approve_batch")
    assert approve_all["text"]["text"] == "Approve all 2"
    lead.send.click("approve_batch", approve_all["value"], message_ts=card["ts"])
    lead.drain()
    assert staff_replies(db, "KITE-166") == [] and ticket(db, "KITE-166").problem_id is None
    assert len(staff_replies(db, "KITE-144")) == 1 and len(staff_replies(db, "KITE-163")) == 1
    assert "KITE-166 declined" in batch_card(lead)["all_text"]


def test_approve_all_racing_a_reject_leaves_each_ticket_one_outcome(lead: Harness, db: Any) -> None:
    _, offer = parent_done(lead)
    lead.send.click("draft_for_these", offer["value"], message_ts=offer["ts"])
    lead.drain()
    card = batch_card(lead)
    approve_all = lead.shown_button("approve_batch")
    kid = children(db)["KITE-163"]
    with db.session() as session:
        draft = session.exec(select(Approval).where(Approval.run_id == kid.id)).one()
    reject = json.dumps({"approval_id": draft.id, "fingerprint": draft.fingerprint})
    assert reject in [e["value"] for b in card["blocks"] if b["type"] == "actions" for e in b["elements"]
                      if e["action_id"] == "reject_reply"], "the card's own per-ticket Reject… for KITE-163"
    lead.send.click("reject_reply", reject, message_ts=card["ts"])  # opens the form, as Slack then submits it
    lead.drain()
    view = lead.slack.calls_to("views.open")[-1]["view"]
    assert view["callback_id"] == "reject_reply_modal"
    answers: list[tuple[int, str]] = []
    actions = [lambda: lead.send.click("approve_batch", approve_all["value"], message_ts=card["ts"]),
               lambda: lead.send.submit(view, {"reason": {"reason": "Their connector is not the cause."}}),
               lambda: lead.send.click("approve_batch", approve_all["value"], message_ts=card["ts"])]
    workers = [threading.Thread(target=lambda a=a: answers.append(a())) for a in actions]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(status for status, _ in answers) == [200, 200, 200], answers
    lead.drain()
    with db.session() as session:
        decided = session.get(Approval, draft.id)
    assert decided.status in (ApprovalStatus.APPROVED, ApprovalStatus.REJECTED)
    replies = len(staff_replies(db, "KITE-163"))
    assert replies == (1 if decided.status == ApprovalStatus.APPROVED else 0)
    assert len(staff_replies(db, "KITE-144")) == 1
    assert not lead.slack.warnings


def test_kitebase_also_at_the_terminal(settings: Any, db: Any, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    assert main(["run", GOAL, "--approve", "auto"]) == 0
    assert "The same fix may help KITE-144 and KITE-163: `kitebase also 1` drafts it" in capsys.readouterr().out
    assert main(["also", "1", "--approve", "auto", "--json"]) == 0
    out = capsys.readouterr()
    result = json.loads(out.out.strip().splitlines()[-1])
    assert [c["ticket_id"] for c in result["children"]] == ["KITE-144", "KITE-163"]
    assert all(c["state"] == "sent" and c["linked"] for c in result["children"])
    assert "Drafting the fix approved on KITE-142 for KITE-144 and KITE-163." in out.err
    assert main(["also", "1"]) == 0  # the batch exists: said, nothing new started
    assert "Run #1 already has its batch" in capsys.readouterr().out
    with db.session() as session:
        assert len(session.exec(select(Batch)).all()) == 1
    assert main(["also", "99"]) == 2
    assert "There is no run 99." in capsys.readouterr().err
    assert main(["run", "handle KITE-127", "--approve", "reject", "--json"]) == 3  # rejected: handed over
    rejected = json.loads(capsys.readouterr().out.strip().splitlines()[-1])["run_id"]
    assert main(["also", str(rejected), "--tickets", "KITE-205"]) == 2
    assert f"Run #{rejected} is escalated: a batch starts from a completed run" in capsys.readouterr().err


def test_a_slash_command_run_gets_its_batch_card_in_its_own_thread(lead: Harness, db: Any) -> None:
    """A run asked for with /kitebase threads under the "<@lead> asked: …" message: its batch card goes there too."""
    status, _ = lead.send.command(GOAL)
    assert status == 200
    lead.drain()
    card = lead.approval_card()
    lead.send.click("approve_reply", card["value"], message_ts=card["ts"])
    lead.drain()
    offer = lead.shown_button("draft_for_these")
    lead.send.click("draft_for_these", offer["value"], message_ts=offer["ts"])
    lead.drain()
    batch = batch_card(lead)
    asked = [ts for (_, ts), m in lead.slack.messages.items() if "asked:" in (m.get("text") or "")]
    assert len(asked) == 1 and lead.slack.messages[(batch["channel"], batch["ts"])]["thread_ts"] == asked[0]
    assert card["call"]["thread_ts"] == asked[0]
    assert batch["all_text"].count("Draft waiting for a decision") == 2
