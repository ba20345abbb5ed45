"""One fix for many, the links: a problem ticket and its incidents. On the embedded desk our own columns; on
Zendesk `type` and `problem_id` through the exactly-once desk writes, against the stand-in; get_ticket shows the
link both ways and search_tickets lists a problem's incidents. On SQLite and PostgreSQL."""

from __future__ import annotations

import json

import pytest

from bot.db.models import Ticket
from bot.desk import DeskError, NoSuchTicket, open_desk
from bot.desk.zendesk import sync
from bot.desk.zendesk import writes as desk_writes
from bot.desk.zendesk.desk import client_for
from standins.zendesk_server import ZendeskServer
from tests import test_desk_zendesk as zendesk_tests
from tests.test_desk_writes import make_due, rows, sender
from tests.test_desk_zendesk import synced
from tools import REGISTRY, ToolContext, execute

zd, zdb = zendesk_tests.zd, zendesk_tests.zdb  # the stand-in loaded with kb_data, and an empty database for it
PROBLEM, ONE, TWO = "KITE-131", "KITE-135", "KITE-136"


def call(ctx: ToolContext, name: str, **arguments: object):  # type: ignore[no-untyped-def]
    return execute(REGISTRY, ctx, name, arguments)


def ticket_row(db, ticket_id: str) -> Ticket:  # type: ignore[no-untyped-def]
    with db.session() as session:
        row = session.get(Ticket, ticket_id)
        assert row is not None
        session.expunge(row)
        return row


# --- the embedded desk ------------------------------------------------------------------------------------------

def test_embedded_link_shows_both_ways_and_search_lists_the_incidents(db, settings):
    desk = open_desk(settings, db)
    receipt = desk.link_incidents(PROBLEM, [ONE, "kite-136"], run_id=None, key=None)
    assert receipt.state == "sent" and receipt.detail["incident_ids"] == [ONE, TWO]
    assert ticket_row(db, PROBLEM).type == "problem"
    assert (ticket_row(db, ONE).type, ticket_row(db, ONE).problem_id) == ("incident", PROBLEM)

    ctx = ToolContext(db=db, settings=settings)
    incident = json.loads(call(ctx, "get_ticket", ticket_id=ONE).text)
    assert incident["type"] == "incident"
    assert incident["incident_of"] == f"{PROBLEM} (CSV export of 'Matters 2026' fails with error code 500)"
    problem = json.loads(call(ctx, "get_ticket", ticket_id=PROBLEM).text)
    assert problem["type"] == "problem" and "incident_of" not in problem
    assert problem["incidents"] == [{"id": ONE, "customer": "Quarry Lane Health", "status": "open"},
                                    {"id": TWO, "customer": "Maple & Finch", "status": "open"}]
    plain = json.loads(call(ctx, "get_ticket", ticket_id="KITE-142").text)
    assert not {"type", "incident_of", "incidents"} & set(plain), "an unlinked ticket says nothing of links"

    listed = call(ctx, "search_tickets", incidents_of=PROBLEM)
    assert not listed.is_error and [t["id"] for t in listed.data] == [ONE, TWO]
    assert listed.data[0]["customer"] == "Quarry Lane Health" and listed.data[0]["title"]
    one = call(ctx, "search_tickets", incidents_of=PROBLEM, limit=1)
    assert one.text.startswith(f"1 of the 2 incidents of {PROBLEM}") and len(one.data) == 1
    none = call(ctx, "search_tickets", incidents_of=PROBLEM, status="pending")
    assert none.text == f"Problem {PROBLEM} has no pending incidents." and none.data == []


def test_embedded_linking_twice_changes_nothing(db, settings):
    desk = open_desk(settings, db)
    first = desk.link_incidents(PROBLEM, [ONE], run_id=3, key="approval-1")
    assert first.detail["changes"] == [f"{PROBLEM} is a problem", f"{ONE} is an incident of {PROBLEM}"]
    before = (ticket_row(db, PROBLEM), ticket_row(db, ONE))
    again = desk.link_incidents(PROBLEM, [ONE], run_id=3, key="approval-1")
    assert again.detail["changes"] == []
    after = (ticket_row(db, PROBLEM), ticket_row(db, ONE))
    assert [(r.type, r.problem_id, r.updated_at) for r in after] == [(r.type, r.problem_id, r.updated_at)
                                                                     for r in before]
    more = desk.link_incidents(PROBLEM, [ONE, TWO], run_id=3, key="approval-2")
    assert more.detail["changes"] == [f"{TWO} is an incident of {PROBLEM}"]
    moved = desk.link_incidents("KITE-140", [TWO], run_id=3, key="approval-3")
    assert moved.detail["changes"] == ["KITE-140 is a problem", f"{TWO} is an incident of KITE-140 (was of {PROBLEM})"]
    assert [i["id"] for i in desk.incidents(PROBLEM)] == [ONE]


def test_embedded_bad_links_are_sentences_and_nothing_is_half_written(db, settings):
    desk = open_desk(settings, db)
    ctx = ToolContext(db=db, settings=settings)
    with pytest.raises(NoSuchTicket, match="No ticket 'KITE-999'"):
        desk.link_incidents(PROBLEM, [ONE, "KITE-999"], run_id=None, key=None)
    assert ticket_row(db, PROBLEM).type is None and ticket_row(db, ONE).problem_id is None, "nothing written"

    desk.link_incidents(PROBLEM, [ONE], run_id=None, key=None)
    with pytest.raises(DeskError, match=f"{ONE} is itself an incident of {PROBLEM}: link the tickets to {PROBLEM}"):
        desk.link_incidents(ONE, [TWO], run_id=None, key=None)
    with pytest.raises(DeskError, match=f"{PROBLEM} is a problem with 1 incident"):
        desk.link_incidents(TWO, [PROBLEM], run_id=None, key=None)
    with pytest.raises(DeskError, match="cannot be an incident of itself"):
        desk.link_incidents(PROBLEM, [PROBLEM], run_id=None, key=None)
    assert ticket_row(db, TWO).type is None and ticket_row(db, PROBLEM).problem_id is None

    not_problem = call(ctx, "search_tickets", incidents_of=TWO)
    assert not_problem.is_error and f"Ticket {TWO} is not a problem ticket" in not_problem.text
    of_an_incident = call(ctx, "search_tickets", incidents_of=ONE)
    assert of_an_incident.is_error and f"It is an incident of {PROBLEM}" in of_an_incident.text
    unknown = call(ctx, "search_tickets", incidents_of="KITE-999")
    assert unknown.is_error and "No ticket 'KITE-999'" in unknown.text


# --- Zendesk ------------------------------------------------------------------------------------------------------

def zid(zd: ZendeskServer, title: str) -> int:
    return next(t["id"] for t in zd.tickets.values() if t["subject"].startswith(title))


def three(zd: ZendeskServer) -> tuple[int, int, int]:
    return (zid(zd, "CSV export of 'Matters 2026'"), zid(zd, "Need full audit log export"),
            zid(zd, "Mobile app keeps saying"))


def test_zendesk_links_go_out_once_and_show_both_ways(zdb, zd):
    db, settings = synced(zdb)
    problem, one, two = three(zd)
    desk = open_desk(settings, db)
    receipt = desk.link_incidents(str(problem), [str(one), str(two)], run_id=7, key="approval-3")
    assert receipt.state == "queued" and len(receipt.detail["write_ids"]) == 3
    replayed = desk.link_incidents(str(problem), [str(one), str(two)], run_id=7, key="approval-3")
    assert replayed.state == "duplicate" and replayed.detail["write_ids"] == receipt.detail["write_ids"]
    assert not zd.requests_to("PUT", "/api/v2/tickets/"), "recorded, not sent: the sender sends"

    zd.fail_writes_after_applying(1)  # the first PUT is applied and answered 500: its outcome is unknown
    first = sender(db, settings)
    assert first.deliver_due() >= 1
    zd.clear_faults()
    make_due(db)
    assert first.drain(timeout=20) and sender(db, settings).drain(timeout=5), "a second sender finds nothing"
    assert [r.status for r in rows(db)] == ["sent", "sent", "sent"]
    puts = [int(r["path"].split("/")[4].split(".")[0]) for r in zd.requests_to("PUT", "/api/v2/tickets/")]
    assert puts == [problem, one, two], "the problem first, each ticket once (the unknown one was looked up)"

    live = zd.tickets
    assert (live[problem]["type"], live[problem]["has_incidents"]) == ("problem", True)
    assert [(live[t]["type"], live[t]["problem_id"]) for t in (one, two)] == [("incident", problem)] * 2
    listed = client_for(settings).get(f"/api/v2/tickets/{problem}/incidents.json")["tickets"]
    assert sorted(t["id"] for t in listed) == [one, two]

    ctx = ToolContext(db=db, settings=settings)
    incident = json.loads(call(ctx, "get_ticket", ticket_id=str(one)).text)
    assert incident["incident_of"] == f"{problem} (CSV export of 'Matters 2026' fails with error code 500)"
    assert [t["id"] for t in call(ctx, "search_tickets", incidents_of=str(problem)).data] == [str(one)], \
        "the mirror as read so far"
    shown = json.loads(call(ctx, "get_ticket", ticket_id=str(problem)).text)  # a problem: its incidents live
    assert shown["type"] == "problem" and shown["incidents"] == [
        {"id": str(one), "customer": "Quarry Lane Health", "status": "open"},
        {"id": str(two), "customer": "Maple & Finch", "status": "open"}]
    assert [t["id"] for t in call(ctx, "search_tickets", incidents_of=str(problem)).data] == [str(one), str(two)]

    desk.link_incidents(str(problem), [str(one)], run_id=7, key="approval-4")  # linked already: nothing to PUT
    assert sender(db, settings).drain(timeout=10)
    assert len(zd.requests_to("PUT", "/api/v2/tickets/")) == 3


def test_a_link_made_in_zendesk_shows_after_the_sync(zdb, zd):
    db, settings = synced(zdb)
    problem, one, _ = three(zd)
    zd.update_ticket(problem, type="problem")
    zd.update_ticket(one, type="incident", problem_id=problem)
    sync.sync(client_for(settings), db, since_seconds=settings.zendesk_sync_since_seconds)
    assert (ticket_row(db, str(one)).type, ticket_row(db, str(one)).problem_id) == ("incident", str(problem))
    ctx = ToolContext(db=db, settings=settings)
    assert [t["id"] for t in call(ctx, "search_tickets", incidents_of=str(problem)).data] == [str(one)]
    zd.update_ticket(one, type="question")  # no longer an incident: Zendesk drops its problem
    sync.sync(client_for(settings), db, since_seconds=settings.zendesk_sync_since_seconds)
    assert ticket_row(db, str(one)).problem_id is None


def test_zendesk_bad_links_are_sentences_and_nothing_is_recorded(zdb, zd):
    db, settings = synced(zdb)
    problem, one, two = three(zd)
    zd.update_ticket(problem, type="problem")
    zd.update_ticket(one, type="incident", problem_id=problem)
    desk = open_desk(settings, db)
    with pytest.raises(DeskError, match=f"{one} is itself an incident of {problem}"):
        desk.link_incidents(str(one), [str(two)], run_id=1, key="a")
    with pytest.raises(NoSuchTicket, match="Zendesk has no ticket 999999"):
        desk.link_incidents(str(problem), [str(two), "999999"], run_id=1, key="b")
    zd.update_ticket(two, status="closed")
    with pytest.raises(DeskError, match=f"{two} are closed in Zendesk"):
        desk.link_incidents(str(problem), [str(two)], run_id=1, key="c")
    assert rows(db) == [] and not zd.requests_to("PUT", "/api/v2/tickets/")


def test_an_incident_whose_problem_is_not_a_problem_is_not_written(zdb, zd):
    """Zendesk refuses a problem_id that names no problem: the sender checks first, and the write fails with a
    sentence, the incident untouched (a person changed the problem's type, or its own write failed)."""
    db, settings = synced(zdb)
    problem, one, _ = three(zd)
    with db.session() as session:
        desk_writes.record(session, ticket_id=str(one), kind="link", body=None, public=False,
                           fields={"type": "incident", "problem_id": problem}, run_id=1, tool_use_id="t1")
    assert sender(db, settings).drain(timeout=10)
    [row] = rows(db)
    assert row.status == "failed" and f"Ticket {problem} is not a problem ticket in Zendesk" in (row.last_error or "")
    assert not zd.requests_to("PUT", f"/api/v2/tickets/{one}") and zd.tickets[one]["type"] is None


def test_the_stand_in_checks_problem_id_as_zendesk_documents(zd):
    problem, one, two = three(zd)
    client = client_for_stand_in(zd)
    with pytest.raises(DeskError, match="422"):  # not a problem yet
        client.put(f"/api/v2/tickets/{one}.json", {"ticket": {"type": "incident", "problem_id": problem}})
    client.put(f"/api/v2/tickets/{problem}.json", {"ticket": {"type": "problem"}})
    with pytest.raises(DeskError, match="422"):  # problem_id only on an incident
        client.put(f"/api/v2/tickets/{one}.json", {"ticket": {"type": "question", "problem_id": problem}})
    with pytest.raises(DeskError, match="422"):
        client.put(f"/api/v2/tickets/{one}.json", {"ticket": {"type": "bug"}})
    assert zd.tickets[one]["type"] is None and zd.tickets[problem]["has_incidents"] is False
    client.put(f"/api/v2/tickets/{one}.json", {"ticket": {"type": "incident", "problem_id": problem}})
    assert zd.tickets[problem]["has_incidents"] is True
    assert [t["id"] for t in client.get(f"/api/v2/tickets/{problem}/incidents.json")["tickets"]] == [one]
    assert client.get(f"/api/v2/tickets/{two}/incidents.json")["tickets"] == []


def client_for_stand_in(zd: ZendeskServer):  # type: ignore[no-untyped-def]
    from bot.desk.zendesk.client import ZendeskClient

    return ZendeskClient(zd.url, email="bot@kitebase.example", token="zd-test-token")
