"""/kitebase handle KITE-142 · queue · status KITE-142 · stop RUN · intake status|pause|resume [RULE] · help"""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App

from bot.desk import ticket_ids_in
from bot.listeners.actions import stop_and_tell
from bot.listeners.context import SlackContext
from bot.listeners.take import take_request
from bot.runs import BadInput, asks
from bot.runs.intake.record import Request
from bot.slack_ui.intake import build_intake_changes, build_intake_status
from bot.slack_ui.limits import escape
from bot.slack_ui.queue import build_queue_message

logger = logging.getLogger(__name__)
USAGE = ("Try `/kitebase handle KITE-142, and tell me if other customers have hit the same problem`, "
         "`/kitebase queue`, `/kitebase status KITE-142` or `/kitebase stop 12`. Approvers: `/kitebase intake status|pause|resume [RULE]`.")
INTAKE_USAGE = "Try `/kitebase intake status`, `/kitebase intake pause RULE` or `/kitebase intake resume RULE`."


def register(app: App, ctx: SlackContext) -> None:
    @app.command("/kitebase")
    def handle_kitebase_command(ack: Ack, command: dict[str, Any]) -> None:
        text = str(command.get("text") or "").strip()
        word = text.split(" ", 1)[0].lower() if text else ""
        if word in ("", "help"):
            ack(USAGE)
        elif word == "queue":
            summary, blocks = build_queue_message(asks.queue(ctx.service))
            ack(text=summary, blocks=blocks)
        elif word == "status":
            ack(_status(ctx, text))
        elif word == "stop":
            ack(_stop(ctx, str(command.get("user_id") or ""), text.split()[1:]))
        elif word == "intake":
            ack(_intake(ctx, str(command.get("user_id") or ""), text.split()[1:]))
        else:
            _start(ctx, ack, command, text)


def _status(ctx: SlackContext, text: str) -> str:
    ids = ticket_ids_in(text, ctx.settings.desk)
    if not ids:
        return "Which ticket? e.g. `/kitebase status KITE-142`"
    run = asks.ticket_status(ctx.service, ids[0])
    if run is None:
        return f"No runs for {ids[0]} yet."
    line = f"{ids[0]}: run #{run['id']} is *{run['status'].replace('_', ' ')}* ({run['steps']} model calls, ${run['cost_usd']:.4f})."
    return line + (f"\nReason: {escape(run['reason'])}" if run["reason"] else "")


def _stop(ctx: SlackContext, user: str, words: list[str]) -> str:
    """`/kitebase stop RUN` (a run number, or a ticket whose run works now)."""
    target = words[0].lstrip("#") if len(words) == 1 else ""
    run_id = int(target) if target.isdigit() else None
    if run_id is None:
        ids = ticket_ids_in(" ".join(words), ctx.settings.desk)
        run = asks.ticket_status(ctx.service, ids[0]) if ids else None
        if run is None:
            return "Which run? e.g. `/kitebase stop 12` (the run number is in its thread) or `/kitebase stop KITE-142`."
        run_id = int(run["id"])
    return stop_and_tell(ctx, run_id, user) or f"Stopping run #{run_id}; its thread says when it has stopped."


def _intake(ctx: SlackContext, user: str, words: list[str]) -> str:
    """`intake status|pause|resume [RULE]`, for the approvers only (no person is behind an intake run, so the
    people who may decide on its drafts are the ones who steer the rules)."""
    action = words[0].lower() if words else "status"
    if action not in ("status", "pause", "resume") or len(words) > 2:
        return INTAKE_USAGE
    try:
        answer = asks.intake(ctx.service, user, action, words[1] if len(words) > 1 else None)
    except BadInput as exc:  # intake off, a bad rules file, an unknown rule: its sentence
        return escape(str(exc))
    if answer.refused is not None:
        return answer.refused
    if answer.status is not None:
        return build_intake_status(answer.status)
    return build_intake_changes(answer.changes or [])


def _start(ctx: SlackContext, ack: Ack, command: dict[str, Any], text: str) -> None:
    user, channel = str(command.get("user_id") or ""), str(command.get("channel_id") or "")
    intake = take_request(ctx, Request(text=text, user=user, channel=channel, ts=None,
                                       team=command.get("team_id"),
                                       delivery_key=f"cmd:{command.get('trigger_id') or ''}:{channel}:{user}"))
    if intake.told:
        ack(escape(intake.told))
    else:
        ack()
