"""The Zendesk desk against the local stand-in (standins/zendesk_server.py): the mirror's backfill and its resume
after a death mid-page, deleted tickets, live reads, webhooks, exactly-once writes under applied-but-500 answers
and 429s, and a refused token. The real HTTP client, a real database, our search."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlmodel import col, select

from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.models import DeskSync, DeskWrite, Escalation, HelpSection, Run, Ticket, TicketMessage
from bot.desk import DeskRefused, open_desk
from bot.desk.zendesk import sync
from bot.desk.zendesk import writes as desk_writes
from bot.desk.zendesk.desk import client_for
from bot.runs.execution import desk_work
from standins.zendesk_server import ZendeskServer, sign_webhook
from tests.conftest import make_settings
from tools import REGISTRY, ToolContext, execute

KB_DATA = Path(__file__).resolve().parents[1] / "kb_data"
ROOT = Path(__file__).resolve().parents[1]
SECRET = "whsec-test"
YEAR = 365 * 86400.0


@pytest.fixture
def zd() -> Iterator[ZendeskServer]:
    with ZendeskServer(export_delay=0) as server:
        server.load_kb_data(KB_DATA)
        yield server


def zendesk_settings(url: str, zd: ZendeskServer, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "desk": "zendesk", "zendesk_url": zd.url, "zendesk_email": "bot@kitebase.example",
        "zendesk_api_token": "zd-test-token", "zendesk_webhook_secret": SECRET, "zendesk_sync_since_seconds": 5 * YEAR}
    return make_settings(url, **{**values, **overrides})


@pytest.fixture
def zdb(database_url: str, zd: ZendeskServer) -> Iterator[tuple[Database, Settings]]:
    """An empty database (no kb_data: the mirror is filled by syncing) and settings for the stand-in."""
    settings = zendesk_settings(database_url, zd)
    database = Database.from_url(database_url)
    create_schema(database.engine)
    yield database, settings
    database.engine.dispose()


def synced(zdb: tuple[Database, Settings]) -> tuple[Database, Settings]:
    db, settings = zdb
    report = sync.sync(client_for(settings), db, since_seconds=settings.zendesk_sync_since_seconds)
    assert report.caught_up
    return db, settings


def export_cursors(zd: ZendeskServer) -> list[str]:
    return [r["query"].get("cursor") or f"start:{r['query'].get('start_time')}"
            for r in zd.requests_to("GET", "/api/v2/incremental/tickets/cursor.json") if r["status"] == 200]


def count(db: Database, model: type, *where: object) -> int:
    with db.session() as session:
        return len(session.exec(select(model).where(*where)).all())


# --- the mirror -----------------------------------------------------------------------------------------------

def test_a_backfill_mirrors_tickets_customers_and_published_sections_and_search_finds_them(zdb, zd):
    article = zd.add_article("Unreleased plans", "<h2>Secret</h2><p>roadmap draft words</p>", draft=True)
    db, settings = synced(zdb)
    assert count(db, Ticket) == 117 and count(db, HelpSection) == 99 + 24, "drafts never enter the index"  # 24 intros
    with db.session() as session:
        ticket = session.get(Ticket, "4821")
        messages = session.exec(select(TicketMessage).where(TicketMessage.ticket_id == "4821")).all()
    assert ticket is not None and ticket.title == "Customer locked out after SSO change"
    assert [m.role for m in messages].count("internal") >= 1 and messages[0].role == "customer"
    ctx = ToolContext(db=db, settings=settings)
    like = execute(REGISTRY, ctx, "search_tickets", {"like_ticket_id": "#4821"})
    assert not like.is_error and {"4823", "4842"} <= {hit["id"] for hit in like.data}
    assert {hit["customer"] for hit in like.data} >= {"Harbor Pine", "Tidewater Analytics"}
    found = execute(REGISTRY, ctx, "search_help", {"query": "locked out sso"})
    assert found.data[0]["id"] == "account-recovery#2"
    assert execute(REGISTRY, ctx, "search_help", {"query": "roadmap draft"}).data == []
    assert article in zd.articles


RUNBOOK = ("<h2>Okta tenant merges</h2><p>Tier two resets the stored IdP entity ID from the staff console after a "
           "tenant merge; never send the customer the console link or the reset code.</p>")


def test_articles_restricted_to_a_user_segment_are_internal_context_and_never_cited(zdb, zd):
    """An article with a user segment (agents only, signed-in users, or on Enterprise any of user_segment_ids) is
    mirrored as internal: the model reads it labelled so, a draft citing it is refused with a sentence, and no
    customer gets its link."""
    from tests.helpers import approvals_of, run_row, service_with
    from tests.scripted import ScriptedModel, respond, text, use

    runbook = zd.add_article("Escalation runbook", RUNBOOK, user_segment_id=zd.staff_segment_id)
    zd.add_article("Beta features", "<h2>Early access</h2><p>beta early access toggles</p>",
                   user_segment_id=zd.signed_in_segment_id)
    partners = zd.add_user_segment("Partners", tags=["partner"])
    zd.add_article("Partner pricing", "<h2>Discount ladder</h2><p>partner discount ladder</p>",
                   user_segment_ids=[partners, zd.staff_segment_id])  # Enterprise: user_segment_id stays null
    db, settings = synced(zdb)
    with db.session() as session:
        internal = {row.article_title for row in session.exec(select(HelpSection)).all() if row.internal}
    assert internal == {"Escalation runbook", "Beta features", "Partner pricing"}
    ctx = ToolContext(db=db, settings=settings)
    found = execute(REGISTRY, ctx, "search_help", {"query": "okta tenant merge staff console entity id", "limit": 5})
    hit = next(h for h in found.data if h["article"] == "Escalation runbook")
    assert hit["id"] == "escalation-runbook#1" and hit["internal"] is True
    assert "[escalation-runbook#1] Okta tenant merges — Escalation runbook\nINTERNAL" in found.text
    public = next(h for h in found.data if not h["internal"])
    head = public["heading"] if public["heading"] == public["article"] else f"{public['heading']} — {public['article']}"
    assert f"[{public['id']}] {head}\n" in found.text, "public hits unlabelled"
    assert f"[{public['id']}] {head}\nINTERNAL" not in found.text

    draft = "Hi Dana, tier two can reset it for you, see [escalation-runbook#1]."
    script = [respond(text("Looking."), use("search_help", query="okta tenant merge staff console")),
              respond(text("Drafting."), use("reply_to_customer", ticket_id="4821", message=draft)),
              lambda messages: respond(text("Refused: " + messages[-1]["content"][0]["content"]))]
    service = service_with(db, settings, ScriptedModel(script))
    run_id = service.start("handle #4821")
    assert service.resume(run_id).status == "completed"
    answer = run_row(db, run_id).answer or ""
    assert "escalation-runbook#1, which is internal" in answer and "Remove the citation" in answer, answer
    assert approvals_of(db, run_id) == [], "no person is asked to approve a reply that cites an internal section"
    desk = open_desk(settings, db)
    assert zd.articles[runbook]["html_url"] not in desk.customer_text(draft), "never linked for a customer"
    with pytest.raises(DeskRefused, match="internal"):
        desk.reply("4821", draft, run_id=None, tool_use_id=None)
    assert count(db, DeskWrite) == 0, "nothing queued for Zendesk"

    zd.restrict_article(runbook)  # made public in Zendesk: the next sync makes it citable
    synced(zdb)
    desk.check_reply("4821", draft)
    assert zd.articles[runbook]["html_url"] in desk.customer_text(draft)


def test_a_sync_killed_mid_page_resumes_without_fetching_a_finished_page_again(zdb, zd, monkeypatch):
    db, settings = zdb
    client = client_for(settings)
    real = sync.mirror.upsert_tickets
    calls = {"n": 0}

    def dies_on_the_third_page(*args, **kwargs):  # page 3's rows are written, then the process dies
        calls["n"] += 1
        written = real(*args, **kwargs)
        if calls["n"] == 3:
            raise SystemExit("killed")
        return written

    monkeypatch.setattr(sync.mirror, "upsert_tickets", dies_on_the_third_page)
    with pytest.raises(SystemExit):
        sync.sync(client, db, since_seconds=5 * YEAR, per_page=20)
    assert count(db, Ticket) == 40, "two whole pages stored, nothing of the third"
    first = export_cursors(zd)
    assert len(first) == 3
    monkeypatch.setattr(sync.mirror, "upsert_tickets", real)
    report = sync.sync(client, db, since_seconds=5 * YEAR, per_page=20)
    assert report.caught_up and count(db, Ticket) == 117
    again = export_cursors(zd)[3:]
    assert again[0] == first[2], "it starts at the page it had not finished"
    assert not set(again) & set(first[:2]), "no finished page is fetched again"
    with db.session() as session:
        assert session.get(DeskSync, "tickets").cursor


def test_changes_reach_the_mirror_and_deleted_tickets_leave_search(zdb, zd):
    db, settings = synced(zdb)
    ctx = ToolContext(db=db, settings=settings)
    requester = zd.user_by_email("dana.whitfield@example.com")
    new = zd.add_ticket("Okta certificate rotated, SSO login broken", "Since the Okta certificate rotation nobody can "
                        "log in with SSO, the sign-in page rejects us.", requester["id"], tags=("sso", "okta"))
    zd.delete_ticket(4823)
    report = sync.sync(client_for(settings), db, since_seconds=5 * YEAR)
    assert report.deleted == 1 and report.caught_up
    hits = execute(REGISTRY, ctx, "search_tickets", {"query": "okta certificate sso"}).data
    ids = [hit["id"] for hit in hits]
    assert str(new) in ids and "4823" not in ids
    gone = execute(REGISTRY, ctx, "get_ticket", {"ticket_id": "4823"})
    assert gone.is_error and "no ticket 4823" in gone.text


def test_get_ticket_reads_zendesk_live_and_says_so_when_it_cannot(zdb, zd):
    db, settings = synced(zdb)
    ctx = ToolContext(db=db, settings=settings)
    zd.add_comment(4821, "Update: we also can't reach the admin console.", author_id=zd.tickets[4821]["requester_id"])
    live = execute(REGISTRY, ctx, "get_ticket", {"ticket_id": "4821"})
    assert not live.is_error and live.data["conversation"][-1]["body"].startswith("Update: we also")
    assert live.data["link"] == f"{zd.url}/agent/tickets/4821" and live.data["customer"]["name"] == "Northwind Studio"
    zd.outage(True)
    down = execute(REGISTRY, ctx, "get_ticket", {"ticket_id": "4821"})
    zd.outage(False)
    assert down.is_error and "Zendesk" in down.text and "again" in down.text
    unknown = execute(REGISTRY, ctx, "get_ticket", {"ticket_id": "99999"})
    assert unknown.is_error and "99999" in unknown.text
    zd.restricted_brands.add(7)
    zd.update_ticket(4842, brand_id=7)
    other_brand = execute(REGISTRY, ctx, "get_ticket", {"ticket_id": "4842"})
    assert other_brand.is_error and "may not read ticket 4842" in other_brand.text
    assert execute(REGISTRY, ctx, "get_ticket", {"ticket_id": "KITE-142"}).is_error


# --- webhooks -----------------------------------------------------------------------------------------------

def signed(body: bytes, secret: str = SECRET, stamp: str | None = None) -> dict[str, str]:
    stamp = stamp or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"x-zendesk-webhook-signature": sign_webhook(secret, body, stamp),
            "x-zendesk-webhook-signature-timestamp": stamp, "x-zendesk-webhook-invocation-id": f"inv-{time.time_ns()}"}


def wait_for(check, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_a_signed_webhook_fetches_the_ticket_and_a_bad_one_changes_nothing(zdb, zd):
    db, settings = synced(zdb)
    requester = zd.user_by_email("dana.whitfield@example.com")
    new = zd.add_ticket("Webhook-born ticket about invoices", "Our invoice shows the wrong VAT.", requester["id"])
    body = json.dumps({"ticket_id": str(new), "status": "open"}).encode()

    forged = signed(body, secret="not-ours")
    assert desk_work.webhook(db, settings, forged, body)[0].startswith("401")
    stale = signed(body, stamp="2026-01-01T00:00:00Z")
    assert desk_work.webhook(db, settings, stale, body)[0].startswith("401")
    assert desk_work.webhook(db, settings, {}, body)[0].startswith("401")
    time.sleep(0.3)
    assert count(db, Ticket, col(Ticket.id) == str(new)) == 0, "a refused request changes nothing"

    headers = signed(body)
    status, answer = desk_work.webhook(db, settings, headers, body)
    assert status.startswith("202") and answer["tickets"] == [str(new)]
    assert wait_for(lambda: count(db, Ticket, col(Ticket.id) == str(new)) == 1)
    fetched = len(zd.requests_to("GET", f"/api/v2/tickets/{new}.json"))
    assert desk_work.webhook(db, settings, headers, body)[1].get("duplicate") is True, "a repeated delivery"
    time.sleep(0.3)
    assert len(zd.requests_to("GET", f"/api/v2/tickets/{new}.json")) == fetched, "…changes nothing twice"
    hits = execute(REGISTRY, ToolContext(db=db, settings=settings), "search_tickets", {"query": "invoice VAT webhook"})
    assert str(new) in [hit["id"] for hit in hits.data]


# --- writes ---------------------------------------------------------------------------------------------------

def test_fifty_replies_with_applied_but_500_answers_and_429s_are_fifty_comments(zdb, zd):
    db, settings = synced(zdb)
    desk = open_desk(settings, db)
    zd.fail_writes_after_applying(3)
    texts = [f"Reply number {i}: the bypass link is on its way." for i in range(50)]
    for i, text in enumerate(texts):
        receipt = desk.reply("4821" if i % 2 else "4842", text, run_id=1000 + i, tool_use_id=f"toolu_{i}")
        assert receipt.state == "queued"
    zd.ratelimit_requests(3, after=20, retry_after=1)  # mid-stream (a window in seconds raced the queueing)
    again = desk.reply("4842", texts[0], run_id=1000, tool_use_id="toolu_0")
    assert again.state == "duplicate", "the same tool call never queues a second reply"
    sender = desk_writes.DeskSender(db, client_for(settings))
    assert sender.drain(timeout=60)
    public = [c["body"] for t in (4821, 4842) for c in zd.comments_of(t) if c["body"].startswith("Reply number")]
    assert sorted(public) == sorted(texts), "each approved text exactly once"
    assert count(db, DeskWrite, col(DeskWrite.status) == "sent") == 50
    assert any(r["status"] == 500 for r in zd.requests_to("PUT", "/api/v2/tickets/"))
    assert any(r["status"] == 429 for r in zd.requests)


def test_a_write_cut_off_mid_request_is_looked_up_before_it_is_sent_again(zdb, zd):
    db, settings = synced(zdb)
    desk = open_desk(settings, db)
    zd.drop_connection_after_applying(1)
    desk.reply("4821", "Hello Dana, one reply only.", run_id=7, tool_use_id="toolu_once")
    sender = desk_writes.DeskSender(db, client_for(settings))
    sender.deliver_due()
    with db.session() as session:
        row = session.exec(select(DeskWrite)).one()
    assert row.status == "unknown"
    zd.drop_connection_after_applying(None)
    with db.session() as session:  # due now
        row.next_attempt_at = datetime.now(UTC)
        session.add(row)
    assert sender.drain(timeout=20)
    assert [c["body"] for c in zd.comments_of(4821)].count("Hello Dana, one reply only.") == 1


def test_a_closed_ticket_and_a_refused_token_are_sentences_and_the_text_is_kept(zdb, zd, database_url):
    db, settings = synced(zdb)
    zd.update_ticket(4842, status="closed")
    ctx = ToolContext(db=db, settings=settings)
    with pytest.raises(Exception, match="closed in Zendesk"):
        REGISTRY["reply_to_customer"].preflight(ctx, ticket_id="4842", message="hi")  # type: ignore[misc]

    with db.session() as session:
        session.add(Run(id=55, goal="handle 4821", ticket_id="4821", model="m", status="completed"))
    wrong = zendesk_settings(database_url, zd, zendesk_api_token="wrong-token")
    open_desk(settings, db).reply("4821", "Approved text that must not be lost.", run_id=55, tool_use_id="toolu_a")
    failed = []
    sender = desk_writes.DeskSender(db, desk_work_client(wrong), on_failed=lambda w, why: (
        failed.append(why), desk_work.write_failed(db, settings, w, why)))
    sender.deliver_due()
    with db.session() as session:
        row = session.exec(select(DeskWrite)).one()
        escalation = session.exec(select(Escalation).where(Escalation.run_id == 55)).one()
    assert row.status == "failed" and row.body == "Approved text that must not be lost."
    assert "ZENDESK_API_TOKEN" in failed[0] and "wrong-token" not in failed[0]
    assert "could not be written to Zendesk ticket 4821" in escalation.reason
    assert not any(c["body"].startswith("Approved text") for c in zd.comments_of(4821))
    assert desk_writes.retry_failed(db) == 1
    assert desk_writes.DeskSender(db, client_for(settings)).drain(timeout=20)
    assert [c["body"] for c in zd.comments_of(4821)].count("Approved text that must not be lost.") == 1


def desk_work_client(settings: Settings):  # type: ignore[no-untyped-def]
    from bot.desk.zendesk.client import ZendeskClient

    return ZendeskClient(settings.zendesk_url or "", email=settings.zendesk_email,
                         token=settings.zendesk_api_token.get_secret_value() if settings.zendesk_api_token else None)


def test_ticket_ids_as_people_give_them():
    from bot.desk.ids import normalise_ticket_id, ticket_ids_in

    for text in ("handle 4821", "handle #4821, and tell me who else", "handle ticket 4821",
                 "handle https://acme.zendesk.com/agent/tickets/4821 please"):
        assert ticket_ids_in(text, "zendesk") == ["4821"], text
    assert ticket_ids_in("the 3 customers from 2 days ago", "zendesk") == []
    assert normalise_ticket_id(" #4821 ", "zendesk") == "4821" and normalise_ticket_id("KITE-142", "zendesk") is None
    assert ticket_ids_in("handle KITE-142") == ["KITE-142"]


# --- the whole flow from the command line ---------------------------------------------------------------------

def test_desk_sync_then_handle_4821_leaves_one_reply_and_one_note(zd, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "ANTHROPIC", "ZENDESK_"))}
    env.update(KITEBASE_DESK="zendesk", ZENDESK_URL=zd.url, ZENDESK_EMAIL="bot@kitebase.example",
               ZENDESK_API_TOKEN="zd-test-token", ZENDESK_SYNC_SINCE="1000d",
               DATABASE_URL=f"sqlite:///{tmp_path / 'k.db'}", KITEBASE_HELP_CENTER_URL="")

    def kitebase(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "bot.cli", *args], env=env, cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)

    first = kitebase("desk", "sync")
    assert first.returncode == 0 and "117 ticket(s) mirrored" in first.stdout and "caught up" in first.stdout
    before = len(zd.comments_of(4821))
    run = kitebase("run", "handle 4821, and tell me if other customers have hit the same problem", "--approve", "auto")
    assert run.returncode == 0, run.stderr
    assert "4823 Harbor Pine" in run.stdout and "4842 Tidewater Analytics" in run.stdout
    assert "Zendesk ticket 4821: public reply posted" in run.stdout
    added = zd.comments_of(4821)[before:]
    assert [c["public"] for c in added] == [True, False], "one public comment, one private note"
    reply = added[0]["body"]
    assert "[account-recovery#2]" not in reply and "/hc/en-us/articles/" in reply and "#locked-out" in reply
    status = kitebase("desk", "status", "--json")
    assert json.loads(status.stdout)["writes"] == {"sent": 2}
    unknown = kitebase("run", "handle 99999", "--approve", "auto")
    assert unknown.returncode != 0 and "no ticket 99999" in unknown.stderr + unknown.stdout
    wrong = kitebase("desk", "sync")
    assert wrong.returncode == 0
    env["ZENDESK_API_TOKEN"] = "wrong"
    refused = kitebase("desk", "sync")
    assert refused.returncode != 0 and "ZENDESK_API_TOKEN" in refused.stderr and "wrong" not in refused.stderr
    assert "Traceback" not in refused.stderr


# --- the same from Slack ----------------------------------------------------------------------------------------

def test_a_mention_in_slack_shows_requester_and_organization_and_approve_posts_one_comment(zdb, zd):
    from standins.slack_harness import start_harness

    db, settings = synced(zdb)
    harness, stop = start_harness(settings, db)
    try:
        before = len(zd.comments_of(4821))
        ts, (status, _) = harness.send.mention("handle #4821, and tell me if other customers have hit the same problem")
        assert status == 200
        harness.drain()
        card = harness.approval_card()
        shown = json.dumps(card["call"]["blocks"])
        assert "Northwind Studio" in shown and "Requester:* Dana Whitfield" in shown
        assert f"<{zd.url}/agent/tickets/4821|4821>" in shown, "the card links the ticket in Zendesk"
        assert len(zd.comments_of(4821)) == before, "nothing reaches Zendesk before the click"
        for _ in range(2):  # a double click
            assert harness.send.click("approve_reply", card["value"], message_ts=card["ts"])[0] == 200
        harness.drain()
        assert desk_writes.DeskSender(db, client_for(settings)).drain(timeout=30)
        added = zd.comments_of(4821)[before:]
        assert [c["public"] for c in added].count(True) == 1, "one public comment"
        assert "[account-recovery#2]" not in added[0]["body"] and "/hc/en-us/articles/" in added[0]["body"]
        closed = harness.send.mention("handle 4818")  # solved or closed in Zendesk: a sentence, no run
        harness.drain()
        assert closed[1][0] == 200
        said = [c.get("text") or "" for c in harness.slack.calls_to("chat.postMessage")]
        assert any("solved or closed in Zendesk" in text for text in said), said[-3:]
    finally:
        stop()


def test_a_draft_quoting_a_private_comment_is_flagged_on_the_slack_card(zdb, zd):
    """Zendesk's private comment on 4821 (read live by get_ticket) copied into the draft: the card flags it with
    the words, and approving it is still the lead's call."""
    from standins.slack_harness import start_harness
    from tests.scripted import ScriptedModel, respond, text, use

    db, settings = synced(zdb)
    note = next(c for c in zd.comments_of(4821) if not c["public"])
    assert note["body"].startswith("SSO log since 07:12 UTC"), "kb_data's internal note, a private comment here"
    draft = ("Hi Dana, our log shows your stored IdP entity ID is still the old tenant's, so they're rejected and "
             "you are bounced back. [account-recovery#2]")
    model = ScriptedModel([respond(text("Reading."), use("get_ticket", ticket_id="#4821")),
                           respond(text("Drafting."), use("reply_to_customer", ticket_id="4821", message=draft)),
                           respond(text("Done."))])
    harness, stop = start_harness(settings, db, model_factory=lambda: model)
    try:
        before = len(zd.comments_of(4821))
        harness.send.mention("handle #4821")
        harness.drain()
        shown = json.dumps(harness.approval_card()["call"]["blocks"], ensure_ascii=False)
        assert "Quotes internal text" in shown and "an internal note by Priya Raman on 4821" in shown
        assert "“stored IdP entity ID is still the old tenant's, so they're rejected and”" in shown
        assert len(zd.comments_of(4821)) == before, "nothing reaches Zendesk before the click"
    finally:
        stop()


def test_a_ticket_the_mirror_has_not_seen_yet_is_read_from_zendesk_when_a_run_starts(zdb, zd):
    from bot.runs import BadInput
    from bot.runs.lifecycle.service import RunService

    db, settings = synced(zdb)
    requester = zd.user_by_email("dana.whitfield@example.com")
    new = zd.add_ticket("Created a moment ago", "Our SSO broke again.", requester["id"])
    service = RunService(db, settings)
    run_id = service.start(f"handle #{new}")
    with db.session() as session:
        assert session.get(Run, run_id).ticket_id == str(new)
    with pytest.raises(BadInput, match="Zendesk has no ticket 99999"):
        service.start("handle 99999")
    with pytest.raises(BadInput, match="solved or closed in Zendesk"):
        service.start("handle 4818")


def test_an_oauth_token_works_instead_of_email_and_api_token():
    from bot.desk.zendesk.client import AuthFailed, ZendeskClient

    with ZendeskServer(oauth_token="oauth-test-token") as server:
        me = ZendeskClient(server.url, oauth_token="oauth-test-token").get("/api/v2/users/me.json")["user"]
        assert me["email"] == "bot@kitebase.example"
        with pytest.raises(AuthFailed, match="ZENDESK_OAUTH_TOKEN"):
            ZendeskClient(server.url, oauth_token="not-it").get("/api/v2/users/me.json")
        assert all(r["headers"].get("authorization") == "<redacted>" for r in server.requests)
