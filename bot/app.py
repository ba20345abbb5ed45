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
from bot.runs.lifecycle.service import RunService
from bot.slack.client import make_client
from bot.slack.context import SlackContext
from bot.slack.identity import BotIdentity

logger = logging.getLogger(__name__)


def _raised_in_bolt(error: Exception) -> bool:
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and f"{os.sep}slack_bolt{os.sep}" in frames[-1].filename


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
    # Request signatures are checked before Bolt, by bot/server.make_wsgi (with a clear 401 for every way a
    # request can be unsigned); Socket Mode needs none.
    app = App(client=tokenless, signing_secret=signing, authorize=ctx.identity.authorizer(),
              request_verification_enabled=False, ignoring_self_events_enabled=True, process_before_response=True)
    register_all(app, ctx)

    @app.error
    def handle_errors(error: Exception, body: dict) -> BoltResponse | None:
        if _raised_in_bolt(error):  # Bolt's own code choked on an odd payload: the request is at fault
            logger.warning("a malformed Slack request (%s: %s); answered 400", type(error).__name__, error)
            return BoltResponse(status=400, body="malformed request")
        logger.exception("unhandled error in a Slack listener (Slack gets a 500 and retries)", exc_info=error)
        return None

    return app, ctx
