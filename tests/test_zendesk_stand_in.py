"""Checks the local Zendesk stand-in (standins/zendesk_server.py) through real HTTP on loopback."""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from standins.zendesk_server import ZendeskServer, sign_webhook

KB_DATA = Path(__file__).resolve().parents[1] / "kb_data"
T0 = 1_795_000_000  # 2026-11-18T07:46:40Z


class Clock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def zd(clock: Clock) -> Iterator[ZendeskServer]:
    with ZendeskServer(export_delay=0, clock=clock) as server:
        yield server


_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only, whatever the env says


def basic(email: str = "bot@kitebase.example", token: str = "zd-test-token") -> str:
    return "Basic " + base64.b64encode(f"{email}/token:{token}".encode()).decode()


def call(zd: ZendeskServer | str, method: str, path: str, body: Any = None, *, auth: str | None = "default",
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
    """(status, lower-cased headers, parsed JSON or text). `path` may be an absolute URL (a link it answered)."""
    url = path if path.startswith("http") else f"{zd if isinstance(zd, str) else zd.url}{path}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if auth == "default":
        auth = basic()
    if auth:
        request.add_header("Authorization", auth)
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with _OPENER.open(request, timeout=5) as response:
            status, raw, got = response.status, response.read(), response.headers
    except urllib.error.HTTPError as exc:
        status, raw, got = exc.code, exc.read(), exc.headers
    lowered = {k.lower(): v for k, v in got.items()}
    parsed: Any = json.loads(raw) if lowered.get("content-type", "").startswith("application/json") else raw.decode()
    return status, lowered, parsed


def desk(zd: ZendeskServer, tickets: int = 5) -> list[int]:
    org = zd.add_organization("Northwind Studio", details="Plan: Business")
    dana = zd.add_user("Dana Whitfield", "dana@example.com", organization_id=org)
    return [zd.add_ticket(f"Problem {i}", f"Something broke ({i})", dana, created_at=T0 - 3600 + i)
            for i in range(1, tickets + 1)]


# --- auth, errors, headers -------------------------------------------------------------------------------------


def test_auth_accepted_and_refused(clock: Clock) -> None:
    with ZendeskServer(oauth_token="oauth-xyz", clock=clock) as zd:
        status, headers, body = call(zd, "GET", "/api/v2/users/me.json")
        assert status == 200 and body["user"]["email"] == "bot@kitebase.example"
        assert body["user"]["role"] == "agent" and body["user"]["id"] == zd.agent_id
        assert headers["x-rate-limit"] == "700" and headers["x-rate-limit-remaining"] == "699"
        assert call(zd, "GET", "/api/v2/users/me.json", auth="Bearer oauth-xyz")[0] == 200
        for bad in (basic(token="wrong"), basic(email="nobody@example.com"), "Bearer nope", None,
                    "Basic " + base64.b64encode(b"bot@kitebase.example:password").decode()):
            status, headers, body = call(zd, "GET", "/api/v2/users/me.json", auth=bad)
            assert (status, body) == (401, {"error": "Couldn't authenticate you"})
            assert "x-rate-limit" in headers
        assert zd.requests[0]["headers"]["authorization"] == "<redacted>"
        assert [r["status"] for r in zd.requests_to("GET", "/api/v2/users/me")] == [200, 200] + [401] * 5


def test_not_found_forbidden_and_show_many(zd: ZendeskServer) -> None:
    a, b, c = desk(zd, 3)
    zd.restricted_brands.add(7)
    zd.update_ticket(c, brand_id=7)
    status, _, body = call(zd, "GET", "/api/v2/tickets/999.json")
    assert (status, body) == (404, {"error": "RecordNotFound", "description": "Not found"})
    status, _, body = call(zd, "GET", f"/api/v2/tickets/{c}.json")
    assert status == 403 and body["error"] == "Forbidden" and body["description"].startswith("You do not have access")
    status, _, body = call(zd, "GET", f"/api/v2/tickets/show_many.json?ids={a},{b},{c},999")
    assert [t["id"] for t in body["tickets"]] == [a, b]
    ticket = call(zd, "GET", f"/api/v2/tickets/{a}.json")[2]["ticket"]
    assert ticket["url"] == f"{zd.url}/api/v2/tickets/{a}.json" and ticket["description"] == "Something broke (1)"
    assert "generated_timestamp" not in ticket
    users = call(zd, "GET", f"/api/v2/users/show_many.json?ids={ticket['requester_id']},{zd.agent_id}")[2]["users"]
    assert {u["name"] for u in users} == {"Dana Whitfield", "Kitebase Agent"}
    org = call(zd, "GET", f"/api/v2/organizations/{ticket['organization_id']}.json")[2]["organization"]
    assert org["name"] == "Northwind Studio"
    sideloaded = call(zd, "GET", f"/api/v2/tickets/{a}.json?include=users,organizations")[2]
    assert [u["name"] for u in sideloaded["users"]] == ["Dana Whitfield"]
    assert [o["id"] for o in sideloaded["organizations"]] == [org["id"]]


# --- the incremental export ------------------------------------------------------------------------------------


def export_page(zd: ZendeskServer, query: str) -> dict[str, Any]:
    status, _, body = call(zd, "GET", f"/api/v2/incremental/tickets/cursor.json?{query}")
    assert status == 200, body
    return body


def test_export_pages_resume_from_stored_cursor_and_later_changes(zd: ZendeskServer, clock: Clock) -> None:
    ids = desk(zd, 5)
    first = export_page(zd, "start_time=0&per_page=2")
    assert [t["id"] for t in first["tickets"]] == ids[:2] and first["end_of_stream"] is False
    assert set(first) >= {"tickets", "after_url", "after_cursor", "before_url", "before_cursor", "end_of_stream"}
    assert first["after_url"].startswith(zd.url + "/api/v2/incremental/tickets/cursor.json?")
    stored = first["after_cursor"]  # the client stores it, then is killed

    seen = [t["id"] for t in first["tickets"]]
    body = export_page(zd, f"cursor={stored}&per_page=2")  # a new process resumes from the stored cursor
    pages = 1
    while True:
        seen += [t["id"] for t in body["tickets"]]
        pages += 1
        if body["end_of_stream"]:
            break
        status, _, body = call(zd, "GET", body["after_url"])  # followed as answered (per_page kept)
    assert seen == ids and pages == 3  # no page twice, nothing missed
    final = body["after_cursor"]
    assert export_page(zd, f"cursor={stored}&per_page=2")["tickets"] == export_page(
        zd, f"cursor={stored}&per_page=2")["tickets"]  # a cursor is stable: the same page every time
    quiet = export_page(zd, f"cursor={final}")
    assert quiet["tickets"] == [] and quiet["end_of_stream"] is True and quiet["after_cursor"] == final

    before = zd.tickets[ids[0]]["updated_at"]
    zd.add_comment(ids[0], "one more thing", author_id=zd.tickets[ids[0]]["requester_id"])
    zd.add_comment(ids[0], "and another", author_id=zd.agent_id)  # same second: still a later stamp
    later = export_page(zd, f"cursor={final}")
    assert [t["id"] for t in later["tickets"]] == [ids[0]]  # once, with its newest state
    assert later["tickets"][0]["updated_at"] > before and later["end_of_stream"] is True
    assert later["tickets"][0]["generated_timestamp"] == zd.tickets[ids[0]]["generated_timestamp"]


def test_export_sideloads_and_bad_cursor(zd: ZendeskServer) -> None:
    desk(zd, 2)
    body = export_page(zd, "start_time=0&include=users,organizations")
    assert {u["name"] for u in body["users"]} == {"Dana Whitfield"}
    assert [o["name"] for o in body["organizations"]] == ["Northwind Studio"]
    status, _, err = call(zd, "GET", "/api/v2/incremental/tickets/cursor.json?cursor=not-a-cursor")
    assert status == 400 and "error" in err


def test_deleted_ticket_is_exported_as_deleted_and_gone_from_get(zd: ZendeskServer) -> None:
    ids = desk(zd, 3)
    cursor = export_page(zd, "start_time=0")["after_cursor"]
    zd.delete_ticket(ids[1])
    assert call(zd, "GET", f"/api/v2/tickets/{ids[1]}.json")[0] == 404
    assert call(zd, "GET", f"/api/v2/tickets/{ids[1]}/comments.json")[0] == 404
    assert ids[1] not in zd.tickets and zd.deleted_tickets[ids[1]]["status"] == "deleted"
    body = export_page(zd, f"cursor={cursor}")
    assert [(t["id"], t["status"]) for t in body["tickets"]] == [(ids[1], "deleted")]
    everything = export_page(zd, "start_time=0")
    assert [t["id"] for t in everything["tickets"]] == [ids[0], ids[2], ids[1]]  # by generated_timestamp
    assert [t["id"] for t in export_page(zd, "start_time=0&exclude_deleted=true")["tickets"]] == [ids[0], ids[2]]


def test_export_leaves_out_the_last_minute(clock: Clock) -> None:
    with ZendeskServer(clock=clock) as zd:  # export_delay=60, as Zendesk
        org = zd.add_organization("Acme")
        user = zd.add_user("Ann", "ann@example.com", organization_id=org)
        old = zd.add_ticket("old", "from an hour ago", user, created_at=T0 - 3600)
        new = zd.add_ticket("new", "from just now", user, created_at=T0 - 30)
        body = export_page(zd, f"start_time={T0 - 7200}")
        assert [t["id"] for t in body["tickets"]] == [old] and body["end_of_stream"] is True
        status, _, err = call(zd, "GET", f"/api/v2/incremental/tickets/cursor.json?start_time={T0 - 30}")
        assert status == 400 and err["error"] == "InvalidValue" and "start_time" in err["description"]
        clock.advance(60)
        assert [t["id"] for t in export_page(zd, f"cursor={body['after_cursor']}")["tickets"]] == [new]


def test_export_rate_limit(zd: ZendeskServer) -> None:
    desk(zd, 1)
    zd.export_per_minute = 2
    assert [call(zd, "GET", "/api/v2/incremental/tickets/cursor.json?start_time=0")[0] for _ in range(3)] == \
        [200, 200, 429]


# --- comments ---------------------------------------------------------------------------------------------------


def test_comments_cursor_and_offset_paging(zd: ZendeskServer) -> None:
    (tid,) = desk(zd, 1)
    agent = zd.agent_id
    zd.add_comment(tid, "third", author_id=agent, created_at=T0 - 100)
    zd.add_comment(tid, "second", author_id=agent, created_at=T0 - 200, public=False)
    zd.add_comment(tid, "fourth", author_id=agent, created_at=T0 - 50)
    zd.add_comment(tid, "fifth", author_id=agent, created_at=T0 - 10)
    expected = ["Something broke (1)", "second", "third", "fourth", "fifth"]
    assert [c["body"] for c in zd.comments_of(tid)] == expected

    status, _, body = call(zd, "GET", f"/api/v2/tickets/{tid}/comments.json?page[size]=2&include=users")
    bodies, pages = [c["body"] for c in body["comments"]], 1
    assert {u["id"] for u in body["users"]} == {c["author_id"] for c in body["comments"]}
    while body["meta"]["has_more"]:
        assert body["links"]["next"].startswith(zd.url + f"/api/v2/tickets/{tid}/comments.json?")
        status, _, body = call(zd, "GET", body["links"]["next"])
        bodies += [c["body"] for c in body["comments"]]
        pages += 1
    assert bodies == expected and pages == 3
    assert [c["public"] for c in zd.comments_of(tid)] == [True, False, True, True, True]

    zd.add_comment(tid, "sixth", author_id=agent)  # six: the page after the third full one is empty
    body = call(zd, "GET", f"/api/v2/tickets/{tid}/comments.json?page[size]=3")[2]
    body = call(zd, "GET", body["links"]["next"])[2]
    assert body["meta"]["has_more"] is True
    last = call(zd, "GET", body["links"]["next"])[2]
    assert last["comments"] == [] and last["meta"]["has_more"] is False and last["links"]["next"] is None

    body = call(zd, "GET", f"/api/v2/tickets/{tid}/comments.json?per_page=4&page=2")[2]
    assert [c["body"] for c in body["comments"]] == ["fifth", "sixth"]
    assert body["count"] == 6 and body["next_page"] is None and "page=1" in body["previous_page"]
    assert call(zd, "GET", f"/api/v2/tickets/{tid}/comments.json?page[size]=101")[0] == 400


# The attachment object as recorded from a live account (zenpy's betamax fixture
# TestAttachmentUpload.test_redact_attachment: GET /api/v2/tickets/33/comments.json): these keys, nothing else.
RECORDED_ATTACHMENT_KEYS = {"url", "id", "file_name", "content_url", "mapped_content_url", "content_type", "size",
                            "width", "height", "inline", "deleted", "malware_access_override", "malware_scan_result",
                            "thumbnails"}


def test_comment_attachments_have_zendesks_shape_and_inline_images_are_listed_when_asked(zd: ZendeskServer) -> None:
    (tid,) = desk(zd, 1)
    zd.add_comment(tid, "Screenshot and log attached.", author_id=zd.tickets[tid]["requester_id"], attachments=[
        {"file_name": "sso error.png", "content_type": "image/png", "size": 48213, "width": 1280, "height": 720},
        {"file_name": "paste.png", "content_type": "image/png", "size": 9120, "inline": True},
        {"file_name": "saml-trace.log", "content_type": "text/plain", "size": 15156}])
    listed = call(zd, "GET", f"/api/v2/tickets/{tid}/comments.json")[2]["comments"][-1]["attachments"]
    assert [a["file_name"] for a in listed] == ["sso error.png", "saml-trace.log"], "inline ones only when asked"
    assert all(set(a) == RECORDED_ATTACHMENT_KEYS for a in listed)
    png = listed[0]
    assert (png["content_type"], png["size"], png["inline"], png["deleted"]) == ("image/png", 48213, False, False)
    assert png["content_url"].startswith(f"{zd.url}/attachments/token/") and png["content_url"].endswith(
        "/?name=sso%20error.png")
    assert png["url"] == f"{zd.url}/api/v2/attachments/{png['id']}.json"
    every = call(zd, "GET", f"/api/v2/tickets/{tid}/comments.json?include_inline_images=true")[2]
    assert [a["inline"] for a in every["comments"][-1]["attachments"]] == [False, True, False]
    assert call(zd, "GET", png["content_url"])[0] == 404, "no file is served"
    assert zd.requests_to("GET", "/attachments/token/")[0]["status"] == 404, "…and the attempt is recorded"


def test_people_deleted_or_left_out_of_side_loads(zd: ZendeskServer) -> None:
    a, b = desk(zd, 2)
    ticket = zd.tickets[a]
    dana, org = ticket["requester_id"], ticket["organization_id"]
    priya = zd.add_user("Priya Raman", "priya@kitebase.example", role="agent")
    zd.add_comment(a, "Looking into it.", author_id=priya)
    zd.unsideloaded_users.add(priya)
    comments = call(zd, "GET", f"/api/v2/tickets/{a}/comments.json?include=users")[2]
    assert priya in [c["author_id"] for c in comments["comments"]] and priya not in [u["id"] for u in comments["users"]]
    assert call(zd, "GET", f"/api/v2/users/show_many.json?ids={priya}")[2]["users"][0]["role"] == "agent"
    zd.unsideloaded_organizations.add(org)
    assert call(zd, "GET", f"/api/v2/tickets/{a}.json?include=organizations")[2]["organizations"] == []
    assert call(zd, "GET", f"/api/v2/organizations/show_many.json?ids={org}")[2]["organizations"][0]["id"] == org

    zd.delete_user(dana)
    zd.delete_organization(org)
    status, _, body = call(zd, "GET", f"/api/v2/users/{dana}.json")
    assert (status, body) == (404, {"error": "RecordNotFound", "description": "Not found"})
    assert call(zd, "GET", f"/api/v2/organizations/{org}.json")[0] == 404
    assert call(zd, "GET", f"/api/v2/users/show_many.json?ids={dana},{priya}")[2]["users"][0]["id"] == priya
    assert call(zd, "GET", f"/api/v2/organizations/show_many.json?ids={org}")[2]["organizations"] == []
    shown = call(zd, "GET", f"/api/v2/tickets/{a}.json?include=users,organizations")[2]
    assert (shown["ticket"]["requester_id"], shown["ticket"]["organization_id"]) == (dana, org), "still named"
    assert shown["users"] == [] and shown["organizations"] == []
    page = call(zd, "GET", "/api/v2/incremental/tickets/cursor.json?start_time=0&include=users,organizations")[2]
    assert {t["id"] for t in page["tickets"]} == {a, b} and page["users"] == [] and page["organizations"] == []


def test_a_null_priority_and_a_failing_path(zd: ZendeskServer) -> None:
    org = zd.add_organization("Tidewater Analytics")
    lee = zd.add_user("Lee Park", "lee@example.com", organization_id=org)
    tid = zd.add_ticket("No priority set", "Hello", lee, priority=None)
    assert call(zd, "GET", f"/api/v2/tickets/{tid}.json")[2]["ticket"]["priority"] is None
    zd.fail_path("/api/v2/users/show_many")
    status, headers, body = call(zd, "GET", f"/api/v2/users/show_many.json?ids={lee}")
    assert (status, body["error"], headers["retry-after"]) == (503, "ServiceUnavailable", "1")
    assert call(zd, "GET", f"/api/v2/users/{lee}.json")[0] == 200, "only that path"
    zd.fail_path("/api/v2/users/show_many", None)
    assert call(zd, "GET", f"/api/v2/users/show_many.json?ids={lee}")[0] == 200


# --- updates ----------------------------------------------------------------------------------------------------


def test_update_adds_comment_and_safe_update_conflicts(zd: ZendeskServer) -> None:
    (tid,) = desk(zd, 1)
    read = call(zd, "GET", f"/api/v2/tickets/{tid}.json")[2]["ticket"]
    status, _, body = call(zd, "PUT", f"/api/v2/tickets/{tid}.json", {"ticket": {
        "comment": {"body": "We are on it.", "public": True}, "status": "pending", "assignee_id": zd.agent_id,
        "additional_tags": ["sso", "SSO"], "safe_update": True, "updated_stamp": read["updated_at"]}})
    assert status == 200
    assert body["ticket"]["status"] == "pending" and body["ticket"]["tags"] == ["sso"]
    assert body["ticket"]["updated_at"] > read["updated_at"]
    assert {e["type"] for e in body["audit"]["events"]} == {"Comment", "Change"}
    comment = zd.comments_of(tid)[-1]
    assert comment["body"] == "We are on it." and comment["author_id"] == zd.agent_id and comment["public"]

    status, _, body = call(zd, "PUT", f"/api/v2/tickets/{tid}.json", {"ticket": {
        "comment": {"body": "Sent twice?", "public": False}, "safe_update": True,
        "updated_stamp": read["updated_at"]}})  # the stale stamp
    assert status == 409 and body["error"] == "UpdateConflict" and body["description"]
    assert [c["body"] for c in zd.comments_of(tid)][-1] == "We are on it."  # nothing applied

    stamps = set()
    for note in ("note 1", "note 2"):  # same clock second: the stamps still differ
        status, _, body = call(zd, "PUT", f"/api/v2/tickets/{tid}.json",
                               {"ticket": {"comment": {"body": note, "public": False}}})
        assert status == 200
        stamps.add(body["ticket"]["updated_at"])
    assert len(stamps) == 2 and zd.comments_of(tid)[-1]["public"] is False
    status, _, body = call(zd, "PUT", f"/api/v2/tickets/{tid}.json", {"ticket": {"comment": {"Body": "typo"}}})
    assert status == 200 and zd.comments_of(tid)[-1]["body"] == "note 2"  # a misspelled key is not applied


def test_closed_ticket_refuses_updates(zd: ZendeskServer) -> None:
    (tid,) = desk(zd, 1)
    zd.update_ticket(tid, status="closed")
    status, _, body = call(zd, "PUT", f"/api/v2/tickets/{tid}.json", {"ticket": {"comment": {"body": "hi"}}})
    assert status == 422
    assert body["error"] == "RecordInvalid" and body["description"] == "Record validation errors"
    assert body["details"]["status"][0]["description"] == "Status: closed prevents ticket update"
    assert len(zd.comments_of(tid)) == 1


def test_write_faults(zd: ZendeskServer) -> None:
    (tid,) = desk(zd, 1)
    put = f"/api/v2/tickets/{tid}.json"
    zd.fail_writes_after_applying(1)
    status, _, _ = call(zd, "PUT", put, {"ticket": {"comment": {"body": "applied, then 500"}}})
    assert status == 500 and zd.comments_of(tid)[-1]["body"] == "applied, then 500"
    zd.clear_faults()
    zd.fail_writes_before_applying(lambda entry: "refused" in json.dumps(entry["body"]))
    assert call(zd, "PUT", put, {"ticket": {"comment": {"body": "refused"}}})[0] == 500
    assert call(zd, "PUT", put, {"ticket": {"comment": {"body": "accepted"}}})[0] == 200
    assert [c["body"] for c in zd.comments_of(tid)][-2:] == ["applied, then 500", "accepted"]
    zd.clear_faults()
    zd.drop_connection_after_applying(2)
    assert call(zd, "PUT", put, {"ticket": {"comment": {"body": "first"}}})[0] == 200
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError, urllib.error.URLError)):
        call(zd, "PUT", put, {"ticket": {"comment": {"body": "dropped"}}})
    assert zd.comments_of(tid)[-1]["body"] == "dropped"
    assert zd.requests_to("PUT", put)[-1]["status"] is None and zd.requests_to("PUT", put)[-1]["dropped"]


# --- rate limits and outages ------------------------------------------------------------------------------------


def test_rate_limit_429_shape(zd: ZendeskServer, clock: Clock) -> None:
    zd.requests_per_minute = 3
    for _ in range(3):
        assert call(zd, "GET", "/api/v2/users/me.json")[0] == 200
    clock.advance(20)
    status, headers, body = call(zd, "GET", "/api/v2/users/me.json")
    assert status == 429 and headers["content-type"].startswith("text/plain")
    assert body == "Number of allowed API requests per minute exceeded"
    assert headers["retry-after"] == "40" and headers["x-rate-limit-remaining"] == "0"
    clock.advance(40)
    assert call(zd, "GET", "/api/v2/users/me.json")[0] == 200

    zd.ratelimit_window(5, retry_after=3)
    status, headers, body = call(zd, "GET", "/api/v2/users/me.json")
    assert (status, headers["retry-after"], body) == (429, "3", "Number of allowed API requests per minute exceeded")
    clock.advance(5)
    zd.outage()
    status, headers, body = call(zd, "GET", "/api/v2/users/me.json")
    assert (status, body, headers["retry-after"]) == (503, {"error": "ServiceUnavailable"}, "1")
    zd.outage(False)
    assert call(zd, "GET", "/api/v2/users/me.json")[0] == 200


def test_update_ticket_endpoint_limit(zd: ZendeskServer) -> None:
    ids = desk(zd, 3)
    zd.update_ticket_per_minute = 2
    statuses = [call(zd, "PUT", f"/api/v2/tickets/{t}.json", {"ticket": {"priority": "high"}})[0] for t in ids]
    assert statuses == [200, 200, 429]
    assert call(zd, "GET", f"/api/v2/tickets/{ids[2]}.json")[0] == 200  # reads are not held back


# --- ticket creation with an Idempotency-Key --------------------------------------------------------------------


def test_idempotency_key_miss_hit_mismatch_and_expiry(zd: ZendeskServer, clock: Clock) -> None:
    new = {"ticket": {"subject": "Printer on fire", "comment": {"body": "Help"},
                      "requester": {"name": "Sam Buyer", "email": "sam@example.com"}}}
    key = {"Idempotency-Key": "reply-42"}
    status, headers, first = call(zd, "POST", "/api/v2/tickets.json", new, headers=key)
    assert status == 201 and headers["x-idempotency-lookup"] == "miss"
    tid = first["ticket"]["id"]
    assert headers["location"] == f"{zd.url}/api/v2/tickets/{tid}.json"
    assert first["ticket"]["requester_id"] == zd.user_by_email("sam@example.com")["id"]  # type: ignore[index]
    status, headers, again = call(zd, "POST", "/api/v2/tickets.json", new, headers=key)
    assert status == 201 and headers["x-idempotency-lookup"] == "hit" and again == first
    assert len(zd.tickets) == 1
    status, _, body = call(zd, "POST", "/api/v2/tickets.json",
                           {"ticket": {**new["ticket"], "subject": "Other"}}, headers=key)
    assert status == 400 and body["error"] == "IdempotentRequestError"
    clock.advance(2 * 3600)
    status, headers, later = call(zd, "POST", "/api/v2/tickets.json", new, headers=key)
    assert status == 201 and headers["x-idempotency-lookup"] == "miss" and later["ticket"]["id"] != tid
    assert call(zd, "POST", "/api/v2/tickets.json", {"ticket": {"subject": "no body"}})[0] == 422


def test_idempotent_create_applied_then_500_is_answered_from_the_cache(zd: ZendeskServer) -> None:
    zd.fail_writes_after_applying(1)
    new = {"ticket": {"subject": "Once", "comment": {"body": "only once"}}}
    assert call(zd, "POST", "/api/v2/tickets.json", new, headers={"Idempotency-Key": "k1"})[0] == 500
    zd.clear_faults()
    status, headers, body = call(zd, "POST", "/api/v2/tickets.json", new, headers={"Idempotency-Key": "k1"})
    assert status == 201 and headers["x-idempotency-lookup"] == "hit" and len(zd.tickets) == 1


# --- search and the Help Center ---------------------------------------------------------------------------------


def test_search(zd: ZendeskServer) -> None:
    ids = desk(zd, 3)
    zd.update_ticket(ids[1], subject="SSO sign-in loop")
    status, _, body = call(zd, "GET", "/api/v2/search.json?query=type:ticket%20sso%20loop")
    assert status == 200 and [r["id"] for r in body["results"]] == [ids[1]] and body["count"] == 1
    assert body["results"][0]["result_type"] == "ticket"
    status, _, body = call(zd, "GET", "/api/v2/search.json?query=type:ticket&per_page=100&page=11")
    assert (status, body["error"]) == (422, "invalid")


def test_help_center_lists_incremental_and_drafts(zd: ZendeskServer, clock: Clock) -> None:
    for i in range(4):
        zd.add_article(f"Article {i}", f"<p>{i}</p>", draft=i == 3)
    body = call(zd, "GET", "/api/v2/help_center/en-us/articles.json?page[size]=3")[2]
    titles = [a["title"] for a in body["articles"]]
    body = call(zd, "GET", body["links"]["next"])[2]
    titles += [a["title"] for a in body["articles"]]
    assert titles == [f"Article {i}" for i in range(4)]  # drafts included: the client filters them
    offset = call(zd, "GET", "/api/v2/help_center/articles.json")[2]
    assert offset["count"] == 4 and offset["per_page"] == 30 and offset["next_page"] is None
    anonymous = call(zd, "GET", "/api/v2/help_center/articles.json", auth=None)[2]
    assert [a["draft"] for a in anonymous["articles"]] == [False, False, False]
    clock.advance(100)
    first = min(zd.articles)
    zd.update_article(first, body_html="<p>new</p>")
    body = call(zd, "GET", f"/api/v2/help_center/incremental/articles.json?start_time={T0 + 50}")[2]
    assert [a["id"] for a in body["articles"]] == [first] and body["count"] == 1
    assert body["end_time"] == T0 + 100 and body["next_page"] is None


def test_user_segments_decide_who_sees_an_article() -> None:
    """The Help Center's user segments API: `user_segment_id` null is everyone; a segment (or on Enterprise any of
    `user_segment_ids`) restricts viewing; an admin sees every article, an agent those of the segments it is in."""
    with ZendeskServer(bot_role="admin") as zd:
        org = zd.add_organization("Northwind Studio")
        dana = zd.add_user("Dana Whitfield", "dana@example.com", organization_id=org)
        zd.add_user("Ada Agent", "ada@kitebase.example", role="agent")
        northwind = zd.add_user_segment("Northwind only", organization_ids=[org])
        public = zd.add_article("Public", "<p>p</p>")
        staff = zd.add_article("Runbook", "<p>r</p>", user_segment_id=zd.staff_segment_id)
        both = zd.add_article("Enterprise", "<p>e</p>", user_segment_ids=[northwind, zd.staff_segment_id])
        theirs = zd.add_article("Northwind", "<p>n</p>", user_segment_id=northwind)
        with pytest.raises(ValueError, match="no user segment"):
            zd.add_article("Nobody", "<p>x</p>", user_segment_id=42)
        shown = {a["id"]: a for a in call(zd, "GET", "/api/v2/help_center/articles.json")[2]["articles"]}
        assert set(shown) == {public, staff, both, theirs}, "an admin lists every article"
        assert (shown[public]["user_segment_id"], shown[public]["user_segment_ids"]) == (None, [])
        assert shown[staff]["user_segment_ids"] == [zd.staff_segment_id], "one segment shows in both fields"
        assert (shown[both]["user_segment_id"], shown[both]["user_segment_ids"]) == (None, [northwind,
                                                                                          zd.staff_segment_id])
        anonymous = call(zd, "GET", "/api/v2/help_center/articles.json", auth=None)[2]["articles"]
        assert [a["id"] for a in anonymous] == [public]
        assert call(zd, "GET", f"/api/v2/help_center/articles/{staff}.json", auth=None)[0] == 404
        agent = call(zd, "GET", "/api/v2/help_center/articles.json", auth=basic("ada@kitebase.example"))[2]
        assert {a["id"] for a in agent["articles"]} == {public, staff, both}, "not the organization's own"
        assert zd._may_view(zd.users[dana], zd._articles[theirs]) and zd._may_view(zd.users[dana], zd._articles[both])
        assert not zd._may_view(zd.users[dana], zd._articles[staff])
        zd.restrict_article(public, zd.signed_in_segment_id)
        assert call(zd, "GET", "/api/v2/help_center/articles.json", auth=None)[2]["articles"] == []
        segment = call(zd, "GET", f"/api/v2/help_center/user_segments/{zd.staff_segment_id}.json")[2]["user_segment"]
        assert (segment["user_type"], segment["built_in"]) == ("staff", True)
        listed = call(zd, "GET", "/api/v2/help_center/user_segments.json")[2]["user_segments"]
        assert [s["name"] for s in listed] == ["Signed-in users", "Agents and admins", "Northwind only"]


# --- the embedded desk ------------------------------------------------------------------------------------------


def test_load_kb_data(zd: ZendeskServer) -> None:
    mapping = zd.load_kb_data(KB_DATA)
    source = {t["id"]: t for t in json.loads((KB_DATA / "tickets.json").read_text(encoding="utf-8"))}
    assert mapping["KITE-142"] == 4821 and len(mapping) == len(source)
    ticket = call(zd, "GET", "/api/v2/tickets/4821.json")[2]["ticket"]
    kite = source["KITE-142"]
    assert ticket["subject"] == kite["title"] and ticket["status"] == "open" and ticket["priority"] == "high"
    assert ticket["tags"] == kite["tags"] and ticket["updated_at"] == kite["updated_at"]
    assert zd.users[ticket["assignee_id"]]["name"] == "Priya Raman"
    assert zd.users[ticket["requester_id"]]["email"] == "dana.whitfield@example.com"
    org = zd.organizations[ticket["organization_id"]]
    assert org["name"] == "Northwind Studio" and "Okta" in org["details"]
    assert org["organization_fields"]["plan"] == "Business"

    comments = call(zd, "GET", "/api/v2/tickets/4821/comments.json?include=users")[2]
    names = {u["id"]: u["name"] for u in comments["users"]}
    got = [(names[c["author_id"]], c["public"], c["body"]) for c in comments["comments"]]
    assert got == [(m["author"], m["role"] != "internal", m["body"]) for m in kite["messages"]]
    assert zd.tickets[mapping["KITE-101"]]["status"] == "closed"

    articles = zd.articles
    sso = next(a for a in articles.values() if a["html_url"].endswith("-single-sign-on"))
    assert sso["title"] == "Single sign-on (SSO)"
    assert sso["html_url"] == f"{zd.url}/hc/en-us/articles/{sso['id']}-single-sign-on"
    assert '<h2 id="before-you-start">Before you start</h2>' in sso["body"]
    assert "<ul><li>ACS URL" in sso["body"] and "<ol><li>The ACS URL" in sso["body"]
    assert len(articles) == len(list((KB_DATA / "help").glob("*.md")))


# --- webhooks ---------------------------------------------------------------------------------------------------


def test_sign_webhook_matches_an_independent_hmac() -> None:
    body = b'{"ticket_id": "4821", "status": "open"}'
    stamp = "2026-11-24T09:12:00Z"
    expected = base64.b64encode(hmac.new(b"s3cret", stamp.encode() + body, hashlib.sha256).digest()).decode()
    assert sign_webhook("s3cret", body, stamp) == expected
    assert expected == "ht3xCz84Z6idNeqiGLRnrt5cKxrlKyUJwYyIg8yvJfg="  # computed once with `openssl dgst -hmac`


def test_send_webhook_posts_signed_strings(zd: ZendeskServer) -> None:
    received: list[tuple[dict[str, str], bytes]] = []

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers["content-length"]))
            received.append(({k.lower(): v for k, v in self.headers.items()}, raw))
            signature = sign_webhook("whsec", raw, self.headers["x-zendesk-webhook-signature-timestamp"])
            ok = hmac.compare_digest(signature, self.headers["x-zendesk-webhook-signature"])
            self.send_response(200 if ok else 401)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    app = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=app.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        target = f"http://127.0.0.1:{app.server_address[1]}/zendesk/webhook"
        (tid,) = desk(zd, 1)
        payload = {"ticket_id": tid, "status": "open", "updated_at": zd.tickets[tid]["updated_at"]}
        status, _ = zd.send_webhook(target, payload, "whsec", invocation_id="inv-1")
        assert status == 200
        headers, raw = received[-1]
        assert json.loads(raw) == {"ticket_id": str(tid), "status": "open", "updated_at": payload["updated_at"]}
        assert headers["x-zendesk-webhook-invocation-id"] == "inv-1"
        assert {"x-zendesk-account-id", "x-zendesk-webhook-id"} <= set(headers)
        assert urlsplit(target).path == "/zendesk/webhook"
        assert zd.send_webhook(target, zd.ticket_webhook_payload(tid), "whsec", bad_signature=True)[0] == 401
    finally:
        app.shutdown()
        app.server_close()


def test_a_tickets_channel_and_group_and_a_requesters_answer_reopening_it(zd: ZendeskServer) -> None:
    """via.channel and group_id as the API shows them; a requester's public comment sets a pending or solved
    ticket back to open (Zendesk's "Updating and solving tickets"); an agent's comment or a private one does not."""
    requester = zd.add_user("Ana Lima", "ana@example.com")
    agent = zd.add_user("Sam Agent", "sam@kitebase.example", role="agent")
    ticket = zd.add_ticket("By email", "Hello", requester, via="email", group_id=77, status="pending")
    shown = call(zd, "GET", f"/api/v2/tickets/{ticket}.json")[2]["ticket"]
    assert shown["via"] == {"channel": "email"} and shown["group_id"] == 77
    zd.add_comment(ticket, "Working on it", author_id=agent)
    assert zd.tickets[ticket]["status"] == "pending"
    zd.add_comment(ticket, "Any news?", author_id=requester)
    assert zd.tickets[ticket]["status"] == "open"
    zd.update_ticket(ticket, status="solved")
    zd.add_comment(ticket, "note", author_id=requester, public=False)
    assert zd.tickets[ticket]["status"] == "solved"
    zd.add_comment(ticket, "It broke again", author_id=requester)
    assert zd.tickets[ticket]["status"] == "open"
