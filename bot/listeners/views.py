"""Modal submissions: the edited reply, the reason for a rejection, the note that closes an escalation."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from slack_bolt import Ack, App

from bot.listeners.actions import decide_and_continue
from bot.runs import escalations, queries
from bot.runs.service import BadInput
from bot.slack import queue
from bot.slack.context import SlackContext
from bot.slack_ui import blocks as ui

logger = logging.getLogger(__name__)


def register(app: App, ctx: SlackContext) -> None:
    @app.view(ui.EDIT_MODAL)
    def handle_edit_submission(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        message = _field(view, "reply", "message")
        if not message.strip():
            ack(response_action="errors", errors={"reply": "The reply can't be empty."})
            return
        _decide(ctx, ack, body, view, "edit", "reply", message=message)

    @app.view(ui.REJECT_MODAL)
    def handle_reject_submission(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        reason = _field(view, "reason", "reason")
        if not reason.strip():
            ack(response_action="errors", errors={"reason": "Say why, so the agent can revise the draft."})
            return
        _decide(ctx, ack, body, view, "reject", "reason", reason=reason)

    @app.view(ui.CLOSE_MODAL)
    def handle_close_submission(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        note = _field(view, "note", "note")
        metadata = _metadata(view)
        user = body["user"]["id"]
        try:
            closed, message = escalations.close(ctx.db, int(metadata.get("escalation_id", 0)), actor=user, note=note)
        except BadInput as exc:
            ack(response_action="errors", errors={"note": str(exc)})
            return
        if not closed:
            ack(response_action="errors", errors={"note": message})
            return
        ack()
        queue.update_escalation_message(ctx, int(metadata["escalation_id"]), status="closed", actor=user)
        queue.refresh_homes(ctx)

    @app.view(re.compile(".*"))
    def handle_unknown_view(ack: Ack, view: dict[str, Any]) -> None:
        logger.warning("unknown view callback_id %r", view.get("callback_id"))
        ack()


def _decide(ctx: SlackContext, ack: Ack, body: dict[str, Any], view: dict[str, Any], action: str, block: str,
            **text: str) -> None:
    metadata = _metadata(view)
    with ctx.db.session() as session:
        approval, run = queries.approval_with_run(session, int(metadata.get("approval_id", 0) or 0))
    if approval is None or run is None:
        ack(response_action="errors", errors={block: "This draft no longer exists; nothing was sent."})
        return
    if approval.origin is None and metadata.get("channel") and metadata.get("ts"):
        approval.origin = {"channel": metadata["channel"], "ts": metadata["ts"]}
    problem = decide_and_continue(ctx, body["user"]["id"], approval, run, action,
                                  fingerprint=metadata.get("fingerprint"), **text)
    if problem:
        ack(response_action="errors", errors={block: problem[:150]})
    else:
        ack()


def _field(view: dict[str, Any], block: str, action: str) -> str:
    return ((view.get("state", {}).get("values", {}).get(block, {}).get(action) or {}).get("value") or "")


def _metadata(view: dict[str, Any]) -> dict[str, Any]:
    try:
        data = json.loads(view.get("private_metadata") or "{}")
        return data if isinstance(data, dict) else {}
    except ValueError:
        return {}
