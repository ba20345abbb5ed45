"""Events: mentions, direct messages, App Home."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App

from bot.listeners.intake import handle_request
from bot.slack import queue
from bot.slack.context import SlackContext

logger = logging.getLogger(__name__)


def register(app: App, ctx: SlackContext) -> None:
    @app.event("app_mention")
    def handle_app_mention(event: dict[str, Any], body: dict[str, Any]) -> None:
        if event.get("bot_id"):
            return
        handle_request(ctx, text=event.get("text", ""), user=event.get("user", ""), channel=event["channel"],
                       ts=event["ts"], thread_ts=event.get("thread_ts"), team=body.get("team_id"))

    @app.event("message")
    def handle_message(event: dict[str, Any], body: dict[str, Any]) -> None:
        # Only direct messages to the bot: in channels a message that mentions the bot arrives as
        # app_mention too, and the delivery key keeps it to one run either way.
        if event.get("channel_type") != "im" or event.get("bot_id") or event.get("subtype"):
            return
        handle_request(ctx, text=event.get("text", ""), user=event.get("user", ""), channel=event["channel"],
                       ts=event["ts"], thread_ts=event.get("thread_ts"), team=body.get("team_id"))

    @app.event("app_home_opened")
    def handle_app_home_opened(event: dict[str, Any]) -> None:
        if event.get("tab", "home") != "home":
            return
        ctx.home_viewers.add(event["user"])
        queue.refresh_homes(ctx, {event["user"]})
