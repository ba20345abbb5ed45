"""Buttons: approve / edit / reject a draft reply; claim / resume / close an escalation."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from slack_bolt import Ack, App

from bot.db.models import Approval, Escalation, Run, utcnow
from bot.runs import escalations, queries
from bot.runs.service import BadInput
from bot.slack import queue
from bot.slack.authz import approvers_hint, may_decide
from bot.slack.context import SlackContext
from bot.slack_ui import blocks as ui

logger = logging.getLogger(__name__)


def register(app: App, ctx: SlackContext) -> None:
    @app.action(ui.APPROVE)
    def handle_approve(ack: Ack, body: dict[str, Any]) -> None:
        ack()
        found = _approval_for(ctx, body)
        if found is not None:
            approval, run = found
            problem = decide_and_continue(ctx, body["user"]["id"], approval, run, "approve",
                                          fingerprint=_value(body).get("fingerprint"))
            if problem:
                _tell(ctx, body, problem)

    @app.action(ui.EDIT)
    def handle_edit(ack: Ack, body: dict[str, Any], client: Any) -> None:
        ack()
        found = _approval_for(ctx, body)
        if found is not None:
            approval, _ = found
            client.views_open(trigger_id=body["trigger_id"], view=ui.build_edit_modal(
                metadata=_modal_metadata(body), ticket_id=(approval.tool_input or {}).get("ticket_id", ""),
                draft=(approval.tool_input or {}).get("message", "")))

    @app.action(ui.REJECT)
    def handle_reject(ack: Ack, body: dict[str, Any], client: Any) -> None:
        ack()
        found = _approval_for(ctx, body)
        if found is not None:
            approval, _ = found
            client.views_open(trigger_id=body["trigger_id"], view=ui.build_reject_modal(
                metadata=_modal_metadata(body), ticket_id=(approval.tool_input or {}).get("ticket_id", "")))

    @app.action(ui.CLAIM)
    def handle_claim(ack: Ack, body: dict[str, Any]) -> None:
        ack()
        escalation = _escalation_for(ctx, body)
        if escalation is None:
            return
        user = body["user"]["id"]
        won, message = escalations.claim(ctx.db, escalation.id, actor=user)
        if won:
            queue.update_escalation_message(ctx, escalation.id, status="claimed", actor=user)
            queue.refresh_homes(ctx)
        else:
            _tell(ctx, body, message)

    @app.action(ui.RESUME)
    def handle_resume(ack: Ack, body: dict[str, Any]) -> None:
        ack()
        escalation = _escalation_for(ctx, body)
        if escalation is None:
            return
        user = body["user"]["id"]
        try:
            ctx.service.reopen(escalation.run_id, actor=user)
        except BadInput as exc:
            _tell(ctx, body, str(exc))
            return
        queue.update_escalation_message(ctx, escalation.id, status="resumed", actor=user)
        _announce_in_thread(ctx, escalation.run_id, f":arrows_counterclockwise: <@{user}> resumed run "
                                                    f"#{escalation.run_id} with a fresh allowance.")
        ctx.dispatch(escalation.run_id, None)

    @app.action(ui.CLOSE)
    def handle_close(ack: Ack, body: dict[str, Any], client: Any) -> None:
        ack()
        escalation = _escalation_for(ctx, body)
        if escalation is None:
            return
        with ctx.db.session() as session:
            run = session.get(Run, escalation.run_id)
        client.views_open(trigger_id=body["trigger_id"], view=ui.build_close_modal(
            metadata={"escalation_id": escalation.id}, ticket_id=run.ticket_id or ""))

    @app.action(re.compile(".*"))
    def handle_unknown_action(ack: Ack, body: dict[str, Any]) -> None:
        ack()
        action = (body.get("actions") or [{}])[0].get("action_id")
        logger.warning("unknown action_id %r", action)
        _tell(ctx, body, "I don't know that button (it may be from an older version of this app); nothing was done.")


def decide_and_continue(ctx: SlackContext, user: str, approval: Approval, run: Run, action: str, *,
                        fingerprint: str | None, message: str | None = None, reason: str | None = None,
                        channel: str | None = None) -> str | None:
    """Record a decision if `user` may make it, update the draft message in place and continue the run.
    Returns a sentence for the person when nothing happened, else None."""
    if not may_decide(ctx, user, run.started_by):
        return "You're not allowed to decide on this reply. " + approvers_hint(ctx, run.started_by)
    try:
        decision = ctx.service.decide(approval.id, action=action, actor=user, message=message, reason=reason,
                                      expected_fingerprint=fingerprint)
    except BadInput as exc:
        return str(exc)
    if decision.outcome in ("not_found", "mismatch", "already_decided"):
        return decision.message
    origin = approval.origin or {}
    sent = message if action == "edit" else (approval.tool_input or {}).get("message", "")
    text, blocks = ui.build_approval_decided(ticket_id=(approval.tool_input or {}).get("ticket_id", ""),
                                             customer=_customer_name(ctx, approval), message=sent or "",
                                             status=decision.outcome, actor=user, when=utcnow(), reason=reason)
    if origin.get("channel") and origin.get("ts"):
        try:
            ctx.update(origin["channel"], origin["ts"], text, blocks)
        except Exception:
            logger.exception("could not update the approval message of approval %s", approval.id)
    ctx.dispatch(run.id, None)
    return None


def _approval_for(ctx: SlackContext, body: dict[str, Any]) -> tuple[Approval, Run] | None:
    value = _value(body)
    with ctx.db.session() as session:
        approval, run = queries.approval_with_run(session, int(value.get("approval_id", 0) or 0))
    if approval is None or run is None:
        _tell(ctx, body, "This draft no longer exists; nothing was sent.")
        return None
    if approval.status != "pending":
        _tell(ctx, body, f"This reply was already {approval.status} by {_who(approval.decided_by)}; nothing more was sent.")
        return None
    if not may_decide(ctx, body["user"]["id"], run.started_by):
        _tell(ctx, body, "You're not allowed to decide on this reply. " + approvers_hint(ctx, run.started_by))
        return None
    if approval.origin is None and body.get("container", {}).get("message_ts"):
        approval.origin = {"channel": body["channel"]["id"], "ts": body["container"]["message_ts"]}
    return approval, run


def _escalation_for(ctx: SlackContext, body: dict[str, Any]) -> Escalation | None:
    value = _value(body)
    with ctx.db.session() as session:
        escalation = session.get(Escalation, int(value.get("escalation_id", 0) or 0))
    if escalation is None:
        _tell(ctx, body, "That escalation no longer exists.")
        return None
    if ctx.settings.approvers and not may_decide(ctx, body["user"]["id"], None):
        _tell(ctx, body, "Only the approvers can act on the human queue. " + approvers_hint(ctx, None))
        return None
    return escalation


def _value(body: dict[str, Any]) -> dict[str, Any]:
    try:
        value = json.loads((body.get("actions") or [{}])[0].get("value") or "{}")
        return value if isinstance(value, dict) else {}
    except (ValueError, TypeError):
        return {}


def _modal_metadata(body: dict[str, Any]) -> dict[str, Any]:
    return {**_value(body), "channel": body.get("channel", {}).get("id"),
            "ts": body.get("container", {}).get("message_ts")}


def _tell(ctx: SlackContext, body: dict[str, Any], text: str) -> None:
    channel = (body.get("channel") or {}).get("id")
    user = (body.get("user") or {}).get("id")
    if channel and user:
        ctx.ephemeral(channel, user, text, thread_ts=(body.get("container") or {}).get("thread_ts"))


def _who(actor: str | None) -> str:
    return f"<@{actor}>" if actor and actor[:1] in "UW" else (actor or "someone")


def _customer_name(ctx: SlackContext, approval: Approval) -> str:
    with ctx.db.session() as session:
        return queries.customer_name(session, (approval.tool_input or {}).get("ticket_id", ""))


def _announce_in_thread(ctx: SlackContext, run_id: int, text: str) -> None:
    with ctx.db.session() as session:
        origin = session.get(Run, run_id).origin or {}
    if origin.get("channel") and origin.get("thread_ts"):
        ctx.post(origin["channel"], text, [ui.mrkdwn_section(text)], thread_ts=origin["thread_ts"])
