"""Run eval cases as real runs, each on a scratch copy of the desk, in parallel; read back what each run did."""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TextIO

from sqlmodel import col, select

from bot.agent.clients import OFFLINE_NAME
from bot.agent.fan_out_text import child_goal
from bot.agent.model import ModelClient
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import Approval, Customer, Escalation, Run, Step, Ticket, TicketMessage, id_of
from bot.desk import embedded_add, ticket_ids_in
from bot.evals.cases import Case
from bot.evals.grade import Check, Observed, grade, rubric_check
from bot.evals.scratch import ScratchDesks
from bot.runs import BadInput
from bot.runs.lifecycle.new_run import insert_run
from bot.runs.lifecycle.service import RunService
from bot.vocabulary import ApprovalStatus, RunStatus

logger = logging.getLogger(__name__)
ACTOR = "eval"
MAX_DECISIONS = 4  # drafts a case decides on before it stops deciding (a run that keeps drafting)


@dataclass
class Attempt:
    passed: bool
    checks: list[Check]
    seconds: float
    cost_usd: float
    tokens: int
    model_calls: int
    status: str | None
    drafts: list[str] = field(default_factory=list)  # what the run drafted for the customer
    report: str = ""  # what it told the lead (or the sentence a refused request got)
    seen: dict[str, Any] = field(default_factory=dict)
    skipped: str | None = None  # why the case was not run (a model-only case with the offline model)


def run_cases(cases: list[Case], settings: Settings, model_factory: Callable[[], ModelClient], *,
              repeat: int = 1, parallel: int = 4, rubric_model: ModelClient | None = None,
              progress: TextIO | None = sys.stderr) -> dict[str, list[Attempt]]:
    """Every case `repeat` times; {case id: its attempts}, in the cases' order. With the offline model a
    model-only case is not run: its one attempt says why it was skipped."""
    offline = any(c.model_only for c in cases) and getattr(model_factory(), "name", None) == OFFLINE_NAME
    results: dict[str, list[Attempt]] = {case.id: [] for case in cases}
    for case in cases:
        if offline and case.model_only:
            results[case.id].append(Attempt(passed=False, checks=[], seconds=0.0, cost_usd=0.0, tokens=0,
                                            model_calls=0, status=None, skipped=f"model only: {case.model_only}"))
    desks = ScratchDesks(settings.data_dir)
    jobs = [(case, n) for case in cases if not results[case.id] for n in range(repeat)]
    bar = Progress(len(jobs), progress)
    try:
        def one(job: tuple[Case, int]) -> None:
            case, n = job
            try:
                attempt = run_case(case, settings, model_factory, desks, f"{case.id}-{n}", rubric_model)
            except Exception as exc:  # one broken case is a failed case, with what broke; the others go on
                logger.exception("eval case %s failed to run", case.id)
                attempt = Attempt(passed=False, checks=[Check("the case ran", False, f"{type(exc).__name__}: {exc}")],
                                  seconds=0.0, cost_usd=0.0, tokens=0, model_calls=0, status=None)
            with bar.lock:
                results[case.id].append(attempt)
            bar.tick(case.id, attempt.passed)

        with ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="eval") as pool:
            list(pool.map(one, jobs))
    finally:
        bar.close()
        desks.close()
    return results


def run_case(case: Case, settings: Settings, model_factory: Callable[[], ModelClient], desks: ScratchDesks,
             name: str, rubric_model: ModelClient | None = None) -> Attempt:
    db = desks.desk(name, case.setup)
    started = time.perf_counter()
    try:
        scratch = settings.model_copy(update={"database_url": str(db.engine.url), "desk": "embedded",
                                              "step_log_path": None, "escalation_channel": None})
        service = RunService(db, scratch, model_factory=model_factory)
        seen = _work(case, service, db)
        checks = grade(case, seen)
        if rubric_model is not None and case.rubric and seen.refused is None:
            checks.append(rubric_check(rubric_model, case, seen))
        return Attempt(passed=all(c.ok for c in checks), checks=checks, seconds=time.perf_counter() - started,
                       cost_usd=seen.cost_usd, tokens=seen.tokens, model_calls=seen.model_calls,
                       status=seen.status or ("refused" if seen.refused is not None else None),
                       drafts=seen.drafts, report=seen.refused or seen.words, seen=seen.as_dict())
    finally:
        db.engine.dispose()


def _work(case: Case, service: RunService, db: Database) -> Observed:
    ids = ticket_ids_in(case.request)
    ticket_id = ids[0] if ids else None
    _before(case, service, db)
    origin = {"surface": "eval", "case": case.id}
    if case.fan_out is not None:  # a fan-out child starts as the batch starts it (bot/runs/intake/fan_out.py)
        with db.session() as session:
            child = insert_run(session, goal=child_goal(case.request, case.fan_out["parent"]), ticket_id=case.request,
                               model=service.model_name, started_by=ACTOR, origin=origin, thread_key=None,
                               request=case.first_message)
        if child is None:
            return Observed(ticket_id=ticket_id, refused=f"{case.request} is not on the desk")
        run_id = child
    else:
        try:
            run_id = service.start(case.first_message, started_by=ACTOR, origin=origin)
        except BadInput as refused:
            return Observed(ticket_id=ticket_id, refused=str(refused))
    _decide(service, db, run_id, case.decide, case.reject_reason)
    return observe(db, run_id, ticket_id, case.fan_out["parent"] if case.fan_out else None)


def _before(case: Case, service: RunService, db: Database) -> None:
    """What happened on the desk before the case's request (its `before`, in order): a run worked to its end
    with its drafts approved, or a customer's message added as `kitebase desk add` adds it."""
    for step in case.before:
        if "request" in step:
            run_id = service.start(step["request"], started_by=ACTOR,
                                   origin={"surface": "eval", "case": case.id, "before": True})
            _decide(service, db, run_id, "approve")
        else:
            message = embedded_add.NewMessage(0, step["ticket_id"], step["message"], step.get("author"))
            embedded_add.add(db, [message], arrivals=False, where=f"case {case.id}'s before")


def _decide(service: RunService, db: Database, run_id: int, decide: str, reason: str = "") -> None:
    """Work the run, deciding each draft it asks for (approve, or reject with `reason`) and everything else
    approved, up to MAX_DECISIONS times."""
    state = service.resume(run_id)
    for _ in range(MAX_DECISIONS):
        if state is None or state.status != RunStatus.AWAITING_APPROVAL:
            break
        with db.session() as session:
            waiting = session.exec(select(Approval).where(Approval.run_id == run_id,
                                                          Approval.status == ApprovalStatus.PENDING)).all()
        for approval in waiting:
            if decide == "reject" and approval.tool_name == "reply_to_customer":
                service.decide(id_of(approval), action="reject", actor=ACTOR, reason=reason)
            else:
                service.decide(id_of(approval), action="approve", actor=ACTOR)
        state = service.resume(run_id)


def observe(db: Database, run_id: int, ticket_id: str | None, parent_id: str | None = None) -> Observed:
    with db.session() as session:
        run = session.get(Run, run_id)
        assert run is not None
        steps = session.exec(select(Step).where(Step.run_id == run_id).order_by(col(Step.number))).all()
        calls = [{"name": c.get("name"), "input": c.get("input"), "status": c.get("status")}
                 for s in steps if s.kind == "model" for c in s.tool_calls or []]
        drafts = [str((c["input"] or {}).get("message", "")) for c in calls if c["name"] == "reply_to_customer"]
        ticket = session.get(Ticket, ticket_id) if ticket_id else None
        customers = {c.id: c.name for c in session.exec(select(Customer)).all()}
        own = customers.get(ticket.customer_id) if ticket else None
        notes = session.exec(select(TicketMessage.body).where(TicketMessage.ticket_id == ticket_id,
                                                              TicketMessage.role == "internal")).all() if ticket else []
        sent = session.exec(select(Approval).where(Approval.run_id == run_id, Approval.tool_name == "reply_to_customer",
                                                   col(Approval.status).in_((ApprovalStatus.APPROVED,
                                                                             ApprovalStatus.EDITED)))).all()
        escalation = session.exec(select(Escalation).where(Escalation.run_id == run_id)
                                  .order_by(col(Escalation.id).desc())).first()
        parent = session.get(Ticket, parent_id) if parent_id else None
        contact = session.get(Customer, parent.customer_id) if parent else None
        parent_contact = (contact.contact_name or "").split()[0] if contact and contact.contact_name else None
        return Observed(ticket_id=ticket_id, status=str(run.status), stop_kind=escalation.kind if escalation else None,
                        reason=run.reason, answer=run.answer, summary=run.summary, calls=calls,
                        drafts=drafts, sent=sum(1 for a in sent if not (a.result or {}).get("is_error")),
                        other_customers=sorted(n for n in customers.values() if n != own),
                        internal_notes=list(notes), parent=[n for n in (parent_id, parent_contact) if n],
                        cost_usd=run.cost_usd, tokens=run.total_tokens,
                        input_tokens=run.input_tokens + run.cache_read_tokens + run.cache_write_tokens,
                        output_tokens=run.output_tokens, model_calls=run.steps, triage=run.triage)


class Progress:
    """A one-line progress bar on a terminal (a line per case otherwise)."""

    def __init__(self, total: int, out: TextIO | None):
        self.total, self.done, self.failed, self.out = total, 0, 0, out
        self.lock = threading.Lock()
        self.tty = bool(out is not None and out.isatty())

    def tick(self, name: str, passed: bool) -> None:
        if self.out is None:
            return
        with self.lock:
            self.done += 1
            self.failed += 0 if passed else 1
            width = 30
            filled = int(width * self.done / self.total)
            line = (f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}, {self.failed} failed · "
                    f"{'ok  ' if passed else 'FAIL'} {name}")
            print(("\r" + line[:110].ljust(110)) if self.tty else line, end="" if self.tty else "\n",
                  file=self.out, flush=True)

    def close(self) -> None:
        if self.out is not None and self.tty:
            print(file=self.out, flush=True)
