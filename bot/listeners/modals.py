"""Modal submissions: the edited reply, the reason for a rejection, the note that closes an escalation.
An edit is checked before the decision is recorded: an invalid one is shown in the modal and the draft
stays pending."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from slack_bolt import Ack, App

from bot.listeners.actions import decide_and_continue
from bot.listeners.context import SlackContext
from bot.runs import BadInput, asks
from bot.slack_ui import blocks as ui

logger = logging.getLogger(__name__)
ERROR_CHARS = 150  # Slack shows at most this much of a modal field's error


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
        escalation_id = _int(_metadata(view).get("escalation_id"))
        if escalation_id is None:
            ack(response_action="errors", errors={"note": "This escalation no longer exists."})
            return
        try:
            told = asks.close(ctx.service, escalation_id, _user(body), _field(view, "note", "note")).told
        except BadInput as exc:
            told = str(exc)
        if told:
            ack(response_action="errors", errors={"note": told[:ERROR_CHARS]})
            return
        ack()

    @app.view(ui.FEEDBACK_MODAL)
    def handle_feedback_submission(ack: Ack, body: dict[str, Any], view: dict[str, Any]) -> None:
        metadata = _metadata(view)
        run_id = _int(metadata.get("run_id"))
        note = _field(view, "note", "note")
        if run_id is not None and note.strip():
            try:
                asks.feedback_note(ctx.service, run_id, _user(body), note)
            except BadInput as exc:
                ack(response_action="errors", errors={"note": str(exc)[:ERROR_CHARS]})
                return
            ctx.tell(metadata.get("channel"), _user(body), f"Thanks: your note on run #{run_id} is recorded.",
                     thread_ts=metadata.get("thread_ts"))
        ack()

    @app.view(re.compile(".*"))
    def handle_unknown_view(ack: Ack, view: dict[str, Any]) -> None:
        logger.warning("unknown view callback_id %r", view.get("callback_id"))
        ack()


def _decide(ctx: SlackContext, ack: Ack, body: dict[str, Any], view: dict[str, Any], action: str, block: str,
            **text: str) -> None:
    metadata = _metadata(view)
    try:
        problem = decide_and_continue(ctx, _user(body), _int(metadata.get("approval_id")), action,
                                      fingerprint=metadata.get("fingerprint"), **text)
    except BadInput as exc:
        problem = str(exc)
    if problem:
        ack(response_action="errors", errors={block: problem[:ERROR_CHARS]})
    else:
        ack()


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _user(body: dict[str, Any]) -> str:
    return str((body.get("user") or {}).get("id") or "")


def _field(view: dict[str, Any], block: str, action: str) -> str:
    values = (view.get("state") or {}).get("values") or {}
    value = ((values.get(block) or {}).get(action) or {}).get("value")
    return value if isinstance(value, str) else ""


def _metadata(view: dict[str, Any]) -> dict[str, Any]:
    try:
        data = json.loads(view.get("private_metadata") or "{}")
        return data if isinstance(data, dict) else {}
    except (ValueError, TypeError):
        return {}
