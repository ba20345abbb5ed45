"""Drafts never wait unseen: once a draft has waited KITEBASE_APPROVAL_REMIND_AFTER, one reminder goes to the
run's thread, mentioning the approvers (and the backup approvers, who may decide from then on).

Idempotent and safe for two processes at once: the reminder is claimed by an atomic UPDATE of the
approval's `reminded_at`, and its outbox row (key `remind:<approval id>`) is written in the same transaction.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import col, select

from bot import outbox
from bot.db.models import Approval, Run, id_of
from bot.db.statements import changed
from bot.runs.lifecycle.service import RunService
from bot.runs.reports import queries
from bot.vocabulary import ApprovalStatus, RunStatus

logger = logging.getLogger(__name__)


def due(service: RunService, now: datetime, remind_after_seconds: float) -> list[tuple[Approval, Run]]:
    cutoff = now - timedelta(seconds=remind_after_seconds)
    with service.db.session() as session:
        rows = session.exec(select(Approval, Run).join(Run, col(Run.id) == col(Approval.run_id))
                            .where(col(Approval.status) == ApprovalStatus.PENDING, col(Approval.reminded_at).is_(None),
                                   col(Approval.created_at) < cutoff, col(Run.status) == RunStatus.AWAITING_APPROVAL)
                            .order_by(col(Approval.id))).all()
    return [(a, r) for a, r in rows]


def remind_approvals(service: RunService, now: datetime, remind_after_seconds: float) -> list[int]:
    """Remind the approvers of every draft waiting longer than `remind_after_seconds`; returns approval ids."""
    reminded = []
    for approval, run in due(service, now, remind_after_seconds):
        with service.db.session() as session:
            won = changed(session.execute(update(Approval).where(col(Approval.id) == approval.id,
                                                         col(Approval.status) == ApprovalStatus.PENDING,
                                                         col(Approval.reminded_at).is_(None))
                                  .values(reminded_at=now))) == 1
            if won:
                _write(session, service, approval, run, now)
        if won:
            reminded.append(id_of(approval))
    if reminded:
        logger.info("reminded the approvers of drafts %s", reminded)
    return reminded


def _write(session: Any, service: RunService, approval: Approval, run: Run, now: datetime) -> None:
    settings = service.settings
    where = outbox.thread_of(run)
    outbox.card_changed(session, id_of(approval))  # the card now says backup approvers may decide
    if where is None:  # a CLI run: nobody to mention in Slack
        return
    arguments = approval.tool_input or {}
    ticket_id = str(arguments.get("ticket_id") or run.ticket_id or "-")
    approvers = sorted(settings.approvers) or ([run.started_by] if run.started_by else [])
    reminder = {"ticket_id": ticket_id, "customer": queries.customer_name(session, ticket_id),
                "tool": approval.tool_name, "waited_seconds": (now - approval.created_at).total_seconds(),
                "expires_at": (approval.created_at + timedelta(seconds=settings.approval_ttl_seconds)).isoformat(),
                "approvers": approvers, "backups": sorted(settings.backup_approvers)}
    outbox.reminder(session, approval_id=id_of(approval), run_id=id_of(run), where=where, reminder=reminder)
