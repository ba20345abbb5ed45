"""What real Zendesk payloads carry, kept by the mirror and the live ticket read: an article without <h2> and the
text before the first one, comments' attachments, comment authors left out of the side-loads, a null priority,
and requesters or organizations that are missing or deleted. Each body is shaped as Zendesk documents it and as
recorded from live accounts:

- the "Welcome to your Help Center!" article with body `<p>this is the first article</p>` (Zendesk's Web Widget
  test fixtures) and an article whose body is bare text, `This is a test` (cloudbees-oss/zendesk-java-client,
  ArticleTest);
- a comment's attachment object and a ticket with `"priority": null` (facetoe/zenpy's betamax recording
  TestAttachmentUpload.test_redact_attachment: POST /api/v2/tickets.json and GET .../comments.json).

The real HTTP client against the stand-in (standins/zendesk_server.py), a real database, our search."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlmodel import col, select

from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.models import Customer, HelpSection, Ticket, TicketMessage
from bot.db.seed import parse_article
from bot.desk import open_desk
from bot.desk.zendesk import sync
from bot.desk.zendesk.desk import client_for
from standins.zendesk_server import ZendeskServer
from tests.test_desk_zendesk import KB_DATA, YEAR, zendesk_settings
from tools import REGISTRY, ToolContext, execute

WELCOME = ("Welcome to your Help Center!", "<p>this is the first article</p>")
BARE = ("How can agents leverage knowledge to help customers?", "This is a test")


@pytest.fixture
def zd() -> Iterator[ZendeskServer]:
    with ZendeskServer(export_delay=0) as server:
        server.load_kb_data(KB_DATA)
        yield server


@pytest.fixture
def zdb(database_url: str, zd: ZendeskServer) -> Iterator[tuple[Database, Settings]]:
    settings = zendesk_settings(database_url, zd)
    database = Database.from_url(database_url)
    create_schema(database.engine)
    yield database, settings
    database.engine.dispose()


def synced(zdb: tuple[Database, Settings]) -> tuple[Database, Settings]:
    db, settings = zdb
    assert sync.sync(client_for(settings), db, since_seconds=5 * YEAR).caught_up
    return db, settings


def get_ticket(db: Database, settings: Settings, ticket_id: int | str) -> dict[str, Any]:
    result = execute(REGISTRY, ToolContext(db=db, settings=settings), "get_ticket", {"ticket_id": str(ticket_id)})
    assert not result.is_error, result.text
    return dict(result.data)


def messages(db: Database, ticket_id: int | str) -> list[TicketMessage]:
    with db.session() as session:
        return list(session.exec(select(TicketMessage).where(TicketMessage.ticket_id == str(ticket_id))
                                 .order_by(col(TicketMessage.created_at), col(TicketMessage.id))).all())


# --- articles ---------------------------------------------------------------------------------------------------

def test_an_article_without_h2_is_a_citable_section_and_the_text_before_the_first_h2_is_kept(zdb, zd):
    welcome = zd.add_article(*WELCOME)
    bare = zd.add_article(*BARE)
    db, settings = synced(zdb)
    with db.session() as session:
        rows = {row.id: row for row in session.exec(select(HelpSection)).all()}
    intro = rows["welcome-to-your-help-center#0"]
    assert (intro.heading, intro.body, intro.number) == ("Welcome to your Help Center!", "this is the first article", 0)
    assert intro.url == zd.articles[welcome]["html_url"], "the article's own link: there is no heading to point at"
    assert rows["how-can-agents-leverage-knowledge-to-help-customers#0"].body == "This is a test"
    assert zd.articles[bare]["body"] == "This is a test"
    assert rows["account-recovery#0"].body.startswith("Can't get into Kitebase?"), "an intro is kept"
    embedded = {s.id for md in (KB_DATA / "help").glob("*.md") for s in parse_article(md.stem, md.read_text())}
    assert {key for key in rows if not key.endswith("#0")} == embedded, "slug#N from the first <h2> as before"

    ctx = ToolContext(db=db, settings=settings)
    found = execute(REGISTRY, ctx, "search_help", {"query": "first article"}).data
    assert found[0]["id"] == "welcome-to-your-help-center#0"
    assert execute(REGISTRY, ctx, "search_help", {"query": "locked out sso"}).data[0]["id"] == "account-recovery#2"
    text = open_desk(settings, db).customer_text("Start with [welcome-to-your-help-center#0].")
    assert text == f"Start with {zd.articles[welcome]['html_url']}."


# --- comments ---------------------------------------------------------------------------------------------------

def test_attachments_are_kept_as_names_types_sizes_and_links_and_never_fetched(zdb, zd):
    db, settings = synced(zdb)
    dana = zd.tickets[4821]["requester_id"]
    zd.add_comment(4821, "Here is the SAML trace, and a screenshot pasted below.", author_id=dana, attachments=[
        {"file_name": "saml-trace.log", "content_type": "text/plain", "size": 15156},
        {"file_name": "image.png", "content_type": "image/png", "size": 48213, "inline": True}])
    urls = [a["content_url"] for a in zd.comments_of(4821)[-1]["attachments"]]
    assert sync.sync(client_for(settings), db, since_seconds=5 * YEAR).caught_up
    expected = [{"name": "saml-trace.log", "type": "text/plain", "size": 15156, "url": urls[0], "inline": False},
                {"name": "image.png", "type": "image/png", "size": 48213, "url": urls[1], "inline": True}]
    stored = messages(db, 4821)
    assert [(a["name"], a["content_type"], a["size"], a["url"], a["inline"]) for a in stored[-1].attachments or []] \
        == [tuple(e.values()) for e in expected], "the mirror keeps them (inline images too)"
    assert not stored[0].attachments

    last = get_ticket(db, settings, 4821)["conversation"][-1]
    assert last["attachments"] == expected
    assert last["body"].startswith("Here is the SAML trace")
    assert "attachments" not in get_ticket(db, settings, 4821)["conversation"][0], "none listed when there are none"
    assert zd.requests_to("GET", "/attachments/") == [], "no file is ever fetched"


def test_an_author_left_out_of_the_side_loads_is_looked_up_in_one_batch_and_labelled_by_role(zdb, zd):
    db, settings = synced(zdb)
    agents = [zd.add_user(f"Agent {n}", f"agent{n}@kitebase.example", role="agent") for n in range(3)]
    for ticket, agent in zip((4821, 4823, 4842), agents, strict=True):
        zd.add_comment(ticket, "Public reply: we have reset your SSO session.", author_id=agent)
    zd.unsideloaded_users.update(agents)
    before = len(zd.requests_to("GET", "/api/v2/users/show_many"))
    assert sync.sync(client_for(settings), db, since_seconds=5 * YEAR).caught_up
    lookups = zd.requests_to("GET", "/api/v2/users/show_many")[before:]
    assert len(lookups) == 1 and set(agents) <= {int(i) for i in lookups[0]["query"]["ids"].split(",")}
    for ticket, n in ((4821, 0), (4823, 1), (4842, 2)):
        last = messages(db, ticket)[-1]
        assert (last.author, last.role) == (f"Agent {n}", "staff"), "an agent's reply is not the customer's words"
    live = get_ticket(db, settings, 4823)["conversation"][-1]
    assert (live["author"], live["role"]) == ("Agent 1", "staff")


def test_an_author_zendesk_cannot_name_is_unknown_never_the_customer(zdb, zd):
    db, settings = synced(zdb)
    gone, hidden = (zd.add_user(f"Agent {n}", f"agent{n}@kitebase.example", role="agent") for n in "ab")
    zd.add_comment(4821, "Reply from an agent since deleted.", author_id=gone)
    zd.add_comment(4842, "Reply from an agent the side-loads leave out.", author_id=hidden)
    zd.delete_user(gone)
    zd.unsideloaded_users.add(hidden)
    assert sync.sync(client_for(settings), db, since_seconds=5 * YEAR).caught_up
    last = messages(db, 4821)[-1]
    assert last.role == "unknown" and str(gone) in last.author
    assert get_ticket(db, settings, 4821)["conversation"][-1]["role"] == "unknown"

    zd.fail_path("/api/v2/users/show_many")  # the lookup fails: the read still works
    data = get_ticket(db, settings, 4842)
    assert data["conversation"][-1]["role"] == "unknown" and str(hidden) in data["conversation"][-1]["author"]
    assert "Role 'unknown'" in data["note"]


# --- tickets ----------------------------------------------------------------------------------------------------

def test_a_null_priority_stays_unknown_in_the_mirror_get_ticket_and_search(zdb, zd):
    dana = zd.tickets[4821]["requester_id"]
    new = zd.add_ticket("Okta SAML assertion rejected after renewal", "Our SAML assertion is rejected since the "
                        "certificate renewal.", dana, priority=None)
    db, settings = synced(zdb)
    with db.session() as session:
        assert session.get(Ticket, str(new)).priority is None
        assert session.get(Ticket, "4821").priority == zd.tickets[4821]["priority"]
    assert get_ticket(db, settings, new)["priority"] is None
    hits = execute(REGISTRY, ToolContext(db=db, settings=settings), "search_tickets",
                   {"query": "saml assertion rejected renewal"}).data
    assert {hit["id"]: hit["priority"] for hit in hits}[str(new)] is None


def test_sync_fetches_requesters_and_organizations_the_export_left_out_in_batches(zdb, zd):
    db, settings = synced(zdb)
    made = []
    for n in range(3):
        org = zd.add_organization(f"Brightline Labs {n}", organization_fields={"plan": "Business"})
        sam = zd.add_user(f"Sam Ortiz {n}", f"sam{n}@brightline.example", organization_id=org)
        made.append((zd.add_ticket(f"Export of project {n} fails", "The CSV export stops halfway.", sam), org, sam))
        zd.unsideloaded_users.add(sam)
        zd.unsideloaded_organizations.add(org)
    users_before = len(zd.requests_to("GET", "/api/v2/users/show_many"))
    orgs_before = len(zd.requests_to("GET", "/api/v2/organizations/show_many"))
    assert sync.sync(client_for(settings), db, since_seconds=5 * YEAR).caught_up
    assert len(zd.requests_to("GET", "/api/v2/users/show_many")) - users_before == 1
    assert len(zd.requests_to("GET", "/api/v2/organizations/show_many")) - orgs_before == 1
    with db.session() as session:
        for n, (ticket, org, _) in enumerate(made):
            customer = session.get(Customer, f"zd-org-{org}")
            assert (customer.name, customer.plan, customer.contact_name) == (
                f"Brightline Labs {n}", "Business", f"Sam Ortiz {n}")
            assert session.get(Ticket, str(ticket)).requester == f"Sam Ortiz {n} <sam{n}@brightline.example>"


def test_a_deleted_requester_or_organization_is_a_sentence_and_the_run_can_still_reply(zdb, zd):
    db, settings = synced(zdb)
    requester, org = zd.tickets[4823]["requester_id"], zd.tickets[4842]["organization_id"]
    zd.delete_user(requester)
    zd.delete_organization(org)
    for ticket in (4823, 4842):
        zd.add_comment(ticket, "Any news?", author_id=zd.agent_id)
    assert sync.sync(client_for(settings), db, since_seconds=5 * YEAR).caught_up

    first = get_ticket(db, settings, 4823)
    assert first["customer"]["notice"].startswith(f"Zendesk could not find user {requester}, the ticket's requester")
    opening = first["conversation"][0]
    assert opening["role"] == "unknown" and opening["author"] == f"unknown user {requester} (the requester)"
    second = get_ticket(db, settings, 4842)
    assert f"could not find organization {org}" in second["customer"]["notice"]
    assert second["customer"]["name"], "the requester names the customer when the organization is gone"
    ctx = ToolContext(db=db, settings=settings)
    for ticket in ("4823", "4842"):
        REGISTRY["reply_to_customer"].preflight(ctx, ticket_id=ticket, message="Hello, an update.")  # type: ignore[misc]
    assert sync.refresh_tickets(client_for(settings), db, ["4842", "4823"]) == ["4842", "4823"]
