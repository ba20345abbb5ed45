"""What is due on a Zendesk ticket, and a customer's tier, as Zendesk has them: the stand-in serves each ticket's
`slas` side-load as Zendesk shows it (standins/zendesk_server.py), the sync, the webhook and the live read mirror
it into the ticket's row, and what the mirror stores is what a person is shown. The tier comes from the
organization field the configuration names (ZENDESK_TIER_FIELD, ZENDESK_TIERS); a value not listed gives none.

The real HTTP client against the stand-in, the real web side for webhooks (signed as Zendesk signs), a real
database (SQLite and PostgreSQL)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError
from sqlmodel import select

from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.models import Customer, Ticket
from bot.desk import sla
from bot.desk.mirror import mirrored_ticket
from bot.desk.zendesk import sync
from bot.desk.zendesk import tiers as zendesk_tiers
from bot.desk.zendesk.desk import ZendeskDesk, client_for
from bot.desk.zendesk.tiers import tiers_of
from bot.runs.execution import desk_work
from standins.zendesk_server import ZendeskServer
from tests.conftest import make_settings
from tests.helpers import wait_until
from tests.test_desk_zendesk import KB_DATA, YEAR, zendesk_settings
from tests.test_intake_zendesk import post_webhook

TICKET = 4821  # KITE-142: Northwind Studio (tier Business in kb_data)
TIERS = {"enterprise": "Enterprise", "business": "Business", "standard": "Standard"}


@pytest.fixture
def zd() -> Iterator[ZendeskServer]:
    with ZendeskServer(export_delay=0) as server:
        server.load_kb_data(KB_DATA)
        yield server


@pytest.fixture
def zdb(database_url: str, zd: ZendeskServer) -> Iterator[tuple[Database, Settings]]:
    settings = zendesk_settings(database_url, zd, zendesk_tier_field="support_plan", zendesk_tiers=TIERS)
    database = Database.from_url(database_url)
    create_schema(database.engine)
    yield database, settings
    database.engine.dispose()


def poll(zdb: tuple[Database, Settings]) -> None:
    """One pass of the poll, as the timer and `kitebase desk sync` run it."""
    db, settings = zdb
    report = desk_work.poll(db, settings)
    assert report is not None and report.caught_up


def row(db: Database, ticket_id: int | str) -> Ticket:
    with db.session() as session:
        found = session.get(Ticket, str(ticket_id))
        assert found is not None
        session.expunge(found)
        return found


def minute(delta: timedelta) -> datetime:
    """A breach time on a whole second (Zendesk's times have second precision)."""
    return (datetime.now(UTC) + delta).replace(microsecond=0)


def aware(value: datetime | None) -> datetime | None:
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


# --- the breach time ----------------------------------------------------------------------------------------------

def test_the_breach_time_zendesk_serves_is_what_the_mirror_stores_and_what_a_person_is_shown(zdb, zd):
    db, settings = zdb
    breach = minute(timedelta(minutes=14))
    zd.update_ticket(TICKET, priority="urgent")
    zd.set_sla(TICKET, "first_reply_time", stage="active", breach_at=breach.timestamp())
    zd.set_sla(TICKET, "periodic_update_time", stage="active", breach_at=(breach + timedelta(days=2)).timestamp())
    zd.set_sla(TICKET, "next_reply_time", stage="paused")
    body = client_for(settings).get(f"/api/v2/tickets/{TICKET}.json", {"include": "slas"})  # as Zendesk shows it
    metrics = {m["metric"]: m for m in body["ticket"]["slas"]["policy_metrics"]}
    assert metrics["first_reply_time"]["breach_at"] == breach.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert metrics["first_reply_time"]["stage"] == "active" and metrics["first_reply_time"].get("minutes") in (13, 14)
    assert metrics["next_reply_time"]["breach_at"] is None and metrics["next_reply_time"]["stage"] == "paused"

    poll(zdb)
    asked = [r for r in zd.requests_to("GET", "/api/v2/tickets/show_many") if r["query"].get("include") == "slas"]
    assert asked and any(str(TICKET) in r["query"]["ids"].split(",") for r in asked), \
        "the export carries no slas: the changed tickets are read again with show_many, include=slas"
    assert all(len(r["query"]["ids"].split(",")) <= 100 for r in asked)
    stored = row(db, TICKET)
    assert aware(stored.due_at) == breach, "the active target that breaches first, to the second"
    assert stored.sla == {"metric": "first_reply", "stage": "active", "breach_at": breach.isoformat(),
                          "target_minutes": None, "business_hours": False, "first_reply_due": breach.isoformat()}

    with db.session() as session:
        view = mirrored_ticket(session, str(TICKET))
    assert view.due is not None and view.due.breach_at == breach
    assert view.customer is not None and view.customer.tier == "Business"
    shown = sla.describe(view.due, breach - timedelta(minutes=14), tier=view.customer.tier, priority=view.priority)
    assert shown == "first reply due in 14 min · Business · urgent"
    assert sla.describe(view.due, breach + timedelta(minutes=6)) == "first reply breached 6 min ago"

    live = ZendeskDesk(db, settings).ticket(str(TICKET))  # a run's read: the same time, the same tier
    assert live.due == view.due and live.customer is not None and live.customer.tier == "Business"


def test_a_ticket_with_no_sla_has_nothing_due_and_a_solved_one_keeps_when_its_first_reply_was_due(zdb, zd):
    db, _ = zdb
    poll(zdb)
    assert row(db, TICKET).due_at is None and row(db, TICKET).sla is None, "no policy applies: nothing is due"

    breach = minute(timedelta(hours=2))
    zd.set_sla(TICKET, "first_reply_time", stage="active", breach_at=breach.timestamp())
    poll(zdb)
    assert aware(row(db, TICKET).due_at) == breach
    zd.clear_slas(TICKET)  # the policy no longer applies
    zd.update_ticket(TICKET, status="solved")
    poll(zdb)
    solved = row(db, TICKET)
    assert solved.due_at is None and solved.sla == {"first_reply_due": breach.isoformat()}, \
        "nothing due once solved; when the first reply was due stays for the figures"


# --- kept fresh: poll and webhook ---------------------------------------------------------------------------------

def test_an_sla_that_zendesk_pauses_then_marks_achieved_is_updated_by_the_next_poll(zdb, zd):
    db, _ = zdb
    breach = minute(timedelta(minutes=30))
    zd.set_sla(TICKET, "first_reply_time", stage="active", breach_at=breach.timestamp())
    poll(zdb)
    assert aware(row(db, TICKET).due_at) == breach

    zd.update_ticket(TICKET, status="pending")
    zd.set_sla(TICKET, "first_reply_time", stage="paused")  # Zendesk's engine, as the ticket waits
    poll(zdb)
    paused = row(db, TICKET)
    assert paused.due_at is None and paused.sla is not None and paused.sla["stage"] == "paused"
    with db.session() as session:
        assert sla.describe(mirrored_ticket(session, str(TICKET)).due, breach) == \
            "first reply paused while the customer answers"

    zd.set_sla(TICKET, "first_reply_time", stage="achieved", breach_at=breach.timestamp())  # a system update only
    poll(zdb)
    achieved = row(db, TICKET)
    assert achieved.due_at is None and achieved.sla is not None and achieved.sla["stage"] == "achieved"
    assert achieved.sla["first_reply_due"] == breach.isoformat()
    with db.session() as session:
        assert sla.describe(mirrored_ticket(session, str(TICKET)).due, breach) is None, "nothing to say"


def test_an_sla_that_zendesk_pauses_and_sets_again_is_updated_by_the_next_webhook(database_url, zd):
    from standins.slack_harness import start_harness

    settings = make_settings(database_url, desk="zendesk", zendesk_url=zd.url, zendesk_email="bot@kitebase.example",
                             zendesk_api_token="zd-test-token", zendesk_webhook_secret="whsec-test",
                             zendesk_sync_since_seconds=5 * YEAR)
    db = Database.from_url(database_url)
    create_schema(db.engine)
    first = minute(timedelta(minutes=20))
    zd.set_sla(TICKET, "first_reply_time", stage="active", breach_at=first.timestamp())
    assert sync.sync(client_for(settings), db, since_seconds=settings.zendesk_sync_since_seconds).caught_up
    assert aware(row(db, TICKET).due_at) == first
    harness, stop = start_harness(settings, db)
    try:
        zd.set_sla(TICKET, "first_reply_time", stage="paused")
        assert post_webhook(harness.url, TICKET, zd)[0] == 202
        wait_until(lambda: (row(db, TICKET).sla or {}).get("stage") == "paused", "the webhook to mirror the pause")
        assert row(db, TICKET).due_at is None

        later = minute(timedelta(minutes=45))  # the customer answered: the target runs again, later
        zd.set_sla(TICKET, "first_reply_time", stage="active", breach_at=later.timestamp())
        assert post_webhook(harness.url, TICKET, zd)[0] == 202
        wait_until(lambda: aware(row(db, TICKET).due_at) == later, "the webhook to mirror the new breach time")
        assert row(db, TICKET).sla == {"metric": "first_reply", "stage": "active", "breach_at": later.isoformat(),
                                       "target_minutes": None, "business_hours": False,
                                       "first_reply_due": later.isoformat()}
    finally:
        stop()
        db.engine.dispose()


# --- the tier ---------------------------------------------------------------------------------------------------

def test_the_tier_comes_from_the_configured_organization_field_and_an_unlisted_value_gives_none(zdb, zd):
    db, settings = zdb
    acme = zd.add_organization("Acme Robotics", organization_fields={"support_plan": "Enterprise "})
    odd = zd.add_organization("Odd Plan Co", organization_fields={"support_plan": "premium"})
    bare = zd.add_organization("No Field Inc", organization_fields={"support_plan": None})  # the field, empty
    tickets = {}
    for org, name in ((acme, "acme"), (odd, "odd"), (bare, "bare")):
        user = zd.add_user(f"{name} contact", f"contact@{name}.example", organization_id=org)
        tickets[org] = zd.add_ticket(f"{name}: export stuck", "The export never finishes.", user)
    loner = zd.add_user("No Org Person", "person@solo.example")
    solo = zd.add_ticket("solo: export stuck", "The export never finishes.", loner)
    poll(zdb)
    with db.session() as session:
        tiers = dict(session.exec(select(Customer.id, Customer.tier)).all())
    assert tiers[f"zd-org-{acme}"] == "Enterprise", "matched without case or spaces"
    assert tiers[f"zd-org-{odd}"] is None, "a value ZENDESK_TIERS does not list: no tier, never guessed"
    assert tiers[f"zd-org-{bare}"] is None
    assert tiers[f"zd-user-{loner}"] is None
    assert tiers[f"zd-org-{zd.tickets[TICKET]['organization_id']}"] == "Business", "kb_data's tiers as the field"
    assert ZendeskDesk(db, settings).ticket(str(solo)).customer.tier is None

    zd.update_organization(acme, organization_fields={"support_plan": "premium"})
    sync.refresh_tickets(client_for(settings), db, [str(tickets[acme])], tiers=tiers_of(settings))  # a webhook
    with db.session() as session:
        assert session.get(Customer, f"zd-org-{acme}").tier is None
    zd.update_organization(acme, organization_fields={"support_plan": "standard"})
    assert ZendeskDesk(db, settings).ticket(str(tickets[acme])).customer.tier == "Standard"
    zd.update_organization(odd, organization_fields={"support_plan": "business"})
    zd.update_ticket(tickets[odd], priority="high")
    poll(zdb)
    with db.session() as session:
        assert session.get(Customer, f"zd-org-{odd}").tier == "Business"


def test_a_tier_field_missing_from_organizations_keeps_the_stored_tiers_and_says_so_once(zdb, zd, caplog):
    """ZENDESK_TIER_FIELD names a key no organization has any more (an admin renamed or deleted the field): every
    customer keeps the tier stored, and the log says once per process what to set, however many are read."""
    db, settings = zdb
    poll(zdb)
    northwind = f"zd-org-{zd.tickets[TICKET]['organization_id']}"
    with db.session() as session:
        before = dict(session.exec(select(Customer.id, Customer.tier)).all())
    assert before[northwind] == "Business" and sum(t is not None for t in before.values()) > 1
    renamed = settings.model_copy(update={"zendesk_tier_field": "plan_level"})  # the key the config names is gone
    zendesk_tiers._warned.clear()  # once per process: this test counts from none
    caplog.set_level(logging.WARNING, logger="bot.desk.zendesk.tiers")
    for number in list(zd.tickets)[:3]:
        zd.update_ticket(number, priority="high")
    desk_work.poll(db, renamed)
    sync.refresh_tickets(client_for(renamed), db, [str(TICKET)], tiers=tiers_of(renamed))  # a webhook
    assert ZendeskDesk(db, renamed).ticket(str(TICKET)).customer.tier == "Business"  # a run's live read
    with db.session() as session:
        assert dict(session.exec(select(Customer.id, Customer.tier)).all()) == before, "no tier wiped"
    said = [r.getMessage() for r in caplog.records if r.name == "bot.desk.zendesk.tiers"]
    assert len(said) == 1 and "'plan_level'" in said[0] and "ZENDESK_TIER_FIELD" in said[0], said
    assert "keep the tier they had" in said[0] and "Set ZENDESK_TIER_FIELD" in said[0]


def test_without_tier_settings_no_tier_is_set_and_half_a_setting_is_refused(database_url, zd):
    db = Database.from_url(database_url)
    create_schema(db.engine)
    settings = zendesk_settings(database_url, zd)
    try:
        assert desk_work.poll(db, settings).caught_up
        with db.session() as session:
            assert set(session.exec(select(Customer.tier)).all()) == {None}, "not configured: no tier"
    finally:
        db.engine.dispose()
    with pytest.raises(ValidationError, match="ZENDESK_TIER_FIELD"):
        zendesk_settings(database_url, zd, zendesk_tier_field="support_plan")
    with pytest.raises(ValidationError, match="is not value=Tier"):
        Settings(ZENDESK_TIER_FIELD="support_plan", ZENDESK_TIERS="enterprise,business=Business")
    parsed = Settings(ZENDESK_TIER_FIELD="support_plan", ZENDESK_TIERS="enterprise=Enterprise, business = Business")
    assert parsed.zendesk_tiers == {"enterprise": "Enterprise", "business": "Business"}


def test_the_stand_in_serves_sla_policies_to_admins_as_documented(zd):
    from bot.desk.zendesk.client import Forbidden, ZendeskClient

    zd.add_sla_policy("Enterprise", [{"priority": "urgent", "metric": "first_reply_time", "target": 30,
                                      "business_hours": False}],
                      filter={"all": [{"field": "organization_id", "operator": "is", "value": 1}], "any": []})
    agent = ZendeskClient(zd.url, email=zd.email, token=zd.token)
    with pytest.raises(Forbidden):
        agent.get("/api/v2/slas/policies.json")
    zd.add_user("Admin", "admin@kitebase.example", role="admin")
    body = ZendeskClient(zd.url, email="admin@kitebase.example", token=zd.token).get("/api/v2/slas/policies.json")
    assert body["count"] == 1
    policy = body["sla_policies"][0]
    assert policy["policy_metrics"] == [{"priority": "urgent", "metric": "first_reply_time", "target": 30,
                                         "business_hours": False, "target_in_seconds": 1800}]
    assert policy["position"] == 1 and policy["filter"]["all"][0]["field"] == "organization_id"
    exported = ZendeskClient(zd.url, email=zd.email, token=zd.token).get(
        "/api/v2/incremental/tickets/cursor.json", {"start_time": 0, "include": "slas"})
    assert all("slas" not in t for t in exported["tickets"]), "the export does not side-load slas"
