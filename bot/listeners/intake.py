"""A person asked for something (a mention, a DM, a slash command): start a run, or continue one."""

from __future__ import annotations

import logging
import re

from bot.db.engine import Database
from bot.db.models import Run
from bot.runs import deliveries, queries
from bot.runs.service import BadInput
from bot.slack.context import SlackContext
from bot.slack_ui import blocks as ui

logger = logging.getLogger(__name__)
MENTION = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")


def strip_mentions(text: str) -> str:
    return " ".join(MENTION.sub(" ", text or "").split())


def handle_request(ctx: SlackContext, *, text: str, user: str, channel: str, ts: str, thread_ts: str | None,
                   team: str | None, delivery_key: str | None = None) -> int | None:
    """Start a run (or feed a follow-up to the run of this thread). At most once per human message."""
    if not deliveries.claim(ctx.db, delivery_key or f"msg:{channel}:{ts}"):
        logger.info("message %s/%s already handled", channel, ts)
        return None
    goal = strip_mentions(text)
    if thread_ts and thread_ts != ts:
        run = _thread_run(ctx.db, channel, thread_ts)
        if run is not None:
            return _follow_up(ctx, run.id, goal, user, channel, thread_ts)
    reply_ts = thread_ts or ts
    try:
        run_id = ctx.service.start(goal, started_by=user, origin={
            "surface": "slack", "channel": channel, "thread_ts": reply_ts, "team": team, "user": user, "ts": ts})
    except BadInput as exc:
        ctx.post(channel, str(exc), [ui.mrkdwn_section(f":information_source: {ui.escape(str(exc))}")],
                 thread_ts=reply_ts)
        return None
    deliveries.link_run(ctx.db, delivery_key or f"msg:{channel}:{ts}", run_id)
    with ctx.db.session() as session:
        run = session.get(Run, run_id)
    started_text, blocks = ui.build_run_started(run_id, run.ticket_id or "", run.model)
    ctx.post(channel, started_text, blocks, thread_ts=reply_ts)
    ctx.dispatch(run_id, None)
    return run_id


def _follow_up(ctx: SlackContext, run_id: int, goal: str, user: str, channel: str, thread_ts: str) -> int | None:
    try:
        ctx.service.follow_up(run_id, goal, actor=user)
    except BadInput as exc:
        ctx.post(channel, str(exc), [ui.mrkdwn_section(f":information_source: {ui.escape(str(exc))}")],
                 thread_ts=thread_ts)
        return None
    ctx.post(channel, f"Continuing run #{run_id} with your follow-up.",
             [ui.mrkdwn_section(f":arrows_counterclockwise: Continuing run #{run_id} with <@{user}>'s follow-up "
                                "(fresh allowance of steps and tokens).")], thread_ts=thread_ts)
    ctx.dispatch(run_id, None)
    return run_id


def _thread_run(db: Database, channel: str, thread_ts: str) -> Run | None:
    with db.session() as session:
        return queries.run_in_thread(session, channel, thread_ts)
