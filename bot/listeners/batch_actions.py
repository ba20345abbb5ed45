"""Buttons of one fix for many: **Draft for these N** under a run's ending starts its batch; **Approve all** on
the batch card approves every draft the card showed. Who may press them is the approvers (else the person who
started the run), as for a single draft; the per-ticket Approve / Edit… / Reject… are the single card's own."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App

from bot.listeners.actions import button_value, clicked_by, continue_runs, tell_clicker, whole_number
from bot.listeners.context import SlackContext
from bot.runs import asks
from bot.slack_ui import blocks as ui

logger = logging.getLogger(__name__)


def register(app: App, ctx: SlackContext) -> None:
    @app.action(ui.DRAFT_FOR_THESE)
    def handle_draft_for_these(ack: Ack, body: dict[str, Any]) -> None:
        value = button_value(body)
        tickets = [str(t) for t in value.get("tickets") or [] if isinstance(t, str)]
        told = continue_runs(ctx, asks.draft_for_these(ctx.service, whole_number(value.get("run_id")),
                                                        clicked_by(body), tickets))
        if told:
            tell_clicker(ctx, body, told)
        ack()

    @app.action(ui.APPROVE_ALL)
    def handle_approve_all(ack: Ack, body: dict[str, Any]) -> None:
        value = button_value(body)
        shown = {number: str(fp) for raw, fp in (value.get("approvals") or {}).items()
                 if (number := whole_number(raw)) is not None}
        told = continue_runs(ctx, asks.approve_all(ctx.service, whole_number(value.get("batch_id")),
                                                    clicked_by(body), shown))
        if told:
            tell_clicker(ctx, body, told)
        ack()
