"""A person asked for something (a mention, a DM, a slash command): record it, then let Slack have its
acknowledgement. Recording is one transaction (bot/runs/intake/record.py); no Slack call happens here."""

from __future__ import annotations

import logging

from bot.listeners.context import SlackContext
from bot.runs import asks
from bot.runs.intake.record import Intake, Request
from bot.telemetry.scope import note_run

logger = logging.getLogger(__name__)


def take_request(ctx: SlackContext, request: Request) -> Intake:
    """Record the request and, once committed, continue its run (this process's pool or a worker's queue)."""
    intake = asks.arrive(ctx.service, request)
    note_run(intake.run_id)  # bot/telemetry: the request's span and log lines name the run
    if intake.duplicate:
        logger.info("request %s already recorded", request.key)
    if intake.run_id is not None:
        ctx.dispatch(intake.run_id)
    return intake
