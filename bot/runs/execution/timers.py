"""The periodic jobs. Each has an explicit id, coalesces missed runs, never overlaps itself, and is a
database sweep that is harmless if another process runs the same job at the same moment. What they change
reaches Slack through the outbox, like everything else."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.config import Settings
from bot.runs.execution import due_refresh, processes, reminders, sweeps
from bot.runs.lifecycle.people import watched_groups
from bot.runs.lifecycle.service import RunService

logger = logging.getLogger(__name__)
JOB_DEFAULTS = {"coalesce": True, "max_instances": 1, "misfire_grace_time": 300}
RECOVER_EVERY_SECONDS = 5


def build_scheduler(settings: Settings, service: RunService, dispatch: Callable[[int], object], *,
                    groups: Any = None, client: Any = None,
                    clock: Callable[[], datetime] | None = None) -> BackgroundScheduler:
    """`groups` and `client` when the Slack app runs: the Slack side's GroupSync (it reads the approver groups
    from Slack and stores their members as rows) and a Slack client. Each job judges rows by `clock()`: the
    database's time (tests give another)."""
    scheduler = BackgroundScheduler(timezone="UTC", job_defaults=JOB_DEFAULTS)
    if clock is None:
        clock = partial(sweeps.database_now, service.db)

    def add(job: Callable[[], object], trigger: Any, job_id: str, name: str, **options: Any) -> None:
        scheduler.add_job(_logged(job), trigger, id=job_id, name=name, replace_existing=True,
                          **{**JOB_DEFAULTS, **options})

    add(lambda: sweeps.expire_approvals(service, clock(), settings.approval_ttl_seconds), IntervalTrigger(minutes=1),
        "expire-approvals", "expire approvals older than KITEBASE_APPROVAL_TTL")
    add(lambda: reminders.remind_approvals(service, clock(), settings.remind_after_seconds),
        IntervalTrigger(minutes=1), "remind-approvals", "remind the approvers of drafts waiting longer than "
        "KITEBASE_APPROVAL_REMIND_AFTER or whose ticket nears its breach; record a breach while a draft waits")
    add(lambda: sweeps.recover(service, clock(), dispatch),
        IntervalTrigger(seconds=RECOVER_EVERY_SECONDS), "recover-runs",
        "continue runs whose process died or that were never dispatched; escalate stuck runs")
    add(lambda: sweeps.refresh_homes(service), IntervalTrigger(minutes=10), "refresh-homes",
        "refresh every shown App Home")
    add(lambda: due_refresh.refresh(service.db), IntervalTrigger(seconds=due_refresh.EVERY_SECONDS), "refresh-due",
        "draw again the cards, queue items and App Homes whose due line reads differently now")
    add(lambda: sweeps.post_digest(service, clock()), CronTrigger(hour=9, minute=0), "queue-digest",
        "daily digest of the open queue to KITEBASE_ESCALATION_CHANNEL")
    add(lambda: _forget(service), IntervalTrigger(hours=6), "forget-processes",
        "drop heartbeat rows of processes gone for a day")
    if settings.desk == "zendesk":
        from bot.runs.execution.desk_work import poll

        def poll_then_intake() -> None:
            report = poll(service.db, settings)
            if settings.intake_rules is not None and report is not None and report.tickets:
                run_soon(scheduler, "intake")  # what the poll recorded waits for no timer

        add(poll_then_intake, IntervalTrigger(seconds=settings.zendesk_poll_seconds),
            "zendesk-poll", "mirror what changed in Zendesk since the last pass (what webhooks missed)")
    if settings.intake_rules is not None:
        from bot.runs.execution.desk_work import intake
        from bot.runs.intake.reload import RulesFile

        rules = RulesFile(service.db, settings)  # read again before each pass: an edited file needs no restart

        one_pass = threading.Lock()

        def intake_pass() -> None:
            """Passes never overlap (the lock); a second instance may wait for it (max_instances = 2), so a poll's
            run_soon that lands while a pass runs is one more pass right after it, not a skipped run and a whole
            interval (bench.intake_latency --poll-only saw it at one poll in ten)."""
            with one_pass:
                intake(service.db, settings, rules.current(), dispatch)

        add(intake_pass, IntervalTrigger(seconds=settings.intake_every_seconds), "intake",
            "new tickets that match an intake rule become runs; customers' replies continue theirs", max_instances=2)
    watched = watched_groups(settings)
    if groups is not None and client is not None and watched:
        add(lambda: groups.refresh(client, watched), IntervalTrigger(seconds=60), "refresh-groups",
            "members of the approver and backup approver user groups")
        groups.refresh(client, watched)
    return scheduler


def run_soon(scheduler: BackgroundScheduler, job_id: str) -> None:
    """Move a job's next run to now (it stays on its interval afterwards). The two timers start together and the
    poll's interval is a multiple of the intake's, so without this every polled arrival waited a whole intake
    interval: the intake pass fired at the poll's instant, before the poll had mirrored anything (docs/performance.md,
    "Intake: from a new ticket to its card"). A job already running is not run again by the scheduler
    (max_instances = 1); the intake job allows a second instance, which waits for the pass under way.
    """
    if scheduler.get_job(job_id) is not None:
        scheduler.modify_job(job_id, next_run_time=datetime.now(UTC))


def _forget(service: RunService) -> None:
    with service.db.session() as session:
        processes.forget_stopped(session)


def _logged(job: Callable[[], object]) -> Callable[[], None]:
    def run() -> None:
        try:
            job()
        except Exception:
            logger.exception("scheduled job failed")

    run.__name__ = getattr(job, "__name__", "job")
    return run
