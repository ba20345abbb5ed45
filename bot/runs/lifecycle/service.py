"""Start a run, continue it (resume), decide its approvals, follow up on it. Safe to call from any process:
everything needed lives in the database, and a lease keeps two workers off the same run."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, func, select

from bot import outbox
from bot.agent import history
from bot.agent.clients import build_model, model_name
from bot.agent.loop import AgentLoop
from bot.agent.model import ModelClient
from bot.agent.observer import Observer
from bot.agent.prompts import CONTINUE_NOTE
from bot.config import Settings
from bot.db import clock
from bot.db.engine import Database
from bot.db.models import Approval, Missing, Run, Step, get_or_raise, id_of
from bot.db.statements import changed
from bot.runs import BadInput, owner_name
from bot.runs.lifecycle import (
    approvals,
    batch_decisions,
    citations,
    escalations,
    held,
    incident_links,
    states,
    stops,
)
from bot.runs.lifecycle.approvals import Decision
from bot.runs.lifecycle.batch_decisions import AllDecided
from bot.runs.lifecycle.checkpoint import (
    LEASES,
    Checkpoint,
    LeaseLost,
    claim,
    open_escalation,
    pending_approvals,
    release_lease,
    stamp,
    state_from_run,
    take_lease,
)
from bot.runs.lifecycle.goals import (
    check_goal,
    clean_text,
    goal_ticket,
    live_run,
    live_run_sentence,
    live_run_taken,
)
from bot.runs.lifecycle.members import GroupMembers
from bot.runs.lifecycle.new_run import insert_run
from bot.runs.lifecycle.people import People
from bot.runs.lifecycle.reopen import reopen_in
from bot.telemetry.conventions import INVOKE_AGENT, SPAN_ESCALATE
from bot.telemetry.instrument import instrument
from bot.telemetry.segment import on_run
from bot.telemetry.tool_calls import traced_execute
from bot.vocabulary import TERMINAL, ApprovalStatus, RunState, RunStatus, StepKind, StepRecord, StopKind
from tools import Tool, ToolContext, ToolError, ToolResult, execute, registry_for

logger = logging.getLogger(__name__)

TRACED_EXECUTE = traced_execute(execute)  # a tool call's log lines name its run; execute_tool spans
INTERRUPTED = ("Interrupted: the worker stopped during this turn before its result was stored. Read-only calls "
               "can simply be repeated; for a change (update_ticket) check the ticket with get_ticket first.")


class RunService:
    def __init__(self, db: Database, settings: Settings, *, model_factory: Callable[[], ModelClient] | None = None,
                 owner: str | None = None, registry: dict[str, Tool] | None = None):
        self.db, self.settings = db, settings
        self.registry = registry_for(settings) if registry is None else registry
        self.model_factory = model_factory or _shared_model(settings, db)
        self.owner = owner or owner_name()
        self.group_members = GroupMembers(db)  # user groups' members as rows (the Slack side's timer writes them)
        self.people = People(settings, self.group_members)  # who may decide, stop, act on the queue: one rule for every surface
        # known without building the client: recording a Slack request must not wait for `import anthropic`
        self._model_name: str | None = None if model_factory else model_name(settings)
        if settings.desk == "embedded":  # what is due on its open tickets, before the first card shows it (once)
            from bot.desk import open_desk

            open_desk(settings, db)

    # --- starting -------------------------------------------------------------------------------

    @property
    def model_name(self) -> str:
        if self._model_name is None:
            self._model_name = self.model_factory().name
        return self._model_name

    def check_goal(self, goal: str) -> str:
        """The ticket a request is about, or BadInput saying what is wrong with the request."""
        with self.db.session() as session:
            return check_goal(session, clean_text(goal), self.settings.max_goal_chars, self.settings.desk)

    def start(self, goal: str, *, started_by: str | None = None, origin: dict[str, Any] | None = None) -> int:
        """A queued run for `goal` (the CLI's way in; Slack requests are recorded by bot/runs/intake/record.py)."""
        goal = clean_text(goal).strip()
        origin = origin or {}
        thread_key = f"{origin['channel']}:{origin['thread_ts']}" if origin.get("thread_ts") else None
        if self.settings.desk != "embedded":
            mirror_first(self.db, self.settings, goal)
        try:
            with self.db.session() as session:
                ticket_id = check_goal(session, goal, self.settings.max_goal_chars, self.settings.desk)
                live = live_run(session, ticket_id)
                if live is not None:
                    raise BadInput(live_run_sentence(live))
                run_id = insert_run(session, goal=goal, ticket_id=ticket_id, model=self.model_name,
                                           started_by=started_by, origin=origin, thread_key=thread_key)
                if run_id is None:  # check_goal found it a moment ago: it was deleted since
                    raise BadInput(f"{ticket_id} is no longer on the desk.")
                return run_id
        except IntegrityError:  # the database's one-live-run-per-ticket index: another start won the race
            with self.db.session() as session:
                raise live_run_taken(session, ticket_id) from None

    # --- continuing -------------------------------------------------------------------------------

    @on_run(INVOKE_AGENT)  # bot/telemetry: the run in every log line; with tracing, an invoke_agent span
    def resume(self, run_id: int, observer: Observer | None = None) -> RunState | None:
        """Continue a run as far as it can go now. Idempotent; None if another worker holds it."""
        claimed = claim(self.db, run_id, self.owner, self.settings.lease_seconds)
        if claimed is None:
            logger.info("run %s is being continued elsewhere", run_id)
            return None
        run, rows = claimed
        checkpoint = Checkpoint(self.db, self.settings, run_id, self.owner, self.settings.lease_seconds, run=run)
        with self._leased(run_id, renew=True, checkpoint=checkpoint):
            try:
                state = self._resume(run, rows, checkpoint, observer)
            except LeaseLost as lost:
                logger.warning("%s", lost)
                return self.load_state(run_id)
            except Exception:
                logger.exception("run %s failed", run_id)
                self._fail(run_id, "internal error while running the agent (details are in the server log)")
                return self.load_state(run_id)
        if state is not None and state.status == RunStatus.AWAITING_APPROVAL and stops.withdraw_if_stopped(self.db, run_id):
            return self.resume(run_id, observer)  # a stop landed as its drafts were stored: it stops now
        return state

    @contextmanager
    def _leased(self, run_id: int, *, renew: bool = False, checkpoint: Checkpoint | None = None) -> Iterator[None]:
        """The body works on a run whose lease this service has just taken; the lease is given back afterwards,
        whatever happens (unless the checkpoint that stopped the run gave it back already). With `renew`, the
        process's lease keeper keeps it fresh meanwhile (a resume can outlast a lease)."""
        try:
            if renew:
                with LEASES.holding(self.db, run_id, self.owner, self.settings.lease_seconds):
                    yield
            else:
                yield
        finally:
            if checkpoint is None or not checkpoint.released:
                release_lease(self.db, run_id, self.owner)

    def _resume(self, run: Run, rows: list[Approval], checkpoint: Checkpoint,
                observer: Observer | None) -> RunState | None:
        state = state_from_run(run, [a for a in rows if a.status == ApprovalStatus.PENDING])
        loop = self._loop(id_of(run), observer)
        if state.status == RunStatus.AWAITING_APPROVAL:
            decided = approvals.settle(self.db, loop, rows)
            if decided is None:
                return state
            if run.batch_id is not None:  # a fan-out child whose reply went out: its ticket joins the problem
                incident_links.link_sent(self.db, self.settings, run, rows)
            loop.complete_waiting_turn(state, decided)
            checkpoint(state, StepRecord(number=state.steps, kind=StepKind.APPROVAL,
                                         text=_decisions_text(rows), tool_calls=_decision_calls(rows, decided)))
        if state.status != RunStatus.RUNNING:
            return state
        state.messages, repaired = history.repair(state.messages, INTERRUPTED)
        if repaired:
            logger.warning("run %s: answered %d interrupted tool calls", run.id, len(repaired))
        return loop.run(state, checkpoint)

    def _loop(self, run_id: int, observer: Observer | None) -> AgentLoop:
        model, observer = instrument(self.model_factory(), observer)  # bot/telemetry: chat spans, loop events
        return AgentLoop(model=model, registry=self.registry, settings=self.settings, db=self.db,
                         observer=observer, run_id=run_id, execute=TRACED_EXECUTE,
                         stop_check=lambda: stops.requested_by(self.db, run_id))

    @on_run(SPAN_ESCALATE)
    def escalate_waiting(self, run_id: int, *, kind: StopKind, reason: str, observer: Observer | None = None) -> bool:
        """End a run that waits for decisions that will not come (expired): results go back, then the queue."""
        if not take_lease(self.db, run_id, self.owner, self.settings.lease_seconds):
            return False
        with self._leased(run_id):
            with self.db.session() as session:
                run = get_or_raise(session, Run, run_id)  # the lease was just taken on it
                rows = pending_approvals(session, run_id)
                state = state_from_run(run, [a for a in rows if a.status == ApprovalStatus.PENDING])
            if state.status != RunStatus.AWAITING_APPROVAL:
                return False
            loop = self._loop(run_id, observer)
            decided = approvals.settle(self.db, loop, rows)
            if decided is None:
                return False
            loop.complete_waiting_turn(state, decided)
            return self._escalate_now(loop, run_id, state, kind, reason)

    @on_run(SPAN_ESCALATE)
    def escalate_stuck(self, run_id: int, *, reason: str, stale_before: datetime | None = None,
                       observer: Observer | None = None) -> bool:
        """Take a run away from a worker that stopped making progress, and hand it to a person. Only one
        sweeper wins: the takeover requires the run still to look stuck, and makes it look fresh."""
        with self.db.session() as session:
            stuck = [col(Run.id) == run_id, col(Run.status) == RunStatus.RUNNING]
            if stale_before is not None:
                stuck.append(col(Run.updated_at) < stale_before)
            took = changed(session.execute(update(Run).where(*stuck).values(
                lease_owner=self.owner, lease_expires_at=clock.now(self.settings.lease_seconds),
                updated_at=clock.now()))) == 1
        if not took:
            return False
        with self._leased(run_id):
            try:
                state = self._state(run_id)
                state.messages, _ = history.repair(state.messages, INTERRUPTED)
                loop = self._loop(run_id, observer)
                who = stops.requested_by(self.db, run_id)
                if who:  # a person stopped it while its worker was dying: stopped, not stuck
                    loop.stop(state, who)
                    return self._record_end(loop, run_id, state, who)
                return self._escalate_now(loop, run_id, state, StopKind.STUCK, reason)
            except LeaseLost:  # another sweeper or worker has it now
                return False

    def _escalate_now(self, loop: AgentLoop, run_id: int, state: RunState, kind: StopKind, reason: str) -> bool:
        loop.escalate(state, kind, reason)
        return self._record_end(loop, run_id, state, reason)

    def _record_end(self, loop: AgentLoop, run_id: int, state: RunState, text: str) -> bool:
        Checkpoint(self.db, self.settings, run_id, self.owner, self.settings.lease_seconds)(
            state, StepRecord(number=state.steps, kind=StepKind.STOP, text=text))
        loop.observer.on_finished(state)
        return True

    def _fail(self, run_id: int, reason: str) -> None:
        try:
            with self.db.session() as session:
                run = session.get(Run, run_id)
                if run is None or run.status in TERMINAL:
                    return
                old_status = states.move(run, RunStatus.FAILED)
                run.reason = reason
                session.add(run)
                stamp(session, run_id, finished=True)
                escalation = open_escalation(session, run, kind=StopKind.FAILURE, reason=reason)
                session.flush()
                number = (session.exec(select(func.max(Step.number)).where(Step.run_id == run_id)).one() or 0) + 1
                session.add(Step(run_id=run_id, number=number, turn=run.steps, kind="error", worker=self.owner,
                                 text=reason))
                session.flush()
                outbox.after_step(session, run, number, old_status=old_status, approvals=[], escalation=escalation,
                                  queue_channel=self.settings.escalation_channel)
        except Exception:
            logger.exception("could not record the failure of run %s", run_id)

    # --- people ---------------------------------------------------------------------------------

    def decide(self, approval_id: int, *, action: str, actor: str, message: str | None = None,
               reason: str | None = None, expected_fingerprint: str | None = None) -> Decision:
        """Record one decision on a gated call; only the first decision counts (an atomic UPDATE)."""
        return approvals.decide(self.db, approval_id, action=action, actor=actor, message=message, reason=reason,
                                expected_fingerprint=expected_fingerprint, check=self.check_call)

    def approve_all(self, batch_id: int, *, actor: str, shown: dict[int, str]) -> AllDecided:
        """Approve every draft a batch card showed (approval id → fingerprint); each decided once."""
        return batch_decisions.approve_all(self.db, batch_id, actor=actor, shown=shown, check=self.check_call)

    def stop(self, run_id: int, *, actor: str, person: bool = True) -> stops.StopOutcome:
        """Record a stop of a live run (a Slack person is asked the rule; the terminal's operator is not). The
        caller dispatches the run when the outcome is `stopping`: whoever continues it stops it."""
        check = (lambda started_by: self.people.why_not_stop(actor, run_id, started_by)) if person else None
        return stops.request(self.db, run_id, actor=actor, check=check)

    def stop_thread(self, *, channel: str, thread_ts: str, actor: str) -> stops.StopOutcome:
        """Slack's own Stop on an agent session: the run of that thread stops."""
        run_id = stops.run_in_thread(self.db, channel, thread_ts)
        if run_id is None:
            return stops.StopOutcome("not_found", "No run works in this thread; there is nothing to stop.")
        return self.stop(run_id, actor=actor)

    def check_call(self, name: str, arguments: dict[str, Any]) -> list[str]:
        """What is wrong with a gated call's arguments (a person's edit), checked as the model's call would be."""
        tool = self.registry.get(name)
        if tool is None:
            return [f"there is no tool {name!r}"]
        problems = tool.argument_problems(arguments)
        if not problems and name in citations.DRAFT_TOOLS:
            with self.db.session() as session:
                unknown = citations.unknown_sections(session, str(arguments.get("message") or ""))
            if unknown:
                problems = [f"it cites {', '.join(f'[{a}]' for a in unknown)}, which "
                            f"{'is' if len(unknown) == 1 else 'are'} no help-center section (the customer would see "
                            "the raw code): fix the code, or name the section in words"]
        if problems or tool.preflight is None:
            return problems
        try:
            tool.preflight(ToolContext(db=self.db, settings=self.settings), **arguments)
        except ToolError as exc:
            return [str(exc)]
        return []

    def follow_up(self, run_id: int, text: str, *, actor: str | None = None) -> None:
        """A person adds to a finished run's conversation; the next resume runs with a fresh allowance."""
        text = clean_text(text).strip()
        if not text:
            raise BadInput("The follow-up is empty; say what else you need.")
        self._reopen(run_id, text, opening={"kind": "follow_up", "actor": actor})

    def reopen(self, run_id: int, *, actor: str, note: str | None = None) -> None:
        """Continue a stopped run with a fresh allowance of steps, tokens, dollars and time; its open
        escalations are marked resumed, and the run's thread and the queue post say who resumed it."""
        text = (f"{CONTINUE_NOTE} ({actor} asked you to.)"
                + (f" Their note: {clean_text(note).strip()}" if note and note.strip() else "")
                + " Do not repeat work already done.")
        self._reopen(run_id, text, opening={"kind": "resumed", "actor": actor}, resumed_by=actor)

    def take_from_queue(self, target: escalations.Target, *, actor: str) -> escalations.QueueAct:
        """A person takes a run in the human queue (the terminal, Slack's button): asked of the rule, once."""
        return escalations.take(self.db, self.people, target, actor=actor)

    def close_from_queue(self, target: escalations.Target, *, actor: str, note: str) -> escalations.QueueAct:
        """A person closes a run's escalation with a note (raises BadInput without one)."""
        return escalations.close(self.db, self.people, target, actor=actor, note=note)

    def resume_from_queue(self, target: escalations.Target, *, actor: str,
                          note: str | None = None) -> escalations.QueueAct:
        """A person's resume from the human queue (the terminal, Slack's button): asked of the rule, then the run
        is reopened as `reopen` does; the caller continues it (`done` and its `run_id`)."""
        act = escalations.resumable(self.db, self.people, target, actor=actor)
        if act.done and act.run_id is not None:
            try:
                self.reopen(act.run_id, actor=actor, note=note)
            except BadInput as exc:
                return escalations.QueueAct(False, str(exc), act.run_id)
        return act

    def _reopen(self, run_id: int, text: str, *, opening: dict[str, Any], resumed_by: str | None = None) -> None:
        try:
            with self.db.session() as session:
                run = session.get(Run, run_id)
                if run is None:
                    raise BadInput(f"There is no run {run_id}.")
                waiting = held.open_messages(session, run.ticket_id) if run.status in TERMINAL else []
                if waiting:  # the customer wrote while the run waited for this person: it goes with them
                    text += "\n\n" + held.continuation(str(run.ticket_id), waiting, self.settings.tool_result_max_chars)
                reopen_in(session, run, text, opening=opening)
                held.taken_into(session, run, waiting, f"went into the run when {opening.get('actor') or 'a person'} "
                                "continued it")
                if resumed_by is not None:
                    escalations.mark_resumed(session, run_id, actor=resumed_by)
        except IntegrityError:
            with self.db.session() as session:
                raise live_run_taken(session, get_or_raise(session, Run, run_id).ticket_id) from None

    def tell(self, *, channel: str, user: str, text: str, thread_ts: str | None = None) -> None:
        """A sentence only `user` sees in Slack (delivered by the outbox sender)."""
        with self.db.session() as session:
            outbox.ephemeral(session, channel=channel, user=user, text=text, thread_ts=thread_ts)

    def home_opened(self, user: str) -> None:
        """`user` looks at App Home: it shows the newest queue, drafts and runs, and stays fresh."""
        with self.db.session() as session:
            outbox.home(session, user)

    # --- reading --------------------------------------------------------------------------------

    def load_state(self, run_id: int) -> RunState | None:
        """The run's state as stored; None if there is no such run."""
        try:
            return self._state(run_id)
        except Missing:
            return None

    def _state(self, run_id: int) -> RunState:
        with self.db.session() as session:
            run = get_or_raise(session, Run, run_id)
            return state_from_run(run, [a for a in pending_approvals(session, run_id) if a.status == ApprovalStatus.PENDING])


def _shared_model(settings: Settings, db: Database) -> Callable[[], ModelClient]:
    """One model client for every run of this service (the SDK's client is thread-safe; building one per run
    costs an SSL context and a connection pool each time)."""
    model: list[ModelClient] = []
    lock = threading.Lock()

    def factory() -> ModelClient:
        with lock:
            if not model:
                model.append(build_model(settings, db))
            return model[0]

    return factory


def _decisions_text(approvals: list[Approval]) -> str:
    return "; ".join(f"{a.tool_name} {a.status} by {a.decided_by or 'nobody'}" for a in approvals)


def _decision_calls(approvals: list[Approval], decided: dict[str, ToolResult]) -> list[dict[str, Any]]:
    return [{"id": a.tool_use_id, "name": a.tool_name, "input": a.edited_input or a.tool_input,
             "result": decided[a.tool_use_id].text, "is_error": decided[a.tool_use_id].is_error,
             "latency_ms": 0, "status": a.status} for a in approvals]


def mirror_first(db: Database, settings: Settings, goal: str) -> None:
    """A real desk's ticket the mirror has not seen yet (created a moment ago, its webhook not yet in) is read
    from the desk now, so `handle 4821` works on it; an unknown or unreadable ticket is a sentence."""
    from bot.db.models import Ticket
    from bot.desk import DeskError, open_desk

    ticket_id = goal_ticket(goal, settings.max_goal_chars, settings.desk)
    with db.session() as session:
        if session.get(Ticket, ticket_id) is not None:
            return
    try:
        open_desk(settings, db).ticket(ticket_id)
    except DeskError as exc:
        raise BadInput(str(exc)) from None
