"""Several machines: runs continue on `kitebase worker` processes through procrastinate, a task queue that
lives in PostgreSQL (no other server).

A job is only a wake-up call: "continue run N". The run itself is the truth, and two things the run layer
already has keep it safe and bring it back, in both execution shapes alike:
- the run's lease: whoever continues a run holds it, so a second job for a run someone is continuing simply
  ends (`resume` returns None; nothing is lost: whatever that run still needs is in its row);
- the recovery sweep (bot/runs/execution/sweeps.py, every 5 s in every serve and worker): a run whose owner died, that
  was never dispatched, or whose drafts are decided but nobody continued is dispatched again.

So jobs carry no procrastinate `lock` (it would make a dead worker's job block the sweep's new one for that
run) and are never retried: a job left `doing` by a dead worker is ended (`end_stranded_jobs`), not put back;
the sweep has already continued its run. The queueing lock still absorbs a retried event that defers the same
run twice while a job for it waits."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future

import procrastinate
import procrastinate.exceptions
from procrastinate import jobs
from procrastinate.exceptions import AlreadyEnqueued
from sqlalchemy.engine import make_url

from bot.config import Settings
from bot.pressure import Held

logger = logging.getLogger(__name__)

TASK = "kitebase.continue_run"
QUEUE = "runs"
SCHEMA_LOCK = 727272


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
            return self.app.configure_task(name=TASK, queue=QUEUE, queueing_lock=f"run-{run_id}").defer(run_id=run_id)
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
    """The worker's app: the continue-run task, and a periodic end to jobs whose worker died."""
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=conninfo(settings.database_url)))

    @app.task(name=TASK, queue=QUEUE)
    def continue_run_task(run_id: int) -> None:
        if not continue_run(run_id):
            logger.info("run %s is being continued by another process; this job ends (the recovery sweep "
                        "dispatches the run again if it still needs continuing)", run_id)

    @app.periodic(cron="* * * * *", periodic_id="end-stranded")
    @app.task(name="kitebase.end_stranded_jobs", queue=QUEUE, queueing_lock="end-stranded-jobs")
    async def end_stranded(timestamp: int) -> int:
        return await end_stranded_jobs(app, settings.stalled_job_seconds)

    return app


async def end_stranded_jobs(app: procrastinate.App, seconds_since_heartbeat: float) -> int:
    """Jobs left `doing` by a worker that stopped sending heartbeats are marked failed, one by one. Their runs
    are not this function's business: the recovery sweep has continued them already (or will, within seconds),
    so a stranded job is never put back in the queue, where it would compete with the sweep's own job."""
    stalled = await app.job_manager.get_stalled_jobs(queue=QUEUE, seconds_since_heartbeat=seconds_since_heartbeat)
    ended = 0
    for job in stalled:
        assert job.id is not None  # a job read from the table has its id
        try:
            await app.job_manager.finish_job_by_id_async(job_id=job.id, status=jobs.Status.FAILED, delete_job=False)
        except procrastinate.exceptions.ConnectorException as exc:  # ended by another worker first, or no database
            logger.warning("stranded job %s was not ended now (%s); a later pass sees it if it is still there",
                           job.id, _first_line(exc))
            continue
        ended += 1
        logger.warning("job %s (%s %s) was left running by a worker that stopped; marked failed (its run is "
                       "continued by the recovery sweep)", job.id, job.task_name, job.task_kwargs)
    return ended


def _first_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0]
