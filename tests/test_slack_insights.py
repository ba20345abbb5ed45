"""Issue 11 end to end over the real Bolt app, the outbox sender and the Slack stand-in: sources on the card,
feedback buttons, reminders and backup approvers, what expiry says, App Home figures, the digest."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta

from sqlmodel import select

from bot.db.models import Feedback
from bot.runs.execution import reminders, sweeps
from bot.runs.reports import stats
from standins.slack_harness import start_harness
from tests.helpers import approvals_of, run_row, staff_replies
from tests.scripted import ScriptedModel, respond, text, use

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"


def first_run_id(db) -> int:
    from sqlmodel import select

    from bot.db.models import Run

    with db.session() as session:
        return int(session.exec(select(Run)).first().id)


def card_text(call: dict) -> str:
    return json.dumps(call["blocks"])


def feedback_click(h, value: str, *, user: str = "ULEAD", thread_ts: str | None = None):
    return h.send.interaction({
        "type": "block_actions", "team": {"id": "T0TEAM"}, "user": {"id": user}, "api_app_id": "A0APP",
        "trigger_id": f"trig-fb-{time.monotonic_ns()}", "channel": {"id": "CSUPPORT"},
        "container": {"type": "message", "message_ts": "1.0", "channel_id": "CSUPPORT", "thread_ts": thread_ts},
        "actions": [{"type": "feedback_buttons", "action_id": "run_feedback", "block_id": "feedback-1",
                     "value": value, "text": {"type": "plain_text", "text": "Good"},
                     "action_ts": str(time.time())}]})


def accepted_everything(h) -> None:
    failed = [(c["method"], c["response"]) for c in h.slack.calls if not c["response"].get("ok")]
    assert failed == [], f"Slack refused: {failed}"


def test_the_card_lists_the_sources_and_flags_a_made_up_citation(settings, db):
    script = [respond(text("Searching."), use("search_help", query="locked out sso"),
                      use("search_tickets", query="sso locked", exclude_ticket_id="KITE-142")),
              respond(text("Drafting."), use("reply_to_customer", ticket_id="KITE-142",
                                             message="Hi Dana, see [account-recovery#2] and [account-recovery#9]."))]
    h, stop = start_harness(settings.model_copy(update={"help_center_url": "https://help.kitebase.com"}), db,
                            model_factory=lambda: ScriptedModel(script))
    try:
        h.send.mention(GOAL)
        h.drain()
        shown = card_text(h.approval_card()["call"])
        assert "Sources cited" in shown and "<https://help.kitebase.com/account-recovery#2|account-recovery#2>" in shown
        assert "Locked out of your account" in shown
        assert "cites account-recovery#9, which does not exist" in shown
        assert "Similar tickets the run looked at" in shown and "KITE-144" in shown
        accepted_everything(h)
    finally:
        stop()


def test_the_offline_runs_card_shows_its_citation_without_warnings(settings, db):
    h, stop = start_harness(settings, db)
    try:
        h.send.mention(GOAL)
        h.drain()
        shown = card_text(h.approval_card()["call"])
        assert "`account-recovery#2` Locked out of your account" in shown and "Check the sources" not in shown
    finally:
        stop()


def test_feedback_buttons_record_a_vote_per_person_and_a_note(settings, db):
    h, stop = start_harness(settings, db)
    try:
        ts, _ = h.send.mention(GOAL)
        h.drain()
        h.send.click("approve_reply", h.approval_card()["value"])
        h.drain()
        final = h.slack.calls_to("chat.postMessage")[-1]
        [buttons] = [b for b in final["blocks"] if b["type"] == "context_actions"]
        assert buttons["elements"][0]["positive_button"]["value"] == "up:1"
        assert feedback_click(h, "up:1", thread_ts=ts)[0] == 200
        h.drain()
        assert "thumbs up on run #1 is recorded" in h.slack.calls_to("chat.postEphemeral")[-1]["text"]
        feedback_click(h, "down:1", user="UOTHER", thread_ts=ts)
        h.drain()
        modal = h.slack.calls_to("views.open")[-1]["view"]
        assert modal["callback_id"] == "run_feedback_modal"
        h.send.submit(modal, {"note": {"note": "It missed that KITE-144 is the same outage."}}, user="UOTHER")
        feedback_click(h, "down:1", thread_ts=ts)  # ULEAD changes their mind: one vote per person, the latest
        h.drain()
        with db.session() as session:
            votes = [{"user": f.user, "value": f.value, "note": f.note}
                     for f in session.exec(select(Feedback).where(Feedback.run_id == 1)).all()]
            figures = stats.figures(session, *stats.window(datetime.now(UTC) + timedelta(seconds=1), 3600))
        assert sorted((v["user"], v["value"]) for v in votes) == [("ULEAD", "down"), ("UOTHER", "down")]
        assert [v["note"] for v in votes if v["user"] == "UOTHER"] == ["It missed that KITE-144 is the same outage."]
        assert (figures["feedback"]["up"], figures["feedback"]["down"]) == (0, 2)
        accepted_everything(h)
    finally:
        stop()


def test_a_waiting_draft_gets_one_reminder_and_then_backup_approvers_may_decide(settings, db):
    update = {"approvers": frozenset({"UBOSS", "SLEADS"}), "backup_approvers": frozenset({"SBACKUP"}),
              "approval_remind_after_seconds": 6 * 3600.0}
    h, stop = start_harness(settings.model_copy(update=update), db)
    h.slack.usergroups.update({"SLEADS": ["ULEADER"], "SBACKUP": ["UNIGHT"]})
    h.ctx.groups.refresh(h.sender.client, frozenset({"SLEADS", "SBACKUP"}))
    try:
        ts, _ = h.send.mention(GOAL)
        h.drain()
        card = h.approval_card()
        assert "may decide once a reminder has gone out" in card_text(card["call"])
        h.send.click("approve_reply", card["value"], user="UNIGHT")
        h.drain()
        assert staff_replies(db, "KITE-142") == [], "a backup approver may not decide before the reminder"
        assert "not allowed" in h.slack.calls_to("chat.postEphemeral")[-1]["text"]

        created = approvals_of(db, first_run_id(db))[0].created_at
        service = h.ctx.service
        assert reminders.remind_approvals(service, created + timedelta(hours=5), 6 * 3600) == [], "not yet"
        later = created + timedelta(hours=6, minutes=1)
        assert len(reminders.remind_approvals(service, later, 6 * 3600)) == 1
        assert reminders.remind_approvals(service, later + timedelta(hours=1), 6 * 3600) == [], "only once"
        h.drain()
        notes = [m for m in h.slack.thread("CSUPPORT", ts) if "has waited" in (m.get("text") or "")]
        assert len(notes) == 1
        note = notes[0]["text"]
        assert "<@UBOSS>" in note and "<!subteam^SLEADS>" in note and "<!subteam^SBACKUP>" in note
        assert "6 h" in note and "Nothing is sent until someone decides" in note
        assert any("may decide too, since the reminder" in card_text(u) for u in h.slack.calls_to("chat.update")
                   if u["ts"] == card["ts"]), "the card says the backups may decide now"

        h.send.click("approve_reply", card["value"], user="UNIGHT")
        h.drain()
        assert len(staff_replies(db, "KITE-142")) == 1, "after the reminder the backup approver's click counts"
        assert approvals_of(db, first_run_id(db))[0].decided_by == "UNIGHT"
        accepted_everything(h)
    finally:
        stop()


def test_at_expiry_the_card_the_thread_and_the_queue_say_nothing_was_sent(settings, db):
    h, stop = start_harness(settings, db)
    try:
        ts, _ = h.send.mention(GOAL)
        h.drain()
        card = h.approval_card()
        run_id = first_run_id(db)
        created = approvals_of(db, run_id)[0].created_at
        sweeps.expire_approvals(h.ctx.service, created + timedelta(hours=25), settings.approval_ttl_seconds)
        h.drain()
        assert run_row(db, run_id).status == "escalated" and staff_replies(db, "KITE-142") == []
        card_now = [u for u in h.slack.calls_to("chat.update") if u["ts"] == card["ts"]][-1]
        assert "nothing was sent" in card_now["text"] and "Expired" in card_text(card_now)
        ending = [m for m in h.slack.thread("CSUPPORT", ts) if "Stopped" in (m.get("text") or "")]
        assert len(ending) == 1 and "nothing was sent" in ending[0]["text"]
        [posted] = [c for c in h.slack.calls_to("chat.postMessage") if c["channel"] == "CQUEUE"]
        assert "nothing was sent" in posted["text"] and "nothing was sent" in card_text(posted)
        accepted_everything(h)
    finally:
        stop()


def test_app_home_shows_the_last_7_days(settings, db):
    h, stop = start_harness(settings, db)
    try:
        h.send.mention(GOAL)
        h.drain()
        h.send.click("edit_reply", h.approval_card()["value"])
        h.drain()
        modal = h.slack.calls_to("views.open")[-1]["view"]
        h.send.submit(modal, {"reply": {"message": "Hi Dana, a person rewrote this whole reply. Use the owner "
                                                   "bypass link."}})
        h.drain()
        h.send.event({"type": "app_home_opened", "user": "ULEAD", "channel": "D1", "tab": "home"})
        h.drain()
        view = h.slack.home_views["ULEAD"]
        fields = [f["text"] for b in view["blocks"] if b.get("fields") for f in b["fields"]]
        figures = {name.strip("*↳ "): value for name, value in zip(fields[0::2], fields[1::2], strict=True)}
        assert figures["Runs"] == "1" and figures["completed"] == "1"
        assert figures["edited"].startswith("1 · _median ") and "of the text changed" in figures["edited"]
        assert "The last 7 days" in json.dumps(view["blocks"]) and "kitebase stats" in json.dumps(view["blocks"])
        accepted_everything(h)
    finally:
        stop()


def test_the_daily_digest_has_the_figures_table_and_the_gaps(settings, db):
    script = [respond(text("Searching."), use("search_help", query="flibbertigibbet zzqx")),
              respond(use("escalate_to_human", reason="The help center has nothing on this."))]
    h, stop = start_harness(settings, db, model_factory=lambda: ScriptedModel(script))
    try:
        h.send.mention("handle KITE-101")
        h.drain()
        now = datetime.now(UTC).replace(hour=10) + timedelta(days=1)
        assert sweeps.post_digest(h.ctx.service, now) is True
        assert sweeps.post_digest(h.ctx.service, now) is False, "once a day"
        h.drain()
        [digest] = [c for c in h.slack.calls_to("chat.postMessage") if "Daily digest" in c["text"]]
        tables = [b for b in digest["blocks"] if b["type"] == "table"]
        assert len(tables) == 1 and len(digest["blocks"]) <= 50
        cells = [[c["text"] for c in row] for row in tables[0]["rows"]]
        assert cells[0] == ["Figure", "Value", "Detail"] and ["Runs", "1", " "] in cells
        assert any(r[0] == "· escalated" and "agent asked for a person 1" in r[2] for r in cells)
        shown = json.dumps(digest["blocks"])
        assert "Knowledge gaps, last 30 days (1)" in shown and "KITE-101" in shown
        assert "search_help found nothing" in shown and "write an article" in shown
        accepted_everything(h)
    finally:
        stop()
