"""Buttons: approve / edit / reject a draft reply; claim / resume / close an escalation.

A click is recorded (the decision, and what Slack must show because of it) before Slack gets its 200; the
run is continued after the commit; the card and any "not allowed" note reach Slack through the outbox."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from slack_bolt import Ack, App
from slack_sdk.errors import SlackApiError, SlackClientError

from bot.listeners.context import SlackContext
from bot.runs import BadInput, asks
from bot.slack_ui import blocks as ui
from bot.slack_ui import cards
from bot.slack_ui.feedback_note import build_feedback_modal

logger = logging.getLogger(__name__)


def register(app: App, ctx: SlackContext) -> None:
    @app.action(ui.APPROVE)
    def handle_approve(ack: Ack, body: dict[str, Any]) -> None:
        value = button_value(body)
        problem = decide_and_continue(ctx, clicked_by(body), whole_number(value.get("approval_id")), "approve",
                                      fingerprint=value.get("fingerprint"))
        if problem:
            tell_clicker(ctx, body, problem)
        ack()

    @app.action(ui.EDIT)
    def handle_edit(ack: Ack, body: dict[str, Any], client: Any) -> None:
        ack()
        approval = _pending_approval(ctx, body)
        if approval is not None:
            target = approval["target"] or {}
            _open_form(ctx, body, client, cards.build_edit_modal(
                metadata=_modal_metadata(body), ticket_id=str(approval["input"].get("ticket_id", "")),
                customer=target.get("customer", "the customer"), draft=str(approval["input"].get("message", ""))),
                form="the edit form", then="Nothing was sent and the draft still waits. Click Edit again in a minute.")

    @app.action(ui.REJECT)
    def handle_reject(ack: Ack, body: dict[str, Any], client: Any) -> None:
        ack()
        approval = _pending_approval(ctx, body)
        if approval is not None:
            _open_form(ctx, body, client, cards.build_reject_modal(
                metadata=_modal_metadata(body), ticket_id=str(approval["input"].get("ticket_id", ""))),
                form="the reject form",
                then="Nothing was sent and the draft still waits. Click Reject again in a minute.")

    @app.action(ui.CLAIM)
    def handle_claim(ack: Ack, body: dict[str, Any]) -> None:
        told = continue_runs(ctx, asks.claim(ctx.service, _escalation_id(body), clicked_by(body)))
        if told:
            tell_clicker(ctx, body, told)
        ack()

    @app.action(ui.RESUME)
    def handle_resume(ack: Ack, body: dict[str, Any]) -> None:
        told = continue_runs(ctx, asks.resume(ctx.service, _escalation_id(body), clicked_by(body)))
        if told:
            tell_clicker(ctx, body, told)
        ack()

    @app.action(ui.CLOSE)
    def handle_close(ack: Ack, body: dict[str, Any], client: Any) -> None:
        ack()
        escalation, problem = asks.escalation_for(ctx.service, _escalation_id(body), clicked_by(body))
        if escalation is None:
            tell_clicker(ctx, body, problem or "")
            return
        _open_form(ctx, body, client, cards.build_close_modal(
            metadata={"escalation_id": escalation["id"]}, ticket_id=escalation["run"]["ticket_id"] or ""),
            form="the close form", then="The escalation is still open. Click Close again in a minute.")

    @app.action(ui.FEEDBACK)
    def handle_feedback(ack: Ack, body: dict[str, Any], client: Any) -> None:
        value, _, raw_run = str((body.get("actions") or [{}])[0].get("value") or "").partition(":")
        run_id = whole_number(raw_run)
        try:
            if run_id is None:
                raise BadInput("That feedback button is broken; nothing was recorded.")
            asks.give_feedback(ctx.service, run_id, clicked_by(body), value)
        except BadInput as exc:
            tell_clicker(ctx, body, str(exc))
            ack()
            return
        ack()
        if value == "down":  # the thumbs down is recorded; the modal only adds an optional note
            _open_form(ctx, body, client, build_feedback_modal(
                run_id=run_id, channel=(body.get("channel") or {}).get("id"),
                thread_ts=(body.get("container") or {}).get("thread_ts")),
                form="the form for a note",
                then=f"Your thumbs down on run #{run_id} is recorded all the same; the note was optional.")
        else:
            tell_clicker(ctx, body, f"Thanks: your thumbs up on run #{run_id} is recorded.")

    @app.action(ui.STOP)
    def handle_stop(ack: Ack, body: dict[str, Any]) -> None:
        run_id = whole_number(button_value(body).get("run_id"))
        problem = "That Stop button is broken; nothing was stopped." if run_id is None else \
            stop_and_tell(ctx, run_id, clicked_by(body))
        if problem:
            tell_clicker(ctx, body, problem)
        ack()

    @app.action(re.compile(".*"))
    def handle_unknown_action(ack: Ack, body: dict[str, Any]) -> None:
        action = (body.get("actions") or [{}])[0].get("action_id")
        logger.warning("unknown action_id %r", action)
        tell_clicker(ctx, body, "I don't know that button (it may be from an older version of this app); nothing was done.")
        ack()


def decide_and_continue(ctx: SlackContext, user: str, approval_id: int | None, action: str, *,
                        fingerprint: str | None, message: str | None = None, reason: str | None = None) -> str | None:
    """One call to the run layer (bot/runs/asks.py), then continue the run. Returns a sentence for the person
    when nothing happened (the card shows what did), else None. Raises BadInput for an edit that fails its checks."""
    answer = asks.decide(ctx.service, approval_id, user, action, fingerprint=fingerprint, message=message,
                         reason=reason)
    return continue_runs(ctx, answer)


def stop_and_tell(ctx: SlackContext, run_id: int, user: str) -> str | None:
    """Stop a run for `user`; None once it is recorded (the run's thread says "Stopped by" once it has stopped),
    else the sentence for them."""
    return continue_runs(ctx, asks.stop(ctx.service, run_id, user))


def continue_runs(ctx: SlackContext, answer: asks.Answer) -> str | None:
    """Continue the runs a person's ask names (a run waiting for a decision, or queued, has no worker to go on);
    the sentence for them, if any."""
    for run_id in answer.runs:
        ctx.dispatch(run_id)
    return answer.told


def _pending_approval(ctx: SlackContext, body: dict[str, Any]) -> dict[str, Any] | None:
    approval, problem = asks.draft_for(ctx.service, whole_number(button_value(body).get("approval_id")),
                                       clicked_by(body))
    if problem:
        tell_clicker(ctx, body, problem)
    return approval


def _escalation_id(body: dict[str, Any]) -> int | None:
    return whole_number(button_value(body).get("escalation_id"))


def whole_number(value: Any) -> int | None:
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def clicked_by(body: dict[str, Any]) -> str:
    return str((body.get("user") or {}).get("id") or "")


def button_value(body: dict[str, Any]) -> dict[str, Any]:
    try:
        value = json.loads((body.get("actions") or [{}])[0].get("value") or "{}")
        return value if isinstance(value, dict) else {}
    except (ValueError, TypeError, AttributeError):
        return {}


def _modal_metadata(body: dict[str, Any]) -> dict[str, Any]:
    return {**button_value(body), "channel": (body.get("channel") or {}).get("id"),
            "ts": (body.get("container") or {}).get("message_ts")}


def _open_form(ctx: SlackContext, body: dict[str, Any], client: Any, view: dict[str, Any], *, form: str,
               then: str) -> None:
    """views.open, the one Slack call a listener makes (a trigger_id lives 3 s, too short for the outbox).
    When Slack does not open the form, the click has already been acknowledged and changed nothing: the person
    is told so (through the outbox, which waits out the outage), and the log gets a line, not a traceback."""
    try:
        client.views_open(trigger_id=body["trigger_id"], view=view)
    except (SlackClientError, OSError) as exc:
        answer = exc.response.get("error") if isinstance(exc, SlackApiError) else None
        logger.warning("views.open for %s failed: %s", view.get("callback_id"), answer or type(exc).__name__)
        said = f" (it answered “{answer}”)" if isinstance(answer, str) and answer else ""
        tell_clicker(ctx, body, f"Slack didn't open {form}{said}. {then}")


def tell_clicker(ctx: SlackContext, body: dict[str, Any], text: str) -> None:
    ctx.tell((body.get("channel") or {}).get("id"), clicked_by(body) or None, text,
             thread_ts=(body.get("container") or {}).get("thread_ts"))
