"""Periodic database sweeps. Each is idempotent and harmless when two processes run it at once: every change
is an atomic UPDATE guarded by the state it expects, continuing a run takes its lease, and what Slack must
show is written as outbox rows in the same transactions (so a timer's escalation reaches the queue channel
the same way a loop's does).

A pass judges every row by the time it is given: the database's (`database_now`, read as the pass begins) in
`serve`, `worker` and `kitebase sweep`; tests move time on by giving another. The rows' own times (leases, heartbeats, a run's `updated_at`, a draft's
`created_at`) are the database's too, so a host whose clock is off escalates nothing early and nothing late."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import or_, update
from sqlmodel import col, select

from bot import outbox
from bot.db import clock
from bot.db.engine import Database
from bot.db.models import Approval, Run, id_of
from bot.db.statements import changed
from bot.runs.execution import due_refresh, processes, reminders
from bot.runs.lifecycle.service import RunService
from bot.runs.reports import gaps, queries, stats
from bot.vocabulary import ApprovalStatus, RunStatus, StopKind

logger = logging.getLogger(__name__)
Dispatch = Callable[[int], object]
NEVER_DISPATCHED_AFTER = timedelta(seconds=10)
DIGEST_FIGURES_SECONDS = 7 * 86400  # the digest shows the figures of the last 7 days
DIGEST_GAPS_SECONDS = 30 * 86400  # and the knowledge gaps of the last 30 (as `kitebase gaps` does)


@dataclass
class SweepReport:
    expired: list[int] = field(default_factory=list)  # approval ids
    reminded: list[int] = field(default_factory=list)  # approval ids whose approvers were reminded
    resumed: list[int] = field(default_factory=list)  # run ids continued
    escalated: list[int] = field(default_factory=list)  # run ids handed to a person as stuck
    due_lines: int = 0  # kept messages drawn again because their due line reads differently now
    digest: bool = False

    def text(self) -> str:
        def ids(found: list[int]) -> str:
            return f" {found}" if found else ""

        return (f"expired {len(self.expired)} draft(s){ids(self.expired)}, reminded the approvers of "
                f"{len(self.reminded)} draft(s){ids(self.reminded)}, continued {len(self.resumed)} run(s)"
                f"{ids(self.resumed)}, escalated {len(self.escalated)} stuck run(s){ids(self.escalated)}, "
                f"drew {self.due_lines} message(s) again for their due times"
                + (", posted today's digest" if self.digest else ""))


def database_now(db: Database) -> datetime:
    """The database's time: what a sweep judges rows by (bot/db/clock.py)."""
    with db.session() as session:
        return clock.read_now(session)


def expire_approvals(service: RunService, now: datetime, ttl_seconds: float) -> list[Approval]:
    """Drafts nobody decided on within the TTL expire; their cards say so; their runs escalate (nothing sent)."""
    cutoff = now - timedelta(seconds=ttl_seconds)
    with service.db.session() as session:
        stale = session.exec(select(Approval).join(Run, col(Run.id) == col(Approval.run_id))
                             .where(col(Approval.status) == ApprovalStatus.PENDING, col(Approval.created_at) < cutoff,
                                    col(Run.status) == RunStatus.AWAITING_APPROVAL)).all()
    expired = []
    for approval in stale:
        with service.db.session() as session:
            won = changed(session.execute(update(Approval).where(col(Approval.id) == approval.id,
                                                         col(Approval.status) == ApprovalStatus.PENDING)
                                  .values(status=ApprovalStatus.EXPIRED, decided_by="timer", decided_at=now))) == 1
            if won:
                outbox.card_changed(session, id_of(approval))
        if won:
            expired.append(approval)
    hours = ttl_seconds / 3600
    for run_id in sorted({a.run_id for a in expired}):
        service.escalate_waiting(run_id, kind=StopKind.APPROVAL_EXPIRED,
                                 reason=f"nobody approved the draft reply within {hours:g} h (KITEBASE_APPROVAL_TTL); "
                                        "nothing was sent")
    return expired


def recover_runs(service: RunService, now: datetime, dispatch: Dispatch, *, stuck_after_seconds: float,
                 stale_seconds: float, at_start: bool = False) -> tuple[list[int], list[int]]:
    """Continue runs nobody is continuing: their owner died (it stopped beating, or its lease expired), they
    were queued but never dispatched, or every draft they wait on is decided but the run was never continued.
    Runs with no progress far past their deadline escalate as stuck. Returns (continued, escalated) run ids."""
    grace = timedelta(0) if at_start else NEVER_DISPATCHED_AFTER
    with service.db.session() as session:
        dead = processes.dead_owners(session, stale_seconds)
        abandoned = set(session.exec(select(Run.id).where(col(Run.lease_owner).in_(dead or {""}),
                                                          col(Run.status).in_((RunStatus.QUEUED, RunStatus.RUNNING)))).all())
        for owner in dead:  # their leases mean nothing now: free them, and continue their runs at once
            session.execute(update(Run).where(col(Run.lease_owner) == owner)
                            .values(lease_owner=None, lease_expires_at=None))
        orphans = session.exec(select(Run).where(
            col(Run.status).in_((RunStatus.QUEUED, RunStatus.RUNNING)),
            or_(col(Run.lease_expires_at) < now,
                col(Run.lease_owner).is_(None) & (col(Run.updated_at) <= now - grace)))).all()
        stuck = session.exec(select(Run).where(col(Run.status) == RunStatus.RUNNING,
                                               col(Run.updated_at) < now - timedelta(seconds=stuck_after_seconds))
                             ).all()
        decided = queries.decided_but_waiting(session, older_than=now - grace)
    cutoff = now - timedelta(seconds=stuck_after_seconds)
    escalated = [id_of(run) for run in stuck if service.escalate_stuck(
        id_of(run), reason=f"no progress for {stuck_after_seconds:g} s: the run is stuck", stale_before=cutoff)]
    resumed = []
    for run_id in sorted({id_of(r) for r in orphans} | set(decided) | {i for i in abandoned if i is not None}):
        if run_id not in escalated:
            dispatch(run_id)
            resumed.append(run_id)
    if resumed or escalated:
        logger.info("recovery: continued runs %s, escalated stuck runs %s (dead owners: %s)", resumed, escalated,
                    sorted(dead) or "none")
    return resumed, escalated


def recover(service: RunService, now: datetime, dispatch: Dispatch, *, at_start: bool = False
            ) -> tuple[list[int], list[int]]:
    """`recover_runs` with the thresholds of the settings: the timer's pass, and a process's first at start-up
    (`at_start`: runs queued a moment ago are dispatched at once, not after NEVER_DISPATCHED_AFTER)."""
    settings = service.settings
    return recover_runs(service, now, dispatch, at_start=at_start,
                        stuck_after_seconds=settings.deadline_seconds + 2 * settings.model_timeout_seconds,
                        stale_seconds=settings.process_stale_seconds)


def post_digest(service: RunService, now: datetime, *, hour: int = 9) -> bool:
    """Today's queue digest for KITEBASE_ESCALATION_CHANNEL, once a day at `hour` UTC or later."""
    channel = service.settings.escalation_channel
    if not channel or now.hour < hour:
        return False
    with service.db.session() as session:
        if outbox.digest_written(session, day=f"{now:%Y-%m-%d}"):
            return False
        figures = stats.figures(session, *stats.window(now, DIGEST_FIGURES_SECONDS))
        found = gaps.knowledge_gaps(session, *stats.window(now, DIGEST_GAPS_SECONDS))
        return outbox.digest(session, day=f"{now:%Y-%m-%d}", channel=channel, items=queries.queue(session),
                             figures=figures, gaps=found)


def refresh_homes(service: RunService) -> None:
    """Every shown App Home again (its times are relative: "drafted 5 minutes ago")."""
    with service.db.session() as session:
        outbox.homes_changed(session)


def sweep_all(service: RunService, now: datetime, dispatch: Dispatch) -> SweepReport:
    """Every timer once, now: `kitebase sweep`, cron, tests."""
    settings = service.settings
    report = SweepReport()
    report.expired = [id_of(a) for a in expire_approvals(service, now, settings.approval_ttl_seconds)]
    report.reminded = reminders.remind_approvals(service, now, settings.remind_after_seconds)
    report.resumed, report.escalated = recover(service, now, dispatch)
    refresh_homes(service)
    report.due_lines = due_refresh.refresh(service.db)
    report.digest = post_digest(service, now)
    return report
