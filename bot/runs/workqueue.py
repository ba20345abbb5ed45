"""Several machines: runs continue on `kitebase worker` processes through procrastinate, a task queue that
lives in PostgreSQL (no other server). One job per continuation, locked per run so two workers never
continue the same run at once; a stalled job (its worker died) is retried; a retried event that defers the
same run twice is absorbed by the queueing lock."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future

import procrastinate
from procrastinate.exceptions import AlreadyEnqueued
from sqlalchemy.engine import make_url

from bot.config import Settings
from bot.pressure import Held

logger = logging.getLogger(__name__)

TASK = "kitebase.continue_run"
QUEUE = "runs"
SCHEMA_LOCK = 727272


class RunBusy(RuntimeError):
    """Another worker still holds the run's lease; the job is retried later."""


def conninfo(database_url: str) -> str:
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


def ensure_schema(settings: Settings) -> None:
    """Install procrastinate's tables once (idempotent, one process at a time)."""
    app = procrastinate.App(connector=procrastinate.SyncPsycopgConnector(conninfo=conninfo(settings.database_url)))
    with app.open():
        app.connector.execute_query(f"SELECT pg_advisory_lock({SCHEMA_LOCK})")
        try:
            if not app.connector.execute_query_one("SELECT to_regclass('procrastinate_jobs') AS t")["t"]:
                app.schema_manager.apply_schema()
        finally:
            app.connector.execute_query(f"SELECT pg_advisory_unlock({SCHEMA_LOCK})")


class QueueDispatcher:
    """`dispatch(run_id)` for web replicas: record a job; a worker somewhere continues the run.

    Jobs are deferred by one thread of the dispatcher's own, and not while Slack requests are being answered
    (`bot.pressure.Held`): acknowledging Slack never waits for them, and a burst of mentions is not slowed by
    fifty defers competing with it. The run is already recorded as queued, so a job lost with a dying process
    is made good by the workers' recovery sweep."""

    def __init__(self, settings: Settings):
        self.app = procrastinate.App(connector=procrastinate.SyncPsycopgConnector(
            conninfo=conninfo(settings.database_url)))
        self.app.open()
        self._held: Held[tuple[int, Future[int | None]]] = Held(self._defer_all, name="kitebase-defer")
        self.futures: list[Future[int | None]] = []
        self._lock = threading.Lock()

    def __call__(self, run_id: int) -> Future[int | None]:
        future: Future[int | None] = Future()
        with self._lock:
            self.futures = [f for f in self.futures if not f.done()] + [future]
        self._held.add((run_id, future))
        return future

    def start_threads(self) -> None:
        """Start the deferring thread now, not inside the first Slack request that dispatches a run."""
        self._held.start()

    def _defer_all(self, held: list[tuple[int, Future[int | None]]]) -> None:
        for run_id, future in held:
            future.set_result(self._defer(run_id))

    def _defer(self, run_id: int) -> int | None:
        try:
            return self.app.configure_task(name=TASK, queue=QUEUE, lock=f"run-{run_id}",
                                           queueing_lock=f"run-{run_id}").defer(run_id=run_id)
        except AlreadyEnqueued:  # a job for this run already waits: it will see the newest state
            return None
        except Exception:
            logger.exception("could not queue run %s now; the recovery sweep will", run_id)
            return None

    def drain(self, timeout: float | None = None) -> None:
        """Wait until every job asked for so far is recorded."""
        for future in list(self.futures):
            future.result(timeout=timeout)

    def shutdown(self) -> None:
        self._held.close()
        self.app.close()


def build_worker_app(settings: Settings, continue_run: Callable[[int], bool]) -> procrastinate.App:
    """The worker's app: the continue-run task, and a periodic retry of jobs whose worker died."""
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=conninfo(settings.database_url)))
    retry = procrastinate.RetryStrategy(max_attempts=40, wait=max(1, int(settings.lease_seconds // 4)),
                                        retry_exceptions={RunBusy})

    @app.task(name=TASK, queue=QUEUE, retry=retry)
    def continue_run_task(run_id: int) -> None:
        if not continue_run(run_id):
            raise RunBusy(f"run {run_id} is held by another worker's lease")

    @app.periodic(cron="* * * * *", periodic_id="retry-stalled")
    @app.task(name="kitebase.retry_stalled_jobs", queue=QUEUE, queueing_lock="retry-stalled-jobs")
    async def retry_stalled(timestamp: int) -> int:
        return await retry_stalled_jobs(app, settings.stalled_job_seconds)

    return app


async def retry_stalled_jobs(app: procrastinate.App, seconds_since_heartbeat: float) -> int:
    """Jobs left `doing` by a worker that stopped sending heartbeats go back to the queue."""
    stalled = list(await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=seconds_since_heartbeat))
    for job in stalled:
        logger.warning("retrying stalled job %s (%s %s)", job.id, job.task_name, job.task_kwargs)
        await app.job_manager.retry_job(job)
    return len(stalled)
