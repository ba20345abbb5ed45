"""The Slack app over Socket Mode: Bolt's SocketModeHandler (slack_sdk's builtin client) against local stand-ins.

The handler asks the Web API stand-in (apps.connections.open, with the app-level token,
on the app's own WebClient) for a ws:// URL, connects to the WebSocket stand-in, and
the test plays Slack: it pushes an ``events_api`` envelope carrying a mention and later
an ``interactive`` envelope carrying the approval click, checking acks, the thread and
the database. No network, no HTTP endpoint of ours.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import time
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import SecretStr
from slack_bolt.adapter.socket_mode import SocketModeHandler
from sqlmodel import select

from bot.app import build_app
from bot.db.models import Run
from bot.outbox.sender import OutboxSender
from bot.slack.client import make_client
from standins.slack_harness import BOT_TOKEN
from standins.slack_server import SlackAPIServer
from standins.socket_mode_server import SocketModeServer, accept_key, encode_frame
from tests.helpers import staff_replies

APP_TOKEN = "xapp-test-token"
MENTION_TS = "1800000000.000100"
GOAL = "handle KITE-142, and tell me if other customers have hit the same problem"


@pytest.fixture
def stand_ins() -> Iterator[tuple[SlackAPIServer, SocketModeServer]]:
    slack = SlackAPIServer().start()
    socket_mode = SocketModeServer().start()
    slack.socket_mode_url = socket_mode.url
    try:
        yield slack, socket_mode
    finally:
        socket_mode.stop()
        slack.stop()


def mention_envelope() -> dict[str, Any]:
    return {"envelope_id": "env-mention-1", "type": "events_api", "accepts_response_payload": False,
            "payload": {"type": "event_callback", "team_id": "T0TEAM", "api_app_id": "A0APP",
                        "event": {"type": "app_mention", "user": "ULEAD", "text": f"<@U0BOT> {GOAL}",
                                  "ts": MENTION_TS, "channel": "CSUPPORT", "event_ts": MENTION_TS},
                        "event_id": "Ev1", "event_time": 1800000000}}


def click_envelope(value: str, message_ts: str) -> dict[str, Any]:
    return {"envelope_id": "env-click-1", "type": "interactive", "accepts_response_payload": False,
            "payload": {"type": "block_actions", "team": {"id": "T0TEAM"}, "api_app_id": "A0APP",
                        "user": {"id": "ULEAD", "username": "ulead"}, "trigger_id": "trig-socket-1",
                        "channel": {"id": "CSUPPORT"},
                        "container": {"type": "message", "message_ts": message_ts, "channel_id": "CSUPPORT",
                                      "is_ephemeral": False, "thread_ts": MENTION_TS},
                        "message": {"ts": message_ts, "text": "", "thread_ts": MENTION_TS},
                        "actions": [{"type": "button", "action_id": "approve_reply", "block_id": "b",
                                     "value": value, "action_ts": str(time.time())}]}}


def approve_button(args: dict[str, Any]) -> dict[str, Any] | None:
    for block in args.get("blocks") or []:
        for element in block.get("elements", []) if block.get("type") == "actions" else []:
            if element.get("action_id") == "approve_reply":
                return element
    return None


def posted_ts(slack: SlackAPIServer, args: dict[str, Any]) -> str:
    return next(c["response"]["ts"] for c in slack.calls if c["args"] is args)


def wait_until(check: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout}s for {what}")
        time.sleep(0.05)


def the_run(db) -> Run | None:
    with db.session() as session:
        return session.exec(select(Run)).first()


def test_socket_mode_mention_then_approval_click(stand_ins, settings, db):
    slack, socket_mode = stand_ins
    settings = settings.model_copy(update={
        "slack_bot_token": SecretStr(BOT_TOKEN), "slack_app_token": SecretStr(APP_TOKEN),
        "slack_signing_secret": None, "slack_api_base_url": slack.url + "/api/",
        "slack_min_interval_seconds": 0.02, "slack_rate_scale": 100.0,
        "escalation_channel": settings.escalation_channel or "CQUEUE"})
    app, ctx = build_app(settings, db)
    ctx.identity.learn(ctx.client)
    sender = OutboxSender(db, settings, make_client(settings)).start()
    handler = SocketModeHandler(app, APP_TOKEN)
    try:
        handler.connect()
        socket_mode.wait_connected(timeout=5)
        [opened] = slack.wait_for("apps.connections.open", timeout=1)
        [call] = [c for c in slack.calls if c["method"] == "apps.connections.open"]
        assert opened == {} and call["headers"]["authorization"] == f"Bearer {APP_TOKEN}"
        assert call["response"] == {"ok": True, "url": socket_mode.url}
        assert handler.client.is_connected()

        # Slack delivers the mention; it is recorded and acked, the run goes on in the background
        socket_mode.send(mention_envelope())
        assert socket_mode.wait_for_ack("env-mention-1", timeout=5) == {"envelope_id": "env-mention-1"}
        first = slack.wait_for("chat.startStream", timeout=5, predicate=lambda a: a["thread_ts"] == MENTION_TS)[0]
        assert first["channel"] == "CSUPPORT" and "run #1" in first["chunks"][0]["text"]
        card = slack.wait_for("chat.postMessage", timeout=10, predicate=lambda a: approve_button(a) is not None)[0]
        assert card["thread_ts"] == MENTION_TS and card["channel"] == "CSUPPORT"
        ctx.dispatch.drain(timeout=10)
        run = the_run(db)
        assert run is not None and run.status == "awaiting_approval" and run.started_by == "ULEAD"
        assert run.origin["thread_ts"] == MENTION_TS
        assert staff_replies(db, "KITE-142") == [], "nothing sent before the click"

        # the lead clicks Approve on the card
        socket_mode.send(click_envelope(approve_button(card)["value"], posted_ts(slack, card)))
        assert socket_mode.wait_for_ack("env-click-1", timeout=5)["envelope_id"] == "env-click-1"
        wait_until(lambda: the_run(db).status == "completed", 10, "the run to complete")
        ctx.dispatch.drain(timeout=10)
        wait_until(sender.idle, 10, "the outbox to be delivered")
        assert len(staff_replies(db, "KITE-142")) == 1
        assert any(m.get("thread_ts") == MENTION_TS and "KITE-144" in (m.get("text") or "")
                   for m in slack.thread("CSUPPORT", MENTION_TS)), "the outcome is posted in the thread"
        assert not [c for c in slack.calls if not c["response"].get("ok")], slack.summary()
        assert not slack.warnings
        assert socket_mode.errors == []
        assert [a["envelope_id"] for a in socket_mode.acks] == ["env-mention-1", "env-click-1"]
    finally:
        handler.close()
        ctx.dispatch.shutdown()
        sender.stop()


# --- the stand-in itself, spoken to over a raw socket -----------------------------------------------------


def _read_frame(sock: socket.socket) -> tuple[int, bytes]:
    def exact(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            assert chunk, "the server hung up"
            data += chunk
        return data

    b1, b2 = exact(2)
    assert not b2 & 0x80, "server frames are never masked"
    length = b2 & 0x7F
    if length == 126:
        (length,) = struct.unpack("!H", exact(2))
    elif length == 127:
        (length,) = struct.unpack("!Q", exact(8))
    return b1 & 0x0F, exact(length)


def test_the_socket_mode_stand_in_speaks_rfc6455():
    with SocketModeServer(ping_interval=None) as server:
        port = int(server.url.rsplit(":", 1)[1].split("/")[0])
        key = base64.b64encode(os.urandom(16)).decode()
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(f"GET /link?ticket=t HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                         f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                head += sock.recv(1)
            assert head.startswith(b"HTTP/1.1 101 ") and f"Sec-WebSocket-Accept: {accept_key(key)}".encode() in head
            opcode, hello = _read_frame(sock)
            assert opcode == 0x1 and json.loads(hello)["type"] == "hello"
            assert json.loads(hello)["connection_info"] == {"app_id": "A0APP"}
            server.wait_connected(timeout=2)

            mask = os.urandom(4)
            for size in (10, 300, 70_000):  # 7-, 16- and 64-bit lengths
                sock.sendall(encode_frame(0x1, json.dumps({"envelope_id": f"e{size}", "pad": "x" * size}).encode(),
                                          mask=mask))
                assert server.wait_for_ack(f"e{size}", timeout=2)["pad"] == "x" * size
            part = json.dumps({"envelope_id": "frag"}).encode()
            sock.sendall(encode_frame(0x1, part[:5], fin=False, mask=mask) + encode_frame(0x9, b"hi", mask=mask)
                         + encode_frame(0x0, part[5:], mask=mask))
            assert _read_frame(sock) == (0xA, b"hi"), "a ping between fragments is answered"
            server.wait_for_ack("frag", timeout=2)
            big = {"envelope_id": "down", "payload": {"text": "y" * 70_000}}
            server.send(big)
            assert _read_frame(sock) == (0x1, json.dumps(big).encode())
            sock.sendall(encode_frame(0x8, struct.pack("!H", 1000) + b"bye", mask=mask))
            assert _read_frame(sock) == (0x8, struct.pack("!H", 1000))
        assert server.errors == []

        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:  # unmasked client frames: refused
            sock.sendall(f"GET /link HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                         f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
            server.wait_connected(timeout=2, count=2)
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                head += sock.recv(1)
            assert _read_frame(sock)[0] == 0x1  # hello
            sock.sendall(encode_frame(0x1, b"{}"))
            assert _read_frame(sock) == (0x8, struct.pack("!H", 1002) + b"protocol error")
        assert any("masked=False" in e for e in server.errors)
