"""Fenced desk writes: one approval, one comment on the ticket, whatever the senders, their claims, their pauses and
Zendesk's clock do. Against the Zendesk stand-in (which can hold a PUT before applying it, run its clock away from
ours, and answer a write it applied with a 500), on SQLite and PostgreSQL, with the real HTTP client."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlmodel import select

from bot.config import Settings
from bot.db.clock import read_now
from bot.db.engine import Database, create_schema
from bot.db.models import DeskWrite
from bot.desk import open_desk
from bot.desk.zendesk import writes as desk_writes
from bot.desk.zendesk.client import ZendeskClient
from bot.desk.zendesk.desk import client_for
from standins.zendesk_server import ZendeskServer
from tests import test_desk_zendesk as zendesk_tests
from tests.test_desk_zendesk import KB_DATA, synced, zendesk_settings

ROOT = Path(__file__).resolve().parents[1]
zd, zdb = zendesk_tests.zd, zendesk_tests.zdb  # the stand-in loaded with kb_data, and an empty database for it
REPLY = "Hi Dana, the owner bypass link is on its way: one reply, once."
NOTE = "Checked the SSO settings with the customer's admin."


def rows(db: Database) -> list[DeskWrite]:
    with db.session() as session:
        found = list(session.exec(select(DeskWrite).order_by(DeskWrite.id)).all())
        for row in found:
            session.expunge(row)
        return found


def copies(zd: ZendeskServer, ticket: int, text: str) -> int:
    return [c["body"] for c in zd.comments_of(ticket)].count(text)


def until(check: Callable[[], object], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return False


def make_due(db: Database) -> None:
    """A write waiting for its backoff is due now (the backoff is not what these tests are about)."""
    with db.session() as session:
        for row in session.exec(select(DeskWrite).where(DeskWrite.status.in_(("pending", "unknown")))).all():  # type: ignore[attr-defined]
            row.next_attempt_at = read_now(session)
            session.add(row)


def sender(db: Database, settings: Settings, claim_seconds: float | None = None) -> desk_writes.DeskSender:
    client = ZendeskClient(settings.zendesk_url or "", email=settings.zendesk_email, token="zd-test-token")
    return desk_writes.DeskSender(db, client, claim_seconds=claim_seconds)


def in_thread(work: Callable[[], object]) -> threading.Thread:
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


# --- a PUT that outlives its claim ------------------------------------------------------------------------------

@pytest.mark.parametrize("applied_first", ["held PUT applied first", "second sender's PUT applied first"])
def test_a_put_zendesk_holds_past_the_claim_and_a_second_sender_leave_one_comment(zdb, zd, applied_first):
    db, settings = synced(zdb)
    open_desk(settings, db).reply("4821", REPLY, run_id=7, tool_use_id="toolu_held")
    first, second = zd.hold_writes(2)
    a, b = sender(db, settings, claim_seconds=0.5), sender(db, settings, claim_seconds=0.5)
    outcome: dict[str, object] = {}
    thread_a = in_thread(lambda: outcome.setdefault("a", a.deliver_due()))
    assert first.arrived.wait(10), "A's PUT reached Zendesk and is held there"
    # B takes the row once A's claim has run out (by the database's clock), and its own PUT is held too
    thread_b = in_thread(lambda: until(lambda: b.deliver_due() > 0))
    assert second.arrived.wait(10), "B took the row over and sent its PUT"
    if applied_first == "held PUT applied first":
        first.release()
        thread_a.join(10)
        second.release()
    else:
        second.release()
        assert until(lambda: copies(zd, 4821, REPLY) == 1)
        first.release()
        thread_a.join(10)
    thread_b.join(30)
    assert not thread_a.is_alive() and not thread_b.is_alive()
    a.drain(timeout=10)
    assert copies(zd, 4821, REPLY) == 1, "exactly one public comment for one approval"
    (row,) = rows(db)
    posted = [c for c in zd.comments_of(4821) if c["body"] == REPLY][0]
    assert row.status == "sent" and row.comment_id == posted["id"]
    assert row.claimed_by is None


def test_a_sender_paused_past_its_claim_and_continued_posts_nothing_twice(zdb, zd, database_url):
    """SIGSTOP between reading the ticket and writing it; another sender takes the row over and sends it; SIGCONT:
    the paused one must not post again."""
    db, settings = synced(zdb)
    open_desk(settings, db).reply("4821", REPLY, run_id=8, tool_use_id="toolu_paused")
    script = (
        "import sys\n"
        "from bot.db.engine import Database\n"
        "from bot.desk.zendesk.client import ZendeskClient\n"
        "from bot.desk.zendesk.writes import DeskSender\n"
        "client = ZendeskClient(sys.argv[2], email='bot@kitebase.example', token='zd-test-token')\n"
        "sender = DeskSender(Database.from_url(sys.argv[1]), client, claim_seconds=0.5)\n"
        "print('handled', sender.deliver_due(), flush=True)\n")
    stopped = threading.Event()
    process: list[subprocess.Popen[str]] = []

    def pause_at_the_read(method: str, path: str) -> None:
        if method == "GET" and path == "/api/v2/tickets/4821.json" and process and not stopped.is_set():
            os.kill(process[0].pid, signal.SIGSTOP)  # its answer waits in the socket until it continues
            stopped.set()

    zd.on_request = pause_at_the_read
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process.append(subprocess.Popen([sys.executable, "-c", script, database_url, zd.url], env=env, cwd=ROOT,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    try:
        assert stopped.wait(60), "the first sender read the ticket and was paused"
        b = sender(db, settings, claim_seconds=0.5)
        assert until(lambda: b.deliver_due() > 0), "the second sender took the row once the claim ran out"
        assert copies(zd, 4821, REPLY) == 1 and rows(db)[0].status == "sent"
    finally:
        os.kill(process[0].pid, signal.SIGCONT)
    out, err = process[0].communicate(timeout=60)
    assert process[0].returncode == 0, err
    assert copies(zd, 4821, REPLY) == 1, "the continued sender posted nothing"
    assert rows(db)[0].status == "sent"


# --- the look-up before a resend ----------------------------------------------------------------------------------

def test_two_runs_writing_the_same_note_each_get_their_own_and_the_status_change_is_not_lost(zdb, zd):
    db, settings = synced(zdb)
    desk = open_desk(settings, db)
    s = sender(db, settings)
    desk.update("4821", status=None, assignee=None, note=NOTE, run_id=21, tool_use_id="toolu_first")
    assert s.drain(timeout=20)
    assert zd.tickets[4821]["status"] != "pending"
    desk.update("4821", status="pending", assignee=None, note=NOTE, run_id=22, tool_use_id="toolu_second")
    zd.fail_writes_before_applying(1)  # answered 500, nothing applied: the outcome is unknown to us
    s.deliver_due()
    assert rows(db)[1].status == "unknown"
    zd.fail_writes_before_applying(None)
    make_due(db)
    assert s.drain(timeout=20)
    notes = [c for c in zd.comments_of(4821) if c["body"] == NOTE]
    assert len(notes) == 2 and not any(c["public"] for c in notes), "each run's note, as a private note"
    assert zd.tickets[4821]["status"] == "pending", "the second write's status change was applied"
    first, second = rows(db)
    assert {first.comment_id, second.comment_id} == {c["id"] for c in notes}


@pytest.fixture(params=[-600.0, 600.0], ids=["zendesk 10 min behind", "zendesk 10 min ahead"])
def skewed_zd(request: pytest.FixtureRequest) -> Iterator[ZendeskServer]:
    offset = float(request.param)
    with ZendeskServer(export_delay=0, clock=lambda: time.time() + offset) as server:
        server.load_kb_data(KB_DATA)
        yield server


@pytest.mark.parametrize("fault", ["applied, then 500", "applied, then the connection dropped"])
def test_a_zendesk_clock_ten_minutes_off_ours_still_finds_the_comment_an_unknown_write_posted(
        database_url, skewed_zd, fault):
    zd = skewed_zd
    settings = zendesk_settings(database_url, zd)
    db = Database.from_url(database_url)
    create_schema(db.engine)
    try:
        synced((db, settings))
        open_desk(settings, db).update("4821", status="pending", assignee=None, note=None, run_id=30,
                                       tool_use_id="toolu_status")
        open_desk(settings, db).reply("4821", REPLY, run_id=31, tool_use_id="toolu_skew")
        s = sender(db, settings)
        assert s.drain(timeout=20)
        (zd.fail_writes_after_applying if fault.endswith("500") else zd.drop_connection_after_applying)(1)
        open_desk(settings, db).update("4821", status="open", assignee=None, note=NOTE, run_id=32,
                                       tool_use_id="toolu_skew_note")
        s.deliver_due()
        assert rows(db)[-1].status == "unknown"
        zd.clear_faults()
        make_due(db)
        assert s.drain(timeout=20)
        assert copies(zd, 4821, REPLY) == 1 and copies(zd, 4821, NOTE) == 1
        assert zd.tickets[4821]["status"] == "open"
    finally:
        db.engine.dispose()


def test_a_found_comment_whose_ticket_changed_since_keeps_the_later_change(zdb, zd):
    """The reply with its status change was applied (answered 500); the customer answered before the retry and
    Zendesk reopened the ticket. The retry finds the comment, sees in its audit that our status change was made,
    and leaves the ticket open: it does not set it back to pending."""
    db, settings = synced(zdb)
    desk = open_desk(settings, db)
    desk.update("4821", status="pending", assignee=None, note=NOTE, run_id=40, tool_use_id="toolu_pending")
    s = sender(db, settings)
    zd.fail_writes_after_applying(1)
    s.deliver_due()
    assert rows(db)[0].status == "unknown" and zd.tickets[4821]["status"] == "pending"
    zd.clear_faults()
    zd.update_ticket(4821, status="open")  # the customer wrote back
    make_due(db)
    assert s.drain(timeout=20)
    assert copies(zd, 4821, NOTE) == 1 and zd.tickets[4821]["status"] == "open"
    assert len(zd.requests_to("PUT", "/api/v2/tickets/4821")) == 1, "nothing written again"


def test_a_field_change_that_was_never_applied_is_applied_on_the_retry(zdb, zd):
    db, settings = synced(zdb)
    open_desk(settings, db).update("4821", status="pending", assignee=None, note=None, run_id=41,
                                   tool_use_id="toolu_fields")
    s = sender(db, settings)
    zd.fail_writes_before_applying(1)
    s.deliver_due()
    assert rows(db)[0].status == "unknown"
    zd.clear_faults()
    make_due(db)
    assert s.drain(timeout=20)
    assert zd.tickets[4821]["status"] == "pending" and rows(db)[0].status == "sent"


# --- the claim ----------------------------------------------------------------------------------------------------

def test_a_claim_outlasts_the_worst_request_and_every_change_is_fenced_on_its_owner(zdb, zd):
    db, settings = synced(zdb)
    s = desk_writes.DeskSender(db, client_for(settings))
    assert s.claim_seconds >= 3 * settings.zendesk_timeout_seconds, "a claim outlasts the slowest request"
    open_desk(settings, db).reply("4821", REPLY, run_id=50, tool_use_id="toolu_fence")
    (row,) = rows(db)
    claim = s.claim(row.id or 0)
    assert claim is not None and s.claim(row.id or 0) is None, "a claimed row is not claimed twice"
    with db.session() as session:  # another sender's token: the row was taken over
        taken = session.get(DeskWrite, row.id)
        assert taken is not None
        taken.claimed_by = "another-host:1:abcd"
        session.add(taken)
    with pytest.raises(desk_writes.LostClaim):
        claim.renew()
    assert claim.done(None) is False and claim.later(1.0, "why", status="pending") is False
    assert rows(db)[0].status == "pending", "a sender that lost its claim changes nothing"
