"""A button that opens a form (Edit, Reject, Close, a thumbs down's note) while Slack's API is failing: the
click is still answered 200, the person is told in a message only they see that the form did not open and
what to do, nothing changed, and nothing is logged as an error (the product handles the outage)."""

from __future__ import annotations

import logging

import pytest

from standins.slack_harness import start_harness
from tests.helpers import approvals_of

GOAL = "handle KITE-142"
BUTTONS = {
    "edit_reply": ("CSUPPORT", "Click Edit again in a minute"),
    "reject_reply": ("CSUPPORT", "Click Reject again in a minute"),
    "close_escalation": ("CQUEUE", "Click Close again in a minute"),
}


@pytest.mark.parametrize("failure", ["http-500", "not-ok"])
@pytest.mark.parametrize("button", list(BUTTONS))
def test_a_form_that_slack_cannot_open_is_a_sentence_not_a_500(settings, db, caplog, button, failure):
    caplog.set_level(logging.INFO)
    escalating = button == "close_escalation"
    h, stop = start_harness(settings.model_copy(update={"max_steps": 1}) if escalating else settings, db)
    try:
        h.send.mention(GOAL)
        h.drain()
        value = h.value(button)
        channel, advice = BUTTONS[button]
        if failure == "http-500":
            h.slack.outage(2.0)
        else:
            h.slack.fail("views.open", "internal_error")
        status, _ = h.send.click(button, value, channel=channel)
        assert status == 200
        [note] = h.slack.wait_for("chat.postEphemeral", timeout=20,
                                  predicate=lambda a: "form" in a["text"] and a["user"] == "ULEAD")
        assert note["channel"] == channel
        assert "didn't open" in note["text"] and advice in note["text"], note["text"]
        h.drain()
        if escalating:
            from sqlmodel import select

            from bot.db.models import Escalation

            with db.session() as session:
                assert [e.status for e in session.exec(select(Escalation)).all()] == ["open"]
        else:
            assert [a.status for a in approvals_of(db, 1)] == ["pending"], "nothing was decided"
        opened = len(h.slack.calls_to("views.open"))
        status, _ = h.send.click(button, value, channel=channel)  # once Slack is back, the same click works
        assert status == 200 and len(h.slack.calls_to("views.open")) == opened + 1
        h.drain()
    finally:
        stop()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [(r.name, r.getMessage()) for r in errors]


def test_a_thumbs_down_is_recorded_when_its_note_form_cannot_open(settings, db, caplog):
    caplog.set_level(logging.INFO)
    h, stop = start_harness(settings.model_copy(update={"approval_tools": frozenset()}), db)
    try:
        ts, _ = h.send.mention(GOAL)
        h.drain()
        h.slack.fail("views.open", "internal_error")
        status, _ = h.send.click("run_feedback", "down:1", thread_ts=ts)
        assert status == 200
        [note] = h.slack.wait_for("chat.postEphemeral", timeout=20, predicate=lambda a: "thumbs down" in a["text"])
        assert "recorded" in note["text"] and "didn't open" in note["text"], note["text"]
        from sqlmodel import select

        from bot.db.models import Feedback

        with db.session() as session:
            assert [f.value for f in session.exec(select(Feedback)).all()] == ["down"]
    finally:
        stop()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not errors, [(r.name, r.getMessage()) for r in errors]
