"""Review of issue 49 (round 2, reviewer 3): a waiting draft's card deleted in Slack is marked gone by a refresh
(claims.gone) and then stays gone while the draft still waits: the reminder before the breach (and the breach
notice) point to "the card above in this thread", which is no longer there."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlmodel import col, select

from bot.db import clock
from bot.db.models import Approval, Outbox
from bot.runs.execution import reminders
from bot.vocabulary import OutboxKind
from standins.slack_harness import start_harness
from tests.test_due_shown import _due_in, _pass_minutes, _refresh


def _card_row(db: Any) -> Outbox:
    with db.session() as session:
        [row] = session.exec(select(Outbox).where(col(Outbox.kind) == OutboxKind.CARD)).all()
        session.expunge(row)
        return row


def test_a_waiting_drafts_deleted_card_comes_back_before_its_reminder_says_it_is_above(settings: Any,
                                                                                       db: Any) -> None:
    settings = settings.model_copy(update={"approvers": frozenset({"ULEAD"})})
    _due_in(db, settings, "KITE-144", 24 * 60 + 10)  # 25 min left of a 30-minute target
    harness, stop = start_harness(settings, db)
    try:
        harness.send.mention("handle KITE-144")
        harness.drain()
        card = harness.approval_card()
        channel = card["call"]["channel"]
        with harness.slack._lock:  # someone deletes the card of a draft that still waits
            harness.slack.messages.pop((channel, card["ts"]))
        _pass_minutes(db, "KITE-144", 1)
        _refresh(harness)  # chat.update: message_not_found; was claims.gone (never posted again), now posted again
        harness.drain()
        again = _card_row(db).ts
        assert again is not None and again != card["ts"] and (channel, again) in harness.slack.messages, \
            "a waiting draft's card deleted in Slack is posted again: a person must still be able to decide on it"

        # time passes to 3/4 of the target: the draft was made 20 minutes ago, its ticket is due in 4 min
        _pass_minutes(db, "KITE-144", 20)
        with db.session() as session:
            for approval in session.exec(select(Approval)).all():
                approval.created_at = approval.created_at - timedelta(minutes=20)
                session.add(approval)
            now = clock.read_now(session)
        told = reminders.remind_approvals(harness.ctx.service, now, 6 * 3600)
        harness.drain()
        assert told, "premise: the reminder before the breach went"
        reminder = [c for c in harness.slack.calls_to("chat.postMessage") if ":bell:" in (c.get("text") or "")]
        assert reminder and "the card is above in this thread" in reminder[-1]["text"]
        row = _card_row(db)
        assert row.ts is not None and (channel, row.ts) in harness.slack.messages, (
            "the reminder tells the approvers the card is above in this thread, but the card of the waiting "
            "draft was deleted and never posted again (claims.gone): nothing to click")
    finally:
        stop()


def test_a_deleted_pick_up_message_marked_gone_stays_gone_when_its_run_ends(settings: Any, db: Any,
                                                                           tmp_path: Any, monkeypatch: Any,
                                                                           capsys: Any) -> None:
    """The pick-up message a person deleted is marked gone by the refresh; when the run ends (the draft approved)
    its row is bumped for real, and the sender posts it anew: a top-level "picked up" message, with no thread
    under it, after the work is done."""
    import json

    from bot.cli import main
    from bot.runs.intake.rules import load
    from tests.helpers import intake_through, run_row
    from tests.test_due_shown import RULES

    rules_file = tmp_path / "rules.toml"
    rules_file.write_text(RULES, encoding="utf-8")
    monkeypatch.setenv("DATABASE_URL", settings.database_url)
    monkeypatch.setenv("KITEBASE_INTAKE_RULES", str(rules_file))
    settings = settings.model_copy(update={"intake_rules": rules_file, "approvers": frozenset({"ULEAD"})})
    harness, stop = start_harness(settings, db)
    try:
        path = tmp_path / "add.jsonl"
        path.write_text(json.dumps({"customer": "harbor-pine", "title": "Okta sign-in loops", "priority": "urgent",
                                    "body": "Everyone is sent back to the login page.", "tags": ["sso"]}) + "\n")
        assert main(["desk", "add", str(path)]) == 0
        capsys.readouterr()
        [run_id] = intake_through(db, settings, load(rules_file), harness)
        run = run_row(db, run_id)
        thread = (run.origin or {}).get("thread_ts")
        with harness.slack._lock:
            harness.slack.messages.pop(("C0INTAKE", thread))
        _pass_minutes(db, str(run.ticket_id), 1)
        _refresh(harness)

        def top() -> list[dict[str, Any]]:
            return [c for c in harness.slack.calls_to("chat.postMessage") if c["channel"] == "C0INTAKE"
                    and not c.get("thread_ts")]

        assert len(top()) == 1, "premise: the refresh did not post it again"
        card = harness.approval_card()
        harness.send.click("approve_reply", card["value"], message_ts=card["ts"])
        harness.drain()
        assert len(top()) == 1, (
            "the pick-up message a person deleted came back as a new top-level post when its run ended: "
            + json.dumps([c.get("text") for c in top()], ensure_ascii=False)[:400])
    finally:
        stop()
