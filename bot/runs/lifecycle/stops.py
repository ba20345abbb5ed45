"""Stop: a person ends a run at once. A stop is a decision like an approval: recorded once, in one transaction
that also withdraws the drafts still waiting (so of a stop and an Approve, whichever is recorded first wins and
the other is told), then honoured at the run's next safe point by whoever holds it: before a model call, during
one (bot/agent/interrupt.py abandons it), before a tool. A stopped run keeps its history; `kitebase resume` and
the queue's Resume run continue it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import update
from sqlmodel import Session, col, select

from bot import outbox
from bot.db import clock
from bot.db.engine import Database
from bot.db.models import Approval, Outbox, Run
from bot.db.statements import changed
from bot.vocabulary import LIVE, SENT, ApprovalStatus, OutboxKind, RunStatus

Check = Callable[[str | None], str | None]  # the run's starter -> why this person may not stop it, else None


@dataclass(frozen=True)
class StopOutcome:
    outcome: str  # stopping | not_allowed | not_running | not_found | already
    message: str
    run_id: int | None = None


def request(db: Database, run_id: int, *, actor: str, check: Check | None = None) -> StopOutcome:
    """Record `actor`'s stop of a live run and withdraw its waiting drafts, in one transaction. The run is then
    stopped by whoever continues it (dispatch it: a waiting or queued run has no worker yet)."""
    with db.session() as session:
        run = session.get(Run, run_id)
        if run is None:
            return StopOutcome("not_found", f"There is no run #{run_id}.")
        problem = check(run.started_by) if check is not None else None
        if problem:
            return StopOutcome("not_allowed", problem, run_id)
        took = changed(session.execute(
            update(Run).where(col(Run.id) == run_id, col(Run.status).in_(LIVE), col(Run.stop_requested_by).is_(None))
            .values(stop_requested_by=actor, stop_requested_at=clock.now()))) == 1
        if not took:
            session.refresh(run)
            if run.status in LIVE:
                return StopOutcome("already", f"Run #{run_id} is already stopping (asked by {run.stop_requested_by}).",
                                   run_id)
            return StopOutcome("not_running", f"Run #{run_id} is not working now (it is "
                               f"{run.status.replace('_', ' ')}); there is nothing to stop.", run_id)
        withdraw(session, run_id, actor)
        sending = session.exec(select(Approval.id).where(
            Approval.run_id == run_id, col(Approval.status).in_(SENT), col(Approval.result).is_(None))).all()
    if sending:  # an Approve was recorded before the stop: that reply goes, then the run stops
        return StopOutcome("stopping", f"Stopping run #{run_id}. A reply approved before your stop is being sent; "
                           "nothing more runs after it.", run_id)
    return StopOutcome("stopping", f"Stopping run #{run_id}: nothing more runs and nothing is sent to the customer.",
                       run_id)


def withdraw(session: Session, run_id: int, actor: str) -> int:
    """The run's drafts still waiting are withdrawn by `actor` (only still-pending ones: a decision already
    recorded stands). Their cards show it."""
    ids = session.exec(select(Approval.id).where(Approval.run_id == run_id,
                                                 Approval.status == ApprovalStatus.PENDING)).all()
    withdrawn = 0
    for approval_id in ids:
        if approval_id is not None and changed(session.execute(
                update(Approval).where(col(Approval.id) == approval_id,
                                       col(Approval.status) == ApprovalStatus.PENDING)
                .values(status=ApprovalStatus.WITHDRAWN, decided_by=actor, decided_at=clock.now()))) == 1:
            outbox.card_changed(session, approval_id)
            withdrawn += 1
    if withdrawn:
        outbox.homes_changed(session)
    return withdrawn


def requested_by(db: Database, run_id: int) -> str | None:
    """Who asked this run to stop, if anyone did (the loop asks before each model call and tool, and while it
    waits on the model)."""
    with db.session() as session:
        return session.exec(select(Run.stop_requested_by).where(col(Run.id) == run_id)).first()


def withdraw_if_stopped(db: Database, run_id: int) -> bool:
    """A run that came to wait for approval just as a stop was recorded (the stop found no draft to withdraw):
    withdraw its drafts now. True when the run waits on nothing any more and should be continued to stop."""
    with db.session() as session:
        run = session.get(Run, run_id)
        if run is None or run.status != RunStatus.AWAITING_APPROVAL or not run.stop_requested_by:
            return False
        return withdraw(session, run_id, run.stop_requested_by) > 0


def run_in_thread(db: Database, channel: str, thread_ts: str) -> int | None:
    """The live run of a Slack thread (a mention's, or a slash command's under its "asked:" message), else the
    newest run there."""
    with db.session() as session:
        runs = session.exec(select(Run.id, Run.status).where(Run.thread_key == f"{channel}:{thread_ts}")
                            .order_by(col(Run.id).desc())).all()
        if not runs:
            runs = session.exec(select(Run.id, Run.status).join(Outbox, col(Outbox.run_id) == col(Run.id)).where(
                Outbox.kind == OutboxKind.REQUEST, Outbox.channel == channel, Outbox.ts == thread_ts)
                .order_by(col(Run.id).desc())).all()
        live = [run_id for run_id, status in runs if status in LIVE]
        return (live or [run_id for run_id, _ in runs] or [None])[0]
