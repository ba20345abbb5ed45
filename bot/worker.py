"""`kitebase worker`: continue runs from the PostgreSQL task queue (KITEBASE_EXECUTION=queue), run the timers,
and deliver the outbox to Slack (one worker at a time sends; another takes over within seconds if it dies)."""

from __future__ import annotations

import asyncio
import logging
import sys
from concurrent.futures import ThreadPoolExecutor

import procrastinate

from bot import heap
from bot.config import Settings
from bot.db.open import open_database
from bot.runs.execution.desk_work import start_sender
from bot.runs.execution.dispatch import Continuations
from bot.runs.execution.processes import Liveness
from bot.runs.execution.sweeps import database_now, recover
from bot.runs.execution.timers import build_scheduler
from bot.runs.execution.workqueue import QUEUE, QueueDispatcher, build_worker_app, ensure_schema
from bot.runs.intake.arrivals import in_force
from bot.runs.lifecycle.service import RunService
from bot.search.warm import warm_up_in_background

logger = logging.getLogger(__name__)


def run_worker(settings: Settings) -> int:
    if settings.execution != "queue":
        print("kitebase worker: set KITEBASE_EXECUTION=queue and a PostgreSQL DATABASE_URL "
              "(with the default embedded execution, `kitebase serve` runs the agent itself).", file=sys.stderr)
        return 2
    db = open_database(settings)
    warming = warm_up_in_background(db)  # the search's index, beside the rest of start-up (bot/search/warm.py)
    ensure_schema(settings)
    in_force(db, settings)  # the intake rules, in force before this worker's poll records anything
    service = RunService(db, settings)
    liveness = Liveness(db, service.owner, "worker").start()
    sender = groups = None
    if settings.slack_bot_token is not None:
        from bot.outbox.sender import OutboxSender
        from bot.slack.client import make_client
        from bot.slack.groups import GroupSync

        sender = OutboxSender(db, settings, make_client(settings)).start()
        groups = GroupSync(service.group_members.store)  # the approver groups' rows, kept fresh by a timer

    continuations = Continuations()

    def continue_run(run_id: int) -> bool:
        """One job's continuation; False when another process holds the run. Two jobs of one run in this
        process never continue it at once (jobs carry no procrastinate lock: bot/runs/execution/workqueue.py)."""
        if not continuations.take(run_id):
            return True  # under way in another of this worker's threads, which looks once more when done
        try:
            while True:
                held = service.resume(run_id) is not None
                if continuations.done(run_id):
                    return held
        except BaseException:
            continuations.abandon(run_id)
            raise

    desk_sender = start_sender(db, settings)  # Zendesk: this worker sends desk writes too (one at a time each)
    dispatcher = QueueDispatcher(settings)
    scheduler = build_scheduler(settings, service, dispatcher, groups=groups,
                                client=sender.client if sender else None)
    scheduler.start()
    dispatcher.start_threads()
    # Like a restarted serve: what a dead process left (this worker's predecessor on this host, say) is
    # dispatched now, not at the timer's first pass.
    recover(service, database_now(service.db), dispatcher, at_start=True)
    app = build_worker_app(settings, continue_run)
    if warming is not None:
        warming.join(timeout=60)  # ready means a run's first search costs what its hundredth does
        if warming.took is not None:
            print(f"Search ready (its index loaded in {warming.took * 1000:.0f} ms)", flush=True)
    heap.settle("worker start-up")  # later full garbage collections walk only what runs make
    print(f"Kitebase worker {service.owner} waiting for runs (queue {QUEUE!r})", flush=True)
    try:
        asyncio.run(_work(app, settings, service.owner))
    finally:
        scheduler.shutdown(wait=False)
        dispatcher.shutdown()
        if sender is not None:
            sender.stop()
        if desk_sender is not None:
            desk_sender.stop()
        liveness.stop()
    return 0


async def _work(app: procrastinate.App, settings: Settings, name: str) -> None:
    """procrastinate runs each synchronous job on the event loop's default executor, which Python sizes to the
    cores (six threads on two cores): with a concurrency of 8, two jobs would wait for a thread while their
    slots sat idle. Give the executor a thread for every slot (and the heartbeat's own calls)."""
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=settings.worker_concurrency + 2,
                                                 thread_name_prefix="kitebase-job"))
    async with app.open_async():
        await app.run_worker_async(queues=[QUEUE], concurrency=settings.worker_concurrency, name=name,
                                   install_signal_handlers=True,
                                   update_heartbeat_interval=max(1.0, settings.stalled_job_seconds / 3),
                                   stalled_worker_timeout=settings.stalled_job_seconds)
