"""Build the Bolt app and everything it needs; register listeners. Nothing else."""

from __future__ import annotations

import logging
import os
import traceback
from typing import Any

from slack_bolt import App, BoltResponse
from slack_sdk import WebClient

from bot.config import Settings
from bot.db.engine import Database
from bot.listeners import register_all
from bot.listeners.context import SlackContext
from bot.listeners.shapes import check_shape
from bot.runs.lifecycle.service import RunService
from bot.slack.client import make_client
from bot.slack.identity import BotIdentity

logger = logging.getLogger(__name__)


def _raised_in(error: Exception, package: str) -> bool:
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and f"{os.sep}{package}{os.sep}" in frames[-1].filename


def build_dispatch(settings: Settings, service: RunService) -> Any:
    """Where a recorded run continues: this process's pool (embedded) or the workers' queue."""
    if settings.execution == "queue":
        from bot.runs.execution.workqueue import QueueDispatcher

        return QueueDispatcher(settings)
    from bot.runs.execution.dispatch import Dispatcher

    return Dispatcher(service, settings.run_workers)


def build_app(settings: Settings, db: Database, *, service: RunService | None = None,
              client: WebClient | None = None, dispatch: Any = None) -> tuple[App, SlackContext]:
    """The Bolt app. Listeners run before Slack gets its answer (process_before_response): they only record
    (one short transaction each) and never call Slack, except views.open for a modal."""
    service = service or RunService(db, settings)
    ctx = SlackContext(settings=settings, service=service, client=client or make_client(settings, timeout=3))
    ctx.dispatch = dispatch if dispatch is not None else build_dispatch(settings, service)
    signing = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    ctx.identity = BotIdentity(ctx.client.token)
    tokenless = WebClient(base_url=ctx.client.base_url, timeout=ctx.client.timeout)  # the token comes from authorize
    tokenless.retry_handlers.clear()
    # Bolt checks every HTTP request's signature (Socket Mode needs none, and may run without a signing secret).
    app = App(client=tokenless, signing_secret=signing, authorize=ctx.identity.authorizer(),
              request_verification_enabled=signing is not None, ignoring_self_events_enabled=True,
              process_before_response=True)
    app.use(check_shape)  # after the signature: a payload our listeners cannot read is a 400
    register_all(app, ctx)

    @app.error
    def handle_errors(error: Exception, body: dict) -> BoltResponse | None:
        if _raised_in(error, "signature"):  # slack_sdk's verifier on a timestamp that is not a number
            return BoltResponse(status=401, body={"ok": False, "error": "invalid request signature"})
        if _raised_in(error, "slack_bolt"):  # Bolt's own code choked on an odd payload: the request is at fault
            logger.warning("a malformed Slack request (%s: %s); answered 400", type(error).__name__, error)
            return BoltResponse(status=400, body={"ok": False, "error": "malformed request"})
        logger.exception("unhandled error in a Slack listener (Slack gets a 500 and retries)", exc_info=error)
        return None

    return app, ctx
