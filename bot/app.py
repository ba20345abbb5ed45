"""Build the Bolt app and everything it needs; register listeners. Nothing else."""

from __future__ import annotations

import logging
from concurrent.futures import Executor

from slack_bolt import App
from slack_sdk import WebClient

from bot.agent.events import Observer
from bot.agent.state import RunState
from bot.config import Settings
from bot.db.engine import Database
from bot.listeners import register_all
from bot.runs.dispatch import Dispatcher
from bot.runs.service import RunService
from bot.slack.client import Pacer, make_client
from bot.slack.context import SlackContext
from bot.slack.reporter import ThreadReporter

logger = logging.getLogger(__name__)


def build_context(settings: Settings, db: Database, *, service: RunService | None = None,
                  client: WebClient | None = None) -> SlackContext:
    """The Slack side without Bolt: what a worker needs to report runs in their threads."""
    return SlackContext(settings=settings, db=db, client=client or make_client(settings),
                        service=service or RunService(db, settings), pacer=Pacer(settings.slack_min_interval_seconds))


def build_app(settings: Settings, db: Database, *, service: RunService | None = None,
              client: WebClient | None = None, listener_executor: Executor | None = None) -> tuple[App, SlackContext]:
    """The Bolt app. Runs continue in this process (embedded) or on workers (KITEBASE_EXECUTION=queue)."""
    ctx = build_context(settings, db, service=service, client=client)
    client = ctx.client
    if settings.execution == "queue":
        from bot.runs.workqueue import QueueDispatcher

        ctx.dispatch = QueueDispatcher(settings)
    else:
        ctx.dispatch = Dispatcher(ctx.service, lambda run_id: ThreadReporter(ctx, run_id), settings.run_workers,
                                  after=lambda run_id, state, observer: after_run(ctx, run_id, state, observer))
    signing = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    app = App(client=client, signing_secret=signing, token_verification_enabled=False,
              request_verification_enabled=settings.slack_app_token is None, ignoring_self_events_enabled=True,
              **({"listener_executor": listener_executor} if listener_executor else {}))
    register_all(app, ctx)

    @app.error
    def handle_errors(error: Exception, body: dict) -> None:
        logger.exception("unhandled error in a Slack listener", exc_info=error)

    return app, ctx


def after_run(ctx: SlackContext, run_id: int, state: RunState | None, observer: Observer | None) -> None:
    """A run that died before the loop could report (an internal failure) still gets its ending posted."""
    if state is None or not isinstance(observer, ThreadReporter) or observer.finished:
        return
    if state.status in ("completed", "escalated", "failed"):
        observer.on_finished(state)
