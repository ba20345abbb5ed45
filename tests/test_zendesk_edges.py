"""The Zendesk desk at its edges, on bodies shaped as Zendesk documents them: event webhooks for users and
organizations, a trigger body's `ticketId`, a signature header that is not ASCII, a chunked body past the limit,
an account without a Help Center, a ticket deleted between the export and its comments, two pollers at once, the
webhook's port in Socket Mode, and a ticket URL with a port in it. The real HTTP client, the stand-in
(standins/zendesk_server.py), a real database (SQLite and PostgreSQL)."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.models import DeskSync, NamedLock, Ticket, TicketMessage
from bot.desk.zendesk import sync
from bot.desk.zendesk.desk import client_for
from bot.runs.execution import desk_work
from standins.zendesk_server import ZendeskServer
from tests.test_desk_zendesk import (
    KB_DATA,
    ROOT,
    SECRET,
    YEAR,
    count,
    signed,
    synced,
    wait_for,
    zendesk_settings,
)

EXPORT = "/api/v2/incremental/tickets/cursor.json"
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback only, whatever the env says


@pytest.fixture
def zd() -> Iterator[ZendeskServer]:
    with ZendeskServer(export_delay=0) as server:
        server.load_kb_data(KB_DATA)
        yield server


@pytest.fixture
def zdb(database_url: str, zd: ZendeskServer) -> Iterator[tuple[Database, Settings]]:
    """An empty database (the mirror is filled by syncing) and settings for the stand-in."""
    settings = zendesk_settings(database_url, zd)
    database = Database.from_url(database_url)
    create_schema(database.engine)
    yield database, settings
    database.engine.dispose()


# --- 1. which webhooks name tickets ---------------------------------------------------------------------------

@pytest.mark.parametrize("event_type, subject", [
    ("zen:event-type:user.active_changed", "user"),
    ("zen:event-type:user.created", "user"),
    ("zen:event-type:organization.created", "organization"),
])
def test_a_user_or_organization_event_is_acknowledged_and_names_no_ticket(zdb, zd, event_type, subject):
    db, settings = zdb
    record = zd.user_by_email("dana.whitfield@example.com")["id"] if subject == "user" else next(iter(zd.organizations))
    body = json.dumps(zd.event_webhook_payload(event_type, record)).encode()
    status, answer = desk_work.webhook(db, settings, signed(body), body)
    assert status[:1] == "2" and answer["ok"] is True
    assert answer["tickets"] == [], f"{event_type}'s detail.id {record} is not a ticket"


def test_a_ticket_event_and_a_trigger_body_naming_ticketId_name_their_ticket(zdb, zd):
    db, settings = zdb
    event = json.dumps(zd.event_webhook_payload("zen:event-type:ticket.status_changed", 4821,
                                                event={"current": "pending", "previous": "open"})).encode()
    assert desk_work.webhook(db, settings, signed(event), event)[1]["tickets"] == ["4821"]
    camel = json.dumps({"ticketId": "4842", "status": "open"}).encode()
    status, answer = desk_work.webhook(db, settings, signed(camel), camel)
    assert status.startswith("202") and answer["tickets"] == ["4842"]
    assert wait_for(lambda: count(db, Ticket, col(Ticket.id) == "4842") == 1), "the named ticket is read"


# --- 2. and 3. what arrives on the wire ------------------------------------------------------------------------

@pytest.fixture
def webhook_server(zdb) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """The real Slack app's WSGI (bot/server.py make_wsgi) served by waitress as `kitebase serve` serves it."""
    from bot.app import build_app
    from bot.server import http_server, make_wsgi
    from standins.slack_harness import harness_settings
    from standins.slack_server import SlackAPIServer

    db, settings = zdb
    with SlackAPIServer() as slack:
        app, ctx = build_app(harness_settings(settings, slack), db)
        server = http_server(make_wsgi(app, ctx), host="127.0.0.1", port=0, threads=2)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            yield f"127.0.0.1:{server.effective_port}"
        finally:
            stop_waitress(server)
            thread.join(timeout=10)
            ctx.dispatch.shutdown()


def stop_waitress(server: Any) -> None:
    """Close waitress's sockets from its own loop (closing them from here races its poll: EBADF)."""
    from waitress import wasyncore

    server.task_dispatcher.shutdown()
    server.trigger.pull_trigger(lambda: wasyncore.close_all(server._map))


def test_a_signature_header_that_is_not_ascii_is_a_401(zdb, zd, webhook_server):
    db, settings = zdb
    body = json.dumps({"ticket_id": "4821"}).encode()
    headers = signed(body)
    headers["x-zendesk-webhook-signature"] = "sïgnature-é=="
    assert desk_work.webhook(db, settings, headers, body)[0].startswith("401")
    connection = http.client.HTTPConnection(webhook_server, timeout=30)
    try:
        connection.putrequest("POST", "/zendesk/webhook")
        for name, value in headers.items():
            connection.putheader(name, value.encode("latin-1") if name.endswith("signature") else value)
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        answer = connection.getresponse()
        assert answer.status == 401, answer.read()
    finally:
        connection.close()


def test_a_chunked_body_past_the_limit_is_refused_while_it_is_read(webhook_server):
    """1 MB and a bit more in chunks, then the client stops without ending the body: the answer must come now.
    A server that buffers the whole body first waits for the rest and never answers (the timeout fails it)."""
    from bot.server import MAX_BODY

    host, port = webhook_server.split(":")
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(b"POST /zendesk/webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        piece = b"x" * 65536
        sent = 0
        while sent <= MAX_BODY:
            sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
            sent += len(piece)
        head = b""
        while b"\r\n" not in head:
            data = sock.recv(4096)
            assert data, "the server hung up without answering"
            head += data
    assert head.startswith(b"HTTP/1.1 413"), head[:200]


def test_a_body_without_a_length_is_read_up_to_the_limit_and_no_further():
    """A WSGI server that hands the app a terminated stream without CONTENT_LENGTH (a chunked request): the
    body is read in pieces and refused past the limit, not read whole."""
    from bot.server import MAX_BODY, _read

    class Endless:
        given = 0

        def read(self, size: int = -1) -> bytes:
            assert size > 0, "read whole"
            size = min(size, 65536)
            self.given += size
            return b"x" * size

    stream = Endless()
    assert _read({"wsgi.input": stream, "wsgi.input_terminated": True}) is None
    assert stream.given <= MAX_BODY + 65536
    small = {"wsgi.input": _Once(b'{"ticket_id": "4821"}'), "wsgi.input_terminated": True}
    assert _read(small) == b'{"ticket_id": "4821"}'


class _Once:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, size: int = -1) -> bytes:
        out, self.data = (self.data, b"") if size < 0 else (self.data[:size], self.data[size:])
        return out


# --- 4. an account without a Help Center ------------------------------------------------------------------------

@pytest.mark.parametrize("answer", [404, 403])
def test_a_help_center_that_answers_403_or_404_does_not_stop_the_tickets(zdb, zd, answer, capsys):
    from bot.cli_desk import cmd_desk_status, desk_status

    db, settings = zdb
    zd.help_center_off(answer)
    report = sync.sync(client_for(settings), db, since_seconds=settings.zendesk_sync_since_seconds)
    assert report.caught_up and count(db, Ticket) == 117, "the tickets sync"
    status = desk_status(settings)
    problem = status["help_center"]["problem"]
    assert problem and str(answer) in problem and "Help Center" in problem
    assert status["help_center"]["last_sync"] is None
    cmd_desk_status(type("Args", (), {"json": False})(), settings)
    shown = capsys.readouterr().out
    assert problem in shown
    cmd_desk_status(type("Args", (), {"json": True})(), settings)
    assert json.loads(capsys.readouterr().out)["help_center"]["problem"] == problem

    zd.help_center_off(None)  # the account gets its Help Center: the next pass reads it and the sentence goes
    assert sync.sync(client_for(settings), db, since_seconds=settings.zendesk_sync_since_seconds).caught_up
    assert desk_status(settings)["help_center"]["problem"] is None


# --- 5. a ticket deleted between the export and its comments -----------------------------------------------------

class Gate:
    """A ZendeskClient that can act at an export request: `before` runs first (it may block), `after` once
    the page is read."""

    def __init__(self, client: Any, before: Any = None, after: Any = None) -> None:
        self.client, self.before, self.after, self.exports = client, before, after, 0

    def get(self, path: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        if path == EXPORT:
            self.exports += 1
            if self.before:
                self.before(self.exports)
        body = self.client.get(path, params)
        if path == EXPORT and self.after:
            self.after(self.exports)
        return body

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


def test_a_404_on_one_tickets_comments_does_not_abort_the_page(zdb, zd):
    db, settings = zdb
    gone = Gate(client_for(settings), after=lambda n: zd.delete_ticket(4823) if n == 1 else None)
    report = sync.sync(gone, db, since_seconds=settings.zendesk_sync_since_seconds)
    assert report.caught_up and report.pages == 1
    assert count(db, Ticket) == 116 and count(db, Ticket, col(Ticket.id) == "4823") == 0, "the others are mirrored"
    assert len([r for r in zd.requests_to("GET", "/api/v2/tickets/4823/comments") if r["status"] == 404]) == 1
    with db.session() as session:
        moved = session.get(DeskSync, "tickets")
    assert moved is not None and moved.cursor, "the cursor moves on"
    assert_conversations_match(db, zd)


def assert_conversations_match(db: Database, zd: ZendeskServer) -> None:
    """Every mirrored ticket holds its conversation once: as many messages as Zendesk has comments."""
    with db.session() as session:
        tickets = session.exec(select(Ticket.id)).all()
        messages = session.exec(select(TicketMessage.ticket_id)).all()
    held: dict[str, int] = {}
    for ticket_id in messages:
        held[ticket_id] = held.get(ticket_id, 0) + 1
    assert {t: held.get(t, 0) for t in tickets} == {t: len(zd.comments_of(int(t))) for t in tickets}


# --- 6. one poller at a time ----------------------------------------------------------------------------------

def stored_cursor(db: Database) -> str | None:
    row = sync.state(db)
    return row.cursor if row is not None else None


def test_two_polls_at_once_make_one_pass(zdb, zd):
    """Two processes' timers fire together: one pass reads the export, the other sees the lock and goes."""
    db, settings = zdb
    settings = settings.model_copy(update={"zendesk_sync_since_seconds": 5 * YEAR})
    inside, go = threading.Event(), threading.Event()

    def hold_the_first_page(n: int) -> None:
        if n == 1:
            inside.set()
            assert go.wait(60)

    first = Gate(client_for(settings), before=hold_the_first_page)
    results: dict[str, Any] = {}
    a = threading.Thread(target=lambda: results.update(a=desk_work.poll(db, settings, owner="host-a:101",
                                                                        client=first, per_page=20)))
    a.start()
    try:
        assert inside.wait(60)
        second = Gate(client_for(settings))
        results["b"] = desk_work.poll(db, settings, owner="host-b:202", client=second, per_page=20)
    finally:
        go.set()
        a.join(60)
    assert second.exports == 0, "the second poller reads nothing while the first holds the lock"
    assert results["b"] is None and results["a"] is not None and results["a"].caught_up
    assert count(db, Ticket) == 117
    assert_conversations_match(db, zd)
    with db.session() as session:
        lock = session.get(NamedLock, desk_work.SYNC_LOCK)
    assert lock is not None and lock.owner is None, "released when the pass ends"


def test_a_pass_that_lost_its_lock_writes_nothing_and_the_cursor_never_moves_back(zdb, zd):
    """A poller paused past its lease (a suspended VM, SIGSTOP): another takes the lock and catches up; when the
    first wakes, its page is refused, so the stored cursor never goes back to an older page."""
    db, settings = zdb
    inside, go = threading.Event(), threading.Event()
    seen_after_waking: list[str | None] = []

    def paused_on_the_first_page(n: int) -> None:
        if n == 1:
            inside.set()
            assert go.wait(60)
        else:
            seen_after_waking.append(stored_cursor(db))

    stale = Gate(client_for(settings), before=paused_on_the_first_page)
    results: dict[str, Any] = {}
    a = threading.Thread(target=lambda: results.update(a=desk_work.poll(db, settings, owner="host-a:101",
                                                                        client=stale, per_page=20)))
    a.start()
    try:
        assert inside.wait(60)
        with db.session() as session:  # the lease runs out while host-a is paused (time, controlled)
            session.execute(update(NamedLock).where(col(NamedLock.name) == desk_work.SYNC_LOCK)
                            .values(expires_at=datetime(2000, 1, 1, tzinfo=UTC)))
        b = desk_work.poll(db, settings, owner="host-b:202", client=client_for(settings), per_page=20)
        assert b is not None and b.caught_up
        caught_up = stored_cursor(db)
    finally:
        go.set()
        a.join(60)
    assert [c == caught_up for c in seen_after_waking] == [], "the cursor moved back to an older page"
    assert stored_cursor(db) == caught_up, "the cursor never moves back"
    assert results["a"] is not None and not results["a"].caught_up and results["a"].superseded
    assert count(db, Ticket) == 117
    assert_conversations_match(db, zd)


def test_a_sync_killed_on_this_host_leaves_no_lock_behind(zdb, zd):
    """`kitebase desk sync` has no heartbeat: killed (SIGKILL) mid-pass on this host, its lock is free at once
    (its pid is gone), not a minute later when the lease runs out."""
    from bot.runs.execution import processes

    db, settings = zdb
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    killed = f"{socket.gethostname()}:{int(gone.stdout)}"
    assert processes.hold(db, desk_work.SYNC_LOCK, killed, desk_work.LEASE_SECONDS, settings.process_stale_seconds)
    report = desk_work.poll(db, settings, owner="host-b:202")
    assert report is not None and report.caught_up and count(db, Ticket) == 117


def test_a_cursor_write_from_an_older_page_is_refused(zdb, zd):
    """The cursor's write is conditional on the cursor the page was read from, whoever holds the lock."""
    db, settings = zdb
    first = sync.sync(client_for(settings), db, since_seconds=5 * YEAR, per_page=50)
    end = stored_cursor(db)
    assert first.caught_up and first.pages == 3 and end
    with db.session() as session:
        assert sync.save_cursor(session, expected=None, cursor="an-older-page", tickets=50) is False
        assert sync.save_cursor(session, expected=end, cursor=end, tickets=0) is True
    assert stored_cursor(db) == end


# --- 7. Socket Mode: where the webhook arrives -------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(url: str) -> tuple[int, bytes]:
    try:
        with _OPENER.open(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_socket_mode_serve_opens_the_webhooks_port_and_a_webhook_brings_the_ticket(zd, database_url, tmp_path):
    from standins.slack_harness import BOT_TOKEN
    from standins.slack_server import SlackAPIServer
    from standins.socket_mode_server import SocketModeServer

    port = free_port()
    requester = zd.user_by_email("dana.whitfield@example.com")
    new = zd.add_ticket("Arrived over the webhook in Socket Mode", "Our exports fail since Monday.",
                        requester["id"])
    with SlackAPIServer() as slack, SocketModeServer() as socket_mode:
        slack.socket_mode_url = socket_mode.url
        env = {k: v for k, v in os.environ.items() if not k.startswith(("KITEBASE_", "ANTHROPIC", "ZENDESK_",
                                                                            "SLACK_"))}
        env.update(KITEBASE_DESK="zendesk", ZENDESK_URL=zd.url, ZENDESK_EMAIL="bot@kitebase.example",
                   ZENDESK_API_TOKEN="zd-test-token", ZENDESK_WEBHOOK_SECRET=SECRET, ZENDESK_SYNC_SINCE="1000d",
                   SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_APP_TOKEN="xapp-test-token",
                   SLACK_API_BASE_URL=slack.url + "/api/", DATABASE_URL=database_url, PORT=str(port),
                   KITEBASE_HELP_CENTER_URL="", PYTHONPATH=str(ROOT))
        out = open(tmp_path / "serve.log", "w")  # noqa: SIM115  (closed below)
        serve = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve"], env=env, cwd=tmp_path, stdout=out,
                                 stderr=subprocess.STDOUT)
        try:
            def healthy() -> bool:
                assert serve.poll() is None, (tmp_path / "serve.log").read_text()
                try:
                    return get(f"http://127.0.0.1:{port}/healthz")[0] == 200
                except OSError:
                    return False

            assert wait_for(healthy, timeout=90), f"nothing answers on PORT {port}: " + \
                (tmp_path / "serve.log").read_text()
            socket_mode.wait_connected(timeout=30)
            status, answer = zd.send_webhook(f"http://127.0.0.1:{port}/zendesk/webhook",
                                             zd.ticket_webhook_payload(new), SECRET)
            assert status == 202 and json.loads(answer)["tickets"] == [str(new)]
            assert get(f"http://127.0.0.1:{port}/slack/events")[0] == 404, "Slack's requests come over the socket"
            database = Database.from_url(database_url)
            try:
                assert wait_for(lambda: count(database, Ticket, col(Ticket.id) == str(new)) == 1, timeout=30)
            finally:
                database.engine.dispose()
        finally:
            serve.terminate()
            serve.wait(30)
            out.close()
    log = (tmp_path / "serve.log").read_text()
    assert f"POST /zendesk/webhook on :{port}" in log and "Traceback" not in log, log


def test_desk_status_says_where_the_webhook_arrives_and_what_replaces_it(zdb, capsys):
    from pydantic import SecretStr

    from bot.cli_desk import cmd_desk_status, desk_status

    db, settings = zdb
    socket_mode = settings.model_copy(update={"slack_app_token": SecretStr("xapp-1"), "port": 8080})
    hook = desk_status(socket_mode)["webhook"]
    assert hook == {"enabled": True, "path": "/zendesk/webhook", "port": 8080, "slack": "socket_mode",
                    "poll_seconds": 120.0}
    cmd_desk_status(type("Args", (), {"json": False})(), socket_mode)
    shown = capsys.readouterr().out
    assert "POST /zendesk/webhook" in shown and ":8080" in shown and "Socket Mode" in shown
    off = socket_mode.model_copy(update={"zendesk_webhook_secret": None})
    assert desk_status(off)["webhook"]["enabled"] is False
    cmd_desk_status(type("Args", (), {"json": False})(), off)
    shown = capsys.readouterr().out
    assert "ZENDESK_WEBHOOK_SECRET" in shown and "every 2 min" in shown


# --- 8. a ticket URL with a port ------------------------------------------------------------------------------

def test_a_ticket_url_with_a_port_names_the_ticket_not_the_port(zdb, zd):
    from bot.desk.ids import normalise_ticket_id, ticket_ids_in
    from bot.runs.lifecycle.goals import goal_ticket

    for text in ("handle https://host:8443/agent/tickets/4821",
                 "handle <https://acme.zendesk.com:8443/agent/tickets/4821>",  # as Slack sends a pasted link
                 "handle <https://acme.zendesk.com:8443/agent/tickets/4821|acme.zendesk.com:8443/agent/tickets/4821>",
                 "handle http://127.0.0.1:54321/api/v2/tickets/4821.json please"):
        assert ticket_ids_in(text, "zendesk") == ["4821"], text
        assert goal_ticket(text, 4000, "zendesk") == "4821", text
    assert ticket_ids_in("handle 4821, see https://status.example.com:8443/incidents/1234", "zendesk") == ["4821"]
    assert normalise_ticket_id("https://host:8443/agent/tickets/4821", "zendesk") == "4821"

    from bot.db.models import Run
    from bot.runs.lifecycle.service import RunService

    db, settings = synced(zdb)
    run_id = RunService(db, settings).start("handle https://acme.zendesk.com:8443/agent/tickets/4821")
    with db.session() as session:
        assert session.get(Run, run_id).ticket_id == "4821"


def test_a_messaging_event_names_the_ticket_its_subject_names() -> None:
    """Issue 48: Zendesk's documented messaging event (developer.zendesk.com, webhooks, messaging events:
    zen:event-type:messaging_ticket.message_added) names its ticket as the subject zen:ticket:141."""
    from bot.desk.zendesk.webhook import ticket_ids

    body = {"account_id": 21825834, "detail": {"id": "141"},
            "event": {"actor": {"id": "zd:answerBot", "name": "Z3n Tests", "type": "system"},
                      "conversation_id": "67ab5f53a96f98663935c3f2",
                      "message": {"body": "Hi there. How can I help you today?", "id": "67ab5f55155becd183e284cb"}},
            "id": "01JQMQH83YNAKWSWJ8B1QH2NSC", "subject": "zen:ticket:141", "time": "2025-02-11T14:32:05.254571515Z",
            "type": "zen:event-type:messaging_ticket.message_added", "zendesk_event_version": "2022-11-06"}
    assert ticket_ids(json.dumps(body).encode()) == ["141"]
    user_event = {**body, "type": "zen:event-type:user.created", "subject": "zen:user:6596848315901",
                  "detail": {"id": "6596848315901"}}
    assert ticket_ids(json.dumps(user_event).encode()) == [], "a user's id is never taken for a ticket"
