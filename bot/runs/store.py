"""Mapping between the loop's RunState and the stored Run, and the checkpoint that stores a step."""

from __future__ import annotations

import logging
import threading
from datetime import timedelta
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, func, select

from bot.agent import trace
from bot.agent.model import Usage
from bot.agent.state import TERMINAL, PendingCall, RunState, StepRecord
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Approval, Escalation, Run, Step, utcnow
from bot.runs import outbox, sources, states

logger = logging.getLogger(__name__)


def state_from_run(run: Run, approvals: list[Approval]) -> RunState:
    pending = [PendingCall(a.tool_use_id, a.tool_name, dict(a.tool_input or {}), a.fingerprint) for a in approvals]
    return RunState(
        goal=run.goal, messages=list(run.messages or []), model=run.model, ticket_id=run.ticket_id, status=run.status,
        reason=run.reason, answer=run.answer, summary=run.summary, steps=run.steps,
        usage=Usage(run.input_tokens, run.output_tokens, run.cache_read_tokens, run.cache_write_tokens),
        cost_usd=run.cost_usd, segment_steps=run.segment_steps, segment_tokens=run.segment_tokens,
        segment_cost_usd=run.segment_cost_usd, segment_active_seconds=run.segment_active_seconds,
        segment_first_message=run.segment_first_message, pending_results=list(run.pending_results or []),
        pending_calls=pending)


def apply_state(run: Run, state: RunState) -> None:
    states.check(run.status, state.status)
    run.messages = state.messages
    run.pending_results = state.pending_results or None
    run.status, run.reason, run.answer, run.summary = state.status, state.reason, state.answer, state.summary
    run.steps = state.steps
    run.input_tokens, run.output_tokens = state.usage.input_tokens, state.usage.output_tokens
    run.cache_read_tokens, run.cache_write_tokens = state.usage.cache_read_tokens, state.usage.cache_write_tokens
    run.cost_usd = state.cost_usd
    run.segment_steps, run.segment_tokens = state.segment_steps, state.segment_tokens
    run.segment_cost_usd, run.segment_active_seconds = state.segment_cost_usd, state.segment_active_seconds
    run.segment_first_message = state.segment_first_message
    run.updated_at = utcnow()
    if state.status in TERMINAL:
        run.finished_at = run.updated_at


def step_dict(step: StepRecord) -> dict[str, Any]:
    return {"turn": step.number, "kind": step.kind, "stop_reason": step.stop_reason, "text": step.text,
            "tool_calls": step.tool_calls, "input_tokens": step.usage.input_tokens,
            "output_tokens": step.usage.output_tokens, "cache_read_tokens": step.usage.cache_read_tokens,
            "cache_write_tokens": step.usage.cache_write_tokens, "latency_ms": step.latency_ms,
            "cost_usd": round(step.cost_usd, 6), "response": step.response}


class Checkpoint:
    """Stores the run, its step, new approvals and any escalation in ONE transaction, and renews the lease."""

    def __init__(self, db: Database, settings: Settings, run_id: int, owner: str | None = None,
                 lease_seconds: float = 600):
        self.db, self.settings, self.run_id = db, settings, run_id
        self.owner, self.lease_seconds = owner, lease_seconds

    def __call__(self, state: RunState, step: StepRecord) -> None:
        with self.db.session() as session:
            run = session.get(Run, self.run_id, with_for_update=True)
            if self.owner is not None and run.lease_owner != self.owner:
                raise LeaseLost(f"run {self.run_id} is now held by {run.lease_owner or 'nobody'} "
                                f"(this worker, {self.owner}, was presumed dead); it stops without writing")
            old_status = run.status
            apply_state(run, state)
            if self.owner is not None:
                run.lease_owner, run.lease_expires_at = self.owner, utcnow() + timedelta(seconds=self.lease_seconds)
            session.add(run)
            number = (session.exec(select(func.max(Step.number)).where(Step.run_id == self.run_id)).one() or 0) + 1
            data = step_dict(step)
            sources.annotate(session, state.messages, data["tool_calls"])  # citation checks of drafts
            session.add(Step(run_id=self.run_id, number=number, worker=self.owner, **_step_columns(data)))
            approvals = add_approvals(session, run, state.pending_calls) if state.status == "awaiting_approval" else []
            escalation = None
            if state.status in ("escalated", "failed"):
                escalation = open_escalation(session, run, kind=state.stop_kind or state.status,
                                             reason=state.reason or "")
            session.flush()
            outbox.after_step(session, run, number, old_status=old_status, approvals=approvals,
                              escalation=escalation, queue_channel=self.settings.escalation_channel)
        trace.write_step(self.run_id, {"step": number, **data}, self.settings.step_log_path)


class LeaseLost(RuntimeError):
    """Another worker took the run over (this one was presumed dead); stop without writing."""


def _step_columns(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k in Step.model_fields}


def add_approvals(session: Session, run: Run, calls: list[PendingCall]) -> list[Approval]:
    """The approvals of a turn that waits for people (tool-call ids are unique per run, not across runs)."""
    added = []
    for call in calls:
        exists = session.exec(select(Approval).where(Approval.run_id == run.id,
                                                     Approval.tool_use_id == call.tool_use_id)).first()
        if exists is None:
            approval = Approval(run_id=run.id, tool_use_id=call.tool_use_id, tool_name=call.name,
                                tool_input=call.input, fingerprint=call.fingerprint)
            session.add(approval)
            added.append(approval)
    session.flush()
    return added


def open_escalation(session: Session, run: Run, *, kind: str, reason: str) -> Escalation:
    escalation = Escalation(run_id=run.id, kind=kind, reason=reason, summary=run.summary, origin=run.origin)
    session.add(escalation)
    return escalation


def pending_approvals(session: Session, run_id: int) -> list[Approval]:
    """The approvals of the turn the run is waiting on (decided or not), oldest first."""
    run = session.get(Run, run_id)
    if run is None or run.status != "awaiting_approval" or not run.messages:
        return []
    ids = [b.get("id") for b in run.messages[-1].get("content", []) if b.get("type") == "tool_use"]
    rows = session.exec(select(Approval).where(Approval.run_id == run_id, col(Approval.tool_use_id).in_(ids))
                        .order_by(col(Approval.id))).all()
    return list(rows)


# --- the lease: at most one worker continues a run at a time ---------------------------------------

def take_lease(db: Database, run_id: int, owner: str, seconds: float) -> bool:
    now = utcnow()
    with db.session() as session:
        result = session.execute(
            update(Run).where(col(Run.id) == run_id)
            .where((col(Run.lease_owner).is_(None)) | (col(Run.lease_expires_at) < now) | (col(Run.lease_owner) == owner))
            .values(lease_owner=owner, lease_expires_at=now + timedelta(seconds=seconds)))
        return result.rowcount == 1


def release_lease(db: Database, run_id: int, owner: str) -> None:
    with db.session() as session:
        session.execute(update(Run).where(col(Run.id) == run_id, col(Run.lease_owner) == owner)
                        .values(lease_owner=None, lease_expires_at=None))


def renew_lease(db: Database, run_id: int, owner: str, seconds: float) -> bool:
    with db.session() as session:
        result = session.execute(update(Run).where(col(Run.id) == run_id, col(Run.lease_owner) == owner)
                                 .values(lease_expires_at=utcnow() + timedelta(seconds=seconds)))
        return result.rowcount == 1


class Heartbeat:
    """Keeps a live worker's lease fresh while it works, so only a dead worker's lease ever expires."""

    def __init__(self, db: Database, run_id: int, owner: str, seconds: float):
        self.db, self.run_id, self.owner, self.seconds = db, run_id, owner, seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"lease-{run_id}", daemon=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _beat(self) -> None:
        while not self._stop.wait(self.seconds / 3):
            try:
                if not renew_lease(self.db, self.run_id, self.owner, self.seconds):
                    return
            except Exception:
                logger.exception("could not renew the lease on run %s", self.run_id)
