"""/kitebase handle KITE-142 · queue · status KITE-142 · help"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App

from bot.listeners.intake import handle_request
from bot.runs import queries
from bot.runs.service import BadInput
from bot.slack.context import SlackContext
from bot.slack_ui import blocks as ui
from tools import ticket_ids_in

logger = logging.getLogger(__name__)
USAGE = ("Try `/kitebase handle KITE-142, and tell me if other customers have hit the same problem`, "
         "`/kitebase queue` or `/kitebase status KITE-142`.")


def register(app: App, ctx: SlackContext) -> None:
    @app.command("/kitebase")
    def handle_kitebase_command(ack: Ack, command: dict[str, Any]) -> None:
        text = (command.get("text") or "").strip()
        word = text.split(" ", 1)[0].lower() if text else ""
        if word in ("", "help"):
            ack(USAGE)
        elif word == "queue":
            with ctx.db.session() as session:
                summary, blocks = ui.build_queue_message(queries.queue(session))
            ack(text=summary, blocks=blocks)
        elif word == "status":
            ack(_status(ctx, text))
        else:
            _start(ctx, ack, command, text)


def _status(ctx: SlackContext, text: str) -> str:
    ids = ticket_ids_in(text)
    if not ids:
        return "Which ticket? e.g. `/kitebase status KITE-142`"
    with ctx.db.session() as session:
        run = queries.latest_run_for_ticket(session, ids[0])
    if run is None:
        return f"No runs for {ids[0]} yet."
    status = run.status.replace("_", " ")
    line = f"{ids[0]}: run #{run.id} is *{status}* ({run.steps} model calls, ${run.cost_usd:.4f})."
    return line + (f"\nReason: {run.reason}" if run.reason else "")


def _start(ctx: SlackContext, ack: Ack, command: dict[str, Any], text: str) -> None:
    try:
        ctx.service.check_goal(text)
    except BadInput as exc:
        ack(str(exc))
        return
    ack()
    user, channel = command["user_id"], command["channel_id"]
    parent = ctx.post(channel, f"<@{user}> asked: {text}", [ui.mrkdwn_section(f"<@{user}> asked: {ui.escape(text)}")])
    handle_request(ctx, text=text, user=user, channel=channel, ts=parent, thread_ts=None,
                   team=command.get("team_id"), delivery_key=f"cmd:{command.get('trigger_id') or parent}")
