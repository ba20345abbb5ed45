"""A person asked for something (a mention, a DM, a slash command): record it, then let Slack have its
acknowledgement. Recording is one transaction (bot/runs/intake/record.py); no Slack call happens here."""

from __future__ import annotations

import logging

from bot.listeners.context import SlackContext
from bot.runs.intake.record import Intake, Request, record
from bot.telemetry.scope import note_run

logger = logging.getLogger(__name__)


def take_request(ctx: SlackContext, request: Request) -> Intake:
    """Record the request and, once committed, continue its run (this process's pool or a worker's queue)."""
    intake = record(ctx.db, request, model=ctx.service.model_name, max_goal_chars=ctx.settings.max_goal_chars,
                    desk=ctx.settings.desk, decides=ctx.service.people.may_decide)
    note_run(intake.run_id)  # bot/telemetry: the request's span and log lines name the run
    if intake.duplicate:
        logger.info("request %s already recorded", request.key)
    if intake.run_id is not None:
        ctx.dispatch(intake.run_id)
    return intake
