"""Start a run, continue it (resume), decide its approvals, follow up on it. Safe to call from any process:
everything needed lives in the database, and a lease keeps two workers off the same run."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import update
from sqlmodel import col, select

from bot.agent import history
from bot.agent.events import Observer
from bot.agent.loop import AgentLoop
from bot.agent.model import ModelClient, build_model
from bot.agent.prompts import CONTINUE_NOTE
from bot.agent.state import RunState, StepRecord
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Approval, Escalation, Run, Ticket, utcnow
from bot.runs import approvals, states
from bot.runs.approvals import Decision
from bot.runs.errors import BadInput
from bot.runs.store import (
    Checkpoint,
    Heartbeat,
    LeaseLost,
    apply_state,
    open_escalation,
    pending_approvals,
    release_lease,
    state_from_run,
    take_lease,
)
from tools import REGISTRY, ToolResult, ticket_ids_in

logger = logging.getLogger(__name__)

LIVE = ("queued", "running", "awaiting_approval")
INTERRUPTED = ("Interrupted: the worker stopped during this turn before its result was stored. Read-only calls "
               "can simply be repeated; for a change (update_ticket) check the ticket with get_ticket first.")


class RunService:
    def __init__(self, db: Database, settings: Settings, *, model_factory: Callable[[], ModelClient] | None = None,
                 owner: str | None = None):
        self.db, self.settings = db, settings
        self.model_factory = model_factory or (lambda: build_model(settings))
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}"

    # --- starting -------------------------------------------------------------------------------

    def check_goal(self, goal: str) -> str:
        """The ticket a request is about, or BadInput saying what is wrong with the request."""
        if not goal or not goal.strip():
            raise BadInput('Tell me what to do and which ticket, e.g. "handle KITE-142".')
        if len(goal) > self.settings.max_goal_chars:
            raise BadInput(f"That request is {len(goal):,} characters; keep it under {self.settings.max_goal_chars:,} "
                           "(give the ticket id rather than pasting the ticket).")
        ids = ticket_ids_in(goal)
        if not ids:
            raise BadInput("I couldn't find a ticket id in that request. Ids look like KITE-142.")
        with self.db.session() as session:
            if session.get(Ticket, ids[0]) is None:
                raise BadInput(f"There is no ticket {ids[0]}. Ids look like KITE-142; "
                               "`kitebase search tickets WORDS` finds one by its words.")
            live = session.exec(select(Run).where(Run.ticket_id == ids[0], col(Run.status).in_(LIVE))).first()
            if live is not None:
                raise BadInput(f"{ids[0]} already has a live run (#{live.id}, {live.status.replace('_', ' ')}); "
                               "finish or decide that one first.")
        return ids[0]

    def start(self, goal: str, *, started_by: str | None = None, origin: dict | None = None) -> int:
        ticket_id = self.check_goal(goal)
        model = self.model_factory()
        origin = origin or {}
        thread_key = f"{origin['channel']}:{origin['thread_ts']}" if origin.get("thread_ts") else None
        with self.db.session() as session:
            run = Run(goal=goal.strip(), ticket_id=ticket_id, status="queued", model=model.name,
                      started_by=started_by, origin=origin, thread_key=thread_key,
                      messages=[{"role": "user", "content": [{"type": "text", "text": goal.strip()}]}])
            session.add(run)
            session.flush()
            return run.id

    # --- continuing -------------------------------------------------------------------------------

    def resume(self, run_id: int, observer: Observer | None = None) -> RunState | None:
        """Continue a run as far as it can go now. Idempotent; None if another worker holds it."""
        if not take_lease(self.db, run_id, self.owner, self.settings.lease_seconds):
            logger.info("run %s is being continued elsewhere", run_id)
            return None
        try:
            with Heartbeat(self.db, run_id, self.owner, self.settings.lease_seconds):
                return self._resume(run_id, observer)
        except LeaseLost as lost:
            logger.warning("%s", lost)
            return self.load_state(run_id)
        except Exception:
            logger.exception("run %s failed", run_id)
            self._fail(run_id, "internal error while running the agent (details are in the server log)")
            return self.load_state(run_id)
        finally:
            release_lease(self.db, run_id, self.owner)

    def _resume(self, run_id: int, observer: Observer | None) -> RunState | None:
        with self.db.session() as session:
            run = session.get(Run, run_id)
            if run is None:
                raise BadInput(f"There is no run {run_id}.")
            rows = pending_approvals(session, run_id)
            state = state_from_run(run, [a for a in rows if a.status == "pending"])
        loop = self._loop(run_id, observer)
        checkpoint = Checkpoint(self.db, self.settings, run_id, self.owner, self.settings.lease_seconds)
        if state.status == "awaiting_approval":
            decided = approvals.settle(self.db, loop, rows)
            if decided is None:
                return state
            loop.complete_waiting_turn(state, decided)
            checkpoint(state, StepRecord(number=state.steps, kind="approval",
                                         text=_decisions_text(rows), tool_calls=_decision_calls(rows, decided)))
        if state.status == "queued":
            state.status = "running"
            with self.db.session() as session:
                session.execute(update(Run).where(col(Run.id) == run_id, col(Run.status) == "queued")
                                .values(status="running", updated_at=utcnow()))
        if state.status != "running":
            return state
        state.messages, repaired = history.repair(state.messages, INTERRUPTED)
        if repaired:
            logger.warning("run %s: answered %d interrupted tool calls", run_id, len(repaired))
        return loop.run(state, checkpoint)

    def _loop(self, run_id: int, observer: Observer | None) -> AgentLoop:
        return AgentLoop(model=self.model_factory(), registry=REGISTRY, settings=self.settings, db=self.db,
                         observer=observer, run_id=run_id)

    def escalate_waiting(self, run_id: int, *, kind: str, reason: str, observer: Observer | None = None) -> bool:
        """End a run that waits for decisions that will not come (expired): results go back, then the queue."""
        if not take_lease(self.db, run_id, self.owner, self.settings.lease_seconds):
            return False
        try:
            with self.db.session() as session:
                run = session.get(Run, run_id)
                rows = pending_approvals(session, run_id)
                state = state_from_run(run, [a for a in rows if a.status == "pending"])
            if state.status != "awaiting_approval":
                return False
            loop = self._loop(run_id, observer)
            decided = approvals.settle(self.db, loop, rows)
            if decided is None:
                return False
            loop.complete_waiting_turn(state, decided)
            return self._escalate_now(loop, run_id, state, kind, reason)
        finally:
            release_lease(self.db, run_id, self.owner)

    def escalate_stuck(self, run_id: int, *, reason: str, observer: Observer | None = None) -> bool:
        """Take a run away from a worker that stopped making progress, and hand it to a person."""
        now = utcnow()
        with self.db.session() as session:
            took = session.execute(update(Run).where(col(Run.id) == run_id, col(Run.status) == "running")
                                   .values(lease_owner=self.owner,
                                           lease_expires_at=now + timedelta(seconds=self.settings.lease_seconds))
                                   ).rowcount == 1
        if not took:
            return False
        try:
            state = self.load_state(run_id)
            state.messages, _ = history.repair(state.messages, INTERRUPTED)
            return self._escalate_now(self._loop(run_id, observer), run_id, state, "stuck", reason)
        finally:
            release_lease(self.db, run_id, self.owner)

    def _escalate_now(self, loop: AgentLoop, run_id: int, state: RunState, kind: str, reason: str) -> bool:
        loop.escalate(state, kind, reason)
        Checkpoint(self.db, self.settings, run_id, self.owner, self.settings.lease_seconds)(
            state, StepRecord(number=state.steps, kind="stop", text=reason))
        loop.observer.on_finished(state)
        return True

    def _fail(self, run_id: int, reason: str) -> None:
        try:
            with self.db.session() as session:
                run = session.get(Run, run_id)
                if run is None or run.status in ("completed", "escalated", "failed"):
                    return
                states.check(run.status, "failed")
                run.status, run.reason, run.finished_at, run.updated_at = "failed", reason, utcnow(), utcnow()
                session.add(run)
                open_escalation(session, run, kind="failure", reason=reason)
        except Exception:
            logger.exception("could not record the failure of run %s", run_id)

    # --- people ---------------------------------------------------------------------------------

    def decide(self, approval_id: int, *, action: str, actor: str, message: str | None = None,
               reason: str | None = None, expected_fingerprint: str | None = None) -> Decision:
        """Record one decision on a gated call; only the first decision counts (an atomic UPDATE)."""
        return approvals.decide(self.db, approval_id, action=action, actor=actor, message=message, reason=reason,
                                expected_fingerprint=expected_fingerprint)

    def follow_up(self, run_id: int, text: str, *, actor: str | None = None) -> None:
        """A person adds to a finished run's conversation; the next resume runs with a fresh allowance."""
        if not text or not text.strip():
            raise BadInput("The follow-up is empty; say what else you need.")
        self._reopen(run_id, text.strip(), actor=actor)

    def reopen(self, run_id: int, *, actor: str, note: str | None = None) -> None:
        """Continue a stopped run with a fresh allowance of steps, tokens, dollars and time."""
        text = (f"{CONTINUE_NOTE} ({actor} asked you to.)"
                + (f" Their note: {note.strip()}" if note and note.strip() else "")
                + " Do not repeat work already done.")
        self._reopen(run_id, text, actor=actor)
        with self.db.session() as session:
            session.execute(update(Escalation).where(col(Escalation.run_id) == run_id,
                                                     col(Escalation.status).in_(("open", "claimed")))
                            .values(status="resumed", note=f"resumed by {actor}", updated_at=utcnow()))

    def _reopen(self, run_id: int, text: str, *, actor: str | None) -> None:
        if not take_lease(self.db, run_id, self.owner, self.settings.lease_seconds):
            raise BadInput(f"Run {run_id} is busy right now; try again in a moment.")
        try:
            with self.db.session() as session:
                run = session.get(Run, run_id, with_for_update=True)
                if run is None:
                    raise BadInput(f"There is no run {run_id}.")
                if run.status in LIVE:
                    raise BadInput(f"Run {run_id} is still {run.status.replace('_', ' ')}; wait for it to finish.")
                state = state_from_run(run, [])
                state.messages, _ = history.repair(state.messages, "Not run: the run stopped before this call.")
                state.messages = history.append_user_text(state.messages, text)
                state.start_segment()
                state.segment_first_message = max(0, len(state.messages) - 1)
                state.status, state.reason, state.answer = "queued", None, None
                apply_state(run, state)
                run.finished_at = None
                session.add(run)
        finally:
            release_lease(self.db, run_id, self.owner)

    # --- reading --------------------------------------------------------------------------------

    def load_state(self, run_id: int) -> RunState | None:
        with self.db.session() as session:
            run = session.get(Run, run_id)
            if run is None:
                return None
            return state_from_run(run, [a for a in pending_approvals(session, run_id) if a.status == "pending"])


def _decisions_text(approvals: list[Approval]) -> str:
    return "; ".join(f"{a.tool_name} {a.status} by {a.decided_by or 'nobody'}" for a in approvals)


def _decision_calls(approvals: list[Approval], decided: dict[str, ToolResult]) -> list[dict]:
    return [{"id": a.tool_use_id, "name": a.tool_name, "input": a.edited_input or a.tool_input,
             "result": decided[a.tool_use_id].text, "is_error": decided[a.tool_use_id].is_error,
             "latency_ms": 0, "status": a.status} for a in approvals]
