"""What the telemetry needs to know about a run or an approval before the work on it starts: one small read
each, by primary key. A failing read never stops the work: the run is then named by its id alone."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlmodel import col

from bot.db.models import Approval, Run

if TYPE_CHECKING:
    from bot.db.engine import Database

logger = logging.getLogger(__name__)

_RUN = select(col(Run.ticket_id), col(Run.thread_key), col(Run.model))
_APPROVAL = select(col(Approval.run_id), col(Approval.tool_name), col(Approval.tool_use_id), col(Approval.created_at),
                   col(Run.ticket_id), col(Run.thread_key)).join(Run, col(Run.id) == col(Approval.run_id))


@dataclass(frozen=True)
class RunLabel:
    run_id: int
    ticket: str | None = None
    thread: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class ApprovalLabel:
    run: RunLabel
    tool_name: str
    tool_use_id: str
    created_at: datetime


def run_label(db: Database, run_id: int) -> RunLabel:
    try:
        with db.session() as session:
            row = session.connection().execute(_RUN.where(col(Run.id) == run_id)).first()
    except Exception:
        logger.debug("could not read run %s for its log label", run_id, exc_info=True)
        return RunLabel(run_id)
    return RunLabel(run_id, row[0], row[1], row[2]) if row else RunLabel(run_id)


def approval_label(db: Database, approval_id: int) -> ApprovalLabel | None:
    try:
        with db.session() as session:
            row = session.connection().execute(_APPROVAL.where(col(Approval.id) == approval_id)).first()
    except Exception:
        logger.debug("could not read approval %s for its log label", approval_id, exc_info=True)
        return None
    if row is None:
        return None
    return ApprovalLabel(RunLabel(row[0], row[4], row[5]), row[1], row[2], row[3])
