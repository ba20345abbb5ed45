"""A run's thread is a Slack agent session (docs/slack-agent.md): its status follows the run, through the outbox,
and a workspace without sessions works as before. Signed requests into the real Bolt app, the Web API stand-in
recording the session methods."""

from __future__ import annotations

import logging

from sqlmodel import select

from bot import outbox
from bot.db.models import Outbox, Run
from bot.outbox.render import session_title
from bot.vocabulary import SESSION_STATUS, RunStatus, SessionStatus
from standins.slack_harness import start_harness
from standins.slack_server import SlackAPIServer
from tests.helpers import PATIENCE, run_row, staff_replies, wait_until
from tests.scripted import ScriptedModel, respond, text, use

GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"
SET_STATUS = "agents.sessions.setStatus"


def only_run(db) -> Run:
    with db.session() as session:
        return session.exec(select(Run)).one()


def once_shown(slack: SlackAPIServer, response, count: int = 1):
    """A model call that answers once Slack has had `count` session statuses: a sequence that does not depend on
    when the sender looked (a status the run has left before it is sent is, rightly, never sent)."""

    def answer(messages):
        slack.wait_for(SET_STATUS, count=count, timeout=PATIENCE)
        return response

    return answer


def session_rows(db) -> list[Outbox]:
    with db.session() as session:
        return list(session.exec(select(Outbox).where(Outbox.kind == "agent_session")).all())


def test_every_run_status_has_a_session_status():
    assert set(SESSION_STATUS) == set(RunStatus)
    assert SESSION_STATUS[RunStatus.STOPPED] == SessionStatus.CLOSED


def test_the_title_is_the_ticket_and_its_subject_within_slacks_limit():
    assert session_title(1, "KITE-142", "Export to CSV drops custom fields") == \
        "KITE-142 · Export to CSV drops custom fields"
    assert session_title(7, None, None) == "Run #7"
    long = session_title(1, "KITE-142", "x" * 300)
    assert len(long) == 200 and long.endswith("…")


def test_a_mention_through_approval_is_processing_suspended_processing_active(settings, db):
    """Each model call waits until Slack shows the run as processing: the sequence is exact, not a matter of
    when the sender looked."""
    slack = SlackAPIServer().start()
    draft = use("reply_to_customer", ticket_id="KITE-142", message="Hi Dana, here is your bypass link.")
    model = ScriptedModel([once_shown(slack, respond(text("Drafting."), draft)),
                           once_shown(slack, respond(text("Sent the link; KITE-144 looks the same.")), count=3)])
    h, stop = start_harness(settings, db, model_factory=lambda: model, slack=slack)
    try:
        ts, _ = h.send.mention(GOAL)
        h.drain()
        assert slack.session_statuses("CSUPPORT", ts) == ["processing", "suspended"]
        card = h.approval_card()
        h.send.click("approve_reply", card["value"], message_ts=card["ts"])
        h.drain()
        assert run_row(db, only_run(db).id).status == RunStatus.COMPLETED
        assert len(staff_replies(db, "KITE-142")) == 1
        assert slack.session_statuses("CSUPPORT", ts) == ["processing", "suspended", "processing", "active"]
        first, *later = slack.calls_to(SET_STATUS)
        assert first["title"].startswith("KITE-142 · ") and len(first["title"]) > len("KITE-142 · ")
        assert first["initiator_user_id"] == "ULEAD" and first["channel_id"] == "CSUPPORT"
        assert all("title" not in c and "initiator_user_id" not in c for c in later), "only the first creates"
        assert all(c["thread_ts"] == ts for c in later)
    finally:
        stop()
        slack.stop()


def test_an_escalated_run_closes_its_session(settings, db):
    h, stop = start_harness(settings.model_copy(update={"max_steps": 2}), db)
    try:
        ts, _ = h.send.mention(GOAL)
        h.drain()
        assert only_run(db).status == RunStatus.ESCALATED
        assert h.slack.session_statuses("CSUPPORT", ts) in (["processing", "closed"], ["closed"]), \
            "closed in the end (processing is not sent when the run escalated before the sender looked)"
    finally:
        stop()


def test_a_bump_that_changes_no_status_sends_nothing(harness, db):
    ts, _ = harness.send.mention(GOAL)
    harness.drain()
    calls = len(harness.slack.calls_to(SET_STATUS))
    with db.session() as session:
        outbox.agent_session(session, only_run(db))  # the run still waits: Slack shows that already
    harness.drain()
    assert len(harness.slack.calls_to(SET_STATUS)) == calls
    assert harness.slack.session_statuses("CSUPPORT", ts)[-1] == "suspended"
    assert [r.status for r in session_rows(db)] == ["sent"]


def test_a_workspace_without_sessions_works_as_today_and_is_told_once(harness, db, caplog):
    harness.slack.sessions_error = "not_allowed"
    with caplog.at_level(logging.WARNING, logger="bot.outbox.sender"):
        ts, _ = harness.send.mention(GOAL)
        harness.drain()
        card = harness.approval_card()
        harness.send.click("approve_reply", card["value"], message_ts=card["ts"])
        harness.drain()
    run = run_row(db, only_run(db).id)
    assert run.status == RunStatus.COMPLETED and len(staff_replies(db, "KITE-142")) == 1
    assert any("KITE-144" in t for t in harness.thread_texts("CSUPPORT", ts)), "the answer is in the thread"
    assert len(harness.slack.calls_to(SET_STATUS)) == 1, "asked once, then never again"
    said = [r for r in caplog.records if "agent sessions are not available" in r.getMessage()]
    assert len(said) == 1 and "not_allowed" in said[0].getMessage()
    assert [r.status for r in session_rows(db)] == ["sent"], "the session row is done, not failed or pending"
    assert harness.slack.agent_sessions == {}


def test_a_passing_error_is_retried_and_the_newest_status_wins(harness, db):
    harness.slack.fail(SET_STATUS, "internal_error", times=2)
    ts, _ = harness.send.mention(GOAL)
    harness.drain()
    assert harness.slack.session_statuses("CSUPPORT", ts)[-1] == "suspended"
    assert harness.sender.sessions_ok, "a passing error does not turn sessions off"


def test_a_slash_commands_session_is_on_the_thread_of_its_request_message(settings, db):
    slack = SlackAPIServer().start()
    draft = use("reply_to_customer", ticket_id="KITE-142", message="Hi Dana, here is your bypass link.")
    model = ScriptedModel([once_shown(slack, respond(text("Drafting."), draft))])
    harness, stop = start_harness(settings, db, model_factory=lambda: model, slack=slack)
    try:
        _slash_command_session(harness, db)
    finally:
        stop()
        slack.stop()


def _slash_command_session(harness, db) -> None:
    status, _ = harness.send.command(GOAL)
    harness.drain()
    assert status == 200 and only_run(db).status == RunStatus.AWAITING_APPROVAL
    calls = harness.slack.calls
    request = next(c for c in calls if c["method"] == "chat.postMessage" and "asked:" in c["args"]["text"])
    parent_ts = request["response"]["ts"]
    assert harness.slack.session_statuses("CSUPPORT", parent_ts) == ["processing", "suspended"]
    first_session_call = next(i for i, c in enumerate(calls) if c["method"] == SET_STATUS)
    assert calls.index(request) < first_session_call, "the session waits for the message it threads under"
    assert calls[first_session_call]["args"]["initiator_user_id"] == "ULEAD"


def test_a_follow_up_reopens_the_session_and_it_ends_active_again(settings, db):
    """The follow-up's model call waits until Slack shows the reopened run as processing."""
    slack = SlackAPIServer().start()
    thread: list[str] = []

    def answer_once_reopened(messages):
        wait_until(lambda: slack.session_statuses("CSUPPORT", thread[0])[-1] == "processing", "processing again")
        return respond(text("Harbor Pine uses Okta too."))

    draft = use("reply_to_customer", ticket_id="KITE-142", message="Hi Dana, here is your bypass link.")
    model = ScriptedModel([once_shown(slack, respond(text("Drafting."), draft)), respond(text("Sent.")),
                           answer_once_reopened])
    h, stop = start_harness(settings, db, model_factory=lambda: model, slack=slack)
    try:
        ts, _ = h.send.mention(GOAL)
        thread.append(ts)
        h.drain()
        h.send.click("approve_reply", h.approval_card()["value"])
        h.drain()
        answered = slack.session_statuses("CSUPPORT", ts)
        assert answered[0] == "processing" and answered[-1] == "active"
        h.send.mention("also check whether Harbor Pine uses Okta, see KITE-144", thread_ts=ts)
        h.drain()
        assert only_run(db).status == RunStatus.COMPLETED
        assert slack.session_statuses("CSUPPORT", ts)[len(answered):] == ["processing", "active"]
        assert len(slack.agent_sessions) == 1, "the same thread, the same session"
    finally:
        stop()
        slack.stop()
