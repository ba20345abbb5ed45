"""The periodic jobs. Each has an explicit id, coalesces missed runs, never overlaps itself, and is a
database sweep that is harmless if another process runs the same job at the same moment."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.config import Settings
from bot.db.models import utcnow
from bot.runs import sweeps
from bot.runs.service import RunService

logger = logging.getLogger(__name__)
JOB_DEFAULTS = {"coalesce": True, "max_instances": 1, "misfire_grace_time": 300}


def build_scheduler(settings: Settings, service: RunService, dispatch: Callable[[int, str | None], object], *,
                    slack: object | None = None, clock: Callable[[], datetime] = utcnow) -> BackgroundScheduler:
    """`slack` is a SlackContext when the Slack app runs; its jobs are added only then."""
    scheduler = BackgroundScheduler(timezone="UTC", job_defaults=JOB_DEFAULTS)

    def expire_approvals() -> None:
        expired = sweeps.expire_approvals(service, clock(), settings.approval_ttl_seconds)
        if slack is not None and expired:
            from bot.slack.queue import mark_expired

            mark_expired(slack, expired)

    def recover_runs() -> None:
        sweeps.recover_runs(service, clock(), dispatch,
                            stuck_after_seconds=settings.deadline_seconds + 2 * settings.model_timeout_seconds)

    scheduler.add_job(_logged(expire_approvals), IntervalTrigger(minutes=5), id="expire-approvals",
                      name="expire approvals older than KITEBASE_APPROVAL_TTL", replace_existing=True, **JOB_DEFAULTS)
    scheduler.add_job(_logged(recover_runs), IntervalTrigger(minutes=1), id="recover-runs",
                      name="continue runs whose worker died; escalate stuck runs", replace_existing=True, **JOB_DEFAULTS)
    if slack is not None:
        from bot.slack import queue

        scheduler.add_job(_logged(lambda: queue.refresh_homes(slack, queue.people_with_pending_work(slack))),
                          IntervalTrigger(minutes=10), id="refresh-homes",
                          name="refresh App Home of people with pending work", replace_existing=True, **JOB_DEFAULTS)
        if settings.escalation_channel:
            scheduler.add_job(_logged(lambda: queue.post_digest(slack, clock())), CronTrigger(hour=9, minute=0),
                              id="queue-digest", name="daily digest of the open queue", replace_existing=True, **JOB_DEFAULTS)
    return scheduler


def _logged(job: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        try:
            job()
        except Exception:
            logger.exception("scheduled job failed")

    run.__name__ = getattr(job, "__name__", "job")
    return run
