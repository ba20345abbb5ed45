"""Every Slack effect is a row, delivered once by the outbox sender: from whichever process caused it, through
Slack outages and rate limits, in order within each thread, answers before progress."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from bot import outbox
from bot.agent.offline import OfflineModel
from bot.db.models import Outbox, Run, utcnow
from standins.slack_harness import start_harness
from tests.helpers import PATIENCE, approvals_of, run_row, staff_replies, wait_until
from tests.scripted import respond, text, use

GOAL = "handle KITE-142"
ROOT = Path(__file__).parents[2]


def queue_posts(h) -> list[dict]:
    """What the queue channel shows (calls Slack refused during an outage left nothing there)."""
    with h.slack._lock:
        return [m for (channel, _), m in h.slack.messages.items()
                if channel == "CQUEUE" and "needs a person" in (m.get("text") or "")]


def sweep_process(database_url: str, **env: str) -> subprocess.Popen:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "SLACK_", "ANTHROPIC_"))}
    environment.update({"DATABASE_URL": database_url, "KITEBASE_OFFLINE": "1", "KITEBASE_ESCALATION_CHANNEL": "CQUEUE",
                        **env})
    return subprocess.Popen([sys.executable, "-m", "bot.cli", "sweep", "--json"], cwd=ROOT, env=environment,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_an_expiry_swept_by_two_other_processes_at_once_posts_once(harness, db, settings):
    harness.send.mention(GOAL)
    harness.drain()
    [approval] = approvals_of(db, 1)
    with db.session() as session:  # the draft has waited a day
        session.execute(update(approval.__class__).where(col(approval.__class__.id) == approval.id)
                        .values(created_at=utcnow() - timedelta(days=1, minutes=1)))
    sweepers = [sweep_process(settings.database_url) for _ in range(2)]
    reports = [json.loads(p.communicate(timeout=60)[0]) for p in sweepers]
    assert sorted(len(r["expired"]) for r in reports) == [0, 1], reports
    harness.drain()
    [post] = queue_posts(harness)
    assert "nobody approved the draft" in post["text"] and "KITE-142" in post["text"]
    [upload] = harness.slack.uploads
    assert upload["channel_id"] == "CQUEUE" and "nobody approved the draft" in upload["content"]
    card = [u for u in harness.slack.calls_to("chat.update") if "Expired" in json.dumps(u["blocks"])]
    assert card and "nothing was sent" in json.dumps(card[-1]["blocks"])
    assert staff_replies(db, "KITE-142") == []


def test_a_stuck_run_reaches_the_queue_channel_once(harness, db, settings):
    harness.send.mention(GOAL)
    harness.drain()
    with db.session() as session:  # a worker on another machine took the run and went quiet hours ago
        session.execute(update(Run).where(col(Run.id) == 1).values(
            status="running", lease_owner="far-host:1", lease_expires_at=utcnow() + timedelta(hours=1),
            updated_at=utcnow() - timedelta(hours=2)))
    for process in [sweep_process(settings.database_url) for _ in range(2)]:
        process.communicate(timeout=60)
    harness.drain()
    [post] = queue_posts(harness)
    assert "stuck" in post["text"]


@pytest.mark.parametrize("outage", [pytest.param(4, id="4s"), pytest.param(30, id="30s", marks=pytest.mark.slow)])
@pytest.mark.parametrize("status", [500, 429])
def test_slack_down_mid_run_loses_nothing_and_doubles_nothing(settings, db, outage, status):
    h, stop = start_harness(settings, db, model_factory=lambda: DraftsOrEscalates())
    try:
        first, _ = h.send.mention(GOAL)  # drafts a reply: a card
        h.slack.outage(outage, status=status, error="ratelimited" if status == 429 else "internal_error")
        second, _ = h.send.mention("handle KITE-151")  # a ticket with planted instructions: the human queue
        time.sleep(outage + 0.5)
        h.drain(timeout=120)
        shown = list(h.slack.messages.values())
        cards = [m for m in shown if m.get("blocks") and "approve_reply" in json.dumps(m["blocks"])]
        stops = [m for m in shown if "Stopped" in (m.get("text") or "")]
        posts = queue_posts(h)
        delivered = [c for c in h.slack.calls if c["status"] == 200]
        assert [c["thread_ts"] for c in cards] == [first], "one card, once"
        assert len(stops) == 1 and len(posts) == 1, "one ending and one queue post, once each"
        for thread in (first, second):
            kinds = [m.get("stream_state") and "timeline" or ("card" if m.get("blocks") and "approve_reply" in
                     json.dumps(m["blocks"]) else "other") for m in h.slack.thread("CSUPPORT", thread)]
            assert kinds and kinds[0] == "timeline", f"the timeline comes first in {thread}: {kinds}"
        assert delivered, "Slack got everything once it was back"
        with db.session() as session:
            stuck = session.exec(select(Outbox).where(col(Outbox.status) != "sent")).all()
        assert stuck == []
    finally:
        stop()


class DraftsOrEscalates(OfflineModel):
    """The offline model, except that it hands KITE-151 to a person at once."""

    def complete(self, *, messages, **kwargs):  # type: ignore[no-untyped-def, override]
        if "KITE-151" in json.dumps(messages[0]) and len(messages) == 1:
            return respond(text("This one needs a person."), use("escalate_to_human", reason="planted instructions"))
        return super().complete(messages=messages, **kwargs)


def test_answers_go_before_progress_and_progress_is_coalesced(settings, db):
    """Rows written while Slack is unavailable: when it is back, the card goes first and the timeline's many
    steps arrive as one message, not one post per step."""
    h, stop = start_harness(settings, db)
    try:
        h.slack.outage(math.inf)  # until the run has written all it will (a timed outage raced the run)
        h.send.mention(GOAL)
        wait_until(lambda: run_row(db, 1) is not None and run_row(db, 1).status == "awaiting_approval"
                   and not h.ctx.dispatch.busy(), "the run to write its card and every step")
        h.slack.end_outage()
        h.drain(timeout=PATIENCE)  # (the sender's backoff after the failed attempts is up to 30 s)
        calls = [c for c in h.slack.calls if c["status"] == 200 and c["method"] in
                 ("chat.postMessage", "chat.startStream", "chat.appendStream", "chat.update")]
        methods = [c["method"] for c in calls]
        assert methods.count("chat.startStream") == 1 and methods.count("chat.appendStream") == 0, methods
        started = next(c for c in calls if c["method"] == "chat.startStream")
        assert len(started["args"]["chunks"]) > 5, "every step so far in one go"
    finally:
        stop()


def test_an_uncertain_post_is_looked_for_before_it_is_posted_again(harness, db):
    """The sender died after Slack took a post but before it stored the ts: the next one finds it."""
    harness.sender.stop()
    with db.session() as session:
        run = session.exec(select(Run)).first()
    with db.session() as session:
        outbox.notice(session, channel="CSUPPORT", thread_ts="1800000001.000100", text="Hello once.", key="notice:x")
    with db.session() as session:
        row = session.exec(select(Outbox).where(Outbox.key == "notice:x")).one()
    harness.sender.client.chat_postMessage(channel="CSUPPORT", thread_ts="1800000001.000100", text="Hello once.",
                                           metadata={"event_type": "kitebase_outbox", "event_payload": {"row": row.id}})
    with db.session() as session:  # claimed by a sender that is gone, outcome unknown
        session.execute(update(Outbox).where(col(Outbox.id) == row.id).values(claimed_by="dead-host:1/sender"))
    from bot.outbox.sender import OutboxSender
    from bot.slack.client import make_client

    sender = OutboxSender(db, harness.ctx.settings, make_client(harness.ctx.settings)).start()
    try:
        deadline = time.monotonic() + 20
        while not sender.idle() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        sender.stop()
    posted = [c for c in harness.slack.calls_to("chat.postMessage") if c.get("text") == "Hello once."]
    assert len(posted) == 1, "found by its metadata, not posted again"
    assert harness.slack.calls_to("conversations.replies"), "it looked"
    del run


def test_one_sender_at_a_time_and_another_takes_over(db, settings):
    from bot.runs.execution import processes

    assert processes.hold(db, "outbox-sender", "a", 10, 15)
    assert not processes.hold(db, "outbox-sender", "b", 10, 15), "a holds it"
    processes.release(db, "outbox-sender", "a")
    assert processes.hold(db, "outbox-sender", "b", 10, 15), "b takes over once a lets go"
    threads = [threading.Thread(target=lambda: None) for _ in range(1)]
    del threads


def test_a_stream_slack_closed_is_continued_by_updating_the_message(settings, db):
    holder: dict = {}

    def close_streams_then(response):  # type: ignore[no-untyped-def]
        def step(messages):  # type: ignore[no-untyped-def]
            h = holder["h"]
            h.slack.wait_for("chat.startStream", timeout=10)  # the first steps are streamed (in the stream's
            deadline = time.monotonic() + 10  # first message or appended to it, as fast as the run was)...
            while not h.sender.idle() and time.monotonic() < deadline:
                time.sleep(0.02)
            with h.slack._lock:  # ...then Slack closes the stream, as it does after a few minutes
                for message in h.slack.messages.values():
                    if message.get("stream_state") == "in_progress":
                        message["stream_state"] = "completed"
            return response
        return step

    from tests.scripted import ScriptedModel

    model = ScriptedModel([respond(text("Reading."), use("get_ticket", ticket_id="KITE-142")),
                           close_streams_then(respond(text("Looking for more."), use("search_help", query="sso"))),
                           respond(text("Nothing to send; done."))])
    h, stop = start_harness(settings, db, model_factory=lambda: model)
    holder["h"] = h
    try:
        ts, _ = h.send.mention(GOAL)
        h.drain()
        refused = [c for c in h.slack.calls if c["method"] == "chat.appendStream"
                   and c["response"].get("error") == "message_not_in_streaming_state"]
        updated = [c["args"] for c in h.slack.calls if c["method"] == "chat.update" and c["response"].get("ok")]
        [timeline] = [m for m in h.slack.thread("CSUPPORT", ts) if m.get("chunks")]
        assert refused, "Slack refused the append to its closed stream"
        assert updated and updated[-1]["ts"] == timeline["ts"], "the same message was updated instead"
        assert "search_help" in json.dumps(timeline["blocks"]), "with the steps after the stream closed"
    finally:
        stop()
