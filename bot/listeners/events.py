"""Events: mentions, direct messages, App Home and its Messages tab, Slack's own Stop on an agent session, the bot
invited to a channel (member_joined_channel: what waited for that channel is posted). Each
is recorded before Slack gets its 200 (the app runs with process_before_response), so an acknowledged mention is
never lost. The bot's own messages never get here (Bolt's ignoring_self_events)."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import App

from bot.listeners.actions import continue_runs
from bot.listeners.context import SlackContext
from bot.listeners.take import take_request
from bot.runs import asks
from bot.runs.intake import reach
from bot.runs.intake.record import Request

logger = logging.getLogger(__name__)


def register(app: App, ctx: SlackContext) -> None:
    @app.event("app_mention")
    def handle_app_mention(event: dict[str, Any], body: dict[str, Any]) -> None:
        _mention(ctx, event, body)

    @app.event("message")
    def handle_message(event: dict[str, Any], body: dict[str, Any]) -> None:
        _message(ctx, event, body)

    @app.event("agent_session_stopped")
    def handle_agent_session_stopped(event: dict[str, Any]) -> None:
        _session_stopped(ctx, event)

    @app.event("app_home_opened")
    def handle_app_home_opened(event: dict[str, Any]) -> None:
        _home_opened(ctx, event)

    @app.event("member_joined_channel")  # Bolt keeps this one even when the member is the bot itself
    def handle_member_joined_channel(event: dict[str, Any], body: dict[str, Any]) -> None:
        _joined(ctx, event, body)


def _mention(ctx: SlackContext, event: dict[str, Any], body: dict[str, Any]) -> None:
    if not event.get("bot_id"):
        take_request(ctx, _request(event, body))


def _home_opened(ctx: SlackContext, event: dict[str, Any]) -> None:
    """The Home tab shows the queue, drafts and runs; the Messages tab (the agent's DM) its suggested prompts."""
    user, channel, tab = event.get("user"), event.get("channel"), event.get("tab", "home")
    if tab == "home" and isinstance(user, str):
        ctx.service.home_opened(user)
    elif tab == "messages" and isinstance(user, str) and isinstance(channel, str) and channel.startswith("D"):
        asks.messages_tab_opened(ctx.service, user, channel)


def _message(ctx: SlackContext, event: dict[str, Any], body: dict[str, Any]) -> None:
    # Only direct messages to the bot: in channels a message that mentions the bot arrives as app_mention
    # too, and the delivery key keeps it to one run either way.
    if event.get("channel_type") == "im" and not event.get("bot_id") and not event.get("subtype"):
        take_request(ctx, _request(event, body))


def _request(event: dict[str, Any], body: dict[str, Any]) -> Request:
    return Request(text=str(event.get("text") or ""), user=str(event.get("user") or ""),
                   channel=str(event.get("channel") or ""), ts=str(event.get("ts") or ""),
                   thread_ts=str(event["thread_ts"]) if event.get("thread_ts") else None,
                   team=body.get("team_id") if isinstance(body.get("team_id"), str) else None)


def _joined(ctx: SlackContext, event: dict[str, Any], body: dict[str, Any]) -> None:
    """The bot was invited to a channel: the rule posting there starts runs again, and what waited is posted."""
    bot_user = getattr(ctx.identity, "user_id", None) or next(
        (a.get("user_id") for a in body.get("authorizations") or [] if isinstance(a, dict) and a.get("is_bot")), None)
    channel, user = str(event.get("channel") or ""), str(event.get("user") or "")
    if reach.joined(ctx.service.db, channel, user, bot_user):
        logger.info("the bot was invited to %s: what waited for it goes out now", channel)


def _session_stopped(ctx: SlackContext, event: dict[str, Any]) -> None:
    """Slack's own Stop on the agent session of a run's thread: the same stop as the button."""
    channel, thread_ts, user = (str(event.get(k) or "") for k in ("channel", "thread_ts", "user"))
    if not (channel and thread_ts and user):
        logger.warning("agent_session_stopped without a channel, thread or user; ignored")
        return
    told = continue_runs(ctx, asks.stop_thread(ctx.service, channel=channel, thread_ts=thread_ts, user=user))
    if told:
        ctx.tell(channel, user, told, thread_ts=thread_ts)
