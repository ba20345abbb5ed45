"""`kitebase worker`: continue runs from the PostgreSQL task queue (KITEBASE_EXECUTION=queue), and run the timers."""

from __future__ import annotations

import logging

from bot.agent.events import Observer
from bot.config import Settings
from bot.db.engine import Database, create_schema
from bot.db.seed import seed_desk
from bot.jobs import build_scheduler
from bot.runs.service import RunService
from bot.runs.workqueue import QUEUE, QueueDispatcher, build_worker_app, ensure_schema

logger = logging.getLogger(__name__)


def run_worker(settings: Settings) -> int:
    if settings.execution != "queue":
        print("kitebase worker: set KITEBASE_EXECUTION=queue and a PostgreSQL DATABASE_URL "
              "(with the default embedded execution, `kitebase serve` runs the agent itself).")
        return 2
    db = Database.from_url(settings.database_url)
    create_schema(db.engine)
    seed_desk(db, settings.data_dir)
    ensure_schema(settings)
    service = RunService(db, settings)
    ctx = None
    if settings.slack_bot_token is not None:
        from bot.app import build_context

        ctx = build_context(settings, db, service=service)

    def continue_run(run_id: int) -> bool:
        observer: Observer | None = None
        if ctx is not None:
            from bot.slack.reporter import ThreadReporter

            observer = ThreadReporter(ctx, run_id)
        state = service.resume(run_id, observer)
        if state is None:
            return False
        if ctx is not None:
            from bot.app import after_run

            after_run(ctx, run_id, state, observer)
        return True

    dispatcher = QueueDispatcher(settings)
    if ctx is not None:
        ctx.dispatch = dispatcher
    scheduler = build_scheduler(settings, service, dispatcher, slack=ctx)
    scheduler.start()
    app = build_worker_app(settings, continue_run)
    print(f"Kitebase worker {service.owner} waiting for runs (queue {QUEUE!r})", flush=True)
    try:
        app.run_worker(queues=[QUEUE], concurrency=settings.worker_concurrency, name=service.owner,
                       install_signal_handlers=True, update_heartbeat_interval=max(1.0, settings.stalled_job_seconds / 3),
                       stalled_worker_timeout=settings.stalled_job_seconds)
    finally:
        scheduler.shutdown(wait=False)
        dispatcher.shutdown()
    return 0
