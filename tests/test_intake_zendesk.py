"""Intake on the Zendesk desk, end to end: tickets created in the Zendesk stand-in reach the mirror by webhook (over
HTTP, signed as Zendesk signs) or by the poll, an intake pass turns the ones a rule takes into runs, and the runs
show in the rule's channel through the real Bolt app and the Slack stand-in with no mention. A customer's answer
continues the same thread once; the agent's own reply starts nothing; a hundred tickets under max_per_hour = 20
start twenty runs and the rest wait their turn, none twice."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, func, select

from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.models import DeskArrival, Run, utcnow
from bot.desk.zendesk import sync
from bot.desk.zendesk import writes as desk_writes
from bot.desk.zendesk.desk import client_for
from bot.runs.execution import desk_work
from bot.runs.intake import arrivals, control
from bot.runs.intake.rules import load
from bot.vocabulary import ArrivalKind, ArrivalState, RunStatus
from standins.zendesk_server import ZendeskServer
from tests.conftest import make_settings
from tests.helpers import intake_through, run_row, wait_until
from tests.test_desk_zendesk import KB_DATA, SECRET, YEAR, signed

RULES = """\
[[rule]]
name = "urgent-sso"
channel = "C0URGENT"
priorities = ["urgent", "high"]
tags = ["sso"]
via = ["web", "email"]
"""


@pytest.fixture
def zd() -> Iterator[ZendeskServer]:
    with ZendeskServer(export_delay=0) as server:
        server.load_kb_data(KB_DATA)
        yield server


@pytest.fixture
def desk(database_url: str, zd: ZendeskServer, tmp_path: Path) -> Iterator[tuple[Database, Settings]]:
    """A mirror after its first fill (what was on the desk is not new), intake on, ULEAD an approver."""
    rules = tmp_path / "rules.toml"
    rules.write_text(RULES, encoding="utf-8")
    settings = make_settings(database_url, desk="zendesk", zendesk_url=zd.url, zendesk_email="bot@kitebase.example",
                             zendesk_api_token="zd-test-token", zendesk_webhook_secret=SECRET,
                             zendesk_sync_since_seconds=5 * YEAR, intake_rules=rules,
                             approvers=frozenset({"ULEAD"}))
    db = Database.from_url(database_url)
    create_schema(db.engine)
    assert sync.sync(client_for(settings), db, since_seconds=settings.zendesk_sync_since_seconds).caught_up
    yield db, settings
    db.engine.dispose()


def post_webhook(url: str, ticket_id: int, zd: ZendeskServer, *, headers: dict[str, str] | None = None
                 ) -> tuple[int, dict[str, str]]:
    """What Zendesk's webhook sends for a ticket trigger, signed; returns the status and the headers used (a
    redelivery sends the same ones again)."""
    body = json.dumps(zd.ticket_webhook_payload(ticket_id)).encode()
    headers = headers or {**signed(body), "content-type": "application/json"}
    request = urllib.request.Request(url + "/zendesk/webhook", data=body, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, headers


def arrivals_of(db: Database, ticket_id: int | str, kind: str | None = None) -> list[DeskArrival]:
    with db.session() as session:
        query = select(DeskArrival).where(col(DeskArrival.ticket_id) == str(ticket_id))
        if kind is not None:
            query = query.where(col(DeskArrival.kind) == kind)
        rows = list(session.exec(query.order_by(col(DeskArrival.id))).all())
        for row in rows:
            session.expunge(row)
        return rows


def runs_of(db: Database, ticket_id: int | str) -> list[Run]:
    with db.session() as session:
        rows = list(session.exec(select(Run).where(col(Run.ticket_id) == str(ticket_id))).all())
        for row in rows:
            session.expunge(row)
        return rows


def test_a_webhook_ticket_gets_its_card_in_the_rules_channel_and_a_customer_answer_continues_it_once(desk, zd):
    from standins.slack_harness import start_harness

    db, settings = desk
    rules = load(settings.intake_rules)
    arrivals.standing(db, rules)  # in force before the tickets arrive
    harness, stop = start_harness(settings, db)
    try:
        def intake_pass() -> list[int]:
            return intake_through(db, settings, rules, harness)

        dana = zd.user_by_email("dana.whitfield@example.com")
        assert dana is not None
        matching = zd.add_ticket("SSO loop after our IdP change", "Everyone signing in through Okta is sent back to "
                                 "the login page since this morning.", dana["id"], status="new", priority="urgent",
                                 tags=["sso", "login"])
        other = zd.add_ticket("Invoice in the wrong currency", "Our invoice is in USD, we pay in EUR.", dana["id"],
                              status="new", priority="low", tags=["billing"])
        for ticket in (matching, other):
            status, headers = post_webhook(harness.url, ticket, zd)
            assert status == 202
        wait_until(lambda: len(arrivals_of(db, matching)) == 1 and len(arrivals_of(db, other)) == 1,
                   "both tickets to be mirrored and recorded")
        assert post_webhook(harness.url, other, zd, headers=headers)[0] == 200, "a redelivery is acknowledged"

        [run_id] = intake_pass()
        assert intake_pass() == []
        run = run_row(db, run_id)
        assert run.ticket_id == str(matching) and run.started_by is None
        assert run.goal == f"handle {matching} (picked up by rule 'urgent-sso': urgent, tagged sso, via web)"
        assert runs_of(db, other) == []
        [ignored] = arrivals_of(db, other)
        assert (ignored.state, ignored.reason) == (ArrivalState.IGNORED, "no rule takes it")

        posts = harness.slack.calls_to("chat.postMessage")
        first = posts[0]
        assert first["channel"] == "C0URGENT" and "thread_ts" not in first
        assert first["text"].startswith(f":inbox_tray: Rule *urgent-sso* picked up ticket *{matching}* (SSO loop "
                                        "after our IdP change): urgent, tagged sso, via web.")
        top = harness.slack.calls[[c["args"] for c in harness.slack.calls].index(first)]["response"]["ts"]
        assert all(p["channel"] == "C0URGENT" and p.get("thread_ts") == top for p in posts[1:])
        card = harness.approval_card()
        assert card["call"]["thread_ts"] == top
        assert not harness.slack.calls_to("conversations.open"), "no one was mentioned, no one is DMed"

        before = len(zd.comments_of(matching))
        harness.send.click("approve_reply", card["value"], message_ts=card["ts"])  # ULEAD, an approver
        harness.drain()
        assert desk_writes.DeskSender(db, client_for(settings)).drain(timeout=30)
        ours = zd.comments_of(matching)[before:]
        assert [c["public"] for c in ours].count(True) == 1, "the approved reply, once"
        assert run_row(db, run_id).status == RunStatus.COMPLETED

        # Zendesk's trigger fires for our own reply too: mirrored, and nothing starts
        assert post_webhook(harness.url, matching, zd)[0] == 202
        wait_until(lambda: any(ours[0]["body"][:40] in (m or "") for m in _mirrored(db, matching)),
                   "our reply to reach the mirror")
        assert arrivals_of(db, matching, ArrivalKind.MESSAGE) == []
        assert intake_pass() == []

        thread_before = len(harness.thread_texts("C0URGENT", top))
        zd.add_comment(matching, "Thanks. We re-uploaded the metadata and it still loops for everyone.",
                       author_id=dana["id"])
        status, headers = post_webhook(harness.url, matching, zd)
        wait_until(lambda: len(arrivals_of(db, matching, ArrivalKind.MESSAGE)) == 1, "the customer's answer")
        assert post_webhook(harness.url, matching, zd, headers=headers)[0] == 200  # redelivered
        assert post_webhook(harness.url, matching, zd)[0] == 202  # and fired again by another trigger
        assert intake_pass() == [run_id], "the customer's answer continues the same run"
        assert intake_pass() == []
        assert len(runs_of(db, matching)) == 1
        thread = harness.thread_texts("C0URGENT", top)
        assert len(thread) > thread_before
        assert sum(f"The customer wrote again on *{matching}*" in t for t in thread) == 1, thread[thread_before:]
        assert "it still loops for everyone" in str(run_row(db, run_id).messages)
        assert run_row(db, run_id).status == RunStatus.ESCALATED, "the offline model hands a second answer over"
        assert any(f"Dana Whitfield wrote again on {matching} after our reply: “Thanks." in t
                   for t in harness.thread_texts("C0URGENT", top))
        assert all(p["channel"] == "C0URGENT" and p.get("thread_ts") == top  # or the human queue's
                   for p in harness.slack.calls_to("chat.postMessage")[1:]
                   if p["channel"] != harness.ctx.settings.escalation_channel)
        assert not harness.slack.warnings
    finally:
        stop()


def _mirrored(db: Database, ticket_id: int) -> list[str]:
    from bot.db.models import TicketMessage

    with db.session() as session:
        return list(session.exec(select(TicketMessage.body).where(col(TicketMessage.ticket_id) == str(ticket_id)))
                    .all())


def test_a_hundred_tickets_in_a_minute_under_max_per_hour_20_start_twenty_and_the_rest_wait_their_turn(desk, zd):
    db, settings = desk
    assert settings.intake_rules is not None
    settings.intake_rules.write_text('[[rule]]\nname = "urgent-sso"\nchannel = "C0URGENT"\ntags = ["sso"]\n'
                                     'max_per_hour = 20\n', encoding="utf-8")
    rules = load(settings.intake_rules)
    arrivals.standing(db, rules)
    dana = zd.user_by_email("dana.whitfield@example.com")
    assert dana is not None
    tickets = [zd.add_ticket(f"SSO loop {n}", f"Sign-in loops ({n}).", dana["id"], status="new", tags=["sso"])
               for n in range(100)]
    report = desk_work.poll(db, settings)  # the poll brings all hundred at once
    assert report is not None and report.caught_up
    started: list[int] = []

    def intake_pass() -> list[int]:
        done: list[int] = []
        desk_work.intake(db, settings, rules, done.append)
        started.extend(done)
        return done

    def an_hour_passes() -> None:
        with db.session() as session:  # the starts of the last hour move an hour back, by the database's clock
            session.execute(update(DeskArrival).where(col(DeskArrival.state) == ArrivalState.STARTED)
                            .values(decided_at=utcnow() - timedelta(hours=1, seconds=1)))

    assert len(intake_pass()) == 20
    assert intake_pass() == []
    states = [[a.state for a in arrivals_of(db, t)] for t in tickets]
    assert states == [[ArrivalState.STARTED]] * 20 + [[ArrivalState.WAITING]] * 80
    assert "over max_per_hour = 20" in (arrivals_of(db, tickets[20])[0].reason or "")

    for ticket in tickets:  # every ticket delivered again by webhook, and the poll again: nothing new
        assert desk_work.webhook(db, settings, signed(body := json.dumps({"ticket_id": str(ticket)}).encode()),
                                 body)[0].startswith("202")
    desk_work.poll(db, settings)
    wait_until(lambda: len(desk_work_requests(zd)) >= 100, "the hundred webhook reads")
    assert intake_pass() == []

    [paused] = control.pause(db, settings, "urgent-sso", by="ULEAD")  # the hour allows, and nothing starts
    assert paused.changed
    an_hour_passes()
    assert intake_pass() == []
    assert {a.reason for t in tickets[20:] for a in arrivals_of(db, t)} == {"rule 'urgent-sso' is paused by <@ULEAD>"}
    control.resume(db, settings, "urgent-sso", by="ULEAD")
    for _ in range(4):
        assert len(intake_pass()) == 20
        assert intake_pass() == []
        an_hour_passes()
    with db.session() as session:
        by_run = dict(session.exec(select(Run.id, Run.ticket_id)).all())
        assert session.exec(select(func.count()).select_from(Run)).one() == 100
    assert [by_run[r] for r in started] == [str(t) for t in tickets], "oldest first, each once"
    assert all([a.state for a in arrivals_of(db, t)] == [ArrivalState.STARTED] for t in tickets)


def desk_work_requests(zd: ZendeskServer) -> list[Any]:
    return [r for r in zd.requests_to("GET", "/api/v2/tickets/") if r["path"].endswith(".json")
            and "/comments" not in r["path"] and r["path"].count("/") == 4]



def test_a_customer_answer_a_run_reads_before_its_webhook_is_still_an_arrival(desk, zd):
    """A run's live read (get_ticket) can mirror a customer's new comment before the webhook or the poll does;
    the mirror then has it, so they would see nothing new: the read records it, as they would have."""
    from bot.desk.zendesk.desk import ZendeskDesk

    db, settings = desk
    dana = zd.user_by_email("dana.whitfield@example.com")
    assert dana is not None
    comment = zd.add_comment(4821, "It started again this morning.", author_id=dana["id"])
    ZendeskDesk(db, settings).ticket("4821")
    [arrival] = arrivals_of(db, 4821, ArrivalKind.MESSAGE)
    assert arrival.key == f"zendesk-comment:{comment}" and arrival.body == "It started again this morning."
    desk_work.poll(db, settings)
    sync.refresh_tickets(client_for(settings), db, ["4821"], arrivals=True)
    assert len(arrivals_of(db, 4821, ArrivalKind.MESSAGE)) == 1, "once, whichever path saw it first"


def test_a_renamed_requester_or_a_redacted_comment_replays_nothing(desk, zd):
    """Issue 48, item 3: comments are told apart by their place in time on the desk's clock, not by their author's
    name or their text, so a rename or a redaction of earlier comments is no new message; a new comment still is."""
    db, settings = desk
    dana = zd.user_by_email("dana.whitfield@example.com")
    assert dana is not None
    with zd._lock:  # what Zendesk's own admin screens would do: rename the requester, redact a comment
        zd._users[dana["id"]]["name"] = "Dana Whitfield-Okoro"
        first = zd._comments[4821][0]
        for key in ("body", "plain_body", "html_body"):
            if key in first:
                first[key] = "▇▇▇▇ (redacted)"
    sync.refresh_tickets(client_for(settings), db, ["4821"], arrivals=True)
    assert arrivals_of(db, 4821, ArrivalKind.MESSAGE) == [], "nothing the customer wrote is new"
    zd.add_comment(4821, "It started again this morning.", author_id=dana["id"])
    sync.refresh_tickets(client_for(settings), db, ["4821"], arrivals=True)
    [arrival] = arrivals_of(db, 4821, ArrivalKind.MESSAGE)
    assert arrival.body == "It started again this morning." and arrival.author == "Dana Whitfield-Okoro"
