"""The real Bolt app over signed HTTP (waitress), its WebClients pointed at the Slack stand-in, and the real
outbox sender delivering what the runs write."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr
from waitress.server import create_server

from bot.app import build_app
from bot.config import Settings
from bot.db.engine import Database
from bot.listeners.context import SlackContext
from bot.outbox.sender import OutboxSender
from bot.runs.lifecycle.service import RunService
from bot.server import make_wsgi
from bot.slack.client import make_client
from standins.slack_requests import SlackSender
from standins.slack_server import SlackAPIServer

SECRET = "test-signing-secret-0123456789"
BOT_TOKEN = "xoxb-test-0123456789"


@dataclass
class Harness:
    slack: SlackAPIServer
    send: SlackSender
    ctx: SlackContext
    db: Database
    url: str
    sender: OutboxSender

    def drain(self, timeout: float = 30) -> None:
        """Wait until no run is being continued and everything the runs wrote for Slack is delivered."""
        deadline, calm = time.monotonic() + timeout, 0
        while time.monotonic() < deadline:
            runs_idle = not hasattr(self.ctx.dispatch, "busy") or not self.ctx.dispatch.busy()
            calm = calm + 1 if runs_idle and self.sender.idle() else 0
            if calm >= 3:
                return
            time.sleep(0.03)
        raise AssertionError("the app never went idle:\n" + self.slack.summary())

    def invite(self, channel: str, inviter: str = "ULEAD") -> tuple[int, str]:
        """A person invites the bot to `channel`: the stand-in lets it post there, and Slack's member_joined_channel
        event reaches the app over signed HTTP."""
        return self.send.event(self.slack.invite(channel, inviter))

    def thread_texts(self, channel: str, thread_ts: str) -> list[str]:
        return [m.get("text", "") or "" for m in self.slack.thread(channel, thread_ts)]

    def approval_card(self) -> dict[str, Any]:
        for call in reversed(self.slack.calls_to("chat.postMessage")):
            for block in call.get("blocks") or []:
                if block.get("type") == "actions" and block["elements"][0]["action_id"] == "approve_reply":
                    return {"call": call, "value": block["elements"][0]["value"], "ts": _ts_of(self.slack, call)}
        raise AssertionError("no approval card was posted:\n" + self.slack.summary())

    def shown_button(self, action_id: str) -> dict[str, Any]:
        """The newest message's button `action_id` as Slack shows it now (after any chat.update), with the
        message's `ts` and `channel` and its value decoded as `value_json`."""
        for (channel, ts), message in sorted(self.slack.messages.items(), key=lambda kv: float(kv[0][1]),
                                             reverse=True):
            for block in message.get("blocks") or []:
                for element in block.get("elements", []) if block.get("type") == "actions" else []:
                    if element.get("action_id") == action_id:
                        return {**element, "ts": ts, "channel": channel, "value_json": json.loads(element["value"])}
        raise AssertionError(f"no {action_id} button is shown:\n" + self.slack.summary())

    def value(self, action_id: str) -> str:
        for call in reversed(self.slack.calls_to("chat.postMessage")):
            for block in call.get("blocks") or []:
                for element in block.get("elements", []) if block.get("type") == "actions" else []:
                    if element["action_id"] == action_id:
                        return element["value"]
        raise AssertionError(f"no {action_id} button was posted")


def _ts_of(slack: SlackAPIServer, args: dict[str, Any]) -> str:
    for call in slack.calls:
        if call["args"] is args:
            return call["response"]["ts"]
    raise AssertionError("posted message not found")


def harness_settings(settings: Settings, slack: SlackAPIServer) -> Settings:
    return settings.model_copy(update={
        "slack_bot_token": SecretStr(BOT_TOKEN), "slack_signing_secret": SecretStr(SECRET),
        "slack_api_base_url": slack.url + "/api/", "slack_min_interval_seconds": 0.02, "slack_rate_scale": 100.0,
        "escalation_channel": settings.escalation_channel or "CQUEUE"})


def start_harness(settings: Settings, db: Database, *, model_factory: Any = None,
                  slack: SlackAPIServer | None = None) -> tuple[Harness, Any]:
    """The web side. In queue mode (settings.execution == "queue") the workers continue runs and deliver the
    outbox, as in production; `harness.sender` still exists, for tests that look at the outbox."""
    own_slack = slack is None
    slack = slack or SlackAPIServer().start()
    settings = harness_settings(settings, slack)
    service = RunService(db, settings, model_factory=model_factory) if model_factory else RunService(db, settings)
    app, ctx = build_app(settings, db, service=service)
    ctx.identity.learn(ctx.client)  # serve does this in the background at start-up
    sender = OutboxSender(db, settings, make_client(settings))
    if settings.execution != "queue":
        sender.start()
    server = create_server(make_wsgi(app, ctx), host="127.0.0.1", port=0, threads=8)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.effective_port}"
    harness = Harness(slack, SlackSender(url + "/slack/events", SECRET), ctx, db, url, sender)

    def stop() -> None:
        try:
            harness.drain()
        finally:
            stop_waitress(server, thread)
            ctx.dispatch.shutdown()
            sender.stop()
            if own_slack:
                slack.stop()

    return harness, stop


def stop_waitress(server: Any, thread: threading.Thread) -> None:
    """Stop a waitress server running on `thread`. Its sockets are closed in its own loop thread (a thunk given
    to its trigger): closed from here, a socket could vanish between the loop listing its sockets and its
    select() on them, which then fails with "Bad file descriptor" in that thread. With every socket closed the
    loop ends; then the request threads are stopped."""

    def close_all() -> None:
        for channel in list(server._map.values()):
            if channel is not server and channel is not server.trigger:
                channel.handle_close()
        server.close()  # the listening socket and the trigger: the loop's map is empty, so the loop ends

    server.trigger.pull_trigger(close_all)
    thread.join(timeout=60)
    if thread.is_alive():
        raise AssertionError("waitress's loop did not end after its sockets were closed")
    server.task_dispatcher.shutdown()


def decode(value: str) -> dict[str, Any]:
    return json.loads(value)
