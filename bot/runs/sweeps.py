"""Periodic database sweeps. Each is idempotent and harmless when two processes run it at once:
every change is an atomic UPDATE guarded by the state it expects, and continuing a run takes its lease."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import or_, update
from sqlmodel import col, select

from bot.db.models import Approval, Run
from bot.runs.service import RunService

logger = logging.getLogger(__name__)


def expire_approvals(service: RunService, now: datetime, ttl_seconds: float) -> list[Approval]:
    """Drafts nobody decided on within the TTL expire; their runs escalate (nothing is sent)."""
    cutoff = now - timedelta(seconds=ttl_seconds)
    with service.db.session() as session:
        stale = session.exec(select(Approval).join(Run, col(Run.id) == col(Approval.run_id))
                             .where(col(Approval.status) == "pending", col(Approval.created_at) < cutoff,
                                    col(Run.status) == "awaiting_approval")).all()
    expired = []
    for approval in stale:
        with service.db.session() as session:
            won = session.execute(update(Approval).where(col(Approval.id) == approval.id,
                                                         col(Approval.status) == "pending")
                                  .values(status="expired", decided_by="timer", decided_at=now)).rowcount == 1
        if won:
            expired.append(approval)
    hours = ttl_seconds / 3600
    for run_id in sorted({a.run_id for a in expired}):
        service.escalate_waiting(run_id, kind="approval_expired",
                                 reason=f"nobody approved the draft reply within {hours:g} h (KITEBASE_APPROVAL_TTL); "
                                        "nothing was sent")
    return expired


def recover_runs(service: RunService, now: datetime, dispatch: Callable[[int, str | None], object],
                 stuck_after_seconds: float) -> tuple[list[int], list[int]]:
    """Runs whose worker died (lease expired, or never dispatched) are continued; runs stuck far past their
    deadline escalate. Returns (resumed, escalated) run ids."""
    with service.db.session() as session:
        orphans = session.exec(select(Run).where(
            col(Run.status).in_(("queued", "running")),
            or_(col(Run.lease_expires_at) < now,
                (col(Run.lease_owner).is_(None)) & (col(Run.updated_at) < now - timedelta(seconds=30))))).all()
        stuck = session.exec(select(Run).where(col(Run.status) == "running",
                                               col(Run.updated_at) < now - timedelta(seconds=stuck_after_seconds))).all()
    escalated = []
    for run in stuck:
        if service.escalate_stuck(run.id, reason=f"no progress for {stuck_after_seconds:g} s: the run is stuck"):
            escalated.append(run.id)
    resumed = []
    for run in orphans:
        if run.id not in escalated:
            dispatch(run.id, None)
            resumed.append(run.id)
    return resumed, escalated
