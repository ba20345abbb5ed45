"""Buttons of one fix for many: **Draft for these N** under a run's ending starts its batch; **Approve all** on
the batch card approves every draft the card showed. Who may press them is the approvers (else the person who
started the run), as for a single draft; the per-ticket Approve / Edit… / Reject… are the single card's own."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App

from bot.listeners.actions import button_value, clicked_by, tell_clicker, whole_number
from bot.listeners.context import SlackContext
from bot.runs import BadInput
from bot.runs.intake import fan_out
from bot.runs.reports import batches
from bot.slack_ui import blocks as ui

logger = logging.getLogger(__name__)


def register(app: App, ctx: SlackContext) -> None:
    @app.action(ui.DRAFT_FOR_THESE)
    def handle_draft_for_these(ack: Ack, body: dict[str, Any]) -> None:
        value, user = button_value(body), clicked_by(body)
        run_id = whole_number(value.get("run_id"))
        tickets = [str(t) for t in value.get("tickets") or [] if isinstance(t, str)]
        started_by = batches.run_started_by(ctx.db, run_id) if run_id is not None else None
        problem = _not_allowed(ctx, user, started_by)
        if run_id is None or not tickets:
            problem = "That button is broken (it names no run or tickets); nothing was started."
        if problem or run_id is None:
            tell_clicker(ctx, body, problem or "That button names no run; nothing was started.")
            ack()
            return
        try:
            started = fan_out.start(ctx.db, run_id, actor=user, model=ctx.service.model_name,
                                    desk_kind=ctx.settings.desk, tickets=tickets)
        except BadInput as exc:
            tell_clicker(ctx, body, str(exc))
        else:
            for child_id, _ in [] if started.existed else started.children:
                ctx.dispatch(child_id)
            if started.existed or started.skipped:
                tell_clicker(ctx, body, started.sentence())
        ack()

    @app.action(ui.APPROVE_ALL)
    def handle_approve_all(ack: Ack, body: dict[str, Any]) -> None:
        value, user = button_value(body), clicked_by(body)
        batch_id = whole_number(value.get("batch_id"))
        shown = {number: str(fp) for raw, fp in (value.get("approvals") or {}).items()
                 if (number := whole_number(raw)) is not None}
        view = batches.batch(ctx.db, batch_id) if batch_id is not None and shown else None
        problem = "This batch no longer exists; nothing was sent." if view is None else \
            _not_allowed(ctx, user, view["requested_by"])
        if problem:
            tell_clicker(ctx, body, problem)
            ack()
            return
        try:
            decided = ctx.service.approve_all(int(batch_id or 0), actor=user, shown=shown)
        except BadInput as exc:
            tell_clicker(ctx, body, str(exc))
        else:
            for run_id in decided.run_ids:
                ctx.dispatch(run_id)
            said = decided.sentence()
            if said:
                tell_clicker(ctx, body, said)
        ack()


def _not_allowed(ctx: SlackContext, user: str, started_by: str | None) -> str | None:
    return ctx.service.people.why_not_decide(user, started_by)
