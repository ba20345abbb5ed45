"""Between the loop's RunState and the stored Run, and the checkpoint that stores a step."""

from __future__ import annotations

import functools
import itertools
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Boolean, Float, bindparam, case, insert, or_, update
from sqlmodel import Session, col, func, select

from bot import outbox
from bot.agent import trace
from bot.config import Settings
from bot.db import clock
from bot.db.engine import Database
from bot.db.models import Approval, Escalation, Run, Step, get_or_raise, id_of, table_of, utcnow
from bot.runs.lifecycle import citations, states, triage
from bot.vocabulary import TERMINAL, Allowance, PendingCall, RunState, RunStatus, StepRecord, Usage

logger = logging.getLogger(__name__)


def state_from_run(run: Run, approvals: list[Approval]) -> RunState:
    pending = [PendingCall(a.tool_use_id, a.tool_name, dict(a.tool_input or {}), a.fingerprint) for a in approvals]
    return RunState(
        goal=run.goal, messages=list(run.messages or []), model=run.model, ticket_id=run.ticket_id,
        status=RunStatus(run.status),
        reason=run.reason, answer=run.answer, summary=run.summary, steps=run.steps, usage=Usage.of(run),
        cost_usd=run.cost_usd, allowance=Allowance.of(run), pending_results=list(run.pending_results or []),
        pending_calls=pending)


def apply_state(run: Run, state: RunState) -> None:
    states.move(run, state.status)
    run.messages = state.messages
    run.pending_results = state.pending_results or None
    run.reason, run.answer, run.summary = state.reason, state.answer, state.summary
    run.steps, run.cost_usd = state.steps, state.cost_usd
    state.usage.store(run)
    state.allowance.store(run)
    run.updated_at = utcnow()  # this process's idea of it; what is stored is the database's time (_statements)
    if state.status in TERMINAL:
        run.finished_at = run.updated_at


def step_dict(step: StepRecord) -> dict[str, Any]:
    return {"turn": step.number, "kind": step.kind, "stop_reason": step.stop_reason, "model": step.model,
            "text": step.text,
            "tool_calls": step.tool_calls, **step.usage.model_dump(), "latency_ms": step.latency_ms,
            "cost_usd": round(step.cost_usd, 6), "response": step.response}


class Checkpoint:
    """Stores the run, its step, new approvals and any escalation in ONE transaction, and renews the lease.

    Under the lease nobody else writes the run, so its row is read once (or handed over by `claim`) and kept
    in step here: a checkpoint is one UPDATE that also checks the lease and the expected status, one INSERT
    of the step, and the outbox rows, all in prebuilt statements. The checkpoint that takes the run out of
    `running` gives the lease back in the same UPDATE (`released`). The times it stores (the run's
    `updated_at`, `finished_at`, the lease's expiry, the step's `created_at`) are the database's."""

    def __init__(self, db: Database, settings: Settings, run_id: int, owner: str | None = None,
                 lease_seconds: float = 600, run: Run | None = None):
        self.db, self.settings, self.run_id = db, settings, run_id
        self.owner, self.lease_seconds = owner, lease_seconds
        self.run, self.released = run, False
        self.number: int | None = None  # the last step stored, once known

    def __call__(self, state: RunState, step: StepRecord) -> None:
        data = step_dict(step)
        found = triage.recorded(self.settings, data["tool_calls"] or [])  # an intake run's triage (triage.py)
        if found is not None:
            triage.write_tags(self.db, self.settings, self._known_run(), *found)  # first: no transaction open
        try:
            with self.db.session() as session:
                run = self._snapshot(session)
                old_status = run.status
                apply_state(run, state)
                release = self.owner is not None and state.status != RunStatus.RUNNING
                self._write_run(session, run, old_status, release)
                number = self._next_number(session)
                citations.annotate(session, state.messages, data["tool_calls"])  # citation checks of drafts
                if found is not None:
                    triage.store(session, self.run_id, found[0])
                session.connection().execute(_statements().insert_step, _step_row(self.run_id, number,
                                                                                   self.owner, data))
                approvals = add_approvals(session, run, state.pending_calls) \
                    if state.status == RunStatus.AWAITING_APPROVAL else []
                escalation = None
                if state.status == RunStatus.STOPPED:  # who stopped it: recorded after this run was read
                    run.stop_requested_by = session.exec(select(Run.stop_requested_by).where(
                        col(Run.id) == self.run_id)).one()
                if state.status in (RunStatus.ESCALATED, RunStatus.FAILED, RunStatus.STOPPED):
                    escalation = open_escalation(session, run, kind=state.stop_kind or state.status,
                                                 reason=state.reason or "")
                    session.flush()
                outbox.after_step(session, run, number, old_status=old_status, approvals=approvals,
                                  escalation=escalation, queue_channel=self.settings.escalation_channel)
        except BaseException:
            self.run, self.number = None, None  # what is stored is read again if anyone goes on
            raise
        self.number, self.released = number, self.released or release
        trace.write_step(self.run_id, {"step": number, **data}, self.settings.step_log_path)

    def _known_run(self) -> Run:
        if self.run is None:
            with self.db.session() as session:
                return self._snapshot(session)
        return self.run

    def _snapshot(self, session: Session) -> Run:
        if self.run is None:
            run = session.get(Run, self.run_id)
            if run is None:
                raise LeaseLost(f"run {self.run_id} is gone")
            session.expunge(run)
            self.run = run
        return self.run

    def _write_run(self, session: Session, run: Run, old_status: str, release: bool) -> None:
        values = {name: getattr(run, name) for name in STATE_COLUMNS}
        values.update(_id=self.run_id, _old=old_status, _finishes=run.status in TERMINAL)
        if self.owner is None:
            statement = _statements().update_run
        elif release:
            statement = _statements().update_released_run
            values.update(_owner=self.owner)
            run.lease_owner, run.lease_expires_at = None, None
        else:
            statement = _statements().update_leased_run
            values.update(_owner=self.owner, _lease_seconds=self.lease_seconds)
            run.lease_owner = self.owner
        if session.connection().execute(statement, values).rowcount == 1:
            return
        now = session.exec(select(Run.lease_owner, Run.status).where(col(Run.id) == self.run_id)).first()
        if now is None or (self.owner is not None and now[0] != self.owner):
            raise LeaseLost(f"run {self.run_id} is now held by {(now and now[0]) or 'nobody'} "
                            f"(this worker, {self.owner}, was presumed dead); it stops without writing")
        raise LeaseLost(f"run {self.run_id} went from {old_status} to {now[1]} meanwhile; this worker stops "
                        "without writing")

    def _next_number(self, session: Session) -> int:
        if self.number is None:
            self.number = session.exec(select(func.max(Step.number)).where(Step.run_id == self.run_id)).one() or 0
        return self.number + 1


def stamp(session: Session, run_id: int, *, finished: bool = False) -> None:
    """A run changed through the ORM (a reopening, a failure): its `updated_at` (and `finished_at`) become the
    database's time, which the sweeps judge it by."""
    run = table_of(Run)
    values: dict[str, Any] = {"updated_at": clock.now(), **({"finished_at": clock.now()} if finished else {})}
    session.connection().execute(update(run).where(run.c.id == run_id).values(values))


class LeaseLost(RuntimeError):
    """Another worker took the run over (this one was presumed dead); stop without writing."""


STATE_COLUMNS = ("messages", "pending_results", "status", "reason", "answer", "summary", "steps", *Usage.model_fields,
                 "cost_usd", *Allowance.model_fields, "finished_at")
STEP_COLUMNS = ("turn", "kind", "stop_reason", "model", "text", "response", "tool_calls", *Usage.model_fields, "latency_ms",
                "cost_usd")


def _step_row(run_id: int, number: int, worker: str | None, data: dict[str, Any]) -> dict[str, Any]:
    return {"run_id": run_id, "number": number, "worker": worker, **{name: data[name] for name in STEP_COLUMNS}}


@dataclass(frozen=True)
class _Statements:
    """The checkpoint's and the lease's statements, built once (SQLAlchemy then reuses their compiled form)."""

    update_run: Any
    update_leased_run: Any
    update_released_run: Any
    insert_step: Any
    take_lease: Any
    renew_lease: Any
    release_lease: Any
    start_running: Any


@functools.cache
def _statements() -> _Statements:
    run, step = table_of(Run), table_of(Step)
    state: dict[str, Any] = {name: bindparam(name, type_=run.c[name].type) for name in STATE_COLUMNS}
    state.update(updated_at=clock.now(), finished_at=case((bindparam("_finishes", type_=Boolean()), clock.now()),
                                                          else_=state["finished_at"]))
    expires = clock.now(bindparam("_lease_seconds", type_=Float()))  # the database's time, not this process's
    lease = {"lease_owner": bindparam("_owner"), "lease_expires_at": expires}
    this_run = (run.c.id == bindparam("_id"), run.c.status == bindparam("_old"))
    mine = run.c.lease_owner == bindparam("_owner")
    free = or_(run.c.lease_owner.is_(None), run.c.lease_expires_at < clock.now(), mine)
    return _Statements(
        update_run=update(run).where(*this_run).values(state),
        update_leased_run=update(run).where(*this_run, mine).values({**state, **lease}),
        update_released_run=update(run).where(*this_run, mine).values(
            {**state, "lease_owner": None, "lease_expires_at": None}),
        insert_step=insert(step).values(created_at=clock.now()),
        take_lease=update(run).where(run.c.id == bindparam("_id"), free).values(lease),
        renew_lease=update(run).where(run.c.id == bindparam("_id"), mine).values(lease_expires_at=expires),
        release_lease=update(run).where(run.c.id == bindparam("_id"), mine)
        .values(lease_owner=None, lease_expires_at=None),
        start_running=update(run).where(run.c.id == bindparam("_id"), run.c.status == RunStatus.QUEUED)
        .values(status=RunStatus.RUNNING, updated_at=clock.now()))


def add_approvals(session: Session, run: Run, calls: list[PendingCall]) -> list[Approval]:
    """The approvals of a turn that waits for people (tool-call ids are unique per run, not across runs)."""
    added = []
    for call in calls:
        exists = session.exec(select(Approval).where(Approval.run_id == run.id,
                                                     Approval.tool_use_id == call.tool_use_id)).first()
        if exists is None:
            approval = Approval(run_id=id_of(run), tool_use_id=call.tool_use_id, tool_name=call.name,
                                tool_input=call.input, fingerprint=call.fingerprint)
            session.add(approval)
            added.append(approval)
    session.flush()
    return added


def open_escalation(session: Session, run: Run, *, kind: str, reason: str) -> Escalation:
    escalation = Escalation(run_id=id_of(run), kind=kind, reason=reason, summary=run.summary, origin=run.origin)
    session.add(escalation)
    return escalation


def pending_approvals(session: Session, run_id: int) -> list[Approval]:
    """The approvals of the turn the run is waiting on (decided or not), oldest first."""
    run = session.get(Run, run_id)
    if run is None or run.status != RunStatus.AWAITING_APPROVAL or not run.messages:
        return []
    ids = [b.get("id") for b in run.messages[-1].get("content", []) if b.get("type") == "tool_use"]
    rows = session.exec(select(Approval).where(Approval.run_id == run_id, col(Approval.tool_use_id).in_(ids))
                        .order_by(col(Approval.id))).all()
    return list(rows)


# --- the lease: at most one worker continues a run at a time ---------------------------------------

def claim(db: Database, run_id: int, owner: str, seconds: float) -> tuple[Run, list[Approval]] | None:
    """Take the lease and read what resuming needs, in one transaction: the run (a queued run starts
    running) and the approvals of the turn it waits on. None when another worker holds the run."""
    with db.session() as session:
        took = session.connection().execute(_statements().take_lease, {
            "_id": run_id, "_owner": owner, "_lease_seconds": seconds}).rowcount == 1
        if not took:
            return None
        run = get_or_raise(session, Run, run_id)  # the lease was just taken on it
        rows = pending_approvals(session, run_id)
        if run.status == RunStatus.QUEUED:
            session.expunge(run)
            states.move(run, RunStatus.RUNNING)  # the one statement below writes what was checked here
            session.connection().execute(_statements().start_running, {"_id": run_id})
            run.updated_at = utcnow()  # this process's idea of it: the row has the database's time
        session.expunge_all()
    return run, rows


def take_lease(db: Database, run_id: int, owner: str, seconds: float) -> bool:
    with db.session() as session:
        return session.connection().execute(_statements().take_lease, {
            "_id": run_id, "_owner": owner, "_lease_seconds": seconds}).rowcount == 1


def release_lease(db: Database, run_id: int, owner: str) -> None:
    with db.session() as session:
        session.connection().execute(_statements().release_lease, {"_id": run_id, "_owner": owner})


def renew_lease(db: Database, run_id: int, owner: str, seconds: float) -> bool:
    with db.session() as session:
        return session.connection().execute(_statements().renew_lease, {
            "_id": run_id, "_owner": owner, "_lease_seconds": seconds}).rowcount == 1


@dataclass
class _Held:
    db: Database
    run_id: int
    owner: str
    seconds: float
    due: float


class LeaseKeeper:
    """Keeps this process's leases fresh while it works, so only a dead worker's lease ever expires: one
    thread renews every lease held here a third of its length after the last renewal (a thread per resume
    cost a start and a join every time)."""

    def __init__(self) -> None:
        self._held: dict[int, _Held] = {}
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._tokens = itertools.count()

    @contextmanager
    def holding(self, db: Database, run_id: int, owner: str, seconds: float) -> Iterator[None]:
        token = next(self._tokens)
        with self._cond:
            self._held[token] = _Held(db, run_id, owner, seconds, time.monotonic() + seconds / 3)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._beat, name="lease-keeper", daemon=True)
                self._thread.start()
            self._cond.notify()
        try:
            yield
        finally:
            with self._cond:
                self._held.pop(token, None)

    def _beat(self) -> None:
        while True:
            with self._cond:
                now = time.monotonic()
                due = [(token, held) for token, held in self._held.items() if held.due <= now]
                if not due:
                    soonest = min((held.due for held in self._held.values()), default=now + 60.0)
                    self._cond.wait(timeout=soonest - now)
                    continue
                for _, held in due:
                    held.due = now + held.seconds / 3
            for token, held in due:
                try:
                    if not renew_lease(held.db, held.run_id, held.owner, held.seconds):
                        with self._cond:
                            self._held.pop(token, None)  # taken over, or given back: nothing to keep
                except Exception:
                    logger.exception("could not renew the lease on run %s", held.run_id)


LEASES = LeaseKeeper()
